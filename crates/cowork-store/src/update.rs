//! Updating an installed app to a newer store version (page 02).
//!
//! A clean app (every installed file as installed) takes the new version; files the person added
//! are carried into it untouched (one the new version brings too, with other content, makes the
//! update an edit: the person's stays, the store's is not installed). An edited app needs one choice: `replace` (the store wins;
//! added files are still never touched), `keep-both` (the new version lands whole in
//! `.cowork/apps/<app>-v1-2-0/`, switched off, pinned; the edited app stays as it is), `ai-merge`
//! (the `claude` CLI merges the person's changes into the new version; when it cannot, both are
//! kept; a file the person deleted stays deleted unless the new version changed it — a rule of
//! Cowork's, not Claude's) or `skip` (that version is dismissed). Keep both and skip dismiss the version: the next
//! one asks again. A named update takes the latest and unpins.

use crate::audit::{Action, Line};
use crate::clean::{self, Check};
use crate::error::{Result, StoreError};
use crate::fetch::{self, Fetched};
use crate::pack::{self, Scope};
use crate::place::Place;
use crate::receipt::{Origin, Receipt};
use crate::remote::Remote;
use crate::resolve::{resolve, Resolved};
use crate::stage::Stage;
use cowork_core::workspace_json;
use cowork_wire::hub::Version;
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// What to do with an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Choice {
    /// An automatic update: a clean app only; an edited one is left alone and reported.
    Auto,
    /// `cowork app update <app>` with no choice: the latest, unpinned; an edited app refuses.
    Named,
    /// The store wins (files the person added are never touched).
    Replace,
    /// The new version whole beside the app, switched off.
    KeepBoth,
    /// Claude merges; both are kept when it cannot.
    AiMerge,
    /// Dismiss that version.
    Skip,
}

/// What an update did: one type with what the CLI's `--json` and the daemon's route answer.
pub use cowork_wire::store::UpdateOutcome as Outcome;

/// Updates the installed app folder `folder` from `remote` with `choice`.
pub async fn update<R: Remote>(
    place: &Place,
    remote: &R,
    folder: &str,
    choice: Choice,
    allow_unverified: bool,
) -> Result<Outcome> {
    let line = Line::start(&place.root, &place.workspace, Action::Update, &place.actor);
    let result = update_inner(place, remote, folder, choice, allow_unverified).await;
    let (name, version) = match place.receipts.read(folder).ok().flatten() {
        Some(r) => (r.name, r.version),
        None => (folder.to_string(), None),
    };
    let input = json!({ "app": Place::dir_of(folder), "choice": choice });
    match &result {
        // Nothing happened on disk: no line (an automatic pass checks every few minutes).
        Ok(outcome) if !outcome.changed_files() && !matches!(outcome, Outcome::Skipped { .. }) => {}
        Ok(outcome) => {
            let mut input = input;
            input["outcome"] = serde_json::to_value(outcome).unwrap_or_default();
            line.finish_app(&name, version.as_deref(), input, &result)
        }
        Err(_) => line.finish_app(&name, version.as_deref(), input, &result),
    }
    result
}

async fn update_inner<R: Remote>(
    place: &Place,
    remote: &R,
    folder: &str,
    choice: Choice,
    allow_unverified: bool,
) -> Result<Outcome> {
    let _held = place.hold(folder)?;
    let dir = Place::dir_of(folder);
    let receipt = place
        .receipts
        .read(folder)?
        .filter(|r| r.store.is_some())
        .ok_or_else(|| StoreError::NotInstalled { dir: dir.clone() })?;
    let installed = receipt.version.clone().unwrap_or_default();
    let latest = remote.item(&receipt.name).await?.item.version;
    let newer = match (Version::parse(&latest), Version::parse(&installed)) {
        (Some(latest), Some(installed)) => latest.newer_than(&installed),
        _ => latest != installed,
    };
    if choice == Choice::Auto {
        if receipt.pinned && newer {
            return Ok(Outcome::Pinned { version: installed, latest });
        }
        if receipt.dismissed.as_deref() == Some(latest.as_str()) {
            return Ok(Outcome::Dismissed { version: latest });
        }
    }
    let same = latest == installed;
    // Same version: a named update only unpins; `--replace` still puts the store's files back.
    if same && !matches!(choice, Choice::Replace | Choice::KeepBoth) {
        if choice != Choice::Auto && receipt.pinned {
            let mut receipt = receipt;
            receipt.pinned = false;
            place.receipts.write(folder, &receipt)?;
        }
        return Ok(Outcome::UpToDate { version: installed });
    }
    if !newer && !same && choice == Choice::Auto {
        return Ok(Outcome::UpToDate { version: installed });
    }
    let resolved = resolve(place, remote, &receipt.name, Some(&latest), allow_unverified).await?;
    apply(place, remote, folder, receipt, resolved, choice, false).await
}

/// Takes `resolved` into app folder `folder` (whose lock the caller holds), as `choice` says;
/// `pinned` is the receipt's pin afterwards.
pub async fn apply<R: Remote>(
    place: &Place,
    remote: &R,
    folder: &str,
    mut receipt: Receipt,
    resolved: Resolved,
    choice: Choice,
    pinned: bool,
) -> Result<Outcome> {
    let from = receipt.version.clone().unwrap_or_default();
    let to = resolved.manifest.version.clone();
    let mut check = clean::check(&place.receipts, folder, &receipt)?;
    let app_dir = place.workspace.join(&receipt.dir);
    // A file the person added where the new version brings one of its own: an update never
    // touches it, so theirs stays and the store's is not installed. That is an edit of the new
    // version — it asks for a choice, as a changed file does; it used to go through silently, the
    // receipt claiming the store's file, so that the next `--replace` overwrote the person's.
    let shadowed = shadowed(&app_dir, &check.added, &resolved);
    check.changed.extend(shadowed.iter().cloned());
    // `--replace` at the version installed puts the store's files back: nothing to put back on a
    // clean app.
    if from == to && choice == Choice::Replace && check.clean() {
        if receipt.pinned != pinned {
            receipt.pinned = pinned;
            place.receipts.write(folder, &receipt)?;
        }
        return Ok(Outcome::UpToDate { version: to });
    }
    match choice {
        Choice::Skip => {
            receipt.dismissed = Some(to.clone());
            place.receipts.write(folder, &receipt)?;
            return Ok(Outcome::Skipped { version: to });
        }
        Choice::KeepBoth => return keep_both(place, remote, folder, receipt, &resolved).await,
        Choice::Auto if !check.clean() => {
            return Ok(Outcome::Edited { version: to, changed: check.edited() });
        }
        Choice::Named if !check.clean() => {
            return Err(StoreError::Edited { dir: receipt.dir.clone(), changed: check.edited() });
        }
        Choice::AiMerge if !check.clean() => {
            return ai_merge(place, remote, folder, receipt, &resolved, &check).await;
        }
        _ => {}
    }
    let fetched = fetch::ensure(
        remote,
        &place.cache,
        &resolved.label(remote.slug()),
        &resolved.manifest.files,
    )
    .await?;
    let stage = Stage::new(&place.apps_dir(), folder)?;
    stage.fill(&place.cache, &resolved.manifest.files)?;
    for added in &check.added {
        stage.carry(&app_dir, added)?;
    }
    let mut next = resolved.receipt(place, remote, folder, pinned, receipt.origin);
    next.installed_at = receipt.installed_at;
    // What the store did not install is not claimed: a shadowed file stays the person's.
    next.files.retain(|file| !shadowed.contains(&file.path));
    stage.commit(&place.receipts, next, check.added.clone())?;
    Ok(Outcome::Updated { from, to, blobs: fetched.blobs as u64, bytes: fetched.bytes })
}

/// The files of `added` (the person's, in `app_dir`) that `resolved` brings too, with other content.
fn shadowed(app_dir: &Path, added: &[String], resolved: &Resolved) -> Vec<String> {
    added
        .iter()
        .filter(|path| {
            resolved.manifest.files.iter().any(|file| {
                &&file.path == path
                    && pack::safe_join(app_dir, path)
                        .and_then(|p| pack::hash_file(&p))
                        .map_or(true, |(_, sha)| sha != file.sha256)
            })
        })
        .cloned()
        .collect()
}

/// The Keep-both copy's folder of `folder` at `version`: `gmail-v1-2-0`.
pub fn keep_both_folder(folder: &str, version: &str) -> String {
    match Version::parse(version) {
        Some(v) => format!("{folder}-v{}-{}-{}", v.major, v.minor, v.patch),
        None => format!("{folder}-v{}", version.replace(['.', '+'], "-")),
    }
}

async fn keep_both<R: Remote>(
    place: &Place,
    remote: &R,
    folder: &str,
    mut receipt: Receipt,
    resolved: &Resolved,
) -> Result<Outcome> {
    let (copy, fetched) = put_copy(place, remote, folder, resolved, None).await?;
    receipt.dismissed = Some(resolved.manifest.version.clone());
    place.receipts.write(folder, &receipt)?;
    Ok(Outcome::KeptBoth {
        copy: Place::dir_of(&copy),
        version: resolved.manifest.version.clone(),
        blobs: fetched.blobs as u64,
        bytes: fetched.bytes,
    })
}

/// Puts `resolved` whole in the Keep-both folder beside `folder`, switched off before it
/// appears; `from` is a folder to take the files from instead of the blob cache.
async fn put_copy<R: Remote>(
    place: &Place,
    remote: &R,
    folder: &str,
    resolved: &Resolved,
    from: Option<&Path>,
) -> Result<(String, Fetched)> {
    let copy = keep_both_folder(folder, &resolved.manifest.version);
    let _held = place.hold(&copy)?;
    let target = place.apps_dir().join(&copy);
    if target.exists() {
        return Err(StoreError::Exists { path: target });
    }
    let fetched = fetch::ensure(
        remote,
        &place.cache,
        &resolved.label(remote.slug()),
        &resolved.manifest.files,
    )
    .await?;
    // Switched off before it exists: its routines and rail icon never take over unasked.
    workspace_json::set_app_disabled(&place.workspace, &Place::dir_of(&copy), true).map_err(
        |e| StoreError::io("switch off", place.apps_dir().join(&copy), std::io::Error::other(e)),
    )?;
    let stage = Stage::new(&place.apps_dir(), &copy)?;
    match from {
        None => stage.fill(&place.cache, &resolved.manifest.files)?,
        Some(dir) => {
            let (files, _) = pack::walk(dir, Scope::default())?;
            for (rel, _) in files {
                stage.carry(dir, &rel)?;
            }
        }
    }
    let receipt = resolved.receipt(place, remote, &copy, true, Origin::Install);
    stage.commit(&place.receipts, receipt, Vec::new())?;
    Ok((copy, fetched))
}

/// How long Claude may take to merge.
const MERGE_TIMEOUT: Duration = Duration::from_secs(600);

/// The `claude` CLI merges the person's changes (base → mine) into the new version (theirs),
/// writing the result in `merged/` (a copy of theirs to start from). A merge that does not come
/// back as a valid app of the same name keeps both instead.
async fn ai_merge<R: Remote>(
    place: &Place,
    remote: &R,
    folder: &str,
    receipt: Receipt,
    resolved: &Resolved,
    check: &Check,
) -> Result<Outcome> {
    let from = receipt.version.clone().unwrap_or_default();
    let to = resolved.manifest.version.clone();
    let fetched = fetch::ensure(
        remote,
        &place.cache,
        &resolved.label(remote.slug()),
        &resolved.manifest.files,
    )
    .await?;
    let work = place
        .root
        .dir()
        .join("store")
        .join("merge")
        .join(format!("{folder}-{}", hex::encode(rand::random::<[u8; 4]>())));
    let merged = merge_in(place, folder, &receipt, resolved, check, &work).await;
    let outcome = match merged {
        Ok(merged_dir) => {
            let app_dir = place.workspace.join(&receipt.dir);
            let stage = Stage::new(&place.apps_dir(), folder)?;
            let (files, _) = pack::walk(&merged_dir, Scope::default())?;
            for (rel, _) in &files {
                stage.carry(&merged_dir, rel)?;
            }
            // Files the person added are theirs, merged or not.
            let merged_paths: Vec<&String> = files.iter().map(|(p, _)| p).collect();
            let missing: Vec<String> =
                check.added.iter().filter(|a| !merged_paths.contains(a)).cloned().collect();
            for added in &missing {
                stage.carry(&app_dir, added)?;
            }
            let mut next = resolved.receipt(place, remote, folder, false, receipt.origin);
            next.installed_at = receipt.installed_at;
            stage.commit(&place.receipts, next, missing)?;
            Outcome::Merged { from, to, blobs: fetched.blobs as u64, bytes: fetched.bytes }
        }
        Err(why) => {
            tracing::info!(%why, "Claude did not merge: both versions are kept");
            match keep_both(place, remote, folder, receipt, resolved).await? {
                Outcome::KeptBoth { copy, version, blobs, bytes } => {
                    Outcome::MergeFailed { why, copy, version, blobs, bytes }
                }
                other => other,
            }
        }
    };
    let _ = std::fs::remove_dir_all(&work);
    Ok(outcome)
}

/// Lays out base / mine / theirs / merged in `work` and runs `claude` there; the merged folder
/// when it holds an app of the same name.
async fn merge_in(
    place: &Place,
    folder: &str,
    receipt: &Receipt,
    resolved: &Resolved,
    check: &Check,
    work: &Path,
) -> std::result::Result<std::path::PathBuf, String> {
    let err = |e: StoreError| e.to_string();
    let (base, mine, theirs, merged) =
        (work.join("base"), work.join("mine"), work.join("theirs"), work.join("merged"));
    for dir in [&base, &mine, &theirs, &merged] {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("failed to create {}: {e}", dir.display()))?;
    }
    // Base: the installed version, from the cache (an evicted blob leaves that file out).
    for file in &receipt.files {
        if place.cache.has(file) {
            let to = pack::safe_join(&base, &file.path).map_err(err)?;
            place.cache.copy_to(file, &to).map_err(err)?;
        }
    }
    let app_dir = place.workspace.join(&receipt.dir);
    let (files, _) = pack::walk(&app_dir, Scope::default()).map_err(err)?;
    for (rel, _) in &files {
        let to = pack::safe_join(&mine, rel).map_err(err)?;
        if let Some(parent) = to.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::copy(app_dir.join(rel), &to).map_err(|e| format!("failed to copy {rel}: {e}"))?;
    }
    for file in &resolved.manifest.files {
        for dir in [&theirs, &merged] {
            let to = pack::safe_join(dir, &file.path).map_err(err)?;
            place.cache.copy_to(file, &to).map_err(err)?;
        }
    }
    // The person's deletions, decided here rather than by Claude (whose tools cannot delete): a
    // file they deleted stays deleted when the new version did not change it; one the new
    // version changed comes back (its change is news the person has not seen).
    let dropped = kept_deletions(receipt, resolved, check);
    for rel in &dropped {
        let path = pack::safe_join(&merged, rel).map_err(err)?;
        std::fs::remove_file(&path).map_err(|e| format!("failed to delete {rel}: {e}"))?;
    }
    // Nothing but deletions: the rule above is the whole merge.
    if check.changed.is_empty() && check.added.is_empty() {
        return Ok(merged);
    }
    let prompt = format!(
        "Merge an app update. In this folder: base/ is version {base_v} of the Cowork app {name} as it was installed, \
mine/ is the person's copy (they changed: {changed}; they added: {added}; they deleted: {deleted}), theirs/ is the new version {new_v}. \
merged/ starts as a copy of theirs/ without the files they deleted that the new version did not change. Apply the person's changes (the difference between base/ and mine/, and the files they added) \
to merged/ so it keeps both the new version's changes and theirs. Edit only files inside merged/. \
If the changes cannot be merged safely, exit without changing merged/ and say why.",
        base_v = receipt.version.as_deref().unwrap_or("?"),
        name = receipt.name,
        changed = if check.changed.is_empty() { "nothing".into() } else { check.changed.join(", ") },
        added = if check.added.is_empty() { "nothing".into() } else { check.added.join(", ") },
        deleted = if check.missing.is_empty() { "nothing".into() } else { check.missing.join(", ") },
        new_v = resolved.manifest.version,
    );
    let run = tokio::process::Command::new("claude")
        .arg("-p")
        .arg(&prompt)
        .args(["--permission-mode", "acceptEdits", "--allowedTools", "Read,Write,Edit,Glob,Grep"])
        .current_dir(work)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = match tokio::time::timeout(MERGE_TIMEOUT, run).await {
        Err(_) => {
            return Err(format!("claude did not finish within {} s", MERGE_TIMEOUT.as_secs()))
        }
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("the `claude` CLI is not installed".into())
        }
        Ok(Err(e)) => return Err(format!("claude did not start: {e}")),
        Ok(Ok(output)) => output,
    };
    // `-p` prints its answer (or an "API Error: …") on stdout; stderr holds the CLI's own errors.
    let said = last_words(&output.stdout, &output.stderr);
    if !output.status.success() {
        return Err(format!("claude ended with {}: {said}", output.status));
    }
    // A model that declines leaves merged/ as theirs/: taking that would drop the person's edits.
    if same_files(&merged, &theirs, &dropped)? {
        return Err(format!("claude changed nothing: {said}"));
    }
    let manifest = std::fs::read(merged.join("cowork.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    let name = manifest.as_ref().and_then(|m| m["name"].as_str()).unwrap_or_default();
    if name != receipt.name {
        return Err(format!("the merged cowork.json is not {}'s any more", receipt.name));
    }
    let _ = folder;
    Ok(merged)
}

/// What Claude said last, clipped for one line: stdout's last non-empty line, else stderr's.
fn last_words(stdout: &[u8], stderr: &[u8]) -> String {
    let last = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(String::from)
    };
    let line = last(stdout).or_else(|| last(stderr)).unwrap_or_else(|| "it said nothing".into());
    match line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// The files the person deleted that the new version has as the installed one had them: the
/// merge leaves them out.
fn kept_deletions(receipt: &Receipt, resolved: &Resolved, check: &Check) -> Vec<String> {
    let sha = |files: &[cowork_wire::hub::ManifestFile], rel: &str| {
        files.iter().find(|f| f.path == rel).map(|f| f.sha256.clone())
    };
    check
        .missing
        .iter()
        .filter(|rel| {
            let new = sha(&resolved.manifest.files, rel);
            new.is_some() && new == sha(&receipt.files, rel)
        })
        .cloned()
        .collect()
}

/// Whether folder `a` holds the paths of `b` but `skip`, with the same bytes.
fn same_files(a: &Path, b: &Path, skip: &[String]) -> std::result::Result<bool, String> {
    let list = |dir: &Path| {
        pack::walk(dir, Scope::default())
            .map(|(files, _)| files.into_iter().map(|(rel, _)| rel).collect::<Vec<_>>())
            .map_err(|e| e.to_string())
    };
    let (left, mut right) = (list(a)?, list(b)?);
    right.retain(|rel| !skip.contains(rel));
    if left != right {
        return Ok(false);
    }
    Ok(left.iter().all(|rel| {
        matches!((std::fs::read(a.join(rel)), std::fs::read(b.join(rel))), (Ok(x), Ok(y)) if x == y)
    }))
}
