//! A recorded window that closes makes Xlib report errors on GStreamer's connection — `BadWindow`
//! and `BadDrawable` while it grabs, `BadDamage` when it lets go of the window's damage, up to when
//! the element is freed — and Xlib's default error handler exits the process (GDK's aborts it).
//! This handler logs and lets pass the errors about a window that was recorded and the DAMAGE
//! extension's (only `ximagesrc` uses it here), and hands every other error to the handler that was
//! installed before, unchanged. GDK's own traps install GDK's handler for their span, so they still
//! see their errors.

#![allow(unsafe_code)] // Xlib's error handler is a C callback, and XQueryExtension: see each block.

use parking_lot::Mutex;
use std::os::raw::c_int;
use std::sync::OnceLock;
use x11::xlib;

type Handler = unsafe extern "C" fn(*mut xlib::Display, *mut xlib::XErrorEvent) -> c_int;

/// The windows recorded in this process (few: one per window recording).
static RECORDED: Mutex<Vec<u64>> = Mutex::new(Vec::new());
/// The handler ours replaced.
static PREVIOUS: OnceLock<Option<Handler>> = OnceLock::new();
/// The DAMAGE extension's request code on this display (0: unknown).
static DAMAGE: OnceLock<u8> = OnceLock::new();

/// Installs the handler (once; later calls do nothing).
pub fn install() {
    DAMAGE.get_or_init(damage_opcode);
    PREVIOUS.get_or_init(|| {
        // SAFETY: XSetErrorHandler only swaps a process-wide function pointer; it needs no display
        // and is safe to call before or after any connection is opened.
        unsafe { xlib::XSetErrorHandler(Some(handle)) }
    });
}

/// From now on, errors about `window` are expected (it may close while or after it is recorded).
pub fn recording(window: u64) {
    let mut recorded = RECORDED.lock();
    if !recorded.contains(&window) {
        recorded.push(window);
    }
}

/// The DAMAGE extension's major opcode, asked on a connection of our own.
fn damage_opcode() -> u8 {
    let name = c"DAMAGE";
    let (mut major, mut event, mut error) = (0, 0, 0);
    // SAFETY: a connection opened and closed here, used by this thread only; the out-pointers are
    // valid locals. XOpenDisplay answers null without a display, which is checked.
    unsafe {
        let display = xlib::XOpenDisplay(std::ptr::null());
        if display.is_null() {
            return 0;
        }
        let found =
            xlib::XQueryExtension(display, name.as_ptr(), &mut major, &mut event, &mut error);
        xlib::XCloseDisplay(display);
        if found == 0 {
            return 0;
        }
    }
    u8::try_from(major).unwrap_or(0)
}

unsafe extern "C" fn handle(display: *mut xlib::Display, event: *mut xlib::XErrorEvent) -> c_int {
    // SAFETY: Xlib calls this with a valid event for the duration of the call.
    let (resource, code, request) =
        unsafe { ((*event).resourceid, (*event).error_code, (*event).request_code) };
    let damage = DAMAGE.get().copied().unwrap_or(0);
    let expected = (damage != 0 && request == damage)
        || RECORDED.try_lock().is_some_and(|recorded| recorded.contains(&resource));
    if expected {
        tracing::info!("X error {code} (request {request}) about {resource:#x}: a recorded window closed; ignored");
        return 0;
    }
    match PREVIOUS.get().copied().flatten() {
        // SAFETY: the previous handler was installed for exactly these arguments.
        Some(previous) => unsafe { previous(display, event) },
        None => 0,
    }
}
