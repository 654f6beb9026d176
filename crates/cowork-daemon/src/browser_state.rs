//! What the desktop channel keeps for browser automation: the shell's answers awaited and the
//! consent file. A leaf below `browser` (which drives) and `desktop_channel` (which holds it).

use cowork_wire::browser::{Driver, ShellOutcome};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
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

/// What the person allowed, per driver: that it may use the browser at all, and on which sites.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq, Eq)]
struct Allowed {
    /// Driver key (`app:<workspace>:<app>`, `agent:<name>`) → its sites.
    drivers: BTreeMap<String, BTreeSet<String>>,
}

/// The consent file, `<root>/browser-consent.json`: machine-local, read at each decision (the
/// person may edit or delete it), written atomically under the daemon's lock.
pub struct Consents<'a> {
    file: PathBuf,
    lock: &'a Mutex<()>,
}

fn key(driver: &Driver) -> String {
    match driver {
        Driver::App { workspace, app, .. } => format!("app:{workspace}:{app}"),
        Driver::Agent { name } => format!("agent:{name}"),
    }
}

impl Consents<'_> {
    fn load(&self) -> Allowed {
        std::fs::read(&self.file)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// The sites `driver` may act on; `None` when it was never allowed to drive the browser.
    pub fn sites(&self, driver: &Driver) -> Option<Vec<String>> {
        let _held = self.lock.lock();
        self.load().drivers.get(&key(driver)).map(|sites| sites.iter().cloned().collect())
    }

    /// Remembers that `driver` may drive the browser, and on `site` when given.
    pub fn allow(&self, driver: &Driver, site: Option<&str>) -> std::io::Result<()> {
        let _held = self.lock.lock();
        let mut allowed = self.load();
        let sites = allowed.drivers.entry(key(driver)).or_default();
        if let Some(site) = site {
            sites.insert(site.to_string());
        }
        let bytes = serde_json::to_vec_pretty(&allowed).expect("consents serialize");
        cowork_core::fs_atomic::write(&self.file, &bytes, true)
    }
}

/// The daemon's browser: `ctx.browser` and `POST /api/browser` go through it to the shell.
#[derive(Default)]
pub struct Browser {
    /// The shell's answers awaited (`POST /api/desktop/browser/answer`).
    pub waiting: Waiting,
    /// Held while the consent file is read or written.
    consent_lock: Mutex<()>,
}

impl Browser {
    /// The consent file of the Cowork root `root`.
    pub fn consents(&self, root: &Path) -> Consents<'_> {
        Consents { file: root.join("browser-consent.json"), lock: &self.consent_lock }
    }
}
