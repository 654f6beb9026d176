//! A recorded window that closes makes Xlib report `BadWindow` / `BadDrawable` on GStreamer's
//! connection, and Xlib's default error handler exits the process — GDK's aborts it. This handler
//! lets those errors about the recorded window pass (the recorder ends its video there) and hands
//! every other error to the handler that was installed before, unchanged.

#![allow(unsafe_code)] // Xlib's error handler is a C callback: see each block.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use x11::xlib;

type Handler = unsafe extern "C" fn(*mut xlib::Display, *mut xlib::XErrorEvent) -> c_int;

/// The window being recorded (0: none).
static RECORDED: AtomicU64 = AtomicU64::new(0);
/// The handler ours replaced.
static PREVIOUS: OnceLock<Option<Handler>> = OnceLock::new();

/// Installs the handler (once; later calls do nothing).
pub fn install() {
    PREVIOUS.get_or_init(|| {
        // SAFETY: XSetErrorHandler only swaps a process-wide function pointer; it needs no display
        // and is safe to call before or after any connection is opened.
        unsafe { xlib::XSetErrorHandler(Some(handle)) }
    });
}

/// The window whose errors are expected from now on (`None`: no window is recorded).
pub fn recording(window: Option<u64>) {
    RECORDED.store(window.unwrap_or(0), Ordering::SeqCst);
}

unsafe extern "C" fn handle(display: *mut xlib::Display, event: *mut xlib::XErrorEvent) -> c_int {
    // SAFETY: Xlib calls this with a valid event for the duration of the call.
    let (resource, code) = unsafe { ((*event).resourceid, (*event).error_code) };
    let recorded = RECORDED.load(Ordering::SeqCst);
    let about_it = recorded != 0 && resource as u64 == recorded;
    if about_it {
        tracing::info!(
            "X error {code} about the recorded window {resource:#x}: ignored (it closed)"
        );
        return 0;
    }
    match PREVIOUS.get().copied().flatten() {
        // SAFETY: the previous handler was installed for exactly these arguments.
        Some(previous) => unsafe { previous(display, event) },
        None => 0,
    }
}
