//! The unread counts of the active workspace, on the dock/taskbar badge and in the tray.
//!
//! State, not events (docs/reference/sdk.md, `badge`): the latest count of an app wins, 0 clears,
//! nothing expires, a muted app leaves the sum, and a restart clears everything (the counts live in
//! the daemon's memory). The daemon sends each change as a `badge` event; on a switch of workspace
//! or a `registry` event (apps or mutes changed) the shell fetches the whole picture again.
//! Where the platform has no badge (Linux without a Unity launcher) the tray's tooltip, menu and
//! unread icon still show the counts.

use crate::hooks::{self, Hooks};
use crate::main_window::MAIN;
use crate::session::{self, Session};
use cowork_wire::daemon::desktop::Active;
use cowork_wire::daemon::events::Event;
use cowork_wire::daemon::notifications::Badges as Answered;
use cowork_wire::daemon::workbench::WorkbenchInfo;
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use tauri::{AppHandle, Manager};

/// The active workspace's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Per app, as the apps set them (muted ones included; they are not listed or summed).
    apps: BTreeMap<String, u64>,
    /// The apps' titles, for the menu lines.
    titles: HashMap<String, String>,
    muted: BTreeSet<String>,
    /// The sum over non-muted apps, as the daemon counts it.
    pub total: u64,
}

impl Counts {
    /// From `GET /api/workbench`: its badges, the apps' titles, the muted apps.
    pub fn from_workbench(workbench: &WorkbenchInfo) -> Counts {
        let titles = workbench.apps.iter().map(|app| (app.name.as_str(), app.title.as_str()));
        Counts::from_parts(&workbench.badges, titles, &workbench.muted)
    }

    fn from_parts<'a>(
        badges: &Answered,
        titles: impl Iterator<Item = (&'a str, &'a str)>,
        muted: &[String],
    ) -> Counts {
        let mut counts = Counts::from_badges(badges);
        counts.titles = titles.map(|(name, title)| (name.to_string(), title.to_string())).collect();
        counts.muted = muted.iter().cloned().collect();
        counts
    }

    /// From the daemon's badge counts (a switch of workspace answers them).
    pub fn from_badges(badges: &Answered) -> Counts {
        Counts { apps: badges.apps.clone(), total: badges.total, ..Counts::default() }
    }

    /// A `badge` event: `app`'s count is now `count`, the sum `total`.
    pub fn apply_event(&mut self, app: &str, count: u64, total: u64) {
        match count {
            0 => self.apps.remove(app),
            count => self.apps.insert(app.to_string(), count),
        };
        self.total = total;
    }

    /// The apps with unread items, as menu lines: `Notes — 3`.
    pub fn lines(&self) -> Vec<String> {
        self.apps
            .iter()
            .filter(|(app, count)| **count > 0 && !self.muted.contains(*app))
            .map(|(app, count)| format!("{} — {count}", self.titles.get(app).unwrap_or(app)))
            .collect()
    }

    /// The tray's tooltip: the product, then the total and each app's count.
    pub fn tooltip(&self) -> String {
        if self.total == 0 {
            return "Cowork Studio".into();
        }
        format!("Cowork Studio — {} unread\n{}", self.total, self.lines().join("\n"))
    }
}

/// The counts (managed state).
#[derive(Default)]
pub struct Badges(Mutex<Counts>);

impl Badges {
    /// A copy of the current counts.
    pub fn counts(&self) -> Counts {
        self.0.lock().clone()
    }

    /// Replaces the counts (a switch of workspace answers them).
    pub fn set(&self, counts: Counts) {
        self.update(|current| *current = counts);
    }

    fn update(&self, change: impl FnOnce(&mut Counts)) {
        change(&mut self.0.lock());
    }
}

/// The badge's part at start: the counts the activation answered, shown (the tray shows them as
/// it comes up), then kept: a switch answers new ones, a `badge` event changes one, and a
/// `registry` event or a new event stream reads them all again.
pub fn init(app: &tauri::App, activated: &Active) {
    app.manage(Badges::default());
    let hooks = app.state::<Hooks>();
    hooks.on_entered(|app, activated| {
        app.state::<Badges>().set(Counts::from_badges(&activated.badges));
        show(app);
    });
    hooks.on_connected(|app| async move { refetch(&app).await });
    hooks.on_event(|app, event| {
        matches!(*event, Event::Badge { .. } | Event::Registry { .. })
            .then(|| async move { on_event(&app, &event).await })
    });
    app.state::<Badges>().set(Counts::from_badges(&activated.badges));
    show(app.handle());
}

/// Replaces the counts with the active workspace's whole picture and shows them.
pub async fn refetch(app: &AppHandle) {
    let workspace = session::active(app);
    match app.state::<Session>().link.daemon.workbench(Some(&workspace)).await {
        Ok(workbench) => {
            app.state::<Badges>().update(|counts| *counts = Counts::from_workbench(&workbench));
            show(app);
        }
        Err(error) => tracing::warn!("failed to read the workspace's badge counts: {error}"),
    }
}

/// A `badge` event of the active workspace changes one count; a `registry` event (apps or mutes
/// changed) reads them all again.
async fn on_event(app: &AppHandle, event: &Event) {
    match event {
        Event::Badge { app: name, count, total, .. } => {
            app.state::<Badges>().update(|counts| counts.apply_event(name, *count, *total));
            show(app);
        }
        Event::Registry { .. } => refetch(app).await,
        _ => {}
    }
}

/// Shows the counts: the window's badge (per platform), and the tray (through its hook).
pub fn show(app: &AppHandle) {
    let total = app.state::<Badges>().counts().total;
    if let Some(window) = app.get_webview_window(MAIN) {
        let count = i64::try_from(total).ok().filter(|n| *n > 0);
        // A no-op on Linux without a Unity launcher: the tray below covers it.
        if let Err(error) = window.set_badge_count(count) {
            tracing::debug!("failed to set the badge count: {error}");
        }
        #[cfg(target_os = "macos")]
        let _ = window.set_badge_label(count.map(|n| n.to_string()));
        #[cfg(windows)]
        let _ = window.set_overlay_icon(overlay(total));
    }
    hooks::status_changed(app);
}

/// Windows: the taskbar overlay for `total` (1–9, then 9+), from `icons/badge/`.
#[cfg(windows)]
fn overlay(total: u64) -> Option<tauri::image::Image<'static>> {
    let bytes: &[u8] = match total {
        0 => return None,
        1 => include_bytes!("../../icons/badge/1.png"),
        2 => include_bytes!("../../icons/badge/2.png"),
        3 => include_bytes!("../../icons/badge/3.png"),
        4 => include_bytes!("../../icons/badge/4.png"),
        5 => include_bytes!("../../icons/badge/5.png"),
        6 => include_bytes!("../../icons/badge/6.png"),
        7 => include_bytes!("../../icons/badge/7.png"),
        8 => include_bytes!("../../icons/badge/8.png"),
        9 => include_bytes!("../../icons/badge/9.png"),
        _ => include_bytes!("../../icons/badge/9plus.png"),
    };
    tauri::image::Image::from_bytes(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `GET /api/workbench` answers of three apps, `digest` muted.
    fn workbench() -> Counts {
        let badges = Answered {
            apps: [("notes", 3), ("tasks", 1), ("digest", 2)]
                .map(|(app, n)| (app.to_string(), n))
                .into(),
            total: 4,
        };
        let titles = [("notes", "Notes"), ("tasks", "Tasks"), ("digest", "Digest")];
        Counts::from_parts(&badges, titles.into_iter(), &["digest".to_string()])
    }

    #[test]
    fn lines_name_each_unmuted_app_with_its_count() {
        let counts = workbench();
        assert_eq!(counts.lines(), ["Notes — 3", "Tasks — 1"]);
        assert_eq!(counts.tooltip(), "Cowork Studio — 4 unread\nNotes — 3\nTasks — 1");
    }

    #[test]
    fn no_counts_is_just_the_product_name() {
        assert_eq!(Counts::default().tooltip(), "Cowork Studio");
        assert!(Counts::default().lines().is_empty());
    }

    #[test]
    fn the_latest_count_wins_and_zero_clears() {
        let mut counts = workbench();
        counts.apply_event("notes", 0, 1);
        counts.apply_event("board", 5, 6);
        assert_eq!(counts.total, 6);
        // No title known yet (a registry event refetches them): the app's name stands in.
        assert_eq!(counts.lines(), ["board — 5", "Tasks — 1"]);
    }
}
