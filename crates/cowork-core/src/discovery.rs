//! Finding a workspace's app folders: ONE level under `<workspace>/.cowork/apps/`, in folder-name
//! order.
//!
//! A folder counts only when its own name is lowercase kebab (`^[a-z0-9][a-z0-9-]{0,62}$`), is not
//! one of the names `.cowork/` keeps for itself (`apps`, `data`, `courses`, `local`) nor a Windows
//! device name (`con`, `nul`, `com1` …, which cannot be a folder there), is a real folder (not a
//! symlink, which could point anywhere) and holds a `cowork.json`. Anything else is skipped with a
//! note — a note, not an error: the workspace still loads. Reading what the manifest says is
//! [`crate::manifest`]'s job.
//!
//! ```no_run
//! let found = cowork_core::discovery::discover(std::path::Path::new("/work/ws"));
//! for folder in &found.folders {
//!     println!("{} keep-both copy of {:?}", folder.dir, folder.keep_both_of);
//! }
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::manifest::MANIFEST_FILE;
use crate::reserved_names::{reserved_name, KEPT};
use crate::schema::Problem;

/// Where apps live, relative to the workspace root.
pub const APPS_DIR: &str = ".cowork/apps";

/// A folder's name follows the rule of the manifest's `name`, read from the schema.
static FOLDER_NAME: LazyLock<Regex> = LazyLock::new(|| {
    let pattern =
        crate::schema::manifest().node("/properties/name/pattern").and_then(|p| p.as_str());
    Regex::new(pattern.expect("the manifest schema has a name pattern"))
        .expect("the name pattern is valid")
});

static KEEP_BOTH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(.+)-v(\d+)-(\d+)-(\d+)$").expect("the keep-both pattern is valid")
});

/// A folder under `.cowork/apps/` that holds a `cowork.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppFolder {
    /// The folder's name, e.g. `gmail`.
    pub folder: String,
    /// Workspace-relative, e.g. `.cowork/apps/gmail`.
    pub dir: String,
    /// Absolute (the workspace root joined with `dir`).
    pub path: PathBuf,
    /// For a Keep-both copy `gmail-v1-2-3` beside a `gmail` folder: `("gmail", "1.2.3")`.
    pub keep_both_of: Option<(String, String)>,
}

/// What [`discover`] found.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Discovery {
    /// The app folders, in folder-name order.
    pub folders: Vec<AppFolder>,
    /// One note per folder that was skipped, saying why.
    pub notes: Vec<Problem>,
    /// Failures to read `.cowork/apps/` itself (a missing folder is normal and not one).
    pub problems: Vec<Problem>,
}

/// Why a folder name is not an app folder's, or `None` when it is one.
pub fn folder_name_rejection(name: &str) -> Option<&'static str> {
    if name.starts_with('.') {
        Some("a dot-folder is never an app")
    } else if !FOLDER_NAME.is_match(name) {
        Some("an app folder's name is lowercase letters, digits and dashes (^[a-z0-9][a-z0-9-]{0,62}$)")
    } else {
        reserved_name(name).map(|why| match why {
            KEPT => "the name is kept for .cowork's own folders",
            _ => "the name is a Windows device name",
        })
    }
}

/// Splits a Keep-both copy's folder name `gmail-v1-2-3` into `("gmail", "1.2.3")`.
///
/// This only reads the name; [`discover`] reports a copy only when the base folder is there too.
pub fn keep_both_parts(folder: &str) -> Option<(String, String)> {
    let caps = KEEP_BOTH.captures(folder)?;
    Some((caps[1].to_owned(), format!("{}.{}.{}", &caps[2], &caps[3], &caps[4])))
}

/// Finds the app folders of the workspace at `workspace_root`. Never fails: a folder that cannot be
/// read is a problem in the result.
pub fn discover(workspace_root: &Path) -> Discovery {
    let apps = workspace_root.join(APPS_DIR);
    let mut found = Discovery::default();
    let entries = match fs::read_dir(&apps) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return found,
        Err(e) => {
            found.problems.push(Problem::new(
                APPS_DIR,
                None,
                format!("failed to read the folder: {e}"),
            ));
            return found;
        }
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                found.problems.push(Problem::new(
                    APPS_DIR,
                    None,
                    format!("failed to read the folder: {e}"),
                ));
                continue;
            }
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let skip =
            |why: &str| Problem::new(format!("{APPS_DIR}/{name}"), None, format!("skipped: {why}"));
        if file_type.is_symlink() {
            found.notes.push(skip("a symlinked folder is never an app"));
        } else if !file_type.is_dir() {
            // Loose files (a README, .DS_Store) are simply not apps.
        } else if let Some(why) = folder_name_rejection(&name) {
            found.notes.push(skip(why));
        } else if !entry.path().join(MANIFEST_FILE).is_file() {
            found.notes.push(skip("no cowork.json, so not an app"));
        } else {
            names.push(name);
        }
    }
    names.sort();
    found.folders = names
        .iter()
        .map(|name| AppFolder {
            folder: name.clone(),
            dir: format!("{APPS_DIR}/{name}"),
            path: apps.join(name),
            keep_both_of: keep_both_parts(name).filter(|(base, _)| names.contains(base)),
        })
        .collect();
    found.notes.sort_by(|a, b| a.file.cmp(&b.file));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_reference() {
        for ok in ["gmail", "a", "0day", "gmail-v1-2-3", &"a".repeat(63)] {
            assert_eq!(folder_name_rejection(ok), None, "{ok}");
        }
        for bad in [
            "Gmail",
            "-x",
            "my.app",
            ".git",
            "apps",
            "data",
            "courses",
            "local",
            "con",
            "nul",
            "com1",
            "lpt9",
            &"a".repeat(64),
        ] {
            assert!(folder_name_rejection(bad).is_some(), "{bad}");
        }
        for ok in ["com0", "com10", "lpt", "console"] {
            assert_eq!(folder_name_rejection(ok), None, "{ok}");
        }
    }

    #[test]
    fn keep_both_names_split_into_base_and_version() {
        assert_eq!(keep_both_parts("gmail-v1-2-3"), Some(("gmail".into(), "1.2.3".into())));
        assert_eq!(keep_both_parts("my-tool-v10-0-12"), Some(("my-tool".into(), "10.0.12".into())));
        assert_eq!(keep_both_parts("gmail-v1-2"), None);
        assert_eq!(keep_both_parts("gmail"), None);
    }
}
