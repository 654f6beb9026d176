//! Where each window was: the main window's place, size and whether it was maximised (and a site
//! app's in a window of its own), kept in `desktop.json` (`windows`, by window label) and given
//! back when the window is built again, after a restart too. A place off every monitor there is now
//! (a screen unplugged) is not given back: the window comes up centred at its size.
//!
//! The places are followed from the windows' own moves and resizes (no question to the window
//! manager at Quit, when the window may be hidden) and written once a window has stood still for
//! [`SETTLE`], so a crash loses no move; and when a window closes or hides, and at Quit.

use crate::hooks::Hooks;
use crate::session::{Preferences, Session};
use crate::workspaces::Place;
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet};
use tauri::{AppHandle, Manager, WebviewWindowBuilder, Window, WindowEvent};

/// An area of the screen in logical pixels: a monitor's, or a window's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// How much of a window's top edge must be on a monitor for its place to count: enough to grab
/// it and drag it back.
const GRIP: (f64, f64) = (100.0, 30.0);

/// Where a window comes up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Restore {
    /// At its place (its size shrunk to the monitor it is on when it no longer fits).
    At(Place),
    /// Centred, at this size (its place is off every monitor).
    Centred { width: f64, height: f64, maximized: bool },
}

impl Place {
    /// Where the window saved at this place comes up on `monitors`.
    pub fn restore(&self, monitors: &[Area]) -> Restore {
        let grip = Area { x: self.x, y: self.y, width: self.width.min(GRIP.0), height: GRIP.1 };
        let shown_on = monitors.iter().find(|monitor| {
            let (width, height) = overlap(monitor, &grip);
            width >= grip.width && height >= GRIP.1
        });
        match shown_on {
            Some(monitor) => Restore::At(Place {
                width: self.width.min(monitor.width),
                height: self.height.min(monitor.height),
                ..*self
            }),
            None => {
                // At most as large as the largest monitor (any room when none is known).
                let room = monitors.iter().fold((0.0_f64, 0.0_f64), |(width, height), monitor| {
                    (width.max(monitor.width), height.max(monitor.height))
                });
                let fit = |saved: f64, room: f64| if room > 0.0 { saved.min(room) } else { saved };
                Restore::Centred {
                    width: fit(self.width, room.0),
                    height: fit(self.height, room.1),
                    maximized: self.maximized,
                }
            }
        }
    }
}

/// The width and height two areas share.
fn overlap(a: &Area, b: &Area) -> (f64, f64) {
    let width = (a.x + a.width).min(b.x + b.width) - a.x.max(b.x);
    let height = (a.y + a.height).min(b.y + b.height) - a.y.max(b.y);
    (width.max(0.0), height.max(0.0))
}

/// The places followed since the start (managed state), by window label.
#[derive(Default)]
pub struct Places {
    places: Mutex<BTreeMap<String, Place>>,
    /// The windows built at their place ([`place`]): the main window and site apps' own (not a
    /// docked one, `sidebar` or `right`, which is placed beside the main window instead).
    kept: Mutex<BTreeSet<String>>,
    /// Counts the moves and resizes: a save waiting out [`SETTLE`] writes only when none came since.
    moves: std::sync::atomic::AtomicU64,
}

/// How long a window stands still before its place is written: a drag is many moves, and one
/// write for all of them is enough.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(800);

/// The places' part in the shell's life: following the windows' moves, writing them down.
pub fn init(app: &tauri::App) {
    let saved = app.state::<Preferences>().get().windows;
    app.manage(Places {
        places: Mutex::new(saved),
        kept: Mutex::default(),
        moves: std::sync::atomic::AtomicU64::new(0),
    });
    let hooks = app.state::<Hooks>();
    hooks.on_window_event(on_window_event);
    hooks.on_quitting(save);
}

/// `builder` for the window `label`, at its saved place; `size` when it has none.
pub fn place<'a, R: tauri::Runtime, M: Manager<R>>(
    app: &AppHandle,
    label: &str,
    builder: WebviewWindowBuilder<'a, R, M>,
    size: (f64, f64),
) -> WebviewWindowBuilder<'a, R, M> {
    let state = app.state::<Places>();
    state.kept.lock().insert(label.to_string());
    let saved = state.places.lock().get(label).copied();
    let Some(saved) = saved else { return builder.inner_size(size.0, size.1) };
    let monitors: Vec<Area> = app
        .available_monitors()
        .unwrap_or_default()
        .iter()
        .map(|monitor| {
            let scale = monitor.scale_factor();
            let position = monitor.position().to_logical::<f64>(scale);
            let extent = monitor.size().to_logical::<f64>(scale);
            Area { x: position.x, y: position.y, width: extent.width, height: extent.height }
        })
        .collect();
    match saved.restore(&monitors) {
        Restore::At(place) => builder
            .position(place.x, place.y)
            .inner_size(place.width, place.height)
            .maximized(place.maximized),
        Restore::Centred { width, height, maximized } => {
            tracing::info!(label, "the window's saved place is off every monitor: centred");
            builder.inner_size(width, height).center().maximized(maximized)
        }
    }
}

/// A kept window moved, was resized or (un)maximised: its place follows. The size and place of a
/// maximised or minimised window are not its own, so only its state is.
fn on_window_event(window: &Window, event: &WindowEvent) {
    let label = window.label();
    let app = window.app_handle();
    if !app.state::<Places>().kept.lock().contains(label) {
        return;
    }
    match event {
        WindowEvent::Moved(_) | WindowEvent::Resized(_) => {
            let maximized = window.is_maximized().unwrap_or(false);
            let minimized = window.is_minimized().unwrap_or(false);
            let visible = window.is_visible().unwrap_or(false);
            if minimized || !visible {
                return;
            }
            let scale = window.scale_factor().unwrap_or(1.0);
            let state = app.state::<Places>();
            let mut places = state.places.lock();
            let now = match (window.outer_position(), window.inner_size()) {
                (Ok(position), Ok(size)) if !maximized => {
                    let position = position.to_logical::<f64>(scale);
                    let size = size.to_logical::<f64>(scale);
                    Place {
                        x: position.x,
                        y: position.y,
                        width: size.width,
                        height: size.height,
                        maximized,
                    }
                }
                _ => match places.get(label) {
                    Some(before) => Place { maximized, ..*before },
                    None => return,
                },
            };
            places.insert(label.to_string(), now);
            drop(places);
            save_when_settled(app);
        }
        WindowEvent::CloseRequested { .. } | WindowEvent::Destroyed => save(app),
        _ => {}
    }
}

/// Saves the places once no window has moved or been resized for [`SETTLE`].
fn save_when_settled(app: &AppHandle) {
    use std::sync::atomic::Ordering;
    let this = app.state::<Places>().moves.fetch_add(1, Ordering::SeqCst) + 1;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(SETTLE).await;
        if app.state::<Places>().moves.load(Ordering::SeqCst) == this {
            // On the main thread, as the window's own events run: `save` asks the windows
            // whether they are maximised while it holds the places, and from another thread that
            // question waits for the main thread, which may be waiting for the places.
            let on_main = app.clone();
            if let Err(error) = app.run_on_main_thread(move || save(&on_main)) {
                tracing::warn!(%error, "could not write the windows' places");
            }
        }
    });
}

/// Writes the places down in `desktop.json` (when they changed). Whether a window is maximised is
/// asked again: the window manager may say so after the resize it brings.
pub fn save(app: &AppHandle) {
    let places = {
        let state = app.state::<Places>();
        let mut places = state.places.lock();
        for (label, place) in places.iter_mut() {
            if let Some(maximized) =
                app.get_window(label).and_then(|window| window.is_maximized().ok())
            {
                place.maximized = maximized;
            }
        }
        places.clone()
    };
    let preferences = app.state::<Preferences>();
    if preferences.get().windows != places {
        preferences.update(&app.state::<Session>().root, |prefs| prefs.windows = places);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: Area = Area { x: 0.0, y: 0.0, width: 1440.0, height: 900.0 };
    const RIGHT: Area = Area { x: 1440.0, y: 0.0, width: 1920.0, height: 1080.0 };

    fn place(x: f64, y: f64, width: f64, height: f64) -> Place {
        Place { x, y, width, height, maximized: false }
    }

    #[test]
    fn a_place_on_a_monitor_is_given_back_as_it_was() {
        let saved = Place { maximized: true, ..place(120.0, 80.0, 900.0, 600.0) };
        assert_eq!(saved.restore(&[SCREEN]), Restore::At(saved));
        // On the second monitor, and hanging off the first one's edge by most of its width.
        let there = place(2000.0, 100.0, 1200.0, 800.0);
        assert_eq!(there.restore(&[SCREEN, RIGHT]), Restore::At(there));
        let hanging = place(1300.0, 500.0, 900.0, 600.0);
        assert_eq!(hanging.restore(&[SCREEN]), Restore::At(hanging));
    }

    #[test]
    fn a_place_off_every_monitor_comes_up_centred_at_its_size() {
        // The second monitor was unplugged.
        let there = Place { maximized: true, ..place(2000.0, 100.0, 1200.0, 800.0) };
        assert_eq!(
            there.restore(&[SCREEN]),
            Restore::Centred { width: 1200.0, height: 800.0, maximized: true }
        );
        // Only a sliver of its top edge (or none of it: the title bar above the screen) shows.
        assert!(matches!(
            place(1400.0, 10.0, 900.0, 600.0).restore(&[SCREEN]),
            Restore::Centred { .. }
        ));
        assert!(matches!(
            place(100.0, -200.0, 900.0, 600.0).restore(&[SCREEN]),
            Restore::Centred { .. }
        ));
        assert!(matches!(
            place(100.0, 880.0, 900.0, 600.0).restore(&[SCREEN]),
            Restore::Centred { .. }
        ));
    }

    #[test]
    fn a_window_larger_than_its_monitor_now_shrinks_to_it() {
        let big = place(0.0, 0.0, 2500.0, 1400.0);
        assert_eq!(big.restore(&[SCREEN]), Restore::At(place(0.0, 0.0, 1440.0, 900.0)));
        assert_eq!(
            place(5000.0, 0.0, 2500.0, 1400.0).restore(&[SCREEN]),
            Restore::Centred { width: 1440.0, height: 900.0, maximized: false }
        );
    }

    #[test]
    fn places_are_written_by_label_in_desktop_json() {
        let mut windows = BTreeMap::new();
        windows.insert("main".to_string(), Place { maximized: true, ..place(1.0, 2.0, 3.0, 4.0) });
        let text = serde_json::to_string(&windows).unwrap();
        assert_eq!(text, r#"{"main":{"x":1.0,"y":2.0,"width":3.0,"height":4.0,"maximized":true}}"#);
        assert_eq!(serde_json::from_str::<BTreeMap<String, Place>>(&text).unwrap(), windows);
    }
}
