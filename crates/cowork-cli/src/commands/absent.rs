//! The reference's commands this version does not have (page 05: `restart`, `update`,
//! `self-update`, `machine`, `webapp`, `personal-server`, `app build`, `app deploy`): each says so
//! by name, with what to do instead where there is something, and exits 5 ("not available in this
//! version", as `deploy build`), so a person following the reference is not left with clap's
//! "unrecognized subcommand".

use crate::exit::{Exit, Failure};

/// The refusal of `cowork <command>`.
pub fn refused(command: &str) -> Failure {
    let failure = Failure::new(
        Exit::Unsupported,
        format!("`cowork {command}` is not available in this version"),
    );
    match command {
        "restart" => failure.hint("`cowork stop`, then `cowork start --headless` (or open the desktop app again)"),
        "update" | "self-update" => failure.hint("install the new release's .deb (`sudo apt install ./cowork-studio_<version>_amd64.deb`); `cowork --version` shows this one"),
        "app build" | "app deploy" | "webapp" => failure.hint("`cowork app serve` runs a workspace's apps as a local webapp; `cowork push` publishes an app to a team server"),
        _ => failure,
    }
}
