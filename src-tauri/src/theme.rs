//! The workbench's light or dark theme, as far as the shell draws things itself: the colour a
//! window shows before its page paints, and GTK's `gtk-application-prefer-dark-theme`, which the
//! menu bar and the native dialogs follow. The workbench says which theme it shows (`set_theme`,
//! at its start and at each switch); `desktop.json` remembers it for the next start, whose window
//! is built in that colour rather than black.

use crate::ipc::{caller, CommandError};
use crate::main_window::MAIN;
use crate::session::{Preferences, Session};
use crate::workspaces::Theme;
use tauri::window::Color;
use tauri::{AppHandle, Manager, Webview, WebviewWindow};

impl Theme {
    /// The workbench's `--background` (`ui/src/theme.css`): `oklch(1 0 0)` light, `oklch(0.145 0 0)`
    /// dark, in sRGB.
    pub fn background(self) -> Color {
        match self {
            Theme::Light => Color(255, 255, 255, 255),
            Theme::Dark => Color(10, 10, 10, 255),
        }
    }

    fn gtk(self) -> tauri::Theme {
        match self {
            Theme::Light => tauri::Theme::Light,
            Theme::Dark => tauri::Theme::Dark,
        }
    }
}

/// The theme the workbench showed last, if it ever said (a first start follows the system's).
pub fn saved(app: &AppHandle) -> Option<Theme> {
    app.state::<Preferences>().get().theme
}

/// GTK's menus and dialogs in `theme` (GTK's own setting, for the whole app: tao sets it again
/// from the desktop portal when it builds a window, so this follows the main window's build), and
/// the main window's colour, which its menu bar shows through.
pub fn apply(app: &AppHandle, theme: Theme) {
    app.set_theme(Some(theme.gtk()));
    if let Some(window) = app.get_webview_window(MAIN) {
        if let Err(error) = window.set_background_color(Some(theme.background())) {
            tracing::warn!("failed to give the main window the theme's colour: {error}");
        }
    }
}

/// The system's theme, as the window reads it (the desktop portal's colour scheme on Linux).
pub fn system(window: &WebviewWindow) -> Theme {
    match window.theme() {
        Ok(tauri::Theme::Dark) => Theme::Dark,
        _ => Theme::Light,
    }
}

/// Shows `window`, built hidden, in `theme`'s colour from its very first frame. A window is on the
/// screen (mapped) before GTK has drawn anything in it, and until then X shows what was under it:
/// black, on a fresh screen. The window's own X background is the colour X paints at once.
pub fn show_painted(window: &WebviewWindow, theme: Theme) {
    #[cfg(target_os = "linux")]
    if let Ok(gtk_window) = window.gtk_window() {
        use gtk::prelude::*;
        let Color(red, green, blue, _) = theme.background();
        let [red, green, blue] = [red, green, blue].map(|channel| f64::from(channel) / 255.0);
        gtk_window.realize();
        if let Some(gdk_window) = gtk_window.window() {
            let pattern = gtk::cairo::SolidPattern::from_rgb(red, green, blue);
            gdk_window.set_background_pattern(Some(&pattern));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = theme;
    if let Err(error) = window.show() {
        tracing::warn!("failed to show the main window: {error}");
    }
}

/// `setTheme(theme)` of the workbench: the shell's menus and dialogs follow it now, and the next
/// start's window is built in its colour.
#[tauri::command]
pub fn set_theme(app: AppHandle, webview: Webview, theme: Theme) -> Result<(), CommandError> {
    caller(&webview)?;
    apply(&app, theme);
    if saved(&app) != Some(theme) {
        let root = &app.state::<Session>().root;
        app.state::<Preferences>().update(root, |prefs| prefs.theme = Some(theme));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_theme_is_written_as_the_workbench_names_it() {
        assert_eq!(serde_json::to_string(&Theme::Dark).unwrap(), "\"dark\"");
        assert_eq!(serde_json::from_str::<Theme>("\"light\"").unwrap(), Theme::Light);
        assert!(serde_json::from_str::<Theme>("\"sepia\"").is_err());
    }
}
