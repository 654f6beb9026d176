//! Preparing a routine's files to run: the entry and every sibling it imports, transpiled to ES
//! modules in a mirror of the app folder under `.cowork/local/routines/<app folder>/`.
//!
//! The mirror lives inside the workspace so that bare imports (`zod`) still resolve from the
//! workspace's `node_modules`, and the mirror gets a `node_modules` link to the app folder's own
//! when it has one, so packages installed in the app resolve exactly as they would from the app
//! folder. Each module keeps its name with `.mjs` added (`list.ts` → `list.ts.mjs`, so `a.ts` and
//! `a.js` never collide), and relative imports are rewritten to those names; a `.json` sibling is
//! copied as it is. As in TypeScript, `./x.js` reaches `x.ts` (and `./x.mjs` `x.mts`) when only the
//! TypeScript file exists. Transpiling is cached by content hash, so an unchanged file costs a
//! hash; an edited one is picked up on the next run.
//!
//! A routine run again with none of its files changed is not staged again at all ([`fresh`]): the
//! files a staging read and wrote are remembered by their stamps (inode, size, modification and
//! change times), and while every stamp is the same, the mirror is what staging would write. That
//! takes the reads, the hashes and the cache lookups (~45 system calls) off every such run's path.

use cowork_core::manifest::stays_inside;
use cowork_transpile::{Cache, Flavor, Import};
use parking_lot::Mutex;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Extensions a routine file or a sibling module may have, in resolution order.
const EXTENSIONS: [&str; 4] = ["ts", "mts", "js", "mjs"];
/// The JavaScript extension a TypeScript import names, and the TypeScript file it then means.
const TS_FOR_JS: [(&str, &str); 2] = [("js", "ts"), ("mjs", "mts")];

/// A routine's files could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// A file of the app could not be read.
    #[error("failed to read {file}: {source}")]
    Read { file: String, source: std::io::Error },
    /// The transpiler refused a file (syntax, duplicate declarations, a refused import).
    #[error(transparent)]
    Transpile(#[from] cowork_transpile::TranspileError),
    /// The mirror could not be written.
    #[error("failed to write the prepared routine {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    /// The routine file resolves outside its app folder (a symlink).
    #[error("refused to run {file}: it leads outside the app folder (a symlink); a routine runs only the app's own files")]
    Outside { file: String },
    /// The routine file was deleted or renamed after the manifest was read.
    #[error("{file} no longer exists in the app folder: restore it, or point cowork.json at the routine's new file")]
    Missing { file: String },
}

/// Transpiles `entry` (relative to `app_dir`) and its sibling imports into `out_dir`; returns the
/// mirror path of the entry.
pub fn stage(
    cache: &Cache,
    app_dir: &Path,
    entry: &str,
    out_dir: &Path,
) -> Result<PathBuf, StageError> {
    staging(cache, app_dir, entry, out_dir, SystemTime::now)
}

/// [`stage`], with the clock [`remember`] reads at its end.
fn staging(
    cache: &Cache,
    app_dir: &Path,
    entry: &str,
    out_dir: &Path,
    now: fn() -> SystemTime,
) -> Result<PathBuf, StageError> {
    // The registry dropped such a file already; checked again because it may have changed since.
    if !app_dir.join(entry).exists() {
        return Err(StageError::Missing { file: entry.to_string() });
    }
    if !stays_inside(app_dir, entry) {
        return Err(StageError::Outside { file: entry.to_string() });
    }
    link_packages(app_dir, out_dir)?;
    let mut queue = VecDeque::from([entry.to_string()]);
    let mut seen = BTreeSet::from([entry.to_string()]);
    // Every file this staging depends on: what it read, what it wrote, and the packages link.
    let mut files =
        vec![(app_dir.join("node_modules"), false), (out_dir.join("node_modules"), false)];
    while let Some(rel) = queue.pop_front() {
        let source_path = app_dir.join(&rel);
        let source = std::fs::read_to_string(&source_path)
            .map_err(|source| StageError::Read { file: rel.clone(), source })?;
        // Its folder too: a sibling made there can change what an import resolves to.
        if let Some(folder) = source_path.parent() {
            files.push((folder.to_path_buf(), true));
        }
        files.push((source_path, true));
        if is_json(&rel) {
            // Loaded by the runtime itself (`with { type: "json" }`): staged under its own name.
            write_if_changed(out_dir, &out_dir.join(&rel), &source)?;
            files.push((out_dir.join(&rel), true));
            continue;
        }
        let importer_dir = parent_of(&rel);
        let mut found = Vec::new();
        let mut resolve = |import: &Import| -> Result<Option<String>, String> {
            let spec = import.specifier.as_str();
            if !(spec.starts_with("./") || spec.starts_with("../")) {
                return Ok(None);
            }
            let target = resolve_sibling(app_dir, &importer_dir, spec)?;
            let staged = if is_json(&target) { target.clone() } else { format!("{target}.mjs") };
            found.push(target);
            Ok(Some(relative_specifier(&importer_dir, &staged)))
        };
        let output = cache.transpile(&source, &rel, Flavor::Routine, &mut resolve)?;
        for dep in found {
            if seen.insert(dep.clone()) {
                queue.push_back(dep);
            }
        }
        write_if_changed(out_dir, &out_dir.join(format!("{rel}.mjs")), &output.code)?;
        files.push((out_dir.join(format!("{rel}.mjs")), true));
    }
    let staged = out_dir.join(format!("{entry}.mjs"));
    files.sort();
    files.dedup();
    remember(app_dir, entry, out_dir, files, &staged, now());
    Ok(staged)
}

/// A file's stamp: changed content, a replaced file or a link made elsewhere changes it.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<SystemTime>,
    changed: (i64, i64),
}

/// `path`'s stamp (of the file it leads to when `follow`, else of the entry itself); `None` when
/// there is nothing there.
#[cfg(unix)]
fn stamp(path: &Path, follow: bool) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let meta =
        if follow { std::fs::metadata(path) } else { std::fs::symlink_metadata(path) }.ok()?;
    Some(Stamp {
        dev: meta.dev(),
        ino: meta.ino(),
        len: meta.len(),
        modified: meta.modified().ok(),
        changed: (meta.ctime(), meta.ctime_nsec()),
    })
}

/// Elsewhere no stamp is taken: nothing is remembered ([`remember`]), every run stages.
#[cfg(not(unix))]
fn stamp(_path: &Path, _follow: bool) -> Option<Stamp> {
    None
}

/// A staging's files and their stamps, and the entry's mirror path.
struct Staged {
    files: Vec<(PathBuf, bool, Option<Stamp>)>,
    entry: PathBuf,
}

type StagedKey = (PathBuf, String, PathBuf);

/// What each routine's last staging depended on, by app folder, entry and mirror.
static STAGED: Mutex<Option<HashMap<StagedKey, Staged>>> = Mutex::new(None);

/// How old every file of a staging must be for it to be remembered. A file written within a
/// clock tick of its stamp could be written again with the same times (file systems keep them
/// to a tick, a few ms; some to 1 s or 2 s); one older than this gets newer times at any write.
const SETTLED: Duration = Duration::from_secs(3);

/// Remembers a staging that ended at `now`, unless one of its files is too new to trust its
/// stamp ([`SETTLED`]): the next run stages again then.
fn remember(
    app_dir: &Path,
    entry: &str,
    out_dir: &Path,
    files: Vec<(PathBuf, bool)>,
    staged: &Path,
    now: SystemTime,
) {
    if cfg!(not(unix)) {
        return;
    }
    let key = (app_dir.to_path_buf(), entry.to_string(), out_dir.to_path_buf());
    let files: Vec<(PathBuf, bool, Option<Stamp>)> = files
        .into_iter()
        .map(|(path, follow)| {
            let stamp = stamp(&path, follow);
            (path, follow, stamp)
        })
        .collect();
    let settled = files.iter().all(|(_, _, stamp)| {
        stamp.is_none_or(|s| {
            let changed = SystemTime::UNIX_EPOCH
                + Duration::new(
                    s.changed.0.max(0) as u64,
                    s.changed.1.clamp(0, 999_999_999) as u32,
                );
            let newest = s.modified.map_or(changed, |m| m.max(changed));
            newest + SETTLED < now
        })
    });
    let mut memo = STAGED.lock();
    let memo = memo.get_or_insert_with(HashMap::new);
    if settled {
        memo.insert(key, Staged { files, entry: staged.to_path_buf() });
    } else {
        memo.remove(&key);
    }
}

/// The entry's mirror path when a staging of it is remembered and none of its files changed
/// since: then staging again would read and write nothing new.
pub(crate) fn fresh(app_dir: &Path, entry: &str, out_dir: &Path) -> Option<PathBuf> {
    let key = (app_dir.to_path_buf(), entry.to_string(), out_dir.to_path_buf());
    let memo = STAGED.lock();
    let staged = memo.as_ref()?.get(&key)?;
    staged
        .files
        .iter()
        .all(|(path, follow, was)| stamp(path, *follow) == *was)
        .then(|| staged.entry.clone())
}

fn is_json(rel: &str) -> bool {
    rel.ends_with(".json")
}

/// Writes a mirror file unless it holds `text` already (an unchanged run rewrites nothing), never
/// through a link in a folder of the mirror.
fn write_if_changed(out_dir: &Path, path: &Path, text: &str) -> Result<(), StageError> {
    if std::fs::read(path).ok().as_deref() != Some(text.as_bytes()) {
        cowork_core::fs_atomic::write_inside(out_dir, path, text.as_bytes(), false)
            .map_err(|source| StageError::Write { path: path.to_path_buf(), source })?;
    }
    Ok(())
}

/// Points `<mirror>/node_modules` at the app folder's `node_modules`, so a package installed in
/// the app resolves from the staged modules as it would from the app; a stale link goes when the
/// app has none. Only a real folder inside the app is linked, never a symlink leading elsewhere.
fn link_packages(app_dir: &Path, out_dir: &Path) -> Result<(), StageError> {
    let packages = app_dir.join("node_modules");
    let link = out_dir.join("node_modules");
    let wanted = std::fs::symlink_metadata(&packages).is_ok_and(|m| m.is_dir());
    let current = std::fs::read_link(&link).ok();
    if wanted && current.as_deref() == Some(packages.as_path()) {
        return Ok(());
    }
    let failed = |source| StageError::Write { path: link.clone(), source };
    if current.is_some() {
        std::fs::remove_file(&link).map_err(failed)?;
    }
    if wanted {
        std::fs::create_dir_all(out_dir).map_err(failed)?;
        symlink_dir(&packages, &link).map_err(failed)?;
    }
    Ok(())
}

#[cfg(unix)]
fn symlink_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

fn parent_of(rel: &str) -> String {
    rel.rsplit_once('/').map(|(dir, _)| dir.to_string()).unwrap_or_default()
}

/// Resolves `./x` from `importer_dir` to an existing file of the app, staying inside the folder.
fn resolve_sibling(app_dir: &Path, importer_dir: &str, spec: &str) -> Result<String, String> {
    let mut parts: Vec<String> =
        importer_dir.split('/').filter(|p| !p.is_empty()).map(String::from).collect();
    for component in Path::new(spec).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(format!("\"{spec}\" leaves the app folder: a routine may import only files inside its own app"));
                }
            }
            Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            _ => return Err(format!("\"{spec}\" is not a relative path inside the app folder")),
        }
    }
    let base = parts.join("/");
    let ext = Path::new(&base).extension().and_then(|e| e.to_str()).unwrap_or_default();
    let mut candidates = Vec::new();
    if ext == "json" || EXTENSIONS.contains(&ext) {
        candidates.push(base.clone());
    }
    if let Some((_, ts)) = TS_FOR_JS.iter().find(|(js, _)| *js == ext) {
        candidates.push(format!("{}.{ts}", &base[..base.len() - ext.len() - 1]));
    }
    candidates.extend(EXTENSIONS.iter().map(|ext| format!("{base}.{ext}")));
    candidates.extend(EXTENSIONS.iter().map(|ext| format!("{base}/index.{ext}")));
    for candidate in candidates {
        if app_dir.join(&candidate).is_file() {
            // A symlink pointing out of the app would escape it just as `..` does.
            if !stays_inside(app_dir, &candidate) {
                return Err(format!("\"{spec}\" resolves outside the app folder (a symlink)"));
            }
            return Ok(candidate);
        }
    }
    Err(format!("\"{spec}\" was not found in the app folder (tried it as written, .ts, .mts, .js, .mjs and index files)"))
}

/// The specifier that reaches `to` (relative to the mirror root) from a module in `from_dir`.
fn relative_specifier(from_dir: &str, to: &str) -> String {
    let from: Vec<&str> = from_dir.split('/').filter(|p| !p.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from.iter().zip(&to_parts).take_while(|(a, b)| a == b).count();
    let ups = from.len() - common;
    let rest = to_parts[common..].join("/");
    if ups == 0 {
        format!("./{rest}")
    } else {
        format!("{}{rest}", "../".repeat(ups))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifiers_between_mirror_files() {
        assert_eq!(relative_specifier("", "helper.ts.mjs"), "./helper.ts.mjs");
        assert_eq!(relative_specifier("lib", "helper.ts.mjs"), "../helper.ts.mjs");
        assert_eq!(relative_specifier("lib/a", "lib/b/c.ts.mjs"), "../b/c.ts.mjs");
        assert_eq!(relative_specifier("", "lib/x.js.mjs"), "./lib/x.js.mjs");
    }

    #[test]
    fn siblings_resolve_inside_the_app_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/util.ts"), "").unwrap();
        std::fs::write(dir.path().join("helper.js"), "").unwrap();
        assert_eq!(resolve_sibling(dir.path(), "", "./lib/util").unwrap(), "lib/util.ts");
        assert_eq!(resolve_sibling(dir.path(), "lib", "../helper").unwrap(), "helper.js");
        assert!(resolve_sibling(dir.path(), "", "./lib").unwrap_err().contains("not found"));
        assert!(resolve_sibling(dir.path(), "", "../other/x")
            .unwrap_err()
            .contains("leaves the app folder"));
    }

    #[test]
    fn a_js_specifier_reaches_the_typescript_file_and_json_is_found_as_written() {
        let dir = tempfile::tempdir().unwrap();
        for file in ["twice.ts", "both.ts", "both.js", "mod.mts", "config.json"] {
            std::fs::write(dir.path().join(file), "").unwrap();
        }
        assert_eq!(resolve_sibling(dir.path(), "", "./twice.js").unwrap(), "twice.ts");
        assert_eq!(
            resolve_sibling(dir.path(), "", "./both.js").unwrap(),
            "both.js",
            "the file named wins when it exists"
        );
        assert_eq!(resolve_sibling(dir.path(), "", "./mod.mjs").unwrap(), "mod.mts");
        assert_eq!(resolve_sibling(dir.path(), "", "./config.json").unwrap(), "config.json");
    }

    #[test]
    fn an_entry_deleted_since_the_manifest_was_read_is_named_missing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let error = stage(&cache, dir.path(), "gone.ts", &dir.path().join("mirror")).unwrap_err();
        assert_eq!(error.to_string(), "gone.ts no longer exists in the app folder: restore it, or point cowork.json at the routine's new file");
    }

    #[test]
    fn the_mirror_links_the_apps_packages_and_drops_the_link_with_them() {
        let dir = tempfile::tempdir().unwrap();
        let (app, mirror) = (dir.path().join("app"), dir.path().join("mirror"));
        std::fs::create_dir_all(app.join("node_modules")).unwrap();
        std::fs::write(app.join("run.ts"), "export default () => 1;\n").unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        stage(&cache, &app, "run.ts", &mirror).unwrap();
        assert_eq!(
            std::fs::read_link(mirror.join("node_modules")).unwrap(),
            app.join("node_modules")
        );
        std::fs::remove_dir(app.join("node_modules")).unwrap();
        stage(&cache, &app, "run.ts", &mirror).unwrap();
        assert!(std::fs::symlink_metadata(mirror.join("node_modules")).is_err());
    }

    #[test]
    fn a_staging_is_remembered_until_one_of_its_files_changes() {
        let dir = tempfile::tempdir().unwrap();
        let (app, mirror) = (dir.path().join("app"), dir.path().join("mirror"));
        std::fs::create_dir_all(app.join("lib")).unwrap();
        std::fs::write(
            app.join("run.ts"),
            "import { two } from './lib/two.js';\nexport default () => two();\n",
        )
        .unwrap();
        std::fs::write(app.join("lib/two.ts"), "export const two = () => 2;\n").unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let staged = mirror.join("run.ts.mjs");
        // As if it ran well after the files were written.
        let later = || SystemTime::now() + Duration::from_secs(60);
        let stage_later = || staging(&cache, &app, "run.ts", &mirror, later).unwrap();

        assert_eq!(stage_later(), staged);
        assert_eq!(fresh(&app, "run.ts", &mirror), Some(staged.clone()));
        // An import's content, the same length.
        std::fs::write(app.join("lib/two.ts"), "export const two = () => 3;\n").unwrap();
        assert_eq!(fresh(&app, "run.ts", &mirror), None, "an imported file edited");
        stage_later();
        assert!(std::fs::read_to_string(mirror.join("lib/two.ts.mjs")).unwrap().contains('3'));
        assert_eq!(fresh(&app, "run.ts", &mirror), Some(staged.clone()));
        // A file named as the import names it now wins over the TypeScript one.
        std::fs::write(app.join("lib/two.js"), "export const two = () => 4;\n").unwrap();
        assert_eq!(fresh(&app, "run.ts", &mirror), None, "a sibling that changes a resolution");
        stage_later();
        assert_eq!(fresh(&app, "run.ts", &mirror), Some(staged.clone()));
        // The mirror itself, changed or gone.
        std::fs::remove_file(&staged).unwrap();
        assert_eq!(fresh(&app, "run.ts", &mirror), None, "the staged entry removed");
        stage_later();
        std::fs::create_dir_all(app.join("node_modules")).unwrap();
        assert_eq!(fresh(&app, "run.ts", &mirror), None, "packages installed in the app");
        // Files written a moment ago are never trusted by their times alone.
        stage(&cache, &app, "run.ts", &mirror).unwrap();
        assert_eq!(fresh(&app, "run.ts", &mirror), None, "files written a moment ago");
    }

    #[test]
    fn an_entry_that_became_a_symlink_out_of_the_app_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("app");
        std::fs::create_dir_all(&app).unwrap();
        std::fs::write(dir.path().join("outside.ts"), "export default () => 1;\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.ts"), app.join("run.ts")).unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let error = stage(&cache, &app, "run.ts", &dir.path().join("mirror")).unwrap_err();
        assert_eq!(error.to_string(), "refused to run run.ts: it leads outside the app folder (a symlink); a routine runs only the app's own files");
        assert!(!dir.path().join("mirror/run.ts.mjs").exists(), "nothing of it was staged");
    }
}
