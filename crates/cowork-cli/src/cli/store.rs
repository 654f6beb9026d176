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
        /// `<team-server>/<name>`; the built-in templates are `cowork/<name>` (`cowork/app-sidebar-workbench`; `cowork team-server store cowork` lists them).
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
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
}

/// What `cowork publish --type` takes.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PublishType {
    Workspace,
    WorkspaceComponent,
    Template,
    Course,
}

/// A template's `--subtype`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SubtypeArg {
    App,
    Routine,
    Skill,
    Workspace,
}

/// `cowork publish [folder] …` (page 05).
#[derive(Args)]
pub struct PublishArgs {
    /// The folder to package (default the current folder): a workspace, a component, a template, or a course's .cowork/courses/<name>/.
    pub folder: Option<PathBuf>,
    /// Package just these paths (a folder whole, plus any _shared/ helpers above them); exactly one makes it a workspace-component. Missing paths are reported, not packaged.
    #[arg(long, value_delimiter = ',', value_name = "p1,p2")]
    pub items: Vec<String>,
    /// Upload into this team server's store (you must be one of its admins); name several and each answers on its own. None: package only.
    #[arg(long = "team-server", value_name = "slug")]
    pub team_servers: Vec<String>,
    /// Where the package goes when no --team-server is named (default a temporary file).
    #[arg(long, value_name = "file")]
    pub out: Option<PathBuf>,
    /// What it is (default assets.json's item block, then what the selection implies).
    #[arg(long = "type", value_enum, value_name = "type")]
    pub kind: Option<PublishType>,
    /// A template's subtype (a template needs one).
    #[arg(long, value_enum, value_name = "s")]
    pub subtype: Option<SubtypeArg>,
    /// Where the item runs (desktop | web); repeat for both.
    #[arg(long, value_enum, value_name = "r")]
    pub requires: Vec<HostArg>,
    /// Pin the version (default: the team server assigns the next one).
    #[arg(long, value_name = "X.Y.Z")]
    pub version: Option<String>,
    /// The store item's name (default assets.json's, the manifest's, or the folder's).
    #[arg(long, value_name = "n")]
    pub name: Option<String>,
    /// The store card's title (a republish keeps any card field it does not state).
    #[arg(long, value_name = "t")]
    pub title: Option<String>,
    /// The store card's description.
    #[arg(long, value_name = "d")]
    pub description: Option<String>,
    /// The store card's tags.
    #[arg(long, value_delimiter = ',', value_name = "a,b")]
    pub tags: Option<Vec<String>>,
    /// A workspace or workspace template: the folder's last capture (the desktop app's window as it left the workspace) becomes the store card's first screenshot while it has none; look at it first: it is the window as it was, which can show more than the files you publish.
    #[arg(long)]
    pub screenshot: bool,
    /// How long each upload may take, in seconds.
    #[arg(long, value_name = "s", default_value_t = 120)]
    pub timeout: u64,
    /// Every check, nothing uploaded or written.
    #[arg(long)]
    pub dry_run: bool,
    /// One JSON line: the package and a row per team server.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum ComponentCommand {
    /// Install a component straight from a git repo into .cowork/apps/<name>/. Never attested, so it is refused without --allow-unverified, and that override must pin --commit <sha>.
    Install {
        /// `<git url>[#ref]` (the ref that holds the commit, when the server cannot fetch a commit by its sha).
        #[arg(value_name = "git url")]
        source: String,
        /// The repository's folder holding the app (default its top).
        #[arg(long, value_name = "sub")]
        path: Option<String>,
        /// The exact commit to install (hex sha).
        #[arg(long, value_name = "sha")]
        commit: Option<String>,
        /// Install it although nothing attests it (it never auto-updates).
        #[arg(long)]
        allow_unverified: bool,
        /// The workspace (default: the current folder).
        #[arg(long, value_name = "path")]
        dir: Option<PathBuf>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
}
