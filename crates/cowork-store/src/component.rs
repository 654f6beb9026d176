//! `cowork component install <git url>[#ref] [--path sub] [--commit sha] [--allow-unverified]`:
//! an app straight from a git repository into `.cowork/apps/<name>/`. Nothing attests it — no
//! team server signed it — so it is refused unless the person passes `--allow-unverified`, and
//! that override must pin `--commit <sha>` (the exact content asked for, not whatever a branch
//! points at when it is fetched). Its receipt makes `cowork app remove` work as for any install;
//! it never auto-updates.

use crate::audit::{Action, Line};
use crate::error::{Result, StoreError};
use crate::pack::{self, Scope};
use crate::place::Place;
use crate::receipt::{GitSource, Origin, Receipt};
use crate::stage::Stage;
use cowork_wire::hub::ItemKind;
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// What `component install` was asked.
#[derive(Debug, Clone, Default)]
pub struct GitComponent {
    /// `<git url>[#ref]`.
    pub source: String,
    /// A folder of the repository holding the app.
    pub path: Option<String>,
    /// `--commit <sha>`: the exact content to install, which `--allow-unverified` requires.
    pub commit: Option<String>,
    /// Install though nothing about it is attested: only when the person explicitly asks.
    pub allow_unverified: bool,
}

/// What it installed.
#[derive(Debug, Clone)]
pub struct InstalledComponent {
    /// `.cowork/apps/<folder>`.
    pub dir: String,
    /// The app's manifest name.
    pub name: String,
    /// Its manifest's version.
    pub version: String,
    /// The commit installed.
    pub commit: String,
    /// How many files it has.
    pub files: usize,
}

fn git(args: &[&str], cwd: &Path) -> Result<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| StoreError::Program { program: "git".into(), why: e.to_string() })?;
    if !output.status.success() {
        return Err(StoreError::Program {
            program: "git".into(),
            why: format!(
                "`git {}` failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Installs the component `options` names into `place`.
pub fn install(place: &Place, options: &GitComponent) -> Result<InstalledComponent> {
    let line = Line::start(&place.root, &place.workspace, Action::Install, &place.actor);
    let input = json!({ "git": options.source, "path": options.path, "commit": options.commit, "allowUnverified": options.allow_unverified });
    let result = install_inner(place, options);
    match &result {
        Ok(done) => line.finish(
            &done.name,
            Some(&done.version),
            Some(cowork_core::manifest::Kind::App),
            input,
            None,
        ),
        Err(error) => line.finish(
            &options.source,
            None,
            Some(cowork_core::manifest::Kind::App),
            input,
            Some((error.name(), error.to_string())),
        ),
    }
    result
}

fn install_inner(place: &Place, options: &GitComponent) -> Result<InstalledComponent> {
    if !options.allow_unverified {
        return Err(StoreError::Unverified {
            what: options.source.clone(),
            why: "a component from a git repository is never attested (no team server signed it)"
                .into(),
        });
    }
    let Some(commit) = options.commit.clone() else {
        return Err(StoreError::BadSpec {
            spec: options.source.clone(),
            why: "--allow-unverified must pin the exact content: add --commit <sha>".into(),
        });
    };
    if commit.len() < 7 || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(StoreError::BadFlag {
            flag: "--commit",
            value: commit,
            why: "it takes a commit's hex sha (at least 7 digits)".into(),
        });
    }
    let (url, reference) = match options.source.split_once('#') {
        Some((url, reference)) => (url.to_string(), Some(reference.to_string())),
        None => (options.source.clone(), None),
    };
    let work =
        place.root.dir().join("store").join("git").join(hex::encode(rand::random::<[u8; 6]>()));
    std::fs::create_dir_all(&work).map_err(|e| StoreError::io("create", &work, e))?;
    let cleanup = Cleanup(work.clone());
    git(&["init", "-q"], &work)?;
    git(&["remote", "add", "origin", &url], &work)?;
    // The commit itself when the server allows it; else the ref (or every branch) that holds it.
    let fetched = git(&["fetch", "-q", "--depth", "1", "origin", &commit], &work);
    if fetched.is_err() {
        match &reference {
            Some(reference) => git(&["fetch", "-q", "origin", reference], &work)?,
            None => git(&["fetch", "-q", "origin"], &work)?,
        };
    }
    git(&["-c", "advice.detachedHead=false", "checkout", "-q", &commit], &work)?;
    let head = git(&["rev-parse", "HEAD"], &work)?;
    if !head.starts_with(&commit.to_ascii_lowercase()) {
        return Err(StoreError::Unverified {
            what: options.source.clone(),
            why: format!("the checkout is {head}, not {commit}"),
        });
    }
    let source = match &options.path {
        Some(sub) => pack::safe_join(&work, sub.trim_matches('/'))?,
        None => work.clone(),
    };
    let validated = cowork_core::manifest::load(&source, "cowork.json").map_err(|problems| {
        StoreError::Invalid {
            what: options.source.clone(),
            why: format!(
                "it holds no app: {}",
                problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
            ),
        }
    })?;
    let name = validated.manifest.name.clone();
    let listing = pack::pack(&source, Scope::default())?;
    let _held = place.hold(&name)?;
    let target = place.apps_dir().join(&name);
    if target.exists() {
        return Err(StoreError::Exists { path: target });
    }
    let stage = Stage::new(&place.apps_dir(), &name)?;
    for file in &listing.files {
        stage.carry(&source, &file.path)?;
    }
    let receipt = Receipt {
        store: None,
        version: Some(validated.manifest.version.clone()),
        hub: None,
        name: name.clone(),
        kind: ItemKind::WorkspaceComponent,
        pinned: true,
        workspace: place.workspace.clone(),
        dir: Place::dir_of(&name),
        files: listing.files.clone(),
        signed: None,
        verified: false,
        dismissed: None,
        origin: Origin::Git,
        git: Some(GitSource { url, commit: head.clone(), path: options.path.clone() }),
        installed_at: cowork_account::files::now_millis(),
    };
    stage.commit(&place.receipts, receipt, Vec::new())?;
    drop(cleanup);
    Ok(InstalledComponent {
        dir: Place::dir_of(&name),
        name,
        version: validated.manifest.version,
        commit: head,
        files: listing.files.len(),
    })
}

/// Deletes the clone however the install ends.
struct Cleanup(std::path::PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
