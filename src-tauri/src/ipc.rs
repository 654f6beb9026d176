//! Who may call the shell's commands, and how a refusal reaches the page.
//!
//! The capability (`capabilities/main.json`) already limits the workbench's commands to the window
//! labelled `main` on `http://127.0.0.1:*`, and Tauri injects its IPC only into a page's main
//! frame, so widget frames (sandboxed, on `*.app.localhost`) have no way in. Each command still
//! checks its caller itself — the webview's label and that its page is on *this* daemon's origin —
//! since any script on an allowed page could call it.

use crate::main_window::MAIN;
use crate::session::Session;
use serde::Serialize;
use tauri::{Manager, Runtime, Url, Webview};

/// A refused or failed command, as the page receives it: `{name, message}`.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct CommandError {
    /// `Forbidden`, `BadRequest`, `Cancelled` or `Failed`.
    pub name: &'static str,
    pub message: String,
}

impl CommandError {
    pub(crate) fn new(name: &'static str, message: impl ToString) -> CommandError {
        CommandError { name, message: message.to_string() }
    }
}

/// Whether `url` is a page of the daemon on `port` (the workbench, or a widget frame on its own
/// `<app>.app.localhost` origin): loopback, plain http, that port.
pub fn is_daemon_page(url: &Url, port: u16) -> bool {
    let loopback = matches!(url.host_str(), Some("127.0.0.1" | "localhost"))
        || url.host_str().is_some_and(|host| host.ends_with(".localhost"));
    url.scheme() == "http" && loopback && url.port() == Some(port)
}

/// Only the main window, on the workbench of this daemon (`http://127.0.0.1:<port>`), may call.
pub fn check_caller(label: &str, url: &Url, port: u16) -> Result<(), CommandError> {
    if label != MAIN {
        return Err(CommandError::new(
            "Forbidden",
            format!("only Cowork Studio's main window may call this, not the window \"{label}\""),
        ));
    }
    let origin = url.origin().ascii_serialization();
    let expected = format!("http://127.0.0.1:{port}");
    if origin != expected {
        return Err(CommandError::new(
            "Forbidden",
            format!("only the workbench at {expected} may call this, not a page on {origin}"),
        ));
    }
    Ok(())
}

pub(crate) fn caller<R: Runtime>(webview: &Webview<R>) -> Result<(), CommandError> {
    let port = webview.state::<Session>().link.daemon.port();
    let url = webview.url().map_err(|error| {
        CommandError::new(
            "Forbidden",
            format!("failed to read the calling page's address: {error}"),
        )
    })?;
    check_caller(webview.label(), &url, port)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url;

    #[test]
    fn only_the_main_window_on_the_daemons_origin_may_call() {
        assert_eq!(
            check_caller("main", &url("http://127.0.0.1:47913/?workspace=/w#token=x"), 47913),
            Ok(())
        );
        assert_eq!(
            check_caller("other", &url("http://127.0.0.1:47913/"), 47913).unwrap_err().name,
            "Forbidden"
        );
        for foreign in [
            "http://127.0.0.1:8080/",
            "http://localhost:47913/",
            "https://127.0.0.1:47913/",
            "http://notes-1a2b.app.localhost:47913/frame.html",
            "tauri://localhost/",
            "http://evil.example/",
        ] {
            let error = check_caller("main", &url(foreign), 47913).unwrap_err();
            assert_eq!(error.name, "Forbidden", "{foreign}");
            assert!(error.message.contains("http://127.0.0.1:47913"), "{}", error.message);
        }
    }

    #[test]
    fn the_window_stays_on_the_daemons_pages() {
        assert!(is_daemon_page(&url("http://127.0.0.1:47913/?workspace=/w"), 47913));
        assert!(is_daemon_page(&url("http://notes-1a2b.app.localhost:47913/frame.html"), 47913));
        assert!(!is_daemon_page(&url("http://127.0.0.1:8080/"), 47913));
        assert!(!is_daemon_page(&url("https://example.com/"), 47913));
        assert!(!is_daemon_page(&url("http://localhost.evil.example:47913/"), 47913));
    }
}
