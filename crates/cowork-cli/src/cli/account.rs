//! `cowork login`, `logout`, `org …` and `team-server …`, as clap reads them.

use clap::{Args, Subcommand, ValueEnum};

/// `cowork login`.
#[derive(Args)]
pub struct LoginArgs {
    /// An account with a password, no browser: the password from a hidden prompt or stdin.
    #[arg(long, value_name = "address")]
    pub email: Option<String>,
    /// The team hub to sign in to, e.g. https://hub.example.com; named once, it is remembered (else `$COWORK_HUB`).
    #[arg(long, value_name = "url")]
    pub hub: Option<String>,
    /// Sign in on another device: print an address and a code to enter there (the default where there is no display).
    #[arg(long, conflicts_with_all = ["email", "paste"])]
    pub device: bool,
    /// Open the sign-in address in any browser, then paste here the address the browser ends on (where nothing can be polled).
    #[arg(long, conflicts_with = "email")]
    pub paste: bool,
    /// Print the account as one JSON line.
    #[arg(long)]
    pub json: bool,
}

/// `cowork org [me] [--json]`, `org groups`, `org group …`.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct OrgArgs {
    #[command(subcommand)]
    pub command: Option<OrgCommand>,
    /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum OrgCommand {
    /// Your organization, the team servers it lets you install from, and the orgs you manage.
    Me {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// The groups of an org you manage and their members (emails).
    Groups {
        /// The organization, when you manage several.
        #[arg(long, value_name = "slug")]
        org: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Create, change or delete one of an organization's groups.
    #[command(subcommand)]
    Group(GroupCommand),
}

#[derive(Subcommand)]
pub enum GroupCommand {
    /// Create a group. Members are emails of people already in the organization.
    Create {
        name: String,
        /// Its members' emails.
        #[arg(long, value_name = "e1,e2", value_delimiter = ',')]
        members: Vec<String>,
        /// The organization, when you manage several.
        #[arg(long, value_name = "slug")]
        org: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Change a group's members. Applied to the latest saved state (a concurrent save is re-read and re-applied once).
    Set {
        name: String,
        /// Emails to add.
        #[arg(long, value_name = "e1,e2", value_delimiter = ',')]
        add_members: Vec<String>,
        /// Emails to remove.
        #[arg(long, value_name = "e1,e2", value_delimiter = ',')]
        remove_members: Vec<String>,
        /// The organization, when you manage several.
        #[arg(long, value_name = "slug")]
        org: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Delete a group for the whole organization — the team servers opened to it close to its members.
    Delete {
        name: String,
        /// Confirm (the group's members lose what it opened to them).
        #[arg(long)]
        yes: bool,
        /// The organization, when you manage several.
        #[arg(long, value_name = "slug")]
        org: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
}

/// Who may find and join a team server.
#[derive(Clone, Copy, ValueEnum)]
pub enum VisibilityArg {
    /// Anyone with an account on the hub can see it and join (or ask to).
    Public,
    /// Invite-only (the default).
    Private,
}

#[derive(Subcommand)]
pub enum TeamServerCommand {
    /// Your team servers (slug, role, counts). A team server is members + a store of things they can install; it is the one place you share through.
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Create one. Display names aren't unique — the slug is minted for you. Default visibility is private (invite-only); --requires-approval turns a join into a request one of its admins approves.
    Create {
        name: String,
        /// Its description.
        #[arg(long, value_name = "t")]
        desc: Option<String>,
        #[arg(long, value_enum, value_name = "public|private")]
        visibility: Option<VisibilityArg>,
        /// A join becomes a request one of its admins approves.
        #[arg(long)]
        requires_approval: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Show one.
    Info {
        #[arg(value_name = "team-server")]
        team_server: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Join one (a request its admins approve, where it requires approval).
    Join {
        #[arg(value_name = "team-server")]
        team_server: String,
        /// A note that rides the join request.
        #[arg(long, value_name = "text")]
        note: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Leave one.
    Leave {
        #[arg(value_name = "team-server")]
        team_server: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Who is in it; add, remove, approve or deny someone.
    Members(MembersArgs),
    /// Who is waiting to join; settle each with `members approve|deny`.
    Requests {
        #[arg(value_name = "team-server")]
        team_server: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Install an item: a workspace (or a workspace template, untracked) into --dir (default the current folder), a workspace-component into .cowork/apps/<name>/ of the workspace at --dir. @X.Y.Z takes a retained version and pins it. App / routine / skill templates are scaffolded (as `cowork template install`, named after the template), and courses are subscribed. Cowork does not review what team servers publish.
    Install {
        /// `<team-server>/<item>[@X.Y.Z]`.
        #[arg(value_name = "team-server/item")]
        spec: String,
        /// The folder (default: the current folder; created for a workspace).
        #[arg(long, value_name = "path")]
        dir: Option<std::path::PathBuf>,
        /// Install content that does not verify (only when the person explicitly asks).
        #[arg(long)]
        allow_unverified: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// What it publishes (latest version of each item).
    Store {
        #[arg(value_name = "team-server")]
        team_server: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Delete it for everyone (owner only).
    Delete {
        #[arg(value_name = "team-server")]
        team_server: String,
        /// Confirm (its members and store go with it).
        #[arg(long)]
        yes: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
}

/// `cowork team-server members [list] <ts>` and its verbs.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct MembersArgs {
    #[command(subcommand)]
    pub command: Option<MembersCommand>,
    #[arg(value_name = "team-server")]
    pub team_server: Option<String>,
    /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum MembersCommand {
    /// Who is in it.
    List {
        #[arg(value_name = "team-server")]
        team_server: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Add someone by email (--admin makes them an admin). They get the team server's updates.
    Add {
        #[arg(value_name = "team-server")]
        team_server: String,
        email: String,
        /// Make them an admin (only the owner may).
        #[arg(long)]
        admin: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Remove someone. Their Cowork drops the team server (and its courses) at the next updates poll.
    Remove {
        #[arg(value_name = "team-server")]
        team_server: String,
        email: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Let someone who asked to join in.
    Approve {
        #[arg(value_name = "team-server")]
        team_server: String,
        email: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
    /// Turn down someone's request to join.
    Deny {
        #[arg(value_name = "team-server")]
        team_server: String,
        email: String,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
    },
}
