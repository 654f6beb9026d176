//! Real input for the browser engine: GDK events built here and handed to GTK's own dispatch
//! (`gtk_main_do_event`), the way WebKit's own test runner drives WebKitGTK
//! (`EventSenderProxyGtk`). The page receives them as a person's input — trusted events, through
//! the input method for text — so React's controlled inputs and contenteditable elements update.
//! Script-dispatched events would be untrusted and frameworks may ignore them.
//!
//! Runs on the main thread only (inside `Webview::with_webview`).
#![allow(unsafe_code)] // GdkEvent's fields have no setters in gdk-rs: see each block.

use gtk::gdk;
use gtk::glib::translate::{ToGlibPtr, ToGlibPtrMut};
use gtk::prelude::*;

/// A key and its modifiers, parsed from "Enter", "a", "Control+A", "Shift+Tab".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chord {
    pub keyval: u32,
    pub modifiers: gdk::ModifierType,
}

/// Reads a key as the engine's callers name it (Playwright's names: "Enter", "ArrowLeft",
/// "Control+Shift+K", a single character); `Err` names the part that is not a key.
pub fn chord(text: &str) -> Result<Chord, String> {
    let mut modifiers = gdk::ModifierType::empty();
    let parts: Vec<&str> = if text == "+" { vec!["+"] } else { text.split('+').collect() };
    let (key, held) = parts.split_last().ok_or_else(|| "no key".to_owned())?;
    for modifier in held {
        modifiers |= match *modifier {
            "Control" | "Ctrl" | "ControlOrMeta" => gdk::ModifierType::CONTROL_MASK,
            "Shift" => gdk::ModifierType::SHIFT_MASK,
            "Alt" => gdk::ModifierType::MOD1_MASK,
            "Meta" | "Super" => gdk::ModifierType::SUPER_MASK,
            other => {
                return Err(format!("\"{other}\" is not a modifier (Control, Shift, Alt, Meta)"))
            }
        };
    }
    let mut keyval = keyval(key).ok_or_else(|| format!("\"{key}\" is not a key name"))?;
    // A person's Control+A is the A key with Control held, which GDK reports as keyval `a`
    // (`A` only with Shift held). WebKit matches some editing chords on that keyval (its own
    // table: Control+z undoes, Control+Shift+z redoes), where GTK's bindings (select all, cut,
    // copy, paste) go by the hardware key; "Control+Z" sent as keyval `Z` undid nothing.
    let letter = gdk::keys::Key::from(keyval).to_unicode().filter(char::is_ascii_alphabetic);
    if let Some(letter) = letter.filter(|_| !held.is_empty()) {
        let shifted = modifiers.contains(gdk::ModifierType::SHIFT_MASK);
        let letter =
            if shifted { letter.to_ascii_uppercase() } else { letter.to_ascii_lowercase() };
        keyval = *gdk::keys::Key::from_unicode(letter);
    }
    Ok(Chord { keyval, modifiers })
}

/// The editing command a chord means where WebKitGTK leaves it to the application: undo and redo
/// (WebKit binds select all, cut, copy and paste itself; browsers such as Epiphany run Undo and
/// Redo from their Edit menu's Control+Z, Control+Shift+Z and Control+Y).
pub fn editing_command(chord: &Chord) -> Option<&'static str> {
    use gdk::keys::constants as key;
    use gdk::ModifierType as Mod;
    let held = chord.modifiers & (Mod::CONTROL_MASK | Mod::SHIFT_MASK | Mod::MOD1_MASK);
    let keyval = gdk::keys::Key::from(chord.keyval);
    if held == Mod::CONTROL_MASK && keyval == key::z {
        Some("Undo")
    } else if (held == Mod::CONTROL_MASK | Mod::SHIFT_MASK && keyval == key::Z)
        || (held == Mod::CONTROL_MASK && keyval == key::y)
    {
        Some("Redo")
    } else {
        None
    }
}

/// A key's GDK keyval: a character, or a name.
fn keyval(key: &str) -> Option<u32> {
    let mut chars = key.chars();
    if let (Some(ch), None) = (chars.next(), chars.next()) {
        return Some(*gdk::keys::Key::from_unicode(ch));
    }
    let name = match key {
        "Enter" => "Return",
        "Backspace" => "BackSpace",
        "ArrowUp" => "Up",
        "ArrowDown" => "Down",
        "ArrowLeft" => "Left",
        "ArrowRight" => "Right",
        "PageUp" => "Page_Up",
        "PageDown" => "Page_Down",
        "Space" => "space",
        "Escape" | "Tab" | "Delete" | "Home" | "End" | "Insert" => key,
        other if other.len() <= 3 && other.starts_with('F') && other[1..].parse::<u8>().is_ok() => {
            other
        }
        _ => return None,
    };
    Some(*gdk::keys::Key::from_name(name)).filter(|keyval| *keyval != 0 && *keyval != 0xff_ffff)
}

/// The webview's own GDK window and the seat's devices.
fn target(widget: &gtk::Widget) -> Option<(gdk::Window, gdk::Seat)> {
    let window = widget.window()?;
    let seat = widget.display().default_seat()?;
    Some((window, seat))
}

/// Presses and releases `chord` in the focused element of `widget`'s page.
pub fn press(widget: &gtk::Widget, chord: &Chord) -> Result<(), String> {
    let (window, seat) = target(widget).ok_or("the page has no window on screen")?;
    widget.grab_focus();
    let keycode = gdk::Keymap::for_display(&widget.display())
        .and_then(|keymap| keymap.entries_for_keyval(chord.keyval).first().map(|key| key.keycode()))
        .unwrap_or(0);
    for kind in [gdk::EventType::KeyPress, gdk::EventType::KeyRelease] {
        let mut event = gdk::Event::new(kind);
        event.set_device(seat.keyboard().as_ref());
        // SAFETY: `event` was created as a key event, so its union is a GdkEventKey; the window
        // reference taken here is released by gdk_event_free when `event` drops.
        unsafe {
            let raw: *mut gdk::ffi::GdkEvent = event.to_glib_none_mut().0;
            let key = &mut (*raw).key;
            key.window = window.to_glib_full();
            key.send_event = 0;
            key.time = gdk::ffi::GDK_CURRENT_TIME as u32;
            key.state = chord.modifiers.bits();
            key.keyval = chord.keyval;
            key.hardware_keycode = keycode as u16;
            key.group = 0;
        }
        gtk::main_do_event(&mut event);
    }
    Ok(())
}

/// Types `text` key by key (each character a press and a release).
pub fn type_text(widget: &gtk::Widget, text: &str) -> Result<(), String> {
    for ch in text.chars() {
        let chord = if ch == '\n' {
            chord("Enter")?
        } else {
            Chord {
                keyval: *gdk::keys::Key::from_unicode(ch),
                modifiers: gdk::ModifierType::empty(),
            }
        };
        press(widget, &chord)?;
    }
    Ok(())
}

/// Moves the pointer to (`x`, `y`) (the page's viewport, CSS pixels at zoom 1) and clicks
/// `button` (1 left, 2 middle, 3 right) `count` times.
pub fn click(widget: &gtk::Widget, x: f64, y: f64, button: u32, count: u32) -> Result<(), String> {
    let (window, seat) = target(widget).ok_or("the page has no window on screen")?;
    let pointer = seat.pointer();
    let (_, origin_x, origin_y) = window.origin();
    let (root_x, root_y) = (x + f64::from(origin_x), y + f64::from(origin_y));
    let mut motion = gdk::Event::new(gdk::EventType::MotionNotify);
    motion.set_device(pointer.as_ref());
    // SAFETY: a motion event's union is a GdkEventMotion; the window reference is released by
    // gdk_event_free.
    unsafe {
        let raw: *mut gdk::ffi::GdkEvent = motion.to_glib_none_mut().0;
        let event = &mut (*raw).motion;
        event.window = window.to_glib_full();
        event.time = gdk::ffi::GDK_CURRENT_TIME as u32;
        event.x = x;
        event.y = y;
        event.x_root = root_x;
        event.y_root = root_y;
    }
    gtk::main_do_event(&mut motion);
    let mask = match button {
        2 => gdk::ModifierType::BUTTON2_MASK,
        3 => gdk::ModifierType::BUTTON3_MASK,
        _ => gdk::ModifierType::BUTTON1_MASK,
    };
    for click in 1..=count.max(1) {
        let mut kinds = vec![gdk::EventType::ButtonPress];
        if click == 2 {
            kinds.push(gdk::EventType::DoubleButtonPress);
        }
        kinds.push(gdk::EventType::ButtonRelease);
        for kind in kinds {
            let mut event = gdk::Event::new(kind);
            event.set_device(pointer.as_ref());
            let state = if kind == gdk::EventType::ButtonRelease {
                mask
            } else {
                gdk::ModifierType::empty()
            };
            // SAFETY: a button event's union is a GdkEventButton; the window reference is
            // released by gdk_event_free.
            unsafe {
                let raw: *mut gdk::ffi::GdkEvent = event.to_glib_none_mut().0;
                let pressed = &mut (*raw).button;
                pressed.window = window.to_glib_full();
                pressed.time = gdk::ffi::GDK_CURRENT_TIME as u32;
                pressed.x = x;
                pressed.y = y;
                pressed.x_root = root_x;
                pressed.y_root = root_y;
                pressed.button = button;
                pressed.state = state.bits();
            }
            gtk::main_do_event(&mut event);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_named_as_playwright_names_them() {
        assert_eq!(chord("Enter").unwrap().keyval, *gdk::keys::constants::Return);
        assert_eq!(chord("ArrowLeft").unwrap().keyval, *gdk::keys::constants::Left);
        assert_eq!(chord("a").unwrap().keyval, *gdk::keys::constants::a);
        let chord_ = chord("Control+Shift+K").unwrap();
        assert_eq!(chord_.keyval, *gdk::keys::constants::K);
        assert_eq!(
            chord_.modifiers,
            gdk::ModifierType::CONTROL_MASK | gdk::ModifierType::SHIFT_MASK
        );
        assert_eq!(chord("F5").unwrap().keyval, *gdk::keys::constants::F5);
        // Chords as a keyboard makes them: a letter's keyval is lower case unless Shift is held.
        assert_eq!(chord("Control+A").unwrap().keyval, *gdk::keys::constants::a);
        assert_eq!(chord("Control+z").unwrap().keyval, *gdk::keys::constants::z);
        assert_eq!(chord("Control+Shift+z").unwrap().keyval, *gdk::keys::constants::Z);
        assert_eq!(chord("A").unwrap().keyval, *gdk::keys::constants::A, "a character alone");
    }

    #[test]
    fn undo_and_redo_are_the_chords_webkit_leaves_to_the_browser() {
        let command = |text: &str| editing_command(&chord(text).unwrap());
        assert_eq!(command("Control+Z"), Some("Undo"));
        assert_eq!(command("Control+z"), Some("Undo"));
        assert_eq!(command("Control+Shift+Z"), Some("Redo"));
        assert_eq!(command("Control+y"), Some("Redo"));
        assert_eq!(command("Control+A"), None, "WebKit selects all itself");
        assert_eq!(command("z"), None);
        assert_eq!(command("Alt+Control+z"), None);
        assert_eq!(chord("+").unwrap().keyval, *gdk::keys::constants::plus);
        assert!(chord("Hyper+A").unwrap_err().contains("\"Hyper\" is not a modifier"));
        assert!(chord("Enterr").unwrap_err().contains("\"Enterr\" is not a key name"));
    }
}
