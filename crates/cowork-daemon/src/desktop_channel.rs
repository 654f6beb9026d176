//! The desktop shell's channel as shared state: who holds it, and the requests sent down it. The
//! routes that attach a shell and send it requests are in `desktop`.

use cowork_wire::daemon::desktop::ShellRequest;
use parking_lot::Mutex;
use tokio::sync::mpsc;

/// The attached shell, if any: the sending half of its request stream.
#[derive(Default)]
pub struct DesktopChannel {
    shell: Mutex<Option<mpsc::UnboundedSender<ShellRequest>>>,
    /// The captures the shell was asked for and records (`cowork.capture`).
    pub captures: crate::capture::Captures,
    /// The browser actions and consent questions sent to the shell (`ctx.browser`, `cowork
    /// mcp-browser`).
    pub browser: crate::browser::Browser,
}

impl DesktopChannel {
    /// Whether a desktop shell is attached now.
    pub fn attached(&self) -> bool {
        self.shell.lock().as_ref().is_some_and(|tx| !tx.is_closed())
    }

    /// Attaches the shell behind `tx`; false while another shell holds the channel.
    pub(crate) fn attach(&self, tx: mpsc::UnboundedSender<ShellRequest>) -> bool {
        let mut shell = self.shell.lock();
        if shell.as_ref().is_some_and(|held| !held.is_closed()) {
            return false;
        }
        *shell = Some(tx);
        true
    }

    /// Lets go of the shell behind `tx`, if it is still the attached one; true when it was.
    pub(crate) fn detach(&self, tx: &mpsc::UnboundedSender<ShellRequest>) -> bool {
        let mut shell = self.shell.lock();
        let held = shell.as_ref().is_some_and(|held| held.same_channel(tx));
        if held {
            *shell = None;
            // The shell that recorded is gone (quit, crashed): its recordings are over.
            self.captures.abandon();
            // Its browser too: whoever waits for an action or a dialog hears it now.
            self.browser.waiting.abandon();
        }
        held
    }

    /// Sends `request` to the attached shell; false when none is attached.
    pub(crate) fn send(&self, request: ShellRequest) -> bool {
        self.shell.lock().as_ref().is_some_and(|tx| tx.send(request).is_ok())
    }
}
