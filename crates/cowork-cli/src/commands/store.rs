//! `cowork push`, `cowork app install <team-server>/<app>[@X.Y.Z]`, `app versions`, `app
//! update`, `app unpublish` and `app remove` of a store install: the lifecycle of page 02, done
//! by `cowork-store` against the signed-in account's hub. This module only reads the command
//! line, prints, and maps a `StoreError` to its exit code, name and hint.

use super::account::session;
use crate::cli::{HostArg, PushArgs, TemplateCommand, UpdateChoice};
use crate::exit::{CommandResult, Exit, Failure};
use crate::table;
use cowork_core::discovery::APPS_DIR;
use cowork_core::paths::Root;
use cowork_core::workspace_json;
use cowork_store::audit::Actor;
use cowork_store::hub::HubRemote;
use cowork_store::install::{self, InstallOptions};
use cowork_store::place::Place;
use cowork_store::push::{self, PushOptions};
use cowork_store::remote::Remote;
use cowork_store::update::{self, Choice, Outcome};
use cowork_store::StoreError;
use cowork_wire::hub::HubErrorName;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A store failure as the CLI prints it: not found is exit 3, else 1, named as the hub or the store
/// names it; a bad spec is the command line's own mistake, exit 2 `Usage` as clap's are.
pub(super) fn failure(error: StoreError) -> Failure {
    let mut failure = if matches!(error, StoreError::BadSpec { .. } | StoreError::BadFlag { .. }) {
        Failure::new(Exit::Usage, &error)
    } else {
        let code = if error.is_not_found() { Exit::NotFound } else { Exit::Failed };
        Failure::new(code, &error).named(error.name())
    }
    .caused_by(&error);
    if let Some(hint) = error.hint() {
        failure = failure.hint(hint);
    }
    failure
}

/// Whether `arg` names a store item (`acme/gmail`) rather than a web address: no scheme, and a
/// team server's slug before the slash (a host name has a dot).
pub fn is_spec(arg: &str) -> bool {
    !arg.contains("://")
        && arg.split_once('/').is_some_and(|(slug, _)| !slug.is_empty() && !slug.contains('.'))
}

/// `<team-server>/<name>[@X.Y.Z]` (the store library reads it, as the workbench's routes do).
pub fn parse_spec(spec: &str) -> Result<(String, String, Option<String>), Failure> {
    let spec = cowork_store::spec::parse(spec).map_err(failure)?;
    Ok((spec.slug, spec.name, spec.version))
}

pub(super) fn place(ws: &Path) -> Place {
    let root = Root::from_env();
    let actor = Actor::of(&root, cowork_core::audit::Source::Cli, agent());
    Place::new(&root, ws, actor)
}

/// The agent running this command, when one does (as the audit records it).
fn agent() -> Option<String> {
    std::env::var("COWORK_AGENT").ok().filter(|a| !a.is_empty())
}

fn remote(slug: &str) -> Result<HubRemote, Failure> {
    HubRemote::new(Arc::new(session()), slug).map_err(failure)
}

/// The slugs of the signed-in account's team servers.
async fn known(session: &Arc<cowork_account::Session>) -> Result<Vec<String>, Failure> {
    let list = session
        .call(|hub| async move { hub.team_servers().await })
        .await
        .map_err(|e| super::account::failure("list your team servers", e))?;
    Ok(list.team_servers.into_iter().map(|t| t.slug).collect())
}

/// `cowork push [dir] [--to <ts> [--remember]] [--dry-run] [--json]`.
pub async fn push(args: PushArgs) -> CommandResult {
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| {
            Failure::new(Exit::Failed, format!("failed to read the current folder: {e}"))
        })?,
    };
    let dir = dir.canonicalize().map_err(|e| {
        Failure::new(Exit::NotFound, format!("failed to open {}: {e}", dir.display()))
            .hint("name an app folder (it holds cowork.json) or a workspace")
    })?;
    let (ws, apps) = apps_to_push(&dir)?;
    let session = Arc::new(session());
    let (config, _) = workspace_json::read(&ws);
    if let (Some(to), true) = (&args.to, args.remember) {
        let known = known(&session).await?;
        if !known.contains(to) {
            return Err(failure(StoreError::UnknownTeamServer { slug: to.clone(), known }));
        }
        // Stored even if the push then fails (page 02); --dry-run writes nothing.
        if !args.dry_run {
            let to = to.clone();
            workspace_json::update(&ws, move |object, _| {
                object.insert("publishTo".into(), Value::String(to));
                Ok(())
            })
            .map_err(|e| {
                Failure::new(
                    Exit::Failed,
                    format!(
                        "failed to remember {to:?} as publishTo: {e}",
                        to = args.to.as_deref().unwrap_or_default()
                    ),
                )
            })?;
        }
    }
    let place = place(&ws);
    let mut rows = Vec::new();
    let mut failed = false;
    let mut known_cache: Option<Vec<String>> = None;
    for app_dir in apps {
        let folder = app_dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let rel = Place::dir_of(&folder);
        let receipt = place.receipts.read(&folder).ok().flatten();
        let receipt_store = receipt.as_ref().and_then(|r| r.store.clone());
        let target = match push::choose_target(
            &rel,
            args.to.as_deref(),
            receipt_store.as_deref(),
            config.publish_to.as_deref(),
            &[],
        ) {
            Ok(target) => target,
            Err(StoreError::NoTarget { dir, .. }) => {
                if known_cache.is_none() {
                    known_cache = Some(known(&session).await?);
                }
                let known = known_cache.clone().unwrap_or_default();
                return Err(failure(StoreError::NoTarget { dir, known }));
            }
            Err(error) => return Err(failure(error)),
        };
        let remote = HubRemote::new(session.clone(), &target).map_err(failure)?;
        match push::push(&place, &remote, &app_dir, PushOptions { dry_run: args.dry_run }).await {
            Ok(pushed) => {
                if !args.json {
                    outln!("{rel}: {} → {target}", pushed.row(args.dry_run));
                }
                let mut row = serde_json::to_value(&pushed).unwrap_or_default();
                row["dir"] = rel.clone().into();
                row["teamServer"] = target.clone().into();
                rows.push(row);
            }
            Err(error) => {
                failed = true;
                if !args.json {
                    outln!("{rel}: failed: {error}");
                    if let Some(hint) = error.hint() {
                        eprintln!("hint: {hint}");
                    }
                }
                rows.push(json!({
                    "dir": rel,
                    "teamServer": target,
                    "result": "failed",
                    "error": { "name": error.name(), "message": error.to_string(), "hint": error.hint() },
                }));
            }
        }
    }
    // After a push the running daemon checks for updates (page 02): this machine's other
    // installs of what was just pushed follow at once.
    if !args.dry_run && rows.iter().any(|r| r["result"] != "failed") {
        super::account::tell_daemon().await;
    }
    if args.json {
        outln!("{}", json!({ "ok": !failed, "dryRun": args.dry_run, "apps": rows }));
    }
    Ok(if failed { Exit::Failed } else { Exit::Ok })
}

/// The workspace and the app folders `dir` names: an app folder (inside a workspace's
/// `.cowork/apps/`) or a workspace (every app folder with a cowork.json).
fn apps_to_push(dir: &Path) -> Result<(PathBuf, Vec<PathBuf>), Failure> {
    if dir.join("cowork.json").is_file() {
        let parent = dir.parent().filter(|p| p.ends_with(APPS_DIR));
        let Some(ws) = parent.and_then(|p| p.parent()).and_then(|p| p.parent()) else {
            return Err(Failure::new(
                Exit::Usage,
                format!("failed to push {}: it is not in a workspace's {APPS_DIR}/", dir.display()),
            )
            .hint("move the app into <workspace>/.cowork/apps/<name>/ first"));
        };
        return Ok((ws.to_path_buf(), vec![dir.to_path_buf()]));
    }
    let apps_dir = dir.join(APPS_DIR);
    let mut apps: Vec<PathBuf> = std::fs::read_dir(&apps_dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.join("cowork.json").is_file())
                .collect()
        })
        .unwrap_or_default();
    apps.sort();
    if apps.is_empty() {
        return Err(Failure::new(
            Exit::NotFound,
            format!("failed to push {}: it holds no app (no cowork.json, no {APPS_DIR}/<name>/cowork.json)", dir.display()),
        )
        .hint("run it in an app folder or a workspace, or name one: cowork push .cowork/apps/<name>"));
    }
    Ok((dir.to_path_buf(), apps))
}

/// `cowork app install <team-server>/<app>[@X.Y.Z]`.
pub async fn install(
    ws: &Path,
    spec: &str,
    allow_unverified: bool,
    as_json: bool,
) -> CommandResult {
    let (slug, name, version) = parse_spec(spec)?;
    let remote = remote(&slug)?;
    let place = place(ws);
    let options = InstallOptions { version: version.clone(), allow_unverified };
    let done = install::install(&place, &remote, &name, &options).await.map_err(failure)?;
    if as_json {
        outln!(
            "{}",
            json!({
                "ok": true,
                "dir": done.dir,
                "name": done.name,
                "teamServer": slug,
                "version": done.version,
                "pinned": done.pinned,
                "verified": done.verified,
                "files": done.files,
                "blobs": done.fetched.blobs,
                "bytes": done.fetched.bytes,
            })
        );
        return Ok(Exit::Ok);
    }
    let follows = if done.pinned { "pinned: auto-update leaves it" } else { "follows the store" };
    if !done.verified {
        eprintln!(
            "warning: {slug}/{name}@{} did not verify: installed as --allow-unverified asks",
            done.version
        );
    }
    outln!("Installed {slug}/{name}@{} in {}/ ({follows}).", done.version, done.dir);
    Ok(Exit::Ok)
}

/// `cowork app versions <team-server>/<app>`.
pub async fn versions(ws: &Path, spec: &str, as_json: bool) -> CommandResult {
    let (slug, name, _) = parse_spec(spec)?;
    let remote = remote(&slug)?;
    let item = remote.item(&name).await.map_err(failure)?;
    let place = place(ws);
    // Yours: the version a folder of this workspace has from that store.
    let mine: Vec<(String, String, bool)> = place
        .receipts
        .folders()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|f| place.receipts.read(&f).ok().flatten())
        .filter(|r| r.store.as_deref() == Some(slug.as_str()) && r.name == name)
        .map(|r| (r.dir, r.version.unwrap_or_default(), r.pinned))
        .collect();
    if as_json {
        let installed: Vec<Value> = mine
            .iter()
            .map(|(dir, version, pinned)| json!({ "dir": dir, "version": version, "pinned": pinned }))
            .collect();
        outln!(
            "{}",
            json!({ "item": item.item, "versions": item.versions, "installed": installed })
        );
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = item
        .versions
        .iter()
        .map(|v| {
            let here: Vec<String> = mine
                .iter()
                .filter(|(_, version, _)| *version == v.version)
                .map(|(dir, _, pinned)| format!("{dir}{}", if *pinned { " (pinned)" } else { "" }))
                .collect();
            vec![
                v.version.clone(),
                crate::table::date(v.published_at),
                v.published_by.clone(),
                v.files.to_string(),
                if v.withdrawn_at.is_some() { "withdrawn".into() } else { String::new() },
                if here.is_empty() { String::new() } else { format!("← {}", here.join(", ")) },
            ]
        })
        .collect();
    table::print(&["VERSION", "PUBLISHED (UTC)", "BY", "FILES", "", "HERE"], &rows);
    for (dir, version, _) in &mine {
        if !item.versions.iter().any(|v| &v.version == version && v.withdrawn_at.is_none()) {
            outln!("{dir} is at {version}, which {slug} no longer offers: it keeps working.");
        }
    }
    Ok(Exit::Ok)
}

/// The installed folder `app` names: the folder (`.cowork/apps/gmail`), its basename, or the
/// manifest name of a folder with a receipt.
fn installed_folder(place: &Place, app: &str) -> Option<String> {
    cowork_store::spec::installed_folder(place, app)
}

/// Where the app folder `dir` (`.cowork/apps/gmail`) came from, as `app list` shows it:
/// `local`, or `<team-server>@<version> (pinned|auto)` from its install receipt (no network).
pub fn source(ws: &Path, dir: &str) -> String {
    let place = place(ws);
    let folder = Path::new(dir).file_name().and_then(|n| n.to_str()).unwrap_or_default();
    match place.receipts.read(folder).ok().flatten() {
        Some(r) if r.store.is_some() && r.dir == dir => format!(
            "{}@{} ({})",
            r.store.unwrap_or_default(),
            r.version.unwrap_or_default(),
            if r.pinned { "pinned" } else { "auto" }
        ),
        _ => "local".into(),
    }
}

/// What the team servers say of the apps installed from them: the store's latest version where it
/// is newer than the one installed (page 05: `app list` says whether a newer version is out — a
/// pinned app's too, which the automatic updates leave), and the apps whose team server is gone
/// (deleted, or this account removed from it), each with that team server.
#[derive(Default, serde::Serialize)]
pub struct Looked {
    /// Folder → the newer version out.
    pub newer: std::collections::BTreeMap<String, String>,
    /// Folder → its team server, gone.
    pub gone: std::collections::BTreeMap<String, String>,
}

/// Asks the hub about each app folder of `dirs` installed from a team server, all at once and for
/// a few seconds at most; `Err` says why it could not be asked. Nothing to ask when nobody is
/// signed in.
pub async fn look_up(ws: &Path, dirs: &[String]) -> Result<Looked, String> {
    let place = place(ws);
    let installed: Vec<(String, cowork_store::receipt::Receipt)> = dirs
        .iter()
        .filter_map(|dir| {
            let folder = Path::new(dir).file_name()?.to_str()?;
            let receipt = place.receipts.read(folder).ok().flatten()?;
            (receipt.store.is_some() && &receipt.dir == dir).then(|| (dir.clone(), receipt))
        })
        .collect();
    let session = Arc::new(session());
    if installed.is_empty() || !session.signed_in().is_ok_and(|s| s.is_some()) {
        return Ok(Looked::default());
    }
    let mut asks = tokio::task::JoinSet::new();
    for (dir, receipt) in installed {
        let session = session.clone();
        asks.spawn(async move {
            let store = receipt.store.clone().unwrap_or_default();
            let newer = newer_of(session, &store, &receipt).await;
            (dir, store, newer)
        });
    }
    let looked = async {
        let mut looked = Looked::default();
        let mut unanswered = Vec::new();
        for (dir, store, answer) in asks.join_all().await {
            match answer {
                Ok(Some(latest)) => {
                    looked.newer.insert(dir, latest);
                }
                Ok(None) => {}
                // An item no longer in its store has nothing newer, unless the team server
                // itself is gone for this account: asked below, once per team server.
                Err(error) if maybe_gone(&error) => unanswered.push((dir, store)),
                Err(error) => return Err(error.to_string()),
            }
        }
        let mut members = std::collections::BTreeMap::new();
        for (dir, store) in unanswered {
            if !members.contains_key(&store) {
                members.insert(store.clone(), member_of(&session, &store).await);
            }
            if members[&store] == Some(false) {
                looked.gone.insert(dir, store);
            }
        }
        Ok(looked)
    };
    tokio::time::timeout(std::time::Duration::from_secs(5), looked)
        .await
        .map_err(|_| "the hub did not answer within 5 s".to_string())?
}

/// `cowork app update [<app>] [--replace|--keep-both|--ai-merge|--skip]`.
pub async fn update(
    ws: &Path,
    app: Option<&str>,
    choice: Option<UpdateChoice>,
    allow_unverified: bool,
    as_json: bool,
) -> CommandResult {
    let place = place(ws);
    let session = Arc::new(session());
    let (folders, choice) = match app {
        Some(app) => {
            let folder = installed_folder(&place, app).ok_or_else(|| {
                failure(StoreError::NotInstalled { dir: app.to_string() })
                    .hint(format!("`cowork app list` shows where each app came from; a local app ({app}) is yours"))
            })?;
            let choice = match choice {
                None => Choice::Named,
                Some(UpdateChoice::Replace) => Choice::Replace,
                Some(UpdateChoice::KeepBoth) => Choice::KeepBoth,
                Some(UpdateChoice::AiMerge) => Choice::AiMerge,
                Some(UpdateChoice::Skip) => Choice::Skip,
            };
            (vec![folder], choice)
        }
        // No name: every clean, unpinned update that verifies (as the automatic pass would).
        None => {
            if choice.is_some() {
                return Err(Failure::new(
                    Exit::Usage,
                    "failed to update: --replace, --keep-both, --ai-merge and --skip need an app",
                )
                .hint("name the app: cowork app update <app> --replace"));
            }
            let folders = place.receipts.folders().map_err(failure)?;
            (folders, Choice::Auto)
        }
    };
    let mut rows = Vec::new();
    let mut failed = None;
    for folder in folders {
        let Some(receipt) = place.receipts.read(&folder).ok().flatten() else { continue };
        let Some(store) = receipt.store.clone() else { continue };
        let remote = HubRemote::new(session.clone(), &store).map_err(failure)?;
        let updated = update::update(&place, &remote, &folder, choice, allow_unverified).await;
        // A refusal because the team server is gone (deleted, or this account removed from it)
        // is not the app's failure: it stays exactly as installed.
        let updated = match updated {
            // Unknown (the hub does not say) reports the refusal as it came.
            Err(error)
                if maybe_gone(&error) && member_of(&session, &store).await == Some(false) =>
            {
                let gone = format!(
                    "the team server {store} is gone, or you are no longer one of its members"
                );
                if let Some(app) = app {
                    return Err(Failure::new(Exit::NotFound, format!("failed to update {app}: {gone}"))
                        .hint(format!("it stays as installed and works as it is; `cowork app remove {app}` removes it")));
                }
                if !as_json {
                    outln!("{}: kept as installed: {gone}", receipt.dir);
                }
                rows.push(
                    json!({ "dir": receipt.dir, "outcome": "orphaned", "teamServer": store }),
                );
                continue;
            }
            updated => updated,
        };
        match updated {
            Ok(outcome) => {
                if !as_json {
                    outln!("{}: {}", receipt.dir, said(&outcome));
                }
                let mut row = serde_json::to_value(&outcome).unwrap_or_default();
                row["dir"] = receipt.dir.clone().into();
                row["teamServer"] = store.into();
                rows.push(row);
            }
            // One named app: its failure is the command's.
            Err(error) if app.is_some() => return Err(failure(error)),
            Err(error) => {
                if !as_json {
                    outln!("{}: failed: {error}", receipt.dir);
                }
                rows.push(json!({
                    "dir": receipt.dir,
                    "outcome": "failed",
                    "error": { "name": error.name(), "message": error.to_string() },
                }));
                failed = Some(error);
            }
        }
    }
    if as_json {
        outln!("{}", json!({ "ok": failed.is_none(), "apps": rows }));
    } else if rows.is_empty() {
        outln!("No app here was installed from a team server's store.");
    }
    Ok(if failed.is_some() { Exit::Failed } else { Exit::Ok })
}

/// Whether a refusal may mean the team server itself is gone for this account.
fn maybe_gone(error: &StoreError) -> bool {
    error.is_not_found()
        || matches!(error, StoreError::Account(e) if e.hub_name() == Some(HubErrorName::NotMember))
}

/// The version of `receipt`'s item `store` has, where it is newer than the one installed.
async fn newer_of(
    session: Arc<cowork_account::Session>,
    store: &str,
    receipt: &cowork_store::receipt::Receipt,
) -> Result<Option<String>, StoreError> {
    let latest = HubRemote::new(session, store)?.item(&receipt.name).await?.item.version;
    let installed = receipt.version.as_deref().and_then(cowork_wire::hub::Version::parse);
    let newer = match (cowork_wire::hub::Version::parse(&latest), installed) {
        (Some(latest), Some(installed)) => latest.newer_than(&installed),
        _ => false,
    };
    Ok(newer.then_some(latest))
}

/// Whether the signed-in account is (still) a member of `team_server`; `None` when the hub does
/// not say.
async fn member_of(session: &cowork_account::Session, team_server: &str) -> Option<bool> {
    let list = session.call(|hub| async move { hub.team_servers().await }).await.ok()?;
    Some(list.team_servers.iter().any(|t| t.slug == team_server && t.role.is_some()))
}

/// What an update did, as one line says it.
fn said(outcome: &Outcome) -> String {
    match outcome {
        Outcome::UpToDate { version } => format!("up to date v{version}"),
        // `--replace` at the version installed: the store's files put back over the edits.
        Outcome::Updated { from, to, blobs, .. } if from == to => {
            format!("put the store's v{to} back ({blobs} file{} downloaded)", plural(*blobs as usize))
        }
        Outcome::Updated { from, to, blobs, .. } => {
            format!("updated v{from} → v{to} ({blobs} file{} downloaded)", plural(*blobs as usize))
        }
        Outcome::KeptBoth { copy, version, .. } => {
            format!("kept yours; v{version} is in {copy}/, switched off")
        }
        Outcome::Merged { from, to, .. } => format!("merged your changes into v{to} (from v{from})"),
        Outcome::MergeFailed { why, copy, version, .. } => {
            format!("Claude could not merge ({why}): kept yours; v{version} is in {copy}/, switched off")
        }
        Outcome::Skipped { version } => format!("skipped v{version}"),
        Outcome::Edited { version, changed } => format!(
            "v{version} is out, but you edited {}: choose --replace, --keep-both, --ai-merge or --skip",
            changed.join(", ")
        ),
        Outcome::Pinned { version, latest } => {
            format!("pinned at v{version} (v{latest} is out: `cowork app update <app>` takes it)")
        }
        Outcome::Dismissed { version } => format!("v{version} was dismissed"),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `cowork app remove <app>` of a store install; `None` when `app` is not one (a site app, or a
/// local app: the site remover answers).
pub fn remove(ws: &Path, app: &str, as_json: bool) -> Option<CommandResult> {
    let place = place(ws);
    let folder = installed_folder(&place, app).or_else(|| git_folder(&place, app))?;
    Some(remove_folder(&place, &folder, as_json))
}

/// The folder of a component installed from git (`cowork component install`): no store, but a
/// receipt, so it is removed like any install.
fn git_folder(place: &Place, app: &str) -> Option<String> {
    let base = Path::new(app).file_name()?.to_str()?.to_string();
    let receipt = place.receipts.read(&base).ok().flatten()?;
    receipt.git.is_some().then_some(base)
}

fn remove_folder(place: &Place, folder: &str, as_json: bool) -> CommandResult {
    let removed = cowork_store::remove::remove(place, folder).map_err(failure)?;
    if as_json {
        let kept = (removed.edited.iter().map(|f| (f.as_str(), "you changed it".to_owned())))
            .chain(removed.added.iter().map(|f| (f.as_str(), "you added it".to_owned())))
            .collect();
        let (deleted, missing) = (&removed.deleted, &removed.missing);
        print_removed(&removed.dir, deleted, kept, missing, removed.folder_removed);
        return Ok(Exit::Ok);
    }
    let dir = format!("{}/", removed.dir);
    if removed.folder_removed {
        outln!("Removed {dir} ({} file{}).", removed.deleted.len(), plural(removed.deleted.len()));
    } else {
        outln!(
            "Removed {} file{} from {dir}.",
            removed.deleted.len(),
            plural(removed.deleted.len())
        );
    }
    for file in &removed.edited {
        outln!("Kept {dir}{file}: you changed it.");
    }
    for file in &removed.added {
        outln!("Kept {dir}{file}: you added it.");
    }
    if !removed.edited.is_empty() || !removed.added.is_empty() {
        outln!("What is kept is yours now: delete it yourself when you no longer want it.");
    }
    Ok(Exit::Ok)
}

/// `cowork app unpublish <team-server>/<app>[@X.Y.Z] --yes`.
pub async fn unpublish(spec: &str, yes: bool, as_json: bool) -> CommandResult {
    let (slug, name, version) = parse_spec(spec)?;
    if !yes {
        let what = match &version {
            Some(v) => format!("withdraw {slug}/{name}@{v}"),
            None => format!("delete {slug}/{name} from the store"),
        };
        return Err(Failure::new(Exit::Usage, format!("failed to {what}: it needs --yes"))
            .hint("installed copies keep working; add --yes to confirm"));
    }
    let remote = remote(&slug)?;
    remote.unpublish(&name, version.as_deref()).await.map_err(failure)?;
    if as_json {
        outln!("{}", json!({ "ok": true, "teamServer": slug, "name": name, "version": version }));
    } else {
        match &version {
            Some(v) => outln!("Withdrew {slug}/{name}@{v}: installed copies keep working."),
            None => outln!("Deleted {slug}/{name} from the store: installed copies keep working."),
        }
    }
    Ok(Exit::Ok)
}

/// `cowork template install <team-server>/<name> --name <component> [--dir] [--host]`: the
/// built-in `cowork` store with no hub, any other from the signed-in account's.
pub async fn template(command: TemplateCommand) -> CommandResult {
    let TemplateCommand::Install { template, name: component, dir, host, allow_unverified, json } =
        command;
    let ws = crate::workspace::resolve(dir.as_deref())?;
    let (slug, name, version) = parse_spec(&template)?;
    if version.is_some() {
        return Err(failure(StoreError::BadSpec {
            spec: template,
            why: "a template is scaffolded from its latest version".into(),
        }));
    }
    let options = cowork_store::template::Scaffold {
        component,
        host: host.map(|h| match h {
            HostArg::Desktop => cowork_wire::hub::Host::Desktop,
            HostArg::Web => cowork_wire::hub::Host::Web,
        }),
        allow_unverified,
    };
    let place = place(&ws);
    let done = if slug == cowork_store::builtin::SLUG {
        let builtin = cowork_store::builtin::Builtin::new();
        cowork_store::template::scaffold(&place, &builtin, &name, &options).await
    } else {
        cowork_store::template::scaffold(&place, &remote(&slug)?, &name, &options).await
    }
    .map_err(failure)?;
    warn_missing(&done.missing);
    if json {
        outln!(
            "{}",
            json!({ "ok": true, "dir": done.dir, "subtype": done.subtype, "files": done.files, "missing": done.missing })
        );
    } else {
        outln!(
            "Wrote {}/ from {slug}/{name} ({} file{}).",
            done.dir,
            done.files.len(),
            plural(done.files.len())
        );
    }
    Ok(Exit::Ok)
}

/// `cowork team-server install <team-server>/<item>[@X.Y.Z] [--dir <path>]`: by the item's kind
/// (`cowork_store::item`); a course is subscribed.
pub async fn team_server_install(
    spec: &str,
    dir: Option<&Path>,
    allow_unverified: bool,
    as_json: bool,
) -> CommandResult {
    use cowork_store::item::{self, ItemInstalled};
    let (slug, name, version) = parse_spec(spec)?;
    let remote = remote(&slug)?;
    let card = remote.item(&name).await.map_err(failure)?.item;
    let kind = card.kind;
    if kind == cowork_wire::hub::ItemKind::Course {
        if let Some(v) = &version {
            return Err(Failure::new(
                Exit::Usage,
                format!("failed to subscribe to {slug}/{name}@{v}: a course is followed as it changes, never pinned to a version"),
            )
            .hint(format!("drop @{v}: `cowork team-server install {slug}/{name}`")));
        }
        let session = remote.session().clone();
        let (target, course) = (slug.as_str(), name.as_str());
        session
            .call(|hub| async move { hub.subscribe(target, course).await })
            .await
            .map_err(|e| super::account::failure(&format!("subscribe to {slug}/{name}"), e))?;
        if as_json {
            outln!(
                "{}",
                json!({ "ok": true, "teamServer": slug, "name": name, "type": kind, "subscribed": true })
            );
        } else {
            outln!("Subscribed to the course {slug}/{name}: it is in the Academy.");
        }
        return Ok(Exit::Ok);
    }
    let folder = dir.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    // A workspace, or a workspace template, makes its folder: --dir names where it goes.
    let whole = kind == cowork_wire::hub::ItemKind::Workspace
        || card.subtype == Some(cowork_wire::hub::TemplateSubtype::Workspace);
    if whole {
        std::fs::create_dir_all(&folder).map_err(|e| {
            Failure::new(Exit::Failed, format!("failed to create {}: {e}", folder.display()))
        })?;
    }
    let ws = crate::workspace::resolve(Some(&folder))?;
    let options = InstallOptions { version, allow_unverified };
    let done = item::install(&place(&ws), &remote, &name, kind, &options).await.map_err(failure)?;
    let (dir, version, files, verified) = match &done {
        ItemInstalled::Component(c) => (c.dir.clone(), c.version.clone(), c.files, c.verified),
        ItemInstalled::Workspace { version, files, verified, .. } => {
            (".".to_string(), version.clone(), files.len(), *verified)
        }
        ItemInstalled::Template(t) => (t.dir.clone(), String::new(), t.files.len(), true),
    };
    let missing = match &done {
        ItemInstalled::Template(t) => t.missing.clone(),
        _ => Vec::new(),
    };
    warn_missing(&missing);
    if as_json {
        outln!(
            "{}",
            json!({ "ok": true, "teamServer": slug, "name": name, "type": kind, "dir": dir, "version": version, "files": files, "verified": verified, "missing": missing })
        );
        return Ok(Exit::Ok);
    }
    if !verified {
        eprintln!("warning: {slug}/{name} did not verify: installed as --allow-unverified asks");
    }
    match &done {
        ItemInstalled::Component(c) => {
            let follows =
                if c.pinned { "pinned: auto-update leaves it" } else { "follows the store" };
            outln!("Installed {slug}/{name}@{version} in {dir}/ ({follows}).");
        }
        ItemInstalled::Workspace { .. } => outln!(
            "Installed the workspace {slug}/{name}@{version} into {} ({files} file{}, untracked).",
            ws.display(),
            plural(files)
        ),
        // A workspace template's dir is `.`: the folder it went into says more.
        ItemInstalled::Template(t) if t.dir == "." => outln!(
            "Scaffolded {slug}/{name} into {} ({files} file{}).",
            ws.display(),
            plural(files)
        ),
        ItemInstalled::Template(_) => {
            outln!("Scaffolded {slug}/{name} into {dir}/ ({files} file{}).", plural(files))
        }
    }
    Ok(Exit::Ok)
}

/// The capabilities a scaffolded template uses that could not be installed with it.
fn warn_missing(missing: &[String]) {
    for capability in missing {
        eprintln!("warning: it uses the capability {capability}; install it yourself (until then Manage Workspace › Components lists it as missing)");
    }
}

/// `app remove --json`'s line, one shape for a store install and a site app: the folder, the files
/// deleted, the files kept and why, the files already gone, and whether the folder went too.
pub(super) fn print_removed(
    dir: &str,
    deleted: &[String],
    kept: Vec<(&str, String)>,
    missing: &[String],
    folder_removed: bool,
) {
    let kept: Vec<_> =
        kept.into_iter().map(|(file, why)| json!({ "file": file, "why": why })).collect();
    outln!(
        "{}",
        json!({ "dir": dir, "deleted": deleted, "kept": kept, "missing": missing, "folderRemoved": folder_removed })
    );
}
