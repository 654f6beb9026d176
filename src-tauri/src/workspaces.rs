//! The shell's own memory, `<root>/desktop.json`: the last workspace, the recent ones (most recent
//! first, at most [`RECENT_LIMIT`]), Do Not Disturb, the workbench's theme and the windows' places. Written atomically, so a crash mid-write
//! never leaves half a file; a file that does not parse is set aside, not fatal (the shell then
//! starts as on a first run).

use cowork_core::paths::Root;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How many workspaces the tray and File › Open Recent list.
pub const RECENT_LIMIT: usize = 10;

/// What `desktop.json` holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DesktopState {
    /// The workspace open when the shell last ran.
    #[serde(default)]
    pub last: Option<PathBuf>,
    /// Workspaces opened before, most recent first.
    #[serde(default)]
    pub recent: Vec<PathBuf>,
    /// Banners silenced from the tray (the bell still collects them).
    #[serde(default)]
    pub do_not_disturb: bool,
    /// The workbench's theme when it last said: the window's colour before its page paints, and
    /// GTK's menus and dialogs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    /// Where each window was, by label.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub windows: BTreeMap<String, Place>,
}

/// The workbench's theme (`ui/src/workbench/theme.ts`; what the shell does with it: `theme.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    Light,
    Dark,
}

/// A window's place in logical pixels (`window_places.rs`): its top-left corner (of its frame, as
/// the window manager places it), its size when not maximised, and whether it was maximised.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Place {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    #[serde(default)]
    pub maximized: bool,
}

/// Why the shell could not open a workspace folder.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("failed to open the workspace {path}: {source}")]
    Open { path: PathBuf, source: std::io::Error },
    #[error("failed to open the workspace {0}: it is not a folder")]
    NotAFolder(PathBuf),
}

impl DesktopState {
    /// The file under the Cowork root.
    pub fn file(root: &Root) -> PathBuf {
        root.dir().join("desktop.json")
    }

    /// Reads `desktop.json`; a missing file is a first run, and a corrupt one is logged and
    /// treated the same (the next save replaces it).
    pub fn load(root: &Root) -> DesktopState {
        let path = Self::file(root);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_else(|error| {
                tracing::warn!(
                    "ignoring {}: {error} (it is rewritten on the next change)",
                    path.display()
                );
                DesktopState::default()
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => DesktopState::default(),
            Err(error) => {
                tracing::warn!("failed to read {}: {error}", path.display());
                DesktopState::default()
            }
        }
    }

    /// Writes `desktop.json` atomically.
    pub fn save(&self, root: &Root) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("the desktop state serializes");
        cowork_core::fs_atomic::write(&Self::file(root), format!("{text}\n").as_bytes(), false)
    }

    /// `workspace` becomes the last one and moves to the front of the recent list.
    pub fn remember(&mut self, workspace: &Path) {
        self.last = Some(workspace.to_path_buf());
        self.recent.retain(|each| each != workspace);
        self.recent.insert(0, workspace.to_path_buf());
        self.recent.truncate(RECENT_LIMIT);
    }
}

/// The workspace the shell opens: the folder on the command line, else the last one (while it
/// still exists), else `~/Cowork`, made on first use. Always an absolute, canonical path.
pub fn start_workspace(
    argument: Option<&Path>,
    state: &DesktopState,
    home: &Path,
) -> Result<PathBuf, WorkspaceError> {
    if let Some(folder) = argument {
        return canonical_folder(folder);
    }
    if let Some(last) = state.last.as_deref().filter(|last| last.is_dir()) {
        return canonical_folder(last);
    }
    let default = home.join("Cowork");
    std::fs::create_dir_all(&default)
        .map_err(|source| WorkspaceError::Open { path: default.clone(), source })?;
    canonical_folder(&default)
}

/// `folder` made absolute and canonical; it must be an existing folder.
pub fn canonical_folder(folder: &Path) -> Result<PathBuf, WorkspaceError> {
    let path = std::fs::canonicalize(folder)
        .map_err(|source| WorkspaceError::Open { path: folder.to_path_buf(), source })?;
    if !path.is_dir() {
        return Err(WorkspaceError::NotAFolder(path));
    }
    Ok(path)
}

/// The name a window title and a menu show for a workspace: its folder's name.
pub fn display_name(workspace: &Path) -> String {
    workspace
        .file_name()
        .map_or_else(|| workspace.display().to_string(), |name| name.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        (dir, root)
    }

    #[test]
    fn remember_puts_the_latest_first_without_duplicates() {
        let mut state = DesktopState::default();
        for name in ["a", "b", "a", "c"] {
            state.remember(Path::new(&format!("/w/{name}")));
        }
        assert_eq!(state.last.as_deref(), Some(Path::new("/w/c")));
        assert_eq!(state.recent, ["/w/c", "/w/a", "/w/b"].map(PathBuf::from));
    }

    #[test]
    fn remember_keeps_at_most_ten() {
        let mut state = DesktopState::default();
        for index in 0..15 {
            state.remember(Path::new(&format!("/w/{index}")));
        }
        assert_eq!(state.recent.len(), RECENT_LIMIT);
        assert_eq!(state.recent[0], Path::new("/w/14"));
        assert_eq!(state.recent[9], Path::new("/w/5"));
    }

    #[test]
    fn saves_and_loads_recents_and_do_not_disturb() {
        let (_dir, root) = root();
        let mut state = DesktopState { do_not_disturb: true, ..DesktopState::default() };
        state.remember(Path::new("/w/a"));
        state.save(&root).unwrap();
        assert_eq!(DesktopState::load(&root), state);
        let text = std::fs::read_to_string(DesktopState::file(&root)).unwrap();
        assert!(text.contains("\"doNotDisturb\": true"), "{text}");
        // The atomic write leaves no temporary file beside it.
        let names: Vec<_> =
            std::fs::read_dir(root.dir()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["desktop.json"]);
    }

    #[test]
    fn a_corrupt_or_missing_file_is_a_first_run() {
        let (_dir, root) = root();
        assert_eq!(DesktopState::load(&root), DesktopState::default());
        std::fs::write(DesktopState::file(&root), "{ not json").unwrap();
        assert_eq!(DesktopState::load(&root), DesktopState::default());
        std::fs::write(DesktopState::file(&root), r#"{"recent": ["/w/a"]}"#).unwrap();
        assert_eq!(DesktopState::load(&root).recent, [PathBuf::from("/w/a")]);
    }

    #[test]
    fn start_workspace_prefers_the_argument_then_the_last_then_home_cowork() {
        let dir = tempfile::tempdir().unwrap();
        let given = dir.path().join("given");
        let last = dir.path().join("last");
        std::fs::create_dir_all(&given).unwrap();
        std::fs::create_dir_all(&last).unwrap();
        let state = DesktopState { last: Some(last.clone()), ..DesktopState::default() };
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap();
        assert_eq!(start_workspace(Some(&given), &state, dir.path()).unwrap(), canonical(&given));
        assert_eq!(start_workspace(None, &state, dir.path()).unwrap(), canonical(&last));
        std::fs::remove_dir(&last).unwrap();
        let home = start_workspace(None, &state, dir.path()).unwrap();
        assert_eq!(home, canonical(&dir.path().join("Cowork")));
        assert!(start_workspace(Some(&dir.path().join("missing")), &state, dir.path()).is_err());
    }
}
