//! `cowork queue …`, `cowork journal …` and `cowork table …`, as clap reads them.

use super::WorkspaceArg;
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Where a task's or a reply's text comes from: the argument, a file, or stdin.
#[derive(Args, Clone, Default)]
pub struct TextInput {
    /// The text.
    #[arg(conflicts_with_all = ["body_file", "stdin"])]
    pub text: Option<String>,
    /// Read the text from this file.
    #[arg(long, value_name = "f", conflicts_with = "stdin")]
    pub body_file: Option<PathBuf>,
    /// Read the text from stdin.
    #[arg(long)]
    pub stdin: bool,
}

#[derive(Subcommand)]
pub enum QueueCommand {
    /// Create a task queue, or change one's settings: the attempts a task gets (default 3), how
    /// long a receiver holds a task (lease, default 300 s), and whether finishing a task needs
    /// your review.
    Create {
        name: String,
        /// How many times a task is received before it fails.
        #[arg(long, value_name = "n")]
        max_attempts: Option<u32>,
        /// How long a receiver holds a task, in seconds.
        #[arg(long, value_name = "s")]
        lease: Option<u64>,
        /// Finishing a task needs your review.
        #[arg(long, conflicts_with = "no_review")]
        review: bool,
        /// Finishing a task needs no review.
        #[arg(long)]
        no_review: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The workspace's task queues and their counts: needs you, to do, in progress, needs
    /// review, done, failed.
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Add a task to a workspace task queue — work for agents and scripts; the first send
    /// creates the queue. --ref is a dedupe key (a second send with it answers the first task).
    Send {
        name: String,
        #[command(flatten)]
        body: TextInput,
        /// The subject (default: the body's first line).
        #[arg(long, value_name = "line")]
        subject: Option<String>,
        /// Who the task is for: an agent's name, `owner` or `anyone` (the default).
        #[arg(long, value_name = "agent|owner|anyone")]
        to: Option<String>,
        /// The sender (default: owner).
        #[arg(long = "as", value_name = "name")]
        sender: Option<String>,
        /// Finishing it needs your review (default: the queue's setting).
        #[arg(long, conflicts_with = "no_review")]
        review: bool,
        /// Finishing it needs no review.
        #[arg(long)]
        no_review: bool,
        /// A dedupe key: a second send with it answers the first task.
        #[arg(long = "ref", value_name = "id")]
        reference: Option<String>,
        /// A JSON object kept with the task.
        #[arg(long, value_name = "json")]
        meta: Option<String>,
        /// Attach a copy of a workspace file (repeatable).
        #[arg(long = "file", value_name = "path")]
        files: Vec<String>,
        /// Hold the task back this many seconds.
        #[arg(long, value_name = "s")]
        delay: Option<u64>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Take the oldest task to <name> or anyone (--mine: only <name>'s; no --as: unaddressed
    /// ones only), with its id and receipt; you hold it for the lease. --wait waits up to <s>
    /// seconds (600 at most) and returns as soon as one arrives. Exit 3 = empty.
    Receive {
        name: String,
        /// The receiver's name.
        #[arg(long = "as", value_name = "name")]
        receiver: Option<String>,
        /// Only tasks addressed to the --as name, not to anyone.
        #[arg(long, requires = "receiver")]
        mine: bool,
        /// Hold the task this many seconds (default: the queue's lease).
        #[arg(long, value_name = "s")]
        lease: Option<u64>,
        /// Wait up to this many seconds for a task (at most 600).
        #[arg(long, value_name = "s")]
        wait: Option<u64>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Finish a received task: Done, or Needs review with --review (or when the task asks for
    /// review); --to hands it on as To do. --result is your entry; --file attaches copies of
    /// workspace files to it.
    Ack {
        name: String,
        id: i64,
        /// The receipt `receive` gave.
        #[arg(long, value_name = "r")]
        receipt: String,
        /// What you did.
        #[arg(long, value_name = "text", conflicts_with = "result_file")]
        result: Option<String>,
        /// Read the result from this file.
        #[arg(long, value_name = "f")]
        result_file: Option<PathBuf>,
        /// Attach a copy of a workspace file (repeatable).
        #[arg(long = "file", value_name = "path")]
        files: Vec<String>,
        /// Ask the owner to review it.
        #[arg(long, conflicts_with = "to")]
        review: bool,
        /// Hand it on, as To do, to this name.
        #[arg(long, value_name = "agent|owner|anyone")]
        to: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Give it back: To do again after --delay, Failed once the queue's attempts run out;
    /// --error is your entry.
    Nack {
        name: String,
        id: i64,
        #[arg(long, value_name = "r")]
        receipt: String,
        /// Receivable again after this many seconds.
        #[arg(long, value_name = "s")]
        delay: Option<u64>,
        /// What went wrong.
        #[arg(long, value_name = "text")]
        error: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Needs review → Done.
    Approve {
        name: String,
        id: i64,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Send back a task in Needs review: To do again for the agent who finished it, with
    /// --comment as what to change.
    Reject {
        name: String,
        id: i64,
        /// What to change.
        #[arg(long, value_name = "text")]
        comment: String,
        #[arg(long = "file", value_name = "path")]
        files: Vec<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// An entry on the task's thread. To an agent or anyone it sends the task to it (reopening
    /// a done or failed one); to owner, to nobody, or while the task is in progress, a note.
    Reply {
        name: String,
        id: i64,
        #[command(flatten)]
        body: TextInput,
        #[arg(long, value_name = "agent|owner|anyone")]
        to: Option<String>,
        /// The author (default: owner).
        #[arg(long = "as", value_name = "name")]
        sender: Option<String>,
        #[arg(long = "file", value_name = "path")]
        files: Vec<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Failed → To do.
    Retry {
        name: String,
        id: i64,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// One task and its thread, without taking it.
    Peek {
        name: String,
        id: i64,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// A queue's tasks, one line each: --agent = to, from or held by that name; --q = every
    /// word; --limit (default 50, at most 200).
    Items {
        name: String,
        /// Tasks to, from or held by this name.
        #[arg(long, value_name = "name")]
        agent: Option<String>,
        /// Words that must all appear in the subject or the body.
        #[arg(long, value_name = "words")]
        q: Option<String>,
        #[arg(long, value_name = "n")]
        limit: Option<u32>,
        /// needs_you|todo|in_progress|needs_review|done|failed|all (default: all).
        #[arg(long, value_name = "view")]
        view: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// The agents seen taking tasks (of one queue, or every queue), and whether each is
    /// listening now.
    Receivers {
        name: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// What needs you across every queue, and the open journal entries.
    Summary {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Delete one task and its files; without an id, the whole task queue (needs --yes).
    Delete {
        name: String,
        id: Option<i64>,
        /// Confirm deleting a whole queue.
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Delete the queue's done tasks (default), its failed ones, or all of them.
    Purge {
        name: String,
        #[arg(long, value_enum, default_value_t = PurgeStatus::Done)]
        status: PurgeStatus,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}

/// Which finished tasks `purge` deletes.
#[derive(Clone, Copy, ValueEnum)]
pub enum PurgeStatus {
    Done,
    Failed,
    All,
}

#[derive(Subcommand)]
pub enum JournalCommand {
    /// Write an entry for a skill — a learning (default), an error or a note — open until an
    /// agent folds it into the skill and resolves it.
    Add {
        skill: String,
        /// The entry's text.
        #[arg(conflicts_with_all = ["text_file", "stdin"])]
        text: Option<String>,
        /// Read the text from this file.
        #[arg(long, value_name = "f", conflicts_with = "stdin")]
        text_file: Option<PathBuf>,
        /// Read the text from stdin.
        #[arg(long)]
        stdin: bool,
        #[arg(long, value_enum, default_value_t = JournalKind::Learning)]
        kind: JournalKind,
        /// Where it comes from (default: cli).
        #[arg(long, value_name = "s")]
        source: Option<String>,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Every skill with entries: how many are open and applied, and where its SKILL.md is.
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// A skill's entries, oldest first — the open ones unless --applied or --all. Exit 3 = none
    /// open.
    Entries {
        skill: String,
        /// Only the open entries (the default).
        #[arg(long, conflicts_with_all = ["applied", "all"])]
        open: bool,
        /// Only the applied entries.
        #[arg(long, conflicts_with = "all")]
        applied: bool,
        /// Every entry.
        #[arg(long)]
        all: bool,
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Mark entries applied: the given ids, or every open entry of the skill.
    Resolve {
        skill: String,
        ids: Vec<i64>,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Delete one entry.
    Delete {
        id: i64,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum JournalKind {
    Learning,
    Error,
    Note,
}

#[derive(Subcommand)]
pub enum TableCommand {
    /// Create a workspace SQLite table at .cowork/data/<name>.db, listed in Manage Workspace.
    Create {
        name: String,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
    /// Every .cowork/data/*.db.
    List {
        /// Print JSON instead of text (a failure too: `{"ok":false,"error":{…}}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        workspace: WorkspaceArg,
    },
}
