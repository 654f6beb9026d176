//! A site app's window takes a browser window's page keys (Linux): F5, Ctrl+R reload; Shift+F5,
//! Ctrl+Shift+R reload past the cache; Alt+Left, Alt+Right go back and forward. The window has no
//! toolbar, so these are the only way to them. They are taken before the page sees them, as a
//! browser does, and work on any page of the window (an error page too, where no script runs).

use gtk::gdk;
use gtk::prelude::*;
use tauri::WebviewWindow;

/// What a key does to the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKey {
    Reload,
    /// A reload that fetches everything again.
    ReloadFresh,
    Back,
    Forward,
}

/// The page key `keyval` is with `modifiers` held, if it is one.
pub fn page_key(keyval: gdk::keys::Key, modifiers: gdk::ModifierType) -> Option<PageKey> {
    use gdk::keys::constants as key;
    use gdk::ModifierType as Mod;
    let held = modifiers & (Mod::CONTROL_MASK | Mod::SHIFT_MASK | Mod::MOD1_MASK);
    let control = Mod::CONTROL_MASK;
    let shift = Mod::SHIFT_MASK;
    // With Shift held GDK reports the letter as `R`, with Caps Lock on as `R` without Shift.
    let r = keyval == key::r || keyval == key::R;
    match () {
        _ if held.is_empty() && keyval == key::F5 => Some(PageKey::Reload),
        _ if held == control && r => Some(PageKey::Reload),
        _ if held == shift && keyval == key::F5 => Some(PageKey::ReloadFresh),
        _ if held == control | shift && r => Some(PageKey::ReloadFresh),
        _ if held == Mod::MOD1_MASK && keyval == key::Left => Some(PageKey::Back),
        _ if held == Mod::MOD1_MASK && keyval == key::Right => Some(PageKey::Forward),
        _ => None,
    }
}

/// Gives `window`'s page the page keys.
pub fn follow(window: &WebviewWindow) {
    use webkit2gtk::WebViewExt;
    let result = window.with_webview(|platform| {
        platform.inner().connect_key_press_event(|view, event| {
            let Some(action) = page_key(event.keyval(), event.state()) else {
                return gtk::glib::Propagation::Proceed;
            };
            match action {
                PageKey::Reload => view.reload(),
                PageKey::ReloadFresh => view.reload_bypass_cache(),
                PageKey::Back => view.go_back(),
                PageKey::Forward => view.go_forward(),
            }
            gtk::glib::Propagation::Stop
        });
    });
    if let Err(error) = result {
        tracing::warn!("failed to give a site app's window its reload and back keys: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdk::keys::constants as key;
    use gdk::ModifierType as Mod;

    #[test]
    fn reload_back_and_forward_are_the_browsers_keys() {
        let none = Mod::empty();
        assert_eq!(page_key(key::F5, none), Some(PageKey::Reload));
        assert_eq!(page_key(key::r, Mod::CONTROL_MASK), Some(PageKey::Reload));
        assert_eq!(page_key(key::F5, Mod::SHIFT_MASK), Some(PageKey::ReloadFresh));
        assert_eq!(
            page_key(key::R, Mod::CONTROL_MASK | Mod::SHIFT_MASK),
            Some(PageKey::ReloadFresh)
        );
        assert_eq!(page_key(key::Left, Mod::MOD1_MASK), Some(PageKey::Back));
        assert_eq!(page_key(key::Right, Mod::MOD1_MASK), Some(PageKey::Forward));
        // Num Lock (Mod2) held changes nothing.
        assert_eq!(page_key(key::F5, Mod::MOD2_MASK), Some(PageKey::Reload));
    }

    #[test]
    fn the_pages_own_keys_are_left_to_it() {
        // Typing an r, the arrows in a text field, Ctrl+Left (a word back), Ctrl+Alt+R.
        assert_eq!(page_key(key::r, Mod::empty()), None);
        assert_eq!(page_key(key::Left, Mod::empty()), None);
        assert_eq!(page_key(key::Left, Mod::CONTROL_MASK), None);
        assert_eq!(page_key(key::r, Mod::CONTROL_MASK | Mod::MOD1_MASK), None);
        assert_eq!(page_key(key::F5, Mod::CONTROL_MASK), None);
    }
}
