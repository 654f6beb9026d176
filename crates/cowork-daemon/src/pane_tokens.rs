//! The open panes and their tokens: each token names its pane's app, so the daemon takes the app
//! from the token, never from the request. Shared state only; the routes are in `panes`.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::PathBuf;

/// One open pane.
#[derive(Debug, Clone)]
pub struct Pane {
    pub id: String,
    pub workspace: PathBuf,
    /// The app's manifest name.
    pub app: String,
}

/// Open panes by token.
#[derive(Default)]
pub struct Panes(Mutex<HashMap<String, Pane>>);

impl Panes {
    /// Opens a pane of `app`: a fresh token that names it, and the pane.
    pub(crate) fn open(&self, workspace: PathBuf, app: String) -> (String, Pane) {
        let token = format!("cwp_{}", hex::encode(rand::random::<[u8; 24]>()));
        let pane = Pane { id: hex::encode(rand::random::<[u8; 6]>()), workspace, app };
        self.0.lock().insert(token.clone(), pane.clone());
        (token, pane)
    }

    /// The open pane this token names (none once the pane was closed).
    pub(crate) fn find(&self, token: &str) -> Option<Pane> {
        self.0.lock().get(token).cloned()
    }

    /// Forgets a pane: its token is refused from now on. Panes are closed by their own token's
    /// call, so the pane id (which the token maps to) is what names it here.
    pub(crate) fn close(&self, id: &str) {
        self.0.lock().retain(|_, pane| pane.id != id);
    }
}
