//! `cowork setup`, `cowork install` and `cowork doctor --disable-autostart`: what makes an installed
//! Cowork Studio (the .deb, or binaries copied anywhere) complete on this machine, as far as a local
//! install goes. Downloading Cowork from a release endpoint is not available yet: these commands
//! finish the install that is already here.

use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::autostart::Autostart;

/// `cowork install [--force]`: start at login, and the routine runtime.
pub async fn install(force: bool) -> CommandResult {
    outln!("install:   finishing the install of this cowork (downloading Cowork from a release endpoint is not available yet)");
    enable_autostart()?;
    super::runtime::ensure(force).await?;
    Ok(Exit::Ok)
}

/// `cowork setup [--yes] [--force]`: what `install` does, then the workbench opens (which starts
/// the daemon, in the desktop app when there is one). `--yes` is accepted for the reference's
/// scripts: setup asks nothing.
pub async fn setup(force: bool) -> CommandResult {
    install(force).await?;
    super::open::run(false, None).await
}

/// Writes the autostart entry for the desktop app beside this CLI (or on the PATH).
pub(super) fn enable_autostart() -> Result<(), Failure> {
    let autostart = Autostart::from_env();
    let Some(desktop) = super::open::desktop_binary() else {
        outln!("autostart: the desktop app is not installed beside this CLI, so nothing starts at login");
        return Ok(());
    };
    autostart.enable(&desktop).map_err(|e| {
        Failure::new(
            Exit::Failed,
            format!("failed to write the autostart entry {}: {e}", autostart.file().display()),
        )
    })?;
    outln!(
        "autostart: Cowork Studio starts at login ({}; `cowork doctor --disable-autostart` switches it off)",
        autostart.file().display()
    );
    Ok(())
}

/// `cowork doctor --disable-autostart`: removes the entry (`cowork install` writes it again).
pub fn disable_autostart() -> CommandResult {
    let autostart = Autostart::from_env();
    let removed = autostart.disable().map_err(|e| {
        Failure::new(
            Exit::Failed,
            format!("failed to remove the autostart entry {}: {e}", autostart.file().display()),
        )
    })?;
    if removed {
        outln!(
            "autostart: off (removed {}); `cowork install` switches it on again",
            autostart.file().display()
        );
    } else {
        outln!(
            "autostart: already off (no {}); `cowork install` switches it on",
            autostart.file().display()
        );
    }
    Ok(Exit::Ok)
}
