//! `cowork push` and the store's `cowork app` verbs, as clap reads them.

use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

/// `cowork push [dir] [--to <ts> [--remember]] [--dry-run] [--json]`.
#[derive(Args)]
pub struct PushArgs {
    /// An app folder (it holds cowork.json) or a workspace (every .cowork/apps/<name>/cowork.json in it); default the current folder.
    pub dir: Option<PathBuf>,
    /// The team server to push to (else the store the app was installed from, else "publishTo" in .cowork/workspace.json).
    #[arg(long, value_name = "team-server")]
    pub to: Option<String>,
    /// Store the --to team server as this workspace's "publishTo" (machine-local state, never packaged) — even if the push then fails; an unknown team server is never stored.
    #[arg(long, requires = "to")]
    pub remember: bool,
    /// Say what would be published or bumped; nothing is uploaded or written.
    #[arg(long)]
    pub dry_run: bool,
    /// One JSON line: a row per app.
    #[arg(long)]
    pub json: bool,
}

/// What `cowork app update <app>` does with an app you edited.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UpdateChoice {
    Replace,
    KeepBoth,
    AiMerge,
    Skip,
}

/// `cowork app update [<app>] [--replace|--keep-both|--ai-merge|--skip]`'s choice flags.
#[derive(Args)]
#[group(multiple = false)]
pub struct UpdateChoiceArgs {
    /// The store wins: its files replace yours (files you ADDED are never touched).
    #[arg(long)]
    pub replace: bool,
    /// Yours stays as it is; the new version lands whole in .cowork/apps/<app>-v<X-Y-Z>/, switched off.
    #[arg(long)]
    pub keep_both: bool,
    /// Claude merges your changes into the new version (needs the `claude` CLI); if it cannot, both are kept.
    #[arg(long)]
    pub ai_merge: bool,
    /// Dismiss that version (the next one asks again).
    #[arg(long)]
    pub skip: bool,
}

impl UpdateChoiceArgs {
    pub fn choice(&self) -> Option<UpdateChoice> {
        [
            (self.replace, UpdateChoice::Replace),
            (self.keep_both, UpdateChoice::KeepBoth),
            (self.ai_merge, UpdateChoice::AiMerge),
            (self.skip, UpdateChoice::Skip),
        ]
        .into_iter()
        .find_map(|(on, choice)| on.then_some(choice))
    }
}

/// Where an item runs.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HostArg {
    Desktop,
    Web,
}

#[derive(Subcommand)]
pub enum TemplateCommand {
    /// Scaffold an app / routine / skill template into the workspace at --dir (default the current folder), as the Create menu does. <component> names its folder and files; nothing is written if any target path exists.
    Install {
        /// `<team-server>/<name>`; the built-in templates are `cowork/<name>` (`cowork/app-sidebar-workbench`).
        #[arg(value_name = "team-server/name")]
        template: String,
        /// The component's name: its folder .cowork/apps/<component>/ and the word the template's own name becomes.
        #[arg(long, value_name = "component")]
        name: String,
        /// The workspace (default: the current folder).
        #[arg(long, value_name = "path")]
        dir: Option<PathBuf>,
        /// Where it will run: a template that needs the other host is refused.
        #[arg(long, value_enum, value_name = "web|desktop")]
        host: Option<HostArg>,
        /// Scaffold content that does not verify (only when the person explicitly asks).
        #[arg(long)]
        allow_unverified: bool,
        #[arg(long)]
        json: bool,
    },
}
