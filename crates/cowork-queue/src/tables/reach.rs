//! Which `.db` files a pane's `cowork.tables` reaches: the workspace's own, never Cowork's.
//!
//! A pane names a workspace-relative `.db` path. The file it really opens (symlinks followed) must
//! be a `.db` file inside the workspace and one of:
//!
//! - outside `.cowork/`: the person's own files;
//! - a workspace table, `.cowork/data/<name>.db` (what `cowork table create` makes);
//! - in its own app's data folder, `.cowork/data/<app>/` (what its routines keep there).
//!
//! Everything else under `.cowork/` is Cowork's: `.cowork/local/` (the task store, which only the
//! queue API changes, and the routines' mirror), the apps' code in `.cowork/apps/`, and every
//! other app's data folder. The check is on the resolved path, so a link named `notes.db` that
//! leads to `.cowork/local/queues.db` is refused like the store itself.

use crate::error::{QueueError, Result};
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// The file `db` names, resolved, when a pane of `app` may open it.
pub(crate) fn resolve(workspace: &Path, app: &str, db: &str) -> Result<PathBuf> {
    let relative = Path::new(db);
    let plain = relative.components().all(|c| matches!(c, Component::Normal(_)));
    if db.is_empty() || !plain || !is_db(relative) {
        return Err(QueueError::bad(
            "db",
            format!("\"{db}\" is not a workspace-relative .db path (no \"..\", not absolute)"),
        ));
    }
    let root = workspace.canonicalize()?;
    let real = root
        .join(relative)
        .canonicalize()
        .map_err(|_| QueueError::bad("db", format!("{db} does not exist in the workspace")))?;
    let Ok(inside) = real.strip_prefix(&root) else {
        return Err(QueueError::bad("db", format!("{db} leads outside the workspace")));
    };
    // A link named `x.db` may lead to any file; SQLite would take an empty one for a database and
    // write into it.
    if !is_db(&real) {
        return Err(QueueError::bad("db", format!("{db} leads to a file that is not a .db")));
    }
    if let Some(why) = cowork_keeps(inside, app) {
        return Err(QueueError::OutOfReach { db: db.to_string(), why });
    }
    Ok(real)
}

fn is_db(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "db")
}

/// Why `inside` (workspace-relative, resolved) is Cowork's rather than a table a pane of `app`
/// may open; `None` when it is a table.
fn cowork_keeps(inside: &Path, app: &str) -> Option<String> {
    let parts: Vec<&OsStr> = inside.iter().collect();
    // Case-blind: on a case-insensitive file system `.COWORK/LOCAL` is the same folder.
    let is = |part: &OsStr, name: &str| part.to_str().is_some_and(|p| p.eq_ignore_ascii_case(name));
    match parts.as_slice() {
        [first, ..] if !is(first, ".cowork") => None,
        [_, data, _table] if is(data, "data") => None,
        [_, data, folder, _, ..] if is(data, "data") => (!is(folder, app)).then(|| {
            format!(
                "in the data folder of another app (.cowork/data/{}/)",
                folder.to_string_lossy()
            )
        }),
        [_, local, ..] if is(local, "local") => Some(
            "Cowork's own (.cowork/local/ holds the task store and the routines' mirror; \
                  cowork.queue is the way to the tasks)"
                .into(),
        ),
        [_, apps, ..] if is(apps, "apps") => Some("inside an app's folder (.cowork/apps/)".into()),
        _ => Some("Cowork's own (.cowork/)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pane_reaches_workspace_tables_and_its_own_data_never_cowork_s_files() {
        for (path, reachable) in [
            ("crm.db", true),
            ("sub/dir/crm.db", true),
            (".cowork/data/crm.db", true),
            (".cowork/data/board/cache.db", true),
            (".cowork/data/board/deep/cache.db", true),
            (".cowork/data/mail/inbox.db", false),
            (".cowork/local/queues.db", false),
            (".COWORK/Local/queues.db", false),
            (".cowork/apps/board/seed.db", false),
            (".cowork/x.db", false),
        ] {
            assert_eq!(cowork_keeps(Path::new(path), "board").is_none(), reachable, "{path}");
        }
    }

    #[test]
    fn a_link_is_judged_by_where_it_leads() {
        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join(".cowork/local");
        std::fs::create_dir_all(&local).unwrap();
        std::fs::write(local.join("queues.db"), "").unwrap();
        std::fs::write(dir.path().join(".env"), "SECRET=1").unwrap();
        std::os::unix::fs::symlink(local.join("queues.db"), dir.path().join("tasks.db")).unwrap();
        std::os::unix::fs::symlink(dir.path().join(".env"), dir.path().join("env.db")).unwrap();
        let error = resolve(dir.path(), "board", "tasks.db").unwrap_err();
        assert_eq!(error.name(), cowork_core::error_name::ErrorName::Forbidden, "{error}");
        assert!(error.to_string().starts_with("db: \"tasks.db\" is Cowork's own"), "{error}");
        let error = resolve(dir.path(), "board", "env.db").unwrap_err();
        assert_eq!(error.to_string(), "db: env.db leads to a file that is not a .db");
    }
}
