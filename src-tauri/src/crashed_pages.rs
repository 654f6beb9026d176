//! A page whose web process crashed loads again. WebKit otherwise leaves the window on its last
//! frame, frozen, nothing in it answering a click: the workbench's window and every site app's
//! window reload their page, and the crash is logged with WebKit's reason. A process the app ended itself (a site app's
//! hibernation: `terminate_web_process`) is not a crash, and a page that crashes again within
//! ten seconds of its reload is left as it is rather than reloaded in a loop.
//!
//! One crash no signal reaches: a web process that dies before it has sent WebKit its pid (in its
//! first milliseconds) ends the whole app, WebKit's launcher failing on that read
//! ("readPIDFromPeer: Unexpected short read").

use tauri::WebviewWindow;

/// Watches `window`'s page: each time its web process crashes or WebKit ends it for its memory,
/// the page loads again.
#[cfg(target_os = "linux")]
pub fn reload_after_crash(window: &WebviewWindow) {
    use std::cell::Cell;
    use std::time::{Duration, Instant};
    use webkit2gtk::{WebProcessTerminationReason, WebViewExt};

    // A crash this soon after a reload is the page's own, not chance.
    const AGAIN_WITHIN: Duration = Duration::from_secs(10);

    let label = window.label().to_owned();
    let result = window.with_webview(move |platform| {
        let reloaded: Cell<Option<Instant>> = Cell::new(None);
        platform.inner().connect_web_process_terminated(move |view, reason| {
            if reason == WebProcessTerminationReason::TerminatedByApi {
                return;
            }
            if reloaded.get().is_some_and(|at| at.elapsed() < AGAIN_WITHIN) {
                tracing::error!(window = %label, ?reason, "the page's web process ended again right after a reload; it is left as it is");
                return;
            }
            tracing::warn!(window = %label, ?reason, "the page's web process ended; the page loads again");
            reloaded.set(Some(Instant::now()));
            view.reload();
        });
    });
    if let Err(error) = result {
        tracing::warn!("failed to watch a window's web process: {error}");
    }
}

#[cfg(not(target_os = "linux"))]
pub fn reload_after_crash(_window: &WebviewWindow) {}
