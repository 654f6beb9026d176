//! The pill: while a recording runs, a small always-on-top window of the desktop app says so, names
//! the app, and has Stop. A GTK window of its own (no webview: nothing a page could draw or hide),
//! made and closed on the main thread.

use gtk::prelude::*;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use tauri::AppHandle;

/// The pill's window title (what the tests and the window manager see).
pub const TITLE: &str = "Cowork Studio — Recording";

thread_local! {
    /// The pill on screen (main thread only, as GTK wants).
    static PILL: RefCell<Option<(gtk::Window, Rc<Cell<bool>>)>> = const { RefCell::new(None) };
}

/// Shows the pill for `app_title`'s recording; Stop calls `on_stop`.
pub fn show(app: &AppHandle, app_title: String, on_stop: impl Fn() + Send + 'static) {
    let shown = app.run_on_main_thread(move || {
        let window = gtk::Window::new(gtk::WindowType::Toplevel);
        window.set_title(TITLE);
        window.set_keep_above(true);
        window.set_decorated(false);
        window.set_resizable(false);
        window.set_skip_taskbar_hint(true);
        window.stick();
        let row = gtk::Box::new(gtk::Orientation::Horizontal, 10);
        row.set_border_width(8);
        let label = gtk::Label::new(Some(&format!("● Recording for {app_title}")));
        let stop = gtk::Button::with_label("Stop");
        stop.connect_clicked(move |_| on_stop());
        row.pack_start(&label, false, false, 0);
        row.pack_end(&stop, false, false, 0);
        window.add(&row);
        // Closing it is Stop too: the pill never goes while the recording runs, only after.
        let over = Rc::new(Cell::new(false));
        let closing = over.clone();
        window.connect_delete_event(move |_, _| {
            if closing.get() {
                return gtk::glib::Propagation::Proceed;
            }
            stop.clicked();
            gtk::glib::Propagation::Stop
        });
        window.move_(24, 24);
        window.show_all();
        PILL.with(|pill| {
            if let Some((old, over)) = pill.borrow_mut().replace((window, over)) {
                over.set(true);
                old.close();
            }
        });
    });
    if let Err(error) = shown {
        tracing::warn!("failed to show the recording pill: {error}");
    }
}

/// Takes the pill away.
pub fn hide(app: &AppHandle) {
    let hidden = app.run_on_main_thread(|| {
        PILL.with(|pill| {
            if let Some((window, over)) = pill.borrow_mut().take() {
                over.set(true);
                window.close();
            }
        })
    });
    if let Err(error) = hidden {
        tracing::warn!("failed to hide the recording pill: {error}");
    }
}
