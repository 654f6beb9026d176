//! `.cowork/workspace.json`, the workspace's STATE: how the window starts, what is switched off,
//! where pushes go, how routines are deployed — never what the workspace has.
//!
//! Reading is tolerant because the file is hand-edited and checked in: every key is optional, a
//! missing file is normal, and a value that does not fit `schemas/workspace.schema.json` is ignored
//! (noted as a [`Problem`] for Manage Workspace, never an error). Writing goes through [`update`],
//! a read-modify-write that keeps every other key — unknown ones included — as it was, and
//! replaces the file atomically so a crash never leaves half of it.
//!
//! ```no_run
//! use std::path::Path;
//! use cowork_core::workspace_json;
//! let ws = Path::new("/work/ws");
//! workspace_json::set_app_disabled(ws, ".cowork/apps/gmail", true)?;
//! let (config, _problems) = workspace_json::read(ws);
//! assert!(config.is_app_disabled(".cowork/apps/gmail/"));
//! # Ok::<(), cowork_core::workspace_json::WorkspaceJsonError>(())
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::schema::{self, quote, Problem, Segment, Subject};

/// The file, relative to the workspace root.
pub const WORKSPACE_FILE: &str = ".cowork/workspace.json";

/// The workspace's machine-local folder, relative to the workspace root: never committed.
pub const LOCAL_DIR: &str = ".cowork/local";

/// `.cowork/local/.gitignore`: keeps the machine-local folder out of git.
pub const LOCAL_GITIGNORE: &str = "# Cowork's machine-local files\n*\n";

/// The lock every read-modify-write of [`WORKSPACE_FILE`] holds ([`update`]), relative to the
/// workspace root. A file of its own, because the atomic rename replaces the locked file's inode;
/// under [`LOCAL_DIR`], because it is machine-local and no change the file watcher reloads for.
pub const LOCK_FILE: &str = ".cowork/local/workspace.json.lock";

/// The typed view of `.cowork/workspace.json`: the keys Cowork acts on, defaults filled in.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceConfig {
    /// The display name; the workspace folder's name when absent.
    #[serde(default)]
    pub name: String,
    /// How the window starts.
    #[serde(default)]
    pub startup: Startup,
    /// What is switched off.
    #[serde(default)]
    pub disabled: Disabled,
    /// The activity bar's folders.
    #[serde(default)]
    pub rail: Rail,
    /// Notification preferences.
    #[serde(default)]
    pub notifications: Notifications,
    /// Glob → the app name that opens it, when two apps claim the glob.
    #[serde(default)]
    pub open_with: BTreeMap<String, String>,
    /// The default team server for `cowork push`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish_to: Option<String>,
    /// An image behind the workspace, workspace-relative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wallpaper: Option<String>,
    /// Routine id → deployment, as written (the deploy code reads it).
    #[serde(default)]
    pub deployments: Map<String, Value>,
    /// `false` refuses to run the routines of a package that declares neither `kind` nor `uses`
    /// (which reaches every secret); absent or `true` runs them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrestricted_packages: Option<bool>,
    /// Why the file's off-switches (`disabled`) cannot be read, when they cannot: the file is
    /// there but is not JSON, not an object, or its `disabled` does not fit the schema. Which
    /// routines are off is then unknown, and none may run: a checked-in list can only ever turn
    /// things off (page 08), so a damaged one must not turn them back on.
    #[serde(skip)]
    pub switches_unreadable: Option<String>,
}

/// `startup`: how the window looks when the workspace opens.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Startup {
    /// The app the window opens on, by app name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
    /// Open (`true`) or close (`false`) the side bar; absent keeps the last state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<bool>,
    /// Open or close the secondary side bar; absent keeps the last state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<bool>,
}

/// `disabled`: off-only switches.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Disabled {
    /// App folders or single app files, workspace-relative and normalised (no `./`, no trailing `/`).
    #[serde(default, deserialize_with = "normalised_entries")]
    pub apps: Vec<String>,
    /// Routine ids that refuse to run.
    #[serde(default)]
    pub routines: Vec<String>,
}

/// `rail`: the activity bar's layout.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Rail {
    /// At most 12 folders.
    #[serde(default)]
    pub folders: Vec<RailFolder>,
}

/// A folder of activity-bar icons.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RailFolder {
    /// The folder's id.
    pub id: String,
    /// The folder's name.
    pub title: String,
    /// Tile color `#rrggbb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub color: Option<String>,
    /// View-container ids (`workbench.view.cowork.app.<name>`), 1 to 24.
    pub members: Vec<String>,
}

/// `notifications`: notification preferences.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Notifications {
    /// App folders whose notifications are dropped, normalised like `disabled.apps`.
    #[serde(default, deserialize_with = "normalised_entries")]
    pub muted: Vec<String>,
}

impl WorkspaceConfig {
    /// Whether packages that declare neither `kind` nor `uses` may run (`unrestrictedPackages`).
    pub fn allows_unrestricted(&self) -> bool {
        self.unrestricted_packages != Some(false)
    }

    /// Whether the app folder `app_dir` (`.cowork/apps/gmail`, `./` and trailing `/` allowed) is
    /// switched off.
    pub fn is_app_disabled(&self, app_dir: &str) -> bool {
        self.disabled.apps.contains(&normalize_entry(app_dir))
    }

    /// The files of the app folder `app_dir` that `disabled.apps` switches off one by one, relative
    /// to the app folder (`send.ts`).
    pub fn disabled_files(&self, app_dir: &str) -> Vec<String> {
        let prefix = format!("{}/", normalize_entry(app_dir));
        self.disabled
            .apps
            .iter()
            .filter_map(|entry| entry.strip_prefix(&prefix))
            .map(str::to_owned)
            .collect()
    }

    /// Whether the app folder `app_dir` is muted.
    pub fn is_muted(&self, app_dir: &str) -> bool {
        self.notifications.muted.contains(&normalize_entry(app_dir))
    }
}

/// A workspace-relative entry as `disabled.apps` and `notifications.muted` compare it: forward
/// slashes, no leading `./`, no trailing `/`.
pub fn normalize_entry(entry: &str) -> String {
    let mut entry = entry.replace('\\', "/");
    while let Some(rest) = entry.strip_prefix("./") {
        entry = rest.to_owned();
    }
    entry.trim_end_matches('/').to_owned()
}

fn normalised_entries<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    Ok(Vec::<String>::deserialize(deserializer)?.iter().map(|e| normalize_entry(e)).collect())
}

/// Reads `<workspace_root>/.cowork/workspace.json`. Never fails: a missing file gives the
/// defaults, and whatever does not fit the schema is ignored and listed as a problem.
pub fn read(workspace_root: &Path) -> (WorkspaceConfig, Vec<Problem>) {
    let default_name = folder_name(workspace_root);
    match fs::read_to_string(workspace_root.join(WORKSPACE_FILE)) {
        Ok(text) => parse(&text, &default_name),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            (WorkspaceConfig { name: default_name, ..Default::default() }, Vec::new())
        }
        Err(e) => {
            let why = format!("failed to read the file ({e})");
            (
                WorkspaceConfig {
                    name: default_name,
                    switches_unreadable: Some(why.clone()),
                    ..Default::default()
                },
                vec![Problem::new(WORKSPACE_FILE, None, format!("{why} — ignored"))],
            )
        }
    }
}

/// Parses the file's text; `default_name` is the name when the file gives none. Values that do not
/// fit the schema are dropped (the smallest value holding the mismatch) with a problem each.
pub fn parse(text: &str, default_name: &str) -> (WorkspaceConfig, Vec<Problem>) {
    let fallback = |why: &str| WorkspaceConfig {
        name: default_name.to_owned(),
        switches_unreadable: Some(why.to_owned()),
        ..Default::default()
    };
    let mut value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            let why = crate::schema::not_json(text, &e);
            return (
                fallback(&why),
                vec![Problem::new(WORKSPACE_FILE, None, format!("{why} — ignored"))],
            );
        }
    };
    if !value.is_object() {
        let why = format!("is {}, not a JSON object", quote(&value));
        return (
            fallback(&why),
            vec![Problem::new(WORKSPACE_FILE, None, format!("{why} — ignored"))],
        );
    }
    let mut problems = Vec::new();
    // What a dropped value meant for the off-switches: see `switches_unreadable`.
    let mut switches_unreadable = None;
    let mut unrestricted_dropped = false;
    // Dropping a value can leave its object without a required key: check again until it fits.
    // Every round removes at least one value, so this ends.
    loop {
        let issues = schema::workspace().check(&value);
        if issues.is_empty() {
            break;
        }
        let mut paths: Vec<Vec<Segment>> = Vec::new();
        for issue in issues {
            let mut path = issue.path.clone();
            if issue.subject == Subject::Missing {
                // A required key is missing: the object that lacks it goes.
                path.pop();
            }
            let message = format!("{} — {}", issue.describe(), ignored(&issue.path, &path));
            match path.first().and_then(Segment::key) {
                None | Some("disabled") => {
                    switches_unreadable.get_or_insert_with(|| issue.describe());
                }
                Some("unrestrictedPackages") => unrestricted_dropped = true,
                Some(_) => {}
            }
            problems.push(Problem::new(WORKSPACE_FILE, Some(issue.key()), message));
            paths.push(path);
        }
        // Deepest and last first, so removing one never shifts the index of another still to remove.
        paths.sort_by(|a, b| b.cmp(a));
        paths.dedup();
        for path in &paths {
            remove_path(&mut value, path);
        }
    }
    let mut config: WorkspaceConfig = serde_json::from_value(value).unwrap_or_else(|e| {
        let why = format!("failed to read the validated file ({e})");
        problems.push(Problem::new(WORKSPACE_FILE, None, format!("{why} — ignored")));
        fallback(&why)
    });
    if config.name.is_empty() {
        config.name = default_name.to_owned();
    }
    config.switches_unreadable = config.switches_unreadable.or(switches_unreadable);
    // An `unrestrictedPackages` that does not fit is read as its safe value.
    if unrestricted_dropped {
        config.unrestricted_packages = Some(false);
    }
    (config, problems)
}

fn ignored(issue_path: &[Segment], dropped: &[Segment]) -> String {
    if issue_path == dropped {
        "ignored".to_owned()
    } else if dropped.is_empty() {
        "the file ignored".to_owned()
    } else {
        format!("\"{}\" ignored", schema::dotted(dropped))
    }
}

fn remove_path(value: &mut Value, path: &[Segment]) {
    let Some((last, outer)) = path.split_last() else {
        *value = Value::Object(Map::new());
        return;
    };
    let mut node = value;
    for step in outer {
        let next = match (node, step) {
            (Value::Object(map), Segment::Key(key)) => map.get_mut(key),
            (Value::Array(items), Segment::Index(i)) => items.get_mut(*i),
            _ => None,
        };
        match next {
            Some(next) => node = next,
            None => return,
        }
    }
    match (node, last) {
        (Value::Object(map), Segment::Key(key)) => {
            map.shift_remove(key);
        }
        (Value::Array(items), Segment::Index(i)) if *i < items.len() => {
            items.remove(*i);
        }
        _ => {}
    }
}

fn folder_name(workspace_root: &Path) -> String {
    let named = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    named(workspace_root)
        .or_else(|| workspace_root.canonicalize().ok().as_deref().and_then(named))
        .unwrap_or_default()
}

/// Why `.cowork/workspace.json` could not be changed. The file is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceJsonError {
    /// A folder Cowork writes into (`.cowork/local`, where the lock lives) is a symlink.
    #[error(transparent)]
    Symlinked(#[from] crate::own_folders::SymlinkedFolder),
    /// The lock that keeps two writers from losing each other's change could not be taken.
    #[error("failed to lock {} before changing .cowork/workspace.json", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// The file exists but could not be read.
    #[error("failed to read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// The file is not JSON: changing it would lose what the person wrote.
    #[error("failed to update {}: it is not valid JSON", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where the JSON breaks.
        #[source]
        source: serde_json::Error,
    },
    /// A key on the way holds something else than what the change needs.
    #[error("failed to update {}: \"{key}\" is not {expected}", path.display())]
    WrongType {
        /// The file.
        path: PathBuf,
        /// The dotted key, e.g. `disabled.apps`.
        key: String,
        /// What it should be, e.g. `an array`.
        expected: &'static str,
    },
    /// The value to write does not fit `schemas/workspace.schema.json`: the reader would drop it,
    /// so it is not written at all.
    #[error("failed to update {}: {problem} (see schemas/workspace.schema.json)", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The first mismatch, e.g. `"rail.folders[0].title": "…" (41 characters) is longer than 40 characters`.
        problem: String,
    },
    /// The new file could not be written.
    #[error("failed to write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
}

/// Reads the file as JSON (an empty object when it is missing), lets `edit` change it, and writes it
/// back atomically when the edit changed anything. The file is a person's, kept in git: only the
/// top-level members the edit changed are rewritten, in the file's own indent and line endings
/// ([`crate::json_edit`]); every other key stays as it was written, in its place. Returns whether
/// the file changed.
///
/// The whole read-modify-write holds an exclusive lock on [`LOCK_FILE`] (waiting for it), so
/// writers in other processes — the daemon, another `cowork app disable` — never read the same old
/// file and drop each other's change. Hand edits do not take it; they are rare and atomic enough.
pub fn update<F>(workspace_root: &Path, edit: F) -> Result<bool, WorkspaceJsonError>
where
    F: FnOnce(&mut Map<String, Value>, &Path) -> Result<(), WorkspaceJsonError>,
{
    let _lock = lock(workspace_root)?;
    let path = workspace_root.join(WORKSPACE_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => "{}".to_owned(),
        Err(source) => return Err(WorkspaceJsonError::Read { path, source }),
    };
    let value: Value = serde_json::from_str(&text)
        .map_err(|source| WorkspaceJsonError::Parse { path: path.clone(), source })?;
    let Value::Object(mut object) = value else {
        return Err(WorkspaceJsonError::WrongType {
            path,
            key: "(the file)".to_owned(),
            expected: "an object",
        });
    };
    let before = object.clone();
    edit(&mut object, &path)?;
    if object == before {
        return Ok(false);
    }
    let text = crate::json_edit::rewrite(&text, &before, &object);
    crate::fs_atomic::write(&path, text.as_bytes(), false)
        .map_err(|source| WorkspaceJsonError::Write { path, source })?;
    Ok(true)
}

/// Takes the exclusive lock on [`LOCK_FILE`], creating it (and a git-ignored [`LOCAL_DIR`]) when
/// missing; the lock ends when the returned file is dropped, or when the process dies.
fn lock(workspace_root: &Path) -> Result<fs::File, WorkspaceJsonError> {
    crate::own_folders::check(workspace_root)?;
    let path = workspace_root.join(LOCK_FILE);
    let failed = |source| WorkspaceJsonError::Lock { path: path.clone(), source };
    let local = workspace_root.join(LOCAL_DIR);
    if !local.is_dir() {
        fs::create_dir_all(&local).map_err(failed)?;
        crate::fs_atomic::write(&local.join(".gitignore"), LOCAL_GITIGNORE.as_bytes(), false)
            .map_err(failed)?;
    }
    let file = crate::fs_atomic::no_follow(
        fs::OpenOptions::new().create(true).truncate(false).write(true),
    )
    .open(&path)
    .map_err(failed)?;
    file.lock().map_err(failed)?;
    Ok(file)
}

/// Replaces `rail.folders` with `folders` after checking them against the schema (at most 12
/// folders of at most 24 members, ids, titles of at most 40 characters, colours): a value that
/// does not fit is refused with [`WorkspaceJsonError::Invalid`], never written for the reader to
/// drop. Returns whether the file changed.
pub fn set_rail_folders(workspace_root: &Path, folders: Value) -> Result<bool, WorkspaceJsonError> {
    let mut part = serde_json::json!({ "rail": { "folders": folders } });
    if let Some(issue) = schema::workspace().check(&part).into_iter().next() {
        return Err(WorkspaceJsonError::Invalid {
            path: workspace_root.join(WORKSPACE_FILE),
            problem: issue.describe(),
        });
    }
    let folders = part["rail"]["folders"].take();
    update(workspace_root, move |object, path| {
        let rail = object.entry("rail").or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(rail) = rail else {
            return Err(WorkspaceJsonError::WrongType {
                path: path.to_owned(),
                key: "rail".to_owned(),
                expected: "an object",
            });
        };
        rail.insert("folders".to_owned(), folders);
        Ok(())
    })
}

/// Switches the app folder (or single app file) `app_dir` off (`disabled = true`) or on in
/// `disabled.apps`. Returns whether the file changed.
pub fn set_app_disabled(
    workspace_root: &Path,
    app_dir: &str,
    disabled: bool,
) -> Result<bool, WorkspaceJsonError> {
    update(workspace_root, |object, path| {
        set_listed(object, path, ["disabled", "apps"], app_dir, disabled)
    })
}

/// Mutes (`muted = true`) or unmutes the app folder `app_dir` in `notifications.muted`. Returns
/// whether the file changed.
pub fn set_app_muted(
    workspace_root: &Path,
    app_dir: &str,
    muted: bool,
) -> Result<bool, WorkspaceJsonError> {
    update(workspace_root, |object, path| {
        set_listed(object, path, ["notifications", "muted"], app_dir, muted)
    })
}

/// Puts `entry` in (or takes every spelling of it out of) the list at `outer.list`, creating the
/// object and the list when missing.
fn set_listed(
    object: &mut Map<String, Value>,
    path: &Path,
    [outer, list]: [&str; 2],
    entry: &str,
    listed: bool,
) -> Result<(), WorkspaceJsonError> {
    let wrong = |key: String, expected| WorkspaceJsonError::WrongType {
        path: path.to_owned(),
        key,
        expected,
    };
    let outer_object = object
        .entry(outer)
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| wrong(outer.to_owned(), "an object"))?;
    let items = outer_object
        .entry(list)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| wrong(format!("{outer}.{list}"), "an array"))?;
    let entry = normalize_entry(entry);
    let is_entry = |item: &Value| item.as_str().is_some_and(|s| normalize_entry(s) == entry);
    if listed {
        if !items.iter().any(is_entry) {
            items.push(Value::String(entry));
        }
    } else {
        items.retain(|item| !is_entry(item));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_normalise_dot_slash_and_trailing_slash() {
        assert_eq!(normalize_entry("./.cowork/apps/gmail/"), ".cowork/apps/gmail");
        assert_eq!(normalize_entry(".cowork\\apps\\gmail"), ".cowork/apps/gmail");
        assert_eq!(normalize_entry(".cowork/apps/gmail/send.ts"), ".cowork/apps/gmail/send.ts");
    }

    #[test]
    fn removal_order_puts_later_indices_first() {
        let path = |i| vec![Segment::from("a"), Segment::Index(i)];
        let mut paths = [path(2), path(10), vec![Segment::from("a")]];
        paths.sort_by(|a, b| b.cmp(a));
        assert_eq!(paths, [path(10), path(2), vec![Segment::from("a")]]);
    }

    #[test]
    fn concurrent_updates_lose_no_change() {
        let ws = tempfile::tempdir().unwrap();
        std::thread::scope(|scope| {
            for i in 0..12 {
                let root = ws.path();
                scope.spawn(move || {
                    set_app_disabled(root, &format!(".cowork/apps/a{i:02}"), true).unwrap()
                });
            }
        });
        let (config, _) = read(ws.path());
        assert_eq!(config.disabled.apps.len(), 12, "{:?}", config.disabled.apps);
        let ignored = fs::read_to_string(ws.path().join(LOCAL_DIR).join(".gitignore")).unwrap();
        assert_eq!(ignored, LOCAL_GITIGNORE, "the lock file stays out of git");
    }

    #[test]
    fn rail_folders_that_do_not_fit_the_schema_are_refused_unwritten() {
        let ws = tempfile::tempdir().unwrap();
        fs::create_dir_all(ws.path().join(".cowork")).unwrap();
        let folder = |id: &str, title: &str, members: usize| {
            let members: Vec<String> =
                (0..members).map(|i| format!("workbench.view.cowork.app.a{i}")).collect();
            serde_json::json!({ "id": id, "title": title, "members": members })
        };
        let refused = |folders: Value| match set_rail_folders(ws.path(), folders) {
            Err(WorkspaceJsonError::Invalid { problem, .. }) => problem,
            other => panic!("not refused: {other:?}"),
        };
        let long_title = "t".repeat(41);
        assert!(refused(serde_json::json!([folder("f", &long_title, 1)]))
            .starts_with("\"rail.folders[0].title\""));
        assert!(refused(serde_json::json!([folder("f", "Work", 25)]))
            .starts_with("\"rail.folders[0].members\""));
        let thirteen: Vec<Value> = (0..13).map(|i| folder(&format!("f{i}"), "Work", 1)).collect();
        assert!(refused(Value::Array(thirteen)).starts_with("\"rail.folders\""));
        assert!(refused(serde_json::json!([folder("Bad Id", "Work", 1)]))
            .starts_with("\"rail.folders[0].id\""));
        assert!(refused(serde_json::json!("not a list")).starts_with("\"rail.folders\""));
        assert!(!ws.path().join(WORKSPACE_FILE).exists(), "nothing written");

        assert!(
            set_rail_folders(ws.path(), serde_json::json!([folder("work", "Work", 24)])).unwrap()
        );
        let (config, problems) = read(ws.path());
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(config.rail.folders.len(), 1);
    }
}
