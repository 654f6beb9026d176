//! The command line, as clap reads it. The doc comments are the help text.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

// By path: the docs test includes this file by path too, and must find the same module.
#[path = "cli/queue.rs"]
mod queue;
pub use queue::*;
#[path = "cli/account.rs"]
mod account;
pub use account::*;
#[path = "cli/store.rs"]
mod store;
pub use store::*;

/// Cowork Studio: a folder's apps, their routines and widgets, from the terminal (with no command:
/// this folder's workbench in a browser tab, as `cowork app serve`)
#[derive(Parser)]
#[command(name = "cowork", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Start the Cowork daemon (the routine runner) in the foreground.
    Start(StartArgs),
    /// Print versions, state, the runtime and each open workspace's notifications and badges.
    Status {
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Stop the running Cowork daemon (routines in flight finish first).
    Stop,
    /// Open the workbench: the running desktop app (or a new one), else a browser tab.
    Open {
        /// Skip the desktop app: a browser tab on the workbench.
        #[arg(long)]
        browser: bool,
        /// The workspace folder (default: the current folder).
        #[arg(long)]
        workspace: Option<PathBuf>,
    },
    /// Diagnose the install: root, pidfile, port, runtime, daemon health, start at login.
    Doctor {
        /// Apply the repairs it reports.
        #[arg(long)]
        fix: bool,
        /// Stop starting Cowork Studio at login (`cowork install` starts it again).
        #[arg(long)]
        disable_autostart: bool,
    },
    /// Finish this install: start at login, the routine runtime (Bun, from npm), then open the workbench.
    Setup {
        /// Ask nothing (setup asks nothing already; for the reference's scripts).
        #[arg(long)]
        yes: bool,
        /// Install the runtime again even when one runs.
        #[arg(long)]
        force: bool,
    },
    /// Finish this install: start at login and the routine runtime (Bun, from npm).
    ///
    /// Downloading Cowork itself from a release endpoint is not available yet: install the .deb.
    Install {
        /// Install the runtime again even when one runs.
        #[arg(long)]
        force: bool,
    },
    /// The first-run steps in the terminal: answer what is pending (start at login, the routine runtime).
    Onboarding {
        #[command(subcommand)]
        command: Option<OnboardingCommand>,
    },
    /// Run, list and inspect routines.
    #[command(subcommand)]
    Routine(RoutineCommand),
    /// List, install and remove apps, and switch them on or off.
    #[command(subcommand)]
    App(AppCommand),
    /// The secret store (encrypted, key in the OS keychain): values readable only by routines and `secrets get`.
    #[command(subcommand)]
    Secrets(SecretsCommand),
    /// The connections this workspace's capabilities declare: sign-ins and keys.
    #[command(subcommand)]
    Credential(CredentialCommand),
    /// Approve a routine's command ahead of time in a workspace (where no window can ask — headless).
    #[command(subcommand)]
    Consent(ConsentCommand),
    /// A routine's triggers (schedule, webhook, notifications) and deployment, in .cowork/workspace.json#deployments.
    #[command(subcommand)]
    Deploy(DeployCommand),
    /// The workspace's task queues (.cowork/local/queues.db): work for agents and scripts.
    #[command(subcommand)]
    Queue(QueueCommand),
    /// The skill journal: learnings, errors and notes for a skill, open until resolved.
    #[command(subcommand)]
    Journal(JournalCommand),
    /// Workspace SQLite tables (.cowork/data/<name>.db).
    #[command(subcommand)]
    Table(TableCommand),
    /// Agent logins (Claude Code, Codex, any MCP client) and what each may run through the MCP door.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Stdio MCP server exposing the desktop shell's embedded browser (snapshot→ref→click/fill/read). Point Claude Code or any MCP client at it; the shell must be running. Long-lived — the client owns the lifetime.
    McpBrowser {
        /// The agent's name, as the consent dialog, the banner and the audit line show it (default: the MCP client's own name).
        #[arg(long, value_name = "name")]
        agent: Option<String>,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Sign this machine in to Cowork (works on a server: paste the address the browser ends on). The session renews itself until `cowork logout`.
    Login(LoginArgs),
    /// Sign this machine out of Cowork (every open window follows). --forget also removes that account's local data: its workspaces list, onboarding progress, team-server state, organization access, its secrets and the desktop app's browser data. Workspace files are never touched.
    Logout {
        /// Also remove that account's local data on this machine.
        #[arg(long)]
        forget: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Your organization and its groups (on your team hub).
    Org(OrgArgs),
    /// Team servers: members + a store of things they can install, the one place you share through.
    #[command(subcommand)]
    TeamServer(TeamServerCommand),
    /// The team hub: accounts and sign-in, organizations, team servers (the `cowork-hub` binary's
    /// commands).
    #[command(subcommand)]
    Hub(cowork_hub::cli::HubCommand),
    /// Publish each app's cowork.json version to a team server's store (you must be one of its admins): dir is an app folder (it holds cowork.json) or a workspace (every .cowork/apps/<name>/cowork.json in it). Where it goes: --to, else the store the app was installed from, else "publishTo" in .cowork/workspace.json. Unchanged content is "up to date" (nothing uploaded); changed content at an already-published version bumps the patch and writes it back to cowork.json; a version older than the store's is refused (run `cowork app update <app>` first). Afterwards the app follows its store like any install.
    Push(PushArgs),
    /// Package this workspace (or a component, a template, a course) and publish it to team servers' stores. No --team-server: packages only and prints the file path (a temporary file unless --out). With --team-server: uploads into that team server's store (you must be one of its admins); name several and each answers on its own. The server assigns the version unless --version pins one; a republish keeps any card field it does not state. Apps: cowork push.
    // Its own --version pins the item's version: no `cowork publish --version` of the CLI.
    #[command(disable_version_flag = true)]
    Publish(PublishArgs),
    /// Components straight from a git repository (never attested).
    #[command(subcommand)]
    Component(ComponentCommand),
    /// Templates: scaffold one into a workspace (the built-in ones are `cowork/<name>`, no hub needed).
    #[command(subcommand)]
    Template(TemplateCommand),
    // The reference's commands this version does not have: each says so by name and exits 5, as
    // `deploy build` does, rather than "unrecognized subcommand" (commands/absent.rs).
    #[command(hide = true)]
    Restart(Absent),
    #[command(hide = true)]
    Update(Absent),
    #[command(hide = true)]
    SelfUpdate(Absent),
    #[command(hide = true)]
    Machine(Absent),
    #[command(hide = true)]
    Webapp(Absent),
    #[command(hide = true)]
    PersonalServer(Absent),
}

/// Whatever a command this version does not have was given.
#[derive(Args)]
pub struct Absent {
    #[arg(hide = true, num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
    pub given: Vec<String>,
}

#[derive(Subcommand)]
pub enum AgentCommand {
    /// This account's agent logins: name, id, when each last connected, the revoked ones, the workspaces each opens.
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// A login for an agent, serving this workspace: prints its token ONCE and the lines that connect a client to it.
    Create {
        /// Lowercase letters, digits, `-` or `_` (e.g. `claude`, `codex`).
        name: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// A new token for an agent (the old one stops working), with the connect lines.
    Token {
        name: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Let an agent's login into a workspace (add) or out of it (remove): its token opens only the workspaces it was made in or added to.
    #[command(subcommand)]
    Workspaces(AgentWorkspacesCommand),
    /// Sign an agent out for good: its token stops working everywhere.
    Revoke {
        name: String,
        /// Confirm (a revoked login cannot be restored).
        #[arg(long)]
        yes: bool,
    },
    /// What each agent may run here: every routine of the workspace's capabilities, the default and each agent's answer (* = set here; otherwise reads are on, the rest off).
    Grants {
        /// Only this agent's answers.
        #[arg(long, value_name = "name")]
        agent: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Allow or deny one routine (<cap>/* = every routine of the capability) for one agent, or by default for all; default drops the setting.
    Grant {
        /// `<capability>/<routine>` or `<capability>/*`.
        #[arg(value_name = "cap/routine")]
        target: String,
        #[arg(value_enum)]
        answer: GrantAnswer,
        /// The agent it is for (default: the workspace default, for every agent without its own setting).
        #[arg(long, value_name = "name")]
        agent: Option<String>,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The agents' door on its own listener, for agents on other machines: it serves /api/mcp alone. No flags shows it; --url is the address agents connect to (required for 0.0.0.0) — put HTTPS in front of it; it opens again at each start of the daemon until off closes it.
    Door(DoorArgs),
    /// Link each app's SKILL.md as the project skill .claude/skills/<name>, and install the cowork-studio skill (how to build apps, this version's) for Claude Code and Codex in your home folder.
    Skills {
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}

/// `cowork agent door [--listen host:port] [--url url] | off`.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DoorArgs {
    #[command(subcommand)]
    pub off: Option<DoorCommand>,
    /// Where it listens, e.g. 127.0.0.1:47914 (0.0.0.0:… needs --url).
    #[arg(long, value_name = "host:port")]
    pub listen: Option<String>,
    /// The address agents connect to (default: http://<listen>/api/mcp); put HTTPS in front of it.
    #[arg(long, value_name = "url", requires = "listen")]
    pub url: Option<String>,
}

/// `cowork agent workspaces add|remove <name> [--workspace <dir>]`.
#[derive(Subcommand)]
pub enum AgentWorkspacesCommand {
    /// Let the agent's token open this workspace too (reads are then on for it, as for any agent here).
    Add {
        /// The agent's login, as `cowork agent list` names it.
        name: String,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Stop the agent's token opening this workspace (its open sessions here end too).
    Remove {
        /// The agent's login, as `cowork agent list` names it.
        name: String,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}

#[derive(Subcommand)]
pub enum DoorCommand {
    /// Close the door's own listener for good (the daemon's /api/mcp stays).
    Off,
}

/// An answer for `cowork agent grant`.
#[derive(Clone, Copy, ValueEnum)]
pub enum GrantAnswer {
    Allow,
    Deny,
    /// Drop the setting: back to the rule.
    Default,
}

#[derive(Subcommand)]
pub enum SecretsCommand {
    /// Store a secret. The value comes from --stdin or a hidden prompt, never from the command line.
    Set {
        name: String,
        /// Read the value from stdin (keeps it out of shell history).
        #[arg(long)]
        stdin: bool,
        /// A value given on the command line anyway: caught here so that it is refused by name
        /// and never echoed back (clap's "unexpected argument" error printed it).
        #[arg(hide = true, num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
        given: Vec<String>,
    },
    /// Print a secret's value.
    Get { name: String },
    /// The names of the stored secrets (never their values).
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Delete a secret.
    Delete { name: String },
    /// Keep the data key in a 0600 file under the Cowork root (for a machine with no OS keychain).
    Init {
        /// Create `<root>/secrets.key`.
        #[arg(long, required = true)]
        key_file: bool,
    },
    /// Write a new key check for a store whose check is damaged or gone, once the key in force
    /// opens every secret in it.
    Repair,
}

#[derive(Subcommand)]
pub enum CredentialCommand {
    /// The connections: sign-in or key, connected or not, and the capabilities that use each.
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Connect one: a key from its fields, or a sign-in (prints the address to open in a browser).
    Connect {
        name: String,
        /// A key's field, e.g. `token`: its value comes from a hidden prompt or stdin, never from
        /// the command line.
        #[arg(long = "field", value_name = "k")]
        fields: Vec<String>,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Forget a connection (for every capability that uses it).
    Disconnect {
        name: String,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}

#[derive(Subcommand)]
pub enum ConsentCommand {
    /// Approve a value: `ctx.command.run` / `ctx.consent.request` with it proceed without asking.
    /// With --browser the value is a site: the app's routines (or the agent) drive the desktop
    /// app's browser there without its consent dialog.
    Allow {
        /// The consent value the routine asks with (its `value`, else the command line itself);
        /// it may start with `-` (`cowork consent allow '-n check' …`). With --browser: the site
        /// (`github.com`, `127.0.0.1:8123`, or an address on it).
        #[arg(allow_hyphen_values = true)]
        value: String,
        #[command(flatten)]
        who: ConsentWho,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Withdraw an approval (with --browser: a driver's consent for a site).
    Revoke {
        #[arg(allow_hyphen_values = true)]
        value: String,
        #[command(flatten)]
        who: ConsentWho,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The values approved in a workspace, with the app each is for (with --browser: who may
    /// drive the desktop app's browser, on which sites — for every workspace on this machine).
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        /// List the browser's consents instead.
        #[arg(long)]
        browser: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}

/// Whom a `cowork consent allow|revoke` is for.
#[derive(clap::Args)]
pub struct ConsentWho {
    /// The app (or capability) the approval is for, required unless --agent: another app asking
    /// with the same value is still asked.
    #[arg(long, required_unless_present = "agent")]
    pub app: Option<String>,
    /// With --browser: the agent the approval is for (`cowork mcp-browser --agent <name>`, else
    /// the MCP client's own name, e.g. `claude-code`).
    #[arg(long, value_name = "name", requires = "browser", conflicts_with = "app")]
    pub agent: Option<String>,
    /// The value is a site of the desktop app's browser (browser automation: `ctx.browser`,
    /// `cowork mcp-browser`), allowed without the consent dialog.
    #[arg(long)]
    pub browser: bool,
}

#[derive(Args)]
pub struct StartArgs {
    /// The workspace the workbench opens on (default: the current folder).
    pub folder: Option<PathBuf>,
    /// The routine runner without the workbench: the daemon in the foreground (systemd, Docker, a terminal).
    #[arg(long)]
    pub headless: bool,
    /// Listen on this port (fail if it is taken) instead of 47913 or the port Cowork remembered.
    #[arg(long)]
    pub port: Option<u16>,
    /// Replace a running Cowork daemon.
    #[arg(long)]
    pub force: bool,
    /// How many routines may run at once (default 8).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub slots: Option<u16>,
    /// How many webhook calls may wait for a slot while every one is busy (default 64; 0: none
    /// waits). Past it, or after 30 s in line, a call is answered 429 with Retry-After.
    #[arg(long, value_parser = clap::value_parser!(u16).range(0..=4096))]
    pub queue: Option<u16>,
}

/// `--workspace <dir>`: the workspace folder (default: the current folder).
#[derive(Args, Clone, Default)]
pub struct WorkspaceArg {
    /// The workspace folder (default: the current folder).
    #[arg(long, value_name = "dir")]
    pub workspace: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum RoutineCommand {
    /// Run a routine in its own process; the result is printed and the run audited.
    Run {
        /// The routine id, as `cowork routine list` prints it.
        id: String,
        /// The arguments as JSON (`--args -` reads them from stdin).
        #[arg(long, value_name = "json|-")]
        args: Option<String>,
        /// How long it may take, in ms (at most 300000; default: the routine's own timeout).
        #[arg(long, value_name = "ms")]
        timeout_ms: Option<u64>,
        /// Print the outcome as one JSON line.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The workspace's routines: app, risk, and state (active · <cron>, active · webhook, on demand, … · not armed, … · changed since armed, off).
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The routines' runs in this machine's audit log, newest first, a page at a time.
    Runs(RunsArgs),
    /// The Active switch: `on` arms this routine's triggers as .cowork/workspace.json declares them
    /// now (and confirms them when they changed since armed); `off` stops this routine only.
    Active {
        /// The routine id; it needs a trigger (`cowork deploy add`).
        id: String,
        #[arg(value_enum)]
        switch: OnOff,
        /// Print `{"ok":true,"id","active","state"}`.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}

/// A switch's position.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

#[derive(Subcommand)]
pub enum DeployCommand {
    /// Give a routine a trigger (and a deployment): written to .cowork/workspace.json#deployments,
    /// names only. Flags left out keep what an earlier `add` wrote.
    Add(Box<DeployAddArgs>),
    /// Unregister a routine's deployment (drops its local hooks and its hook token).
    Remove {
        id: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The deployments: triggers, mode, target, state (… · changed since armed: what changed), and whether this workspace's triggers are on.
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// `list`, with each schedule's next fire here and each target's state.
    Status {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The webhook URLs this machine answers, and how to reach them from another machine.
    Hooks {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Turn this workspace's triggers on or off: off stops them all; on lets the routines switched
    /// on fire again as they were armed (each routine is armed by its own switch: an imported
    /// workspace.json never arms itself).
    Triggers {
        #[arg(value_enum)]
        switch: OnOff,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Build the deploy artifact (not in this version: exits 5).
    Build { id: String },
    /// Serve the deploy artifact locally (not in this version: exits 5).
    Dev {
        id: String,
        #[arg(long)]
        port: Option<u16>,
    },
    /// Deploy to the target via its platform CLI (not in this version: exits 5).
    Run {
        id: String,
        #[arg(long, value_name = "path")]
        consumer_tokens_file: Option<PathBuf>,
    },
    /// Check each target's tools and sign-in (not in this version: exits 5).
    Doctor,
}

/// `cowork onboarding status|reset`.
#[derive(Subcommand)]
pub enum OnboardingCommand {
    /// List the steps and whether each is answered or already done.
    Status,
    /// Ask again: every step, or the named ones (autostart, runtime).
    Reset { steps: Vec<String> },
}

/// Where a deployment is built to run.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    CloudflareWorker,
    AwsLambda,
    GcloudFunction,
    Container,
}

/// Who fires a schedule: this computer or the deployed copy.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DeployMode {
    Local,
    Deployed,
}

#[derive(Args)]
pub struct DeployAddArgs {
    /// The routine id, as `cowork routine list` prints it.
    pub id: String,
    /// Where it is built to run (default: a Worker, or a container when the routine imports node: modules).
    #[arg(long, value_enum)]
    pub target: Option<Target>,
    /// local (default): this computer fires the schedule, in local time, once armed; deployed: only the deployed copy does, in UTC.
    #[arg(long, value_enum)]
    pub mode: Option<DeployMode>,
    /// An HTTP trigger, answered by this machine's daemon (`cowork deploy hooks` prints its URL).
    #[arg(long)]
    pub webhook: bool,
    /// A 5-field cron expression (minute hour day-of-month month day-of-week).
    #[arg(long, value_name = "cron")]
    pub schedule: Option<String>,
    /// The notifications these apps raise start the routine (app names as `cowork app list` prints them; `*` = every app's).
    #[arg(long, value_name = "app[,app]|*", value_delimiter = ',')]
    pub notifications: Option<Vec<String>>,
    /// A secret NAME pushed to the target at deploy time (repeatable; never a value).
    #[arg(long = "secret", value_name = "N")]
    pub secrets: Vec<String>,
    /// A plain environment variable of the deployed copy (repeatable).
    #[arg(long = "var", value_name = "K=V")]
    pub vars: Vec<String>,
    /// The cloud resource's name (default cowork-<id>).
    #[arg(long)]
    pub name: Option<String>,
    /// Cloud region (aws-lambda, gcloud-function).
    #[arg(long)]
    pub region: Option<String>,
    /// An existing execution role (aws-lambda).
    #[arg(long, value_name = "arn")]
    pub role_arn: Option<String>,
    /// Webhook calls must send a token as the x-cowork-hook-token header: minted now, kept in the secret store, printed once.
    #[arg(long)]
    pub hook_token: bool,
    /// A Worker's D1 database for ctx.db.
    #[arg(long, value_name = "d1-name")]
    pub db: Option<String>,
    /// The one origin webhook responses allow ("*" or e.g. https://example.com; default "*").
    #[arg(long, value_name = "origin")]
    pub cors_origin: Option<String>,
    /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub workspace: WorkspaceArg,
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct RunsArgs {
    #[command(subcommand)]
    pub show: Option<RunsCommand>,
    #[command(flatten)]
    pub workspace: WorkspaceArg,
    /// Every workspace's runs on this machine.
    #[arg(long, conflicts_with = "workspace")]
    pub all: bool,
    /// Only this routine's runs.
    #[arg(long, value_name = "id")]
    pub routine: Option<String>,
    /// Only this package's runs (its manifest name).
    #[arg(long, value_name = "name")]
    pub app: Option<String>,
    /// Only runs an agent made (claude-code, codex, …).
    #[arg(long, value_name = "id")]
    pub agent: Option<String>,
    /// Only one task's runs (the task an agent ran them for).
    #[arg(long, value_name = "id")]
    pub task: Option<String>,
    /// The runs every runner reported to that team server (its owners and admins).
    #[arg(long = "team-server", value_name = "ts", conflicts_with_all = ["all", "workspace", "routine", "agent", "task", "unchanged"])]
    pub team_server: Option<String>,
    /// With --team-server: only one device's runs (its host name or id).
    #[arg(long, value_name = "host", requires = "team_server")]
    pub device: Option<String>,
    /// Only runs with this status.
    #[arg(long, value_enum)]
    pub status: Option<StatusFilter>,
    /// Add the runs that changed nothing (`ctx.unchanged()`).
    #[arg(long)]
    pub unchanged: bool,
    /// Runs per page.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub limit: u32,
    /// The page after this run id (printed at the end of the previous page).
    #[arg(long, value_name = "cursor")]
    pub before: Option<String>,
    /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum RunsCommand {
    /// One run: its error, result, log tail and the routines that called it.
    Show {
        /// The run id (or its first 8 characters or more).
        run_id: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
        /// Look for it in every workspace's runs on this machine.
        #[arg(long, conflicts_with = "workspace")]
        all: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum OpenMode {
    Tab,
    Dialog,
    Sidemenu,
}

/// Where a site app shows.
#[derive(Clone, Copy, ValueEnum)]
pub enum SiteDisplay {
    /// Its own tab (the default).
    Tab,
    /// A pane of the left side bar, opened from its rail icon.
    Sidebar,
    /// A tab of the right side bar, beside Chat.
    Right,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum StatusFilter {
    Ok,
    Error,
    Denied,
}

#[derive(Subcommand)]
pub enum AppCommand {
    /// Run the workspace's apps as a local webapp in a browser tab (the workbench) on http://127.0.0.1:51190.
    Serve {
        /// The workspace folder (default: the current folder).
        folder: Option<PathBuf>,
        /// Listen on this port (default 51190) when no daemon runs yet.
        #[arg(long)]
        port: Option<u16>,
        /// Print the address instead of opening a browser.
        #[arg(long)]
        no_open: bool,
    },
    /// Open an app in the running workbench: a widget file (`--as tab|dialog|sidemenu`), or an app by its cowork.json.
    Open {
        /// `.cowork/apps/<name>/<widget>.jsx`, or `.cowork/apps/<name>/cowork.json`.
        file: PathBuf,
        /// How to show a widget file (default: tab).
        #[arg(long = "as", value_enum)]
        mode: Option<OpenMode>,
    },
    /// Every app in the workspace: version, where it came from, on/off, and its problems.
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Install an app from a team server's store into .cowork/apps/<app>/ (`<team-server>/<app>`; @X.Y.Z takes a version the store still keeps and PINS it: auto-update leaves it), or a web site as a site app (an https address): its name, icon and color from the site's web app manifest (the page's title and icon when it has none).
    Install {
        /// `<team-server>/<app>[@X.Y.Z]`, or a site's address: https (http only on localhost, 127.0.0.1 and [::1]), no user or password.
        #[arg(value_name = "team-server/app | url")]
        url: String,
        /// The app's title (wins over the site's own name; the app's name is made from it).
        #[arg(long, value_name = "name")]
        title: Option<String>,
        /// Where it shows (default: tab).
        #[arg(long, value_enum, value_name = "tab|sidebar|right")]
        display: Option<SiteDisplay>,
        /// Let it hibernate (off by default; Manage Workspace switches it too): its window closes to hidden, and hidden or minimized this many minutes (10 when none is given, at most 1440) it gives its memory back, sends no notifications, and wakes at the same page when opened.
        #[arg(long, value_name = "minutes", num_args = 0..=1, default_missing_value = "10", value_parser = clap::value_parser!(u64).range(1..=1440))]
        hibernate: Option<u64>,
        /// A store app that does not verify is installed anyway (only when the person explicitly asks).
        #[arg(long)]
        allow_unverified: bool,
        /// One JSON line (a store install).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Uninstall a store or site install: deletes the files still exactly as installed (files you changed or added are kept, and said so). A local app is yours: delete its folder yourself.
    Remove {
        /// The folder (`.cowork/apps/whatsapp`), its basename, or the manifest name.
        app: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The versions a team server's store keeps of an app (yours marked; a withdrawn one noted).
    Versions {
        #[arg(value_name = "team-server/app")]
        app: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// No name: every clean, unpinned store update that verifies. A name: take the latest now (unpins); an app you edited needs one choice.
    Update {
        /// The folder (`.cowork/apps/gmail`), its basename, or the manifest name.
        app: Option<String>,
        #[command(flatten)]
        choice: UpdateChoiceArgs,
        /// Take a version that does not verify (only when the person explicitly asks).
        #[arg(long)]
        allow_unverified: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Delete an app from a team server's store (admins); with @X.Y.Z only that version (never the latest: push a newer one first). Installed copies keep working.
    Unpublish {
        #[arg(value_name = "team-server/app[@X.Y.Z]")]
        app: String,
        /// Confirm.
        #[arg(long)]
        yes: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Switch an app folder on (removes it from workspace.json#disabled.apps).
    Enable {
        /// The folder (`.cowork/apps/gmail`), its basename, or the manifest name.
        app: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Switch an app folder off: no rail icon, no routes, its routines refuse to run.
    Disable {
        /// The folder (`.cowork/apps/gmail`), its basename, or the manifest name.
        app: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    // The reference's `app build` and `app deploy` (a static site, Cloudflare Pages): not in this
    // version (commands/absent.rs).
    #[command(hide = true)]
    Build(Absent),
    #[command(hide = true)]
    Deploy(Absent),
}
