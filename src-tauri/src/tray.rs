//! The tray icon: where a hidden window comes back from, the workspace list, Do Not Disturb, the
//! unread counts (the only badge Linux without a Unity launcher has), the site apps that hibernate
//! (choosing one wakes it), and Quit.
//!
//! Building it succeeds with no tray host (headless, or a desktop without one, as GNOME without
//! its AppIndicator extension): the window then comes back through a second launch, `cowork
//! open` or a click on a banner, and the first close of the window says so
//! ([`tell_without_tray`]) rather than leave an app nobody can see.

use crate::badge::Badges;
use crate::hooks::Hooks;
use crate::main_window::{self, MAIN};
use crate::menu::{self, id};
use crate::session::{self, Preferences};
use cowork_core::autostart::Autostart;
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};
use tauri::image::Image;
use tauri::menu::{CheckMenuItem, IsMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{MouseButton, MouseButtonState, TrayIconBuilder, TrayIconEvent};
use tauri::{AppHandle, Manager, Theme, WindowEvent, Wry};

const TRAY: &str = "main";

/// The title of the note a close with no tray gives (not "Cowork Studio…", which names the
/// main window).
pub const NO_TRAY_TITLE: &str = "No tray to keep Cowork Studio in";

/// Whether the note of [`tell_without_tray`] was given this run (managed state, Linux).
#[cfg(target_os = "linux")]
#[derive(Default)]
struct Told(AtomicBool);

/// Whether a tray shows the icon (Linux): a StatusNotifier watcher on the session bus (every
/// panel that shows app indicators registers one; the icon is exported through it).
#[cfg(target_os = "linux")]
async fn has_host() -> bool {
    let Ok(bus) = zbus::Connection::session().await else { return false };
    let Ok(proxy) = zbus::fdo::DBusProxy::new(&bus).await else { return false };
    let watcher = zbus::names::BusName::try_from("org.kde.StatusNotifierWatcher")
        .expect("a constant bus name is valid");
    proxy.name_has_owner(watcher).await.unwrap_or(false)
}

/// The main window was closed into the tray: where there is no tray, the person is told, once a
/// run, how to get the window back (Linux: macOS and Windows always have a place for the icon).
fn tell_without_tray(app: &AppHandle) {
    #[cfg(target_os = "linux")]
    {
        let app = app.clone();
        tauri::async_runtime::spawn(async move {
            if has_host().await || app.state::<Told>().0.swap(true, Ordering::SeqCst) {
                return;
            }
            let message = "Cowork Studio keeps running without its window, and its notifications \
                still arrive, but this desktop has no tray to show its icon in.\n\nTo get the \
                window back, start Cowork Studio again from your apps (or run cowork open in a \
                terminal), or click one of its notifications. To stop it, quit from the window \
                (File › Quit, Ctrl+Q).";
            crate::dialogs::note(&app, NO_TRAY_TITLE, message);
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = app;
}

/// The tray's part at start: the icon, showing the counts at once, and following what it shows
/// (its menu's Start at Login is its own).
pub fn init(app: &tauri::App) -> tauri::Result<()> {
    build(app.handle())?;
    #[cfg(target_os = "linux")]
    app.manage(Told::default());
    app.state::<Hooks>().on_status_changed(refresh);
    app.state::<Hooks>().on_window_event(|window, event| {
        if window.label() == MAIN
            && matches!(event, WindowEvent::CloseRequested { .. })
            && !session::quitting(window.app_handle())
        {
            tell_without_tray(window.app_handle());
        }
    });
    app.on_menu_event(|app, event| {
        if event.id().as_ref() == id::START_AT_LOGIN {
            switch_start_at_login(app);
        }
    });
    refresh(app.handle());
    Ok(())
}

/// Creates the tray icon.
fn build(app: &AppHandle) -> tauri::Result<()> {
    TrayIconBuilder::with_id(TRAY)
        .icon(icon(app, false))
        .tooltip("Cowork Studio")
        .menu(&tray_menu(app)?)
        .show_menu_on_left_click(false)
        .on_tray_icon_event(|tray, event| {
            // Where the platform reports clicks (not Linux: there the menu is the icon's only action).
            if let TrayIconEvent::Click {
                button: MouseButton::Left,
                button_state: MouseButtonState::Up,
                ..
            } = event
            {
                main_window::show(tray.app_handle());
            }
        })
        .build(app)?;
    Ok(())
}

/// Shows the current workspaces, Do Not Disturb and counts in the tray.
pub fn refresh(app: &AppHandle) {
    let Some(tray) = app.tray_by_id(TRAY) else { return };
    let counts = app.state::<Badges>().counts();
    match tray_menu(app) {
        Ok(menu) => {
            let _ = tray.set_menu(Some(menu));
        }
        Err(error) => tracing::warn!("failed to rebuild the tray menu: {error}"),
    }
    let tooltip = counts.tooltip();
    tracing::debug!(total = counts.total, tooltip = %tooltip, "tray updated");
    // Linux trays show no tooltip: the total also goes beside the icon there (and in the macOS
    // menu bar); Windows ignores the title.
    let _ = tray.set_tooltip(Some(tooltip));
    let _ = tray.set_title((counts.total > 0).then(|| counts.total.to_string()));
    let _ = tray.set_icon(Some(icon(app, counts.total > 0)));
}

fn tray_menu(app: &AppHandle) -> tauri::Result<Menu<Wry>> {
    let prefs = app.state::<Preferences>().get();
    let counts = app.state::<Badges>().counts();
    let separator = || PredefinedMenuItem::separator(app);
    let mut items: Vec<Box<dyn IsMenuItem<Wry>>> = vec![
        Box::new(MenuItem::with_id(app, id::SHOW, "Open Cowork Studio", true, None::<&str>)?),
        Box::new(separator()?),
    ];
    for item in menu::recent_items(app, &prefs.recent, &session::active(app))? {
        items.push(Box::new(item));
    }
    items.push(Box::new(MenuItem::with_id(
        app,
        id::OPEN_FOLDER,
        "Open Folder…",
        true,
        None::<&str>,
    )?));
    items.push(Box::new(MenuItem::with_id(
        app,
        id::OPEN_BROWSER,
        "Open Browser…",
        true,
        None::<&str>,
    )?));
    items.push(Box::new(separator()?));
    items.push(Box::new(CheckMenuItem::with_id(
        app,
        id::DO_NOT_DISTURB,
        "Do Not Disturb",
        true,
        prefs.do_not_disturb,
        None::<&str>,
    )?));
    items.push(Box::new(CheckMenuItem::with_id(
        app,
        id::START_AT_LOGIN,
        "Start at Login",
        true,
        Autostart::from_env().is_enabled(),
        None::<&str>,
    )?));
    for (index, line) in counts.lines().into_iter().enumerate() {
        items.push(Box::new(MenuItem::with_id(
            app,
            format!("{}{index}", id::COUNT),
            line,
            false,
            None::<&str>,
        )?));
    }
    // Site apps that hibernate now: choosing one wakes it at its page.
    for (name, title) in crate::site_apps::asleep(app) {
        items.push(Box::new(MenuItem::with_id(
            app,
            format!("{}{name}", id::ASLEEP),
            format!("{title} — hibernating"),
            true,
            None::<&str>,
        )?));
    }
    items.push(Box::new(separator()?));
    items.push(Box::new(MenuItem::with_id(
        app,
        id::QUIT,
        "Quit Cowork Studio",
        true,
        None::<&str>,
    )?));
    let refs: Vec<&dyn IsMenuItem<Wry>> = items.iter().map(|item| item.as_ref()).collect();
    Menu::with_items(app, &refs)
}

/// Tray › Start at Login: writes or removes the XDG autostart entry (the one `cowork install` and
/// `cowork doctor --disable-autostart` switch), for this very binary.
fn switch_start_at_login(app: &AppHandle) {
    let autostart = Autostart::from_env();
    let switched = if autostart.is_enabled() {
        autostart.disable().map(drop)
    } else {
        std::env::current_exe().and_then(|exe| autostart.enable(&exe))
    };
    if let Err(error) = switched {
        crate::dialogs::error(
            app,
            "Cowork Studio could not change Start at Login",
            &format!("{}: {error}", autostart.file().display()),
        );
    }
    refresh(app);
}

/// The glyph for the panel's theme: light on a dark panel (`tray-dark`), dark otherwise
/// (`tray-light`, also when the theme cannot be told); the `-unread` variant carries a dot.
fn icon(app: &AppHandle, unread: bool) -> Image<'static> {
    let dark =
        app.get_webview_window(MAIN).and_then(|window| window.theme().ok()) == Some(Theme::Dark);
    let bytes: &[u8] = match (dark, unread) {
        (true, false) => include_bytes!("../../icons/tray/tray-dark.png"),
        (true, true) => include_bytes!("../../icons/tray/tray-dark-unread.png"),
        (false, false) => include_bytes!("../../icons/tray/tray-light.png"),
        (false, true) => include_bytes!("../../icons/tray/tray-light-unread.png"),
    };
    Image::from_bytes(bytes).expect("the tray icons are PNG files")
}
