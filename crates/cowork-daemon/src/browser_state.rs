//! What the desktop channel keeps for browser automation: the shell's answers awaited and the
//! consent file. A leaf below `browser` (which drives) and `desktop_channel` (which holds it).

use cowork_core::browser_consent::{BrowserConsentError, BrowserConsents};
use cowork_wire::browser::{Driver, ShellOutcome};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::Path;
use tokio::sync::oneshot;

/// The shell's answers awaited, by request id.
#[derive(Default)]
pub struct Waiting(Mutex<HashMap<String, oneshot::Sender<ShellOutcome>>>);

impl Waiting {
    pub(crate) fn expect(&self, id: &str) -> oneshot::Receiver<ShellOutcome> {
        let (tx, rx) = oneshot::channel();
        self.0.lock().insert(id.to_string(), tx);
        rx
    }

    pub(crate) fn forget(&self, id: &str) {
        self.0.lock().remove(id);
    }

    /// The shell went away: every caller waiting is answered `Unavailable` at once.
    pub fn abandon(&self) {
        self.0.lock().clear();
    }

    /// Hands the shell's answer to whoever waits for `id`; false when nobody does.
    pub fn answer(&self, id: &str, outcome: ShellOutcome) -> bool {
        self.0.lock().remove(id).is_some_and(|tx| tx.send(outcome).is_ok())
    }
}

/// The consent file, `<root>/browser-consent.json` ([`BrowserConsents`]): machine-local, read at
/// each decision (the person may edit or delete it, or approve ahead with `cowork consent allow
/// <site> --browser`), written atomically under its file lock.
pub struct Consents {
    file: BrowserConsents,
}

impl Consents {
    /// The sites `driver` may act on; `None` when it was never allowed to drive the browser.
    pub fn sites(&self, driver: &Driver) -> Option<Vec<String>> {
        self.file.sites(&driver.key())
    }

    /// Remembers that `driver` may drive the browser, and on `site` when given.
    pub fn allow(&self, driver: &Driver, site: Option<&str>) -> Result<(), BrowserConsentError> {
        self.file.allow(&driver.key(), site).map(|_| ())
    }
}

/// The daemon's browser: `ctx.browser` and `POST /api/browser` go through it to the shell.
#[derive(Default)]
pub struct Browser {
    /// The shell's answers awaited (`POST /api/desktop/browser/answer`).
    pub waiting: Waiting,
}

impl Browser {
    /// The consent file of the Cowork root `root`.
    pub fn consents(&self, root: &Path) -> Consents {
        Consents { file: BrowserConsents::new(root) }
    }
}
