//! Start at login: the XDG autostart entry (`$XDG_CONFIG_HOME/autostart/cowork-studio.desktop`)
//! that desktop sessions on Linux read when someone logs in. One file, so the tray's switch,
//! `cowork setup`, `cowork install` and `cowork doctor --disable-autostart` all agree on its state.

use std::io;
use std::path::{Path, PathBuf};

/// The entry's file name.
const FILE: &str = "cowork-studio.desktop";

/// The autostart entry of this user, wherever the session looks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Autostart {
    file: PathBuf,
}

impl Autostart {
    /// The entry under `$XDG_CONFIG_HOME/autostart`, else `~/.config/autostart`.
    pub fn from_env() -> Self {
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
            .unwrap_or_else(|| PathBuf::from(".config"));
        Self::in_config(&config)
    }

    /// The entry under `config/autostart`.
    pub fn in_config(config: &Path) -> Self {
        Self { file: config.join("autostart").join(FILE) }
    }

    /// Where the entry is.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Whether the desktop app starts at login: the entry is there and not switched off
    /// (`Hidden=true` or `X-GNOME-Autostart-enabled=false`, which session settings write).
    pub fn is_enabled(&self) -> bool {
        std::fs::read_to_string(&self.file).is_ok_and(|text| {
            !text.lines().any(|line| {
                matches!(line.trim(), "Hidden=true" | "X-GNOME-Autostart-enabled=false")
            })
        })
    }

    /// Writes the entry that starts `desktop` (the `cowork-desktop` binary) at login.
    pub fn enable(&self, desktop: &Path) -> io::Result<()> {
        crate::fs_atomic::write(&self.file, entry(desktop).as_bytes(), false)
    }

    /// Removes the entry; `false` when there was none.
    pub fn disable(&self) -> io::Result<bool> {
        match std::fs::remove_file(&self.file) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(error),
        }
    }
}

/// The entry's text. `Exec` quotes the path when it holds a space or a reserved character, and
/// escapes what the Desktop Entry spec asks inside quotes (twice: once for the quoting, once
/// because the value is itself an escaped string).
fn entry(desktop: &Path) -> String {
    let path = desktop.display().to_string();
    let exec = if path.chars().any(|c| " \t\"'\\`$<>~|&;*?#()".contains(c)) {
        let mut quoted = String::from("\"");
        for c in path.chars() {
            match c {
                '\\' => quoted.push_str("\\\\\\\\"),
                '"' | '`' | '$' => {
                    quoted.push_str("\\\\");
                    quoted.push(c);
                }
                _ => quoted.push(c),
            }
        }
        quoted.push('"');
        quoted
    } else {
        path
    };
    format!(
        "[Desktop Entry]\nType=Application\nName=Cowork Studio\n\
         Comment=Starts Cowork Studio at login (switch it off in its tray menu or with `cowork doctor --disable-autostart`)\n\
         Exec={exec}\nIcon=cowork-desktop\nTerminal=false\nX-GNOME-Autostart-enabled=true\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enable_then_disable_round_trips() {
        let config = tempfile::tempdir().unwrap();
        let autostart = Autostart::in_config(config.path());
        assert!(!autostart.is_enabled());
        autostart.enable(Path::new("/usr/bin/cowork-desktop")).unwrap();
        assert!(autostart.is_enabled());
        let text = std::fs::read_to_string(autostart.file()).unwrap();
        assert!(text.contains("\nExec=/usr/bin/cowork-desktop\n"), "{text}");
        assert!(autostart.disable().unwrap());
        assert!(!autostart.is_enabled());
        assert!(!autostart.disable().unwrap(), "a second disable finds nothing");
    }

    #[test]
    fn an_entry_switched_off_by_the_session_counts_as_off() {
        let config = tempfile::tempdir().unwrap();
        let autostart = Autostart::in_config(config.path());
        autostart.enable(Path::new("/usr/bin/cowork-desktop")).unwrap();
        let text = std::fs::read_to_string(autostart.file()).unwrap();
        std::fs::write(autostart.file(), text.replace("enabled=true", "enabled=false")).unwrap();
        assert!(!autostart.is_enabled());
    }

    #[test]
    fn a_path_with_a_space_is_quoted() {
        let text = entry(Path::new("/opt/Cowork Studio/cowork-desktop"));
        assert!(text.contains("\nExec=\"/opt/Cowork Studio/cowork-desktop\"\n"), "{text}");
    }
}
