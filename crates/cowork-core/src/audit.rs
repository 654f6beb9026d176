//! The audit log: one JSON line per routine run, kept 7 days, private to the user.
//!
//! Lines go to `<root>/workspaces/<key>/audit/<YYYY-MM-DD>.jsonl` (UTC dates, files 0600) in the
//! documented shape — `ts`, `capability`, `input`, `status`, `durationMs`, `context{…}` — plus what
//! a failed or changed run keeps: its error, a 200-character result preview and its last log lines,
//! and, for a triggered run that waited for a slot, `queuedMs`.
//! Credential-looking keys are redacted before anything is written. Each line is written with a
//! single `write` on an append-only file; a crash mid-write can still tear the last line, which the
//! reader skips and the next append ends with a newline before writing its own.
//!
//! Refused calls that anyone can make (a webhook's wrong token, over and over) are bounded: per
//! source and routine, the first refusal of each [`REFUSAL_WINDOW`] is written in full and the rest
//! are counted into one summary line (`repeated`: how many it stands for) when the window ends; no
//! refusal line is written once its day file reaches [`REFUSAL_DAY_CAP`] (one line says so).

use crate::error_name::ErrorName;
use crate::manifest::Kind;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime};

/// How long lines are kept: a day file goes once its newest possible line is this many days old,
/// so on day D the files of D-7 … D are there and D-8 is deleted.
pub const KEEP_DAYS: i64 = 7;
/// Inputs larger than this (serialized) are cut.
pub const INPUT_CAP: usize = 16 * 1024;
/// Characters of a result kept for a failed or changed run.
pub const RESULT_PREVIEW_CHARS: usize = 200;
/// Characters of log kept for a failed or changed run.
pub const LOG_TAIL_CHARS: usize = 2000;
/// What replaces a credential-looking value.
pub const REDACTED: &str = "[redacted]";
/// How long refusals of one source and routine share one full line and one summary line.
pub const REFUSAL_WINDOW: time::Duration = time::Duration::minutes(1);
/// The size a day file stops taking refusal lines at (runs are always written).
pub const REFUSAL_DAY_CAP: u64 = 4 * 1024 * 1024;

/// A run's status: `ok`, `error`, or `denied` (refused before it started).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It returned a result.
    Ok,
    /// It ran and failed.
    Error,
    /// It was refused before it started.
    Denied,
}

impl Status {
    /// The status as the audit line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Denied => "denied",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a run came from: the audit line's `source` (page 02 lists these seven).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A widget (an app's pane).
    App,
    /// The CLI (`agent` says if Claude Code or Codex ran it).
    Cli,
    /// An agent through Cowork's MCP door.
    Mcp,
    /// A webhook call.
    Webhook,
    /// A schedule.
    Schedule,
    /// Cowork itself: a notification trigger, an automatic update.
    System,
    /// A deployed copy (`cowork deploy run`).
    Deploy,
}

impl Source {
    /// The source as the audit line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::App => "app",
            Source::Cli => "cli",
            Source::Mcp => "mcp",
            Source::Webhook => "webhook",
            Source::Schedule => "schedule",
            Source::System => "system",
            Source::Deploy => "deploy",
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of the caller asked, when it says: `context.caller.source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallerSource {
    /// A footer item's refresh (page 12: "audited, tagged `status-bar`").
    StatusBar,
    /// A schedule's one run for the minutes it missed (the machine slept, the daemon was down).
    CatchUp,
    /// A notifications trigger: its run's own `ctx.notify` (and its nested runs') starts no
    /// trigger.
    Notification,
}

/// What the caller claimed about itself; `chain` lists the routines that called this one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Caller {
    /// The app the caller says it is (a widget's app).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Which part of the caller asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<CallerSource>,
    /// The agent the caller says ran it (`claude-code`, `codex` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The routines that called this one, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<String>,
}

/// Who and what a run was: the `context` object of an audit line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// The run's id (`executionId` in the file, as page 02 names it).
    #[serde(rename = "executionId")]
    pub run_id: String,
    /// The signed-in Cowork account's user id, when this machine is signed in to a hub.
    pub user_id: Option<String>,
    /// That account's organization, when it has one.
    pub organization_id: Option<String>,
    /// This machine's id (`<root>/device-id`), the same in every line it writes.
    pub device_id: String,
    /// The workspace's folder, as a path.
    pub workspace: String,
    /// Where the run came from (`app`, `cli`, `mcp`, `webhook`, `schedule`, `system`, `deploy`).
    pub source: Source,
    /// The agent login a run through the MCP door was made with (`cowork agent create <name>`);
    /// `agent` is then the client it spoke through (`claude-code`, `codex` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// The agent that ran it (`claude-code`, `codex` …), when one did.
    pub agent: Option<String>,
    /// The task an agent ran it for (a run through the MCP door): `cowork routine runs --task`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The package the routine file belongs to, derived by Cowork from the file that ran.
    pub app_id: Option<String>,
    /// That package's version.
    pub app_version: Option<String>,
    /// What the routine's package is.
    pub kind: Option<Kind>,
    /// What the caller claimed about itself; never trusted for `appId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<Caller>,
}

impl Context {
    /// **Who** asked, as Executions and `cowork routine runs` show it: the agent's login for a
    /// call through the door, with the client it came through (`claude (claude-code)`), else
    /// `you` — with the agent that drove your terminal, when one did (`you (codex)`). The client's
    /// name is only what it said it was: a client that names itself nothing is still its login.
    pub fn who(&self) -> String {
        let client = self.agent.as_ref().map(|a| format!(" ({a})")).unwrap_or_default();
        match &self.principal {
            Some(login) => format!("{login}{client}"),
            // A door run recorded without a login (none are written so): an agent, never you.
            None if self.source == Source::Mcp => format!("an agent{client}"),
            None => format!("you{client}"),
        }
    }
}

/// A routine's failure as recorded: the name a widget branches on and the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedError {
    /// The name a caller branches on.
    pub name: ErrorName,
    /// What a person reads.
    pub message: String,
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// When the run started, RFC 3339 UTC with milliseconds.
    pub ts: String,
    /// The routine id (or a lifecycle action such as `cowork.app.install`).
    pub capability: String,
    /// The routine's arguments, credential-looking keys redacted, capped at 16 KB.
    pub input: Value,
    /// `ok`, `error`, or `denied` (refused before it started).
    pub status: Status,
    /// How long the run took, in milliseconds.
    pub duration_ms: u64,
    /// How long a run a trigger started waited for a concurrency slot before `ts`, in
    /// milliseconds; absent when it did not wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued_ms: Option<u64>,
    /// Who and what the run was.
    pub context: Context,
    /// Why it failed, for an `error` or `denied` line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RecordedError>,
    /// The first 200 characters of the redacted result (failed or changed runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The last log lines, at most 2,000 characters (failed or changed runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// The run called `ctx.unchanged()`: kept, but hidden from run lists.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    /// A summary of refused calls: how many more refusals of this routine and source, from `ts`
    /// on, this line stands for (see [`AuditLog::append_refusal`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeated: Option<u64>,
}

/// What a finished run hands to [`Record::finish`] to decide what the line keeps.
pub struct Outcome<'a> {
    /// How the run ended.
    pub status: Status,
    /// Its failure, when it failed.
    pub error: Option<RecordedError>,
    /// Its result, kept as a preview only when it failed or changed something.
    pub result: Option<&'a Value>,
    /// Its log lines; the line keeps their tail under the same rule.
    pub log_lines: &'a [String],
    /// It called `ctx.unchanged()`: no preview, no log, hidden from run lists.
    pub unchanged: bool,
    /// Masks the secret values the run read (the engine's `Masks`), applied to the whole
    /// serialized result before it is cut to the preview: cut first, a secret straddling the cut
    /// would no longer match and keep its first characters in clear.
    pub mask: Option<&'a dyn Fn(&str) -> String>,
}

impl Record {
    /// Builds the line for a run: input redacted and capped, and — only for a run that failed or
    /// changed something — the redacted result preview and the log tail.
    pub fn finish(
        ts: OffsetDateTime,
        capability: &str,
        input: &Value,
        duration_ms: u64,
        context: Context,
        outcome: Outcome<'_>,
    ) -> Record {
        // unchanged() is ignored when the run then fails.
        let unchanged = outcome.unchanged && outcome.status == Status::Ok;
        let (result, log) = if unchanged || outcome.status == Status::Denied {
            (None, None)
        } else {
            (
                outcome.result.map(|r| result_preview(r, outcome.mask)),
                Some(log_tail(outcome.log_lines)).filter(|l| !l.is_empty()),
            )
        };
        Record {
            ts: format_ts(ts),
            capability: capability.to_string(),
            input: cap_input(redact(input)),
            status: outcome.status,
            duration_ms,
            queued_ms: None,
            context,
            error: outcome.error,
            result,
            log,
            unchanged,
            repeated: None,
        }
    }

    /// The UTC day file this line belongs to.
    fn day(&self) -> Date {
        self.time().date()
    }

    /// When the line says it started (now, for a line whose `ts` does not read).
    fn time(&self) -> OffsetDateTime {
        OffsetDateTime::parse(&self.ts, &Rfc3339).unwrap_or_else(|_| OffsetDateTime::now_utc())
    }
}

/// `2026-09-26T14:03:11.412Z`.
pub fn format_ts(ts: OffsetDateTime) -> String {
    let ts = ts.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        ts.year(),
        ts.month() as u8,
        ts.day(),
        ts.hour(),
        ts.minute(),
        ts.second(),
        ts.millisecond()
    )
}

/// Whether a key names a credential: `authorization`, `cookie`, and anything ending in
/// `password`, `secret`, `api_key` or `token` (case, `-` and `_` ignored, so `apiKey`,
/// `x-cowork-hook-token` and `capabilityToken` are caught too).
pub fn is_credential_key(key: &str) -> bool {
    let k: String =
        key.chars().filter(|c| *c != '-' && *c != '_').flat_map(char::to_lowercase).collect();
    k == "authorization"
        || k == "cookie"
        || k == "setcookie"
        || ["password", "secret", "apikey", "token"].iter().any(|s| k.ends_with(s))
}

/// A copy of `value` with every credential-named key's value replaced by `"[redacted]"`.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if is_credential_key(k) {
                            Value::String(REDACTED.into())
                        } else {
                            redact(v)
                        },
                    )
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        other => other.clone(),
    }
}

/// `text` (a failed run's last lines, as a run report carries them off this machine) with what
/// looks like a credential cut out, since the run's own masks only know the secrets it read: the
/// value after a credential-named key (`token=…`, `"apiKey": "…"`, `Authorization: …`), a bearer
/// or basic token, a JWT, and any unbroken run of 32 or more letters, digits, `-`, `_`, `+`, `/`
/// or `=` with a digit in it (keys, hashes, signatures). Each becomes `[redacted]`.
pub fn cut_credentials(text: &str) -> String {
    use regex::Regex;
    use std::sync::LazyLock;
    static KEYED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)((?:authorization|cookie|set-cookie|[a-z0-9_-]*(?:password|passwd|secret|api[_-]?key|token))["']?\s*[:=]\s*["']?)((?:bearer|basic)\s+)?[^\s"',;&]+"#)
            .expect("a valid pattern")
    });
    static SCHEME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}").expect("a valid pattern")
    });
    static JWT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*").expect("a valid pattern")
    });
    static LONG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z0-9_+/=-]{32,}").expect("a valid pattern"));
    let text = KEYED.replace_all(text, format!("${{1}}{REDACTED}"));
    let text = SCHEME.replace_all(&text, format!("${{1}} {REDACTED}"));
    let text = JWT.replace_all(&text, REDACTED);
    LONG.replace_all(&text, |found: &regex::Captures<'_>| {
        let word = &found[0];
        if word.chars().any(|c| c.is_ascii_digit()) {
            REDACTED.to_string()
        } else {
            word.to_string()
        }
    })
    .into_owned()
}

fn cap_input(input: Value) -> Value {
    let text = input.to_string();
    if text.len() <= INPUT_CAP {
        return input;
    }
    let mut cut = INPUT_CAP;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut capped = Map::new();
    capped.insert("truncated".into(), Value::Bool(true));
    capped.insert("bytes".into(), Value::from(text.len()));
    capped.insert("preview".into(), Value::String(text[..cut].to_string()));
    Value::Object(capped)
}

fn result_preview(result: &Value, mask: Option<&dyn Fn(&str) -> String>) -> String {
    let mut text = redact(result).to_string();
    if let Some(mask) = mask {
        text = mask(&text);
    }
    text.chars().take(RESULT_PREVIEW_CHARS).collect()
}

/// The last whole lines that fit in 2,000 characters (a single longer line keeps its end).
pub fn log_tail(lines: &[String]) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut used = 0;
    for line in lines.iter().rev() {
        let len = line.chars().count() + usize::from(!kept.is_empty());
        if used + len > LOG_TAIL_CHARS {
            if kept.is_empty() {
                let skip = line.chars().count() - LOG_TAIL_CHARS;
                return line.chars().skip(skip).collect();
            }
            break;
        }
        used += len;
        kept.push(line);
    }
    kept.reverse();
    kept.join("\n")
}

/// A failure to read or write the audit log.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The day file could not be written.
    #[error("failed to append to the audit log {path}: {source}")]
    Write {
        /// The day file.
        path: PathBuf,
        /// Why the append failed.
        source: io::Error,
    },
    /// The audit folder could not be read.
    #[error("failed to read the audit log in {path}: {source}")]
    Read {
        /// The audit folder.
        path: PathBuf,
        /// Why it could not be read.
        source: io::Error,
    },
    /// `--before` named a run that is not in the log.
    #[error("no run {0} in the audit log (it may be older than 7 days)")]
    UnknownCursor(String),
}

/// Filters for listing runs, as `cowork routine runs` takes them.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Only runs of this routine id.
    pub routine: Option<String>,
    /// Only runs of this package (`appId`).
    pub app: Option<String>,
    /// Only runs of this agent: its login (`principal`) or the client it spoke through (`agent`).
    pub agent: Option<String>,
    /// Only runs made for this task (`context.taskId`).
    pub task: Option<String>,
    /// Only runs that ended so.
    pub status: Option<Status>,
    /// Include runs that called `ctx.unchanged()`.
    pub unchanged: bool,
    /// Page size.
    pub limit: usize,
    /// Only runs older than this execution id.
    pub before: Option<String>,
}

/// A page of runs, newest first; `next` is the cursor of the following page, if any.
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    /// The runs of this page, newest first.
    pub runs: Vec<Record>,
    /// The `before` cursor of the next page; `None` on the last.
    pub next: Option<String>,
}

/// One workspace's audit log.
pub struct AuditLog {
    dir: PathBuf,
    /// Serializes appends from this process (single-write appends keep other processes' lines
    /// whole) and holds the latest day pruned for, so a daemon running past midnight prunes again.
    lock: Mutex<Option<Date>>,
    /// The refusals counted and not yet summarized (taken before `lock` when both are held).
    refusals: Mutex<Refusals>,
}

/// What became of a refused call's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Written in full: the first refusal of its window.
    Written,
    /// Counted into the summary line written when its window ends at `flush_at` (the caller sees to
    /// that with [`AuditLog::flush_refusals`]); `first` is true for the window's first counted one.
    Counted {
        /// The first refusal counted in this window.
        first: bool,
        /// When the window ends.
        flush_at: OffsetDateTime,
    },
    /// Not written: its day file reached [`REFUSAL_DAY_CAP`].
    Capped,
}

/// Refusals of one source and routine within one window.
struct Window {
    start: OffsetDateTime,
    /// The last refusal counted, which the summary line is made from.
    last: Option<Record>,
    /// The `ts` of the first one counted.
    first_ts: String,
    counted: u64,
    /// Error name (as spelled, for its order) → the name and how many.
    names: std::collections::BTreeMap<String, (ErrorName, u64)>,
}

#[derive(Default)]
struct Refusals {
    /// (source, routine) → its current window.
    windows: std::collections::HashMap<(Source, String), Window>,
    /// The day whose file reached the cap (its one notice line is written).
    capped: Option<Date>,
}

impl AuditLog {
    /// The log in `dir` (see [`crate::paths::Root::audit_dir`]).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        AuditLog { dir: dir.into(), lock: Mutex::new(None), refusals: Mutex::default() }
    }

    /// Every workspace's log under `root` (`cowork routine runs --all`), in folder order.
    pub fn every(root: &crate::paths::Root) -> Result<Vec<AuditLog>, AuditError> {
        let dir = root.workspaces_dir();
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(AuditError::Read { path: dir, source }),
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path().join("audit"))
            .filter(|d| d.is_dir())
            .collect();
        dirs.sort();
        Ok(dirs.into_iter().map(AuditLog::new).collect())
    }

    /// The folder of day files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one line to its UTC day file (0600); the first line of a new day prunes the log.
    pub fn append(&self, record: &Record) -> Result<(), AuditError> {
        let day = record.day();
        let path = self.dir.join(format!("{day}.jsonl"));
        let mut line =
            serde_json::to_vec(record).expect("a record of JSON values always serializes");
        line.push(b'\n');
        let mut pruned_for = self.lock.lock();
        let mut file = crate::fs_atomic::open_append(&path, true)
            .map_err(|source| AuditError::Write { path: path.clone(), source })?;
        // A crash mid-write leaves a torn last line; glued onto it, this line would be unreadable
        // too. Ending the fragment first (in the same write) leaves it the only line lost.
        if ends_torn(&mut file)
            .map_err(|source| AuditError::Write { path: path.clone(), source })?
        {
            line.insert(0, b'\n');
        }
        file.write_all(&line).map_err(|source| AuditError::Write { path, source })?;
        if pruned_for.is_none_or(|pruned| day > pruned) {
            *pruned_for = Some(day);
            self.prune(day)?;
        }
        Ok(())
    }

    /// Appends a refused call's line (status `denied`), bounded: the first refusal of its source and
    /// routine in a [`REFUSAL_WINDOW`] is written, the rest counted until the window ends (a
    /// refusal after that end writes the summary first), and nothing once the day file reached
    /// [`REFUSAL_DAY_CAP`]. The record's `ts` is the clock.
    pub fn append_refusal(&self, record: &Record) -> Result<Refusal, AuditError> {
        let now = record.time();
        let key = (record.context.source, record.capability.clone());
        let mut refusals = self.refusals.lock();
        let ended = refusals.windows.get(&key).is_some_and(|w| now >= w.start + REFUSAL_WINDOW);
        if ended {
            let window = refusals.windows.remove(&key).expect("the window was just found");
            self.summarize(&mut refusals, window)?;
        }
        if let Some(window) = refusals.windows.get_mut(&key) {
            window.counted += 1;
            if window.counted == 1 {
                window.first_ts.clone_from(&record.ts);
            }
            let name = record.error.as_ref().map_or(ErrorName::Denied, |e| e.name.clone());
            window.names.entry(name.to_string()).or_insert((name, 0)).1 += 1;
            window.last = Some(record.clone());
            return Ok(Refusal::Counted {
                first: window.counted == 1,
                flush_at: window.start + REFUSAL_WINDOW,
            });
        }
        let window = Window {
            start: now,
            last: None,
            first_ts: String::new(),
            counted: 0,
            names: Default::default(),
        };
        refusals.windows.insert(key, window);
        self.append_capped(&mut refusals, record)
    }

    /// Writes the summary line of every window ended by `now` (every window, with `None`); returns
    /// how many were written.
    pub fn flush_refusals(&self, now: Option<OffsetDateTime>) -> Result<usize, AuditError> {
        let mut refusals = self.refusals.lock();
        let ended: Vec<(Source, String)> = refusals
            .windows
            .iter()
            .filter(|(_, w)| now.is_none_or(|now| now >= w.start + REFUSAL_WINDOW))
            .map(|(key, _)| key.clone())
            .collect();
        let mut written = 0;
        for key in ended {
            let window = refusals.windows.remove(&key).expect("the key was just listed");
            if window.counted > 0 {
                self.summarize(&mut refusals, window)?;
                written += 1;
            }
        }
        Ok(written)
    }

    /// The line standing for the refusals `window` counted, if any.
    fn summarize(&self, refusals: &mut Refusals, window: Window) -> Result<(), AuditError> {
        let Some(mut line) = window.last else { return Ok(()) };
        let (name, _) = window
            .names
            .values()
            .max_by_key(|(_, count)| *count)
            .expect("a counted window names its refusals");
        let names: Vec<String> =
            window.names.iter().map(|(name, (_, count))| format!("{name} ×{count}")).collect();
        line.error = Some(RecordedError {
            name: name.clone(),
            message: format!(
                "{} more refused {} calls of {} from {} to {} ({}): within a minute only the first refusal is written in full",
                window.counted,
                line.context.source,
                line.capability,
                window.first_ts,
                line.ts,
                names.join(", ")
            ),
        });
        line.ts = window.first_ts;
        line.input = Value::Null;
        line.duration_ms = 0;
        line.repeated = Some(window.counted);
        self.append_capped(refusals, &line).map(|_| ())
    }

    /// Appends a refusal line unless its day file reached the cap; the first refusal past the cap
    /// each day writes one line saying so instead.
    fn append_capped(
        &self,
        refusals: &mut Refusals,
        record: &Record,
    ) -> Result<Refusal, AuditError> {
        let day = record.day();
        let size = fs::metadata(self.dir.join(format!("{day}.jsonl"))).map_or(0, |m| m.len());
        if size < REFUSAL_DAY_CAP {
            self.append(record)?;
            return Ok(Refusal::Written);
        }
        if refusals.capped != Some(day) {
            refusals.capped = Some(day);
            let mut notice = record.clone();
            notice.input = Value::Null;
            notice.repeated = None;
            notice.error = Some(RecordedError {
                name: record.error.as_ref().map_or(ErrorName::Denied, |e| e.name.clone()),
                message: format!(
                    "refused calls are no longer written for {day} (UTC): the day file reached {} MiB",
                    REFUSAL_DAY_CAP / 1024 / 1024
                ),
            });
            self.append(&notice)?;
        }
        Ok(Refusal::Capped)
    }

    /// Deletes the day files whose lines are all older than [`KEEP_DAYS`] on `today`; returns how
    /// many went.
    pub fn prune(&self, today: Date) -> Result<usize, AuditError> {
        let oldest_kept = today - time::Duration::days(KEEP_DAYS);
        let mut removed = 0;
        for (date, path) in self.day_files()? {
            if date < oldest_kept && fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Every readable line, newest first by start (`ts`).
    pub fn records(&self) -> Result<Vec<Record>, AuditError> {
        let mut out = Vec::new();
        for (_, path) in self.day_files()? {
            let Ok(text) = fs::read_to_string(&path) else { continue };
            // A torn last line (a crash mid-write) or a hand-edited one is skipped, not fatal.
            out.extend(text.lines().filter_map(|l| serde_json::from_str::<Record>(l).ok()));
        }
        Ok(newest_first(out))
    }

    /// A page of runs matching `query`, newest first.
    pub fn list(&self, query: &Query) -> Result<Page, AuditError> {
        page(self.records()?, query)
    }

    /// One run by its execution id (a unique prefix of at least 8 characters works too).
    pub fn find(&self, run_id: &str) -> Result<Option<Record>, AuditError> {
        Ok(find(self.records()?, run_id))
    }

    fn day_files(&self) -> Result<Vec<(Date, PathBuf)>, AuditError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(AuditError::Read { path: self.dir.clone(), source }),
        };
        let format = time::macros::format_description!("[year]-[month]-[day]");
        let mut files: Vec<(Date, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let date = Date::parse(name.strip_suffix(".jsonl")?, &format).ok()?;
                Some((date, e.path()))
            })
            .collect();
        files.sort();
        Ok(files)
    }
}

impl Drop for AuditLog {
    /// The refusals still counted get their summary line: a daemon that stops does not lose them.
    /// Best effort — a drop has nowhere to report a failure; the daemon flushes each window when
    /// it ends, and reports there.
    fn drop(&mut self) {
        let _ = self.flush_refusals(None);
    }
}

/// Whether `file` is non-empty and does not end in a newline.
fn ends_torn(file: &mut fs::File) -> io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    if file.metadata()?.len() == 0 {
        return Ok(false);
    }
    // Appends always go to the end, wherever this leaves the read position.
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// The lines of several logs (`--all`), newest first by start.
pub fn records_of(logs: &[AuditLog]) -> Result<Vec<Record>, AuditError> {
    let mut all = Vec::new();
    for log in logs {
        all.extend(log.records()?);
    }
    Ok(newest_first(all))
}

/// Sorts by start time, newest first. Lines are appended when a run *finishes*, so file order puts
/// a caller after the runs it started; the start time puts it first. Among equal times the line
/// appended later comes first. The order depends only on the lines, so a `--before` cursor keeps
/// its place between pages.
fn newest_first(mut records: Vec<Record>) -> Vec<Record> {
    records.reverse();
    // Stable: equal `ts` keep the reversed append order. The fixed-width UTC format sorts as text.
    records.sort_by(|a, b| b.ts.cmp(&a.ts));
    records
}

/// A page of `records` (newest first) matching `query`.
pub fn page(records: Vec<Record>, query: &Query) -> Result<Page, AuditError> {
    let records: Vec<Record> = records.into_iter().filter(|r| matches(r, query)).collect();
    // The cursor is a run's id, or a unique prefix of 8 characters or more (as the table prints
    // them, and as `runs show` takes them).
    let start = match &query.before {
        None => 0,
        Some(cursor) => {
            let prefixed = || {
                let mut hits = records.iter().enumerate().filter(|(_, r)| {
                    cursor.len() >= 8 && r.context.run_id.starts_with(cursor.as_str())
                });
                match (hits.next(), hits.next()) {
                    (Some((one, _)), None) => Some(one),
                    _ => None,
                }
            };
            records
                .iter()
                .position(|r| &r.context.run_id == cursor)
                .or_else(prefixed)
                .map(|i| i + 1)
                .ok_or_else(|| AuditError::UnknownCursor(cursor.clone()))?
        }
    };
    let mut iter = records.into_iter().skip(start).peekable();
    let limit = query.limit.max(1);
    let runs: Vec<Record> = iter.by_ref().take(limit).collect();
    let next =
        if iter.peek().is_some() { runs.last().map(|r| r.context.run_id.clone()) } else { None };
    Ok(Page { runs, next })
}

/// One run of `records` by its execution id (a unique prefix of at least 8 characters works too).
pub fn find(records: Vec<Record>, run_id: &str) -> Option<Record> {
    if let Some(exact) = records.iter().find(|r| r.context.run_id == run_id) {
        return Some(exact.clone());
    }
    if run_id.len() < 8 {
        return None;
    }
    let mut hits = records.into_iter().filter(|r| r.context.run_id.starts_with(run_id));
    match (hits.next(), hits.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

fn matches(r: &Record, q: &Query) -> bool {
    (q.unchanged || !r.unchanged)
        && q.routine.as_ref().is_none_or(|id| &r.capability == id)
        && q.app.as_ref().is_none_or(|app| r.context.app_id.as_ref() == Some(app))
        // `--agent` names a login (`principal`) or a client (`agent`: `claude-code` …).
        && q.agent.as_ref().is_none_or(|agent| {
            r.context.principal.as_ref() == Some(agent) || r.context.agent.as_ref() == Some(agent)
        })
        && q.task.as_ref().is_none_or(|task| r.context.task_id.as_ref() == Some(task))
        && q.status.is_none_or(|s| r.status == s)
}

#[cfg(test)]
mod tests {
    #[test]
    fn credential_looking_strings_are_cut_from_log_lines() {
        let cases = [
            ("token=abc123 done", "token=[redacted] done"),
            (r#"{"apiKey": "k-1"}"#, r#"{"apiKey": "[redacted]"}"#),
            ("Authorization: Bearer sk-live-0123456789", "Authorization: [redacted]"),
            ("sent bearer abcdefgh12345 to it", "sent bearer [redacted] to it"),
            ("id eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl end", "id [redacted] end"),
            ("key ghp_0123456789abcdefABCDEF0123456789abcd here", "key [redacted] here"),
            ("password: hunter2", "password: [redacted]"),
        ];
        for (line, cut) in cases {
            assert_eq!(cut_credentials(line), cut, "{line}");
        }
        let plain =
            "fetched 12 messages from INBOX in 812 ms; the_quick_brown_fox_jumps_over_the_lazy_dog";
        assert_eq!(cut_credentials(plain), plain, "words and numbers stay");
    }

    use super::*;
    use serde_json::json;

    fn context(id: &str) -> Context {
        Context {
            run_id: id.into(),
            user_id: None,
            organization_id: None,
            device_id: "dev".into(),
            workspace: "/w".into(),
            source: Source::Cli,
            principal: None,
            agent: None,
            task_id: None,
            app_id: Some("notes".into()),
            app_version: Some("1.0.0".into()),
            kind: Some(Kind::App),
            caller: None,
        }
    }

    fn outcome<'a>(result: &'a Value, lines: &'a [String], unchanged: bool) -> Outcome<'a> {
        Outcome {
            status: Status::Ok,
            error: None,
            result: Some(result),
            log_lines: lines,
            unchanged,
            mask: None,
        }
    }

    #[test]
    fn credential_keys_are_redacted_at_any_depth() {
        let input = json!({"query": "x", "headers": {"Authorization": "Bearer a", "X-Cowork-Hook-Token": "t"}, "list": [{"apiKey": "k", "db_password": "p", "client_secret": "s", "api_key": "q", "cookie": "c"}], "tokens_used": 3});
        let out = redact(&input);
        assert_eq!(
            out,
            json!({"query": "x", "headers": {"Authorization": REDACTED, "X-Cowork-Hook-Token": REDACTED}, "list": [{"apiKey": REDACTED, "db_password": REDACTED, "client_secret": REDACTED, "api_key": REDACTED, "cookie": REDACTED}], "tokens_used": 3})
        );
    }

    #[test]
    fn a_secret_straddling_the_preview_cut_is_masked_whole() {
        let secret = "AcmeTokenValue-7777";
        let result = json!({"pad": "p".repeat(RESULT_PREVIEW_CHARS - 30), "echo": secret});
        let mask = |text: &str| text.replace(secret, REDACTED);
        let outcome = Outcome { mask: Some(&mask), ..outcome(&result, &[], false) };
        let record =
            Record::finish(OffsetDateTime::now_utc(), "x", &json!({}), 1, context("1"), outcome);
        let preview = record.result.unwrap();
        assert!(!preview.contains("AcmeToken"), "{preview}");
        assert!(
            preview.ends_with("\"echo\":\"[redacted]\"}"),
            "the cut falls after the mask: {preview}"
        );
    }

    #[test]
    fn big_inputs_are_capped() {
        let input = json!({"text": "a".repeat(20_000)});
        let record = Record::finish(
            OffsetDateTime::now_utc(),
            "x",
            &input,
            1,
            context("1"),
            outcome(&Value::Null, &[], false),
        );
        assert_eq!(record.input["truncated"], json!(true));
        assert_eq!(record.input["preview"].as_str().unwrap().len(), INPUT_CAP);
    }

    #[test]
    fn unchanged_runs_keep_no_result_or_log() {
        let result = json!({"a": 1});
        let lines = vec!["hello".to_string()];
        let quiet = Record::finish(
            OffsetDateTime::now_utc(),
            "x",
            &json!({}),
            1,
            context("1"),
            outcome(&result, &lines, true),
        );
        assert_eq!((quiet.result, quiet.log, quiet.unchanged), (None, None, true));
        let changed = Record::finish(
            OffsetDateTime::now_utc(),
            "x",
            &json!({}),
            1,
            context("2"),
            outcome(&result, &lines, false),
        );
        assert_eq!(
            (changed.result.as_deref(), changed.log.as_deref()),
            (Some("{\"a\":1}"), Some("hello"))
        );
    }

    #[test]
    fn log_tail_keeps_the_last_lines_within_the_cap() {
        let lines: Vec<String> = (0..100).map(|i| format!("{i:03}-{}", "x".repeat(96))).collect();
        let tail = log_tail(&lines);
        assert!(tail.chars().count() <= LOG_TAIL_CHARS);
        assert!(tail.ends_with(&lines[99]));
        assert!(tail.starts_with("081-"), "{}", &tail[..10]);
    }

    #[test]
    fn a_page_goes_on_from_a_run_named_by_its_first_8_characters() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let now = OffsetDateTime::now_utc();
        for id in ["3e87c71b-aaaa", "3e87c71b-bbbb", "5f00d1ce-cccc", "9a1b2c3d-dddd"] {
            let r = Record::finish(
                now,
                "notes-save",
                &json!({}),
                1,
                context(id),
                outcome(&Value::Null, &[], false),
            );
            log.append(&r).unwrap();
        }
        let after = |before: &str| {
            let page =
                log.list(&Query { limit: 5, before: Some(before.into()), ..Query::default() });
            page.map(|p| p.runs.iter().map(|r| r.context.run_id.clone()).collect::<Vec<_>>())
        };
        assert_eq!(after("5f00d1ce").unwrap(), ["3e87c71b-bbbb", "3e87c71b-aaaa"]);
        assert_eq!(after("9a1b2c3d-dddd").unwrap().len(), 3);
        // Two runs start so, and 4 characters are too few to name one.
        assert!(matches!(after("3e87c71b"), Err(AuditError::UnknownCursor(_))));
        assert!(matches!(after("9a1b"), Err(AuditError::UnknownCursor(_))));
    }

    #[test]
    fn lines_are_private_and_paged() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let now = OffsetDateTime::now_utc();
        for i in 0..5 {
            let r = Record::finish(
                now,
                "notes-save",
                &json!({"i": i}),
                1,
                context(&format!("run{i}")),
                outcome(&Value::Null, &[], i == 2),
            );
            log.append(&r).unwrap();
        }
        let first = log.list(&Query { limit: 2, ..Query::default() }).unwrap();
        let ids: Vec<_> = first.runs.iter().map(|r| r.context.run_id.as_str()).collect();
        assert_eq!(ids, ["run4", "run3"]);
        let second =
            log.list(&Query { limit: 2, before: first.next.clone(), ..Query::default() }).unwrap();
        let ids: Vec<_> = second.runs.iter().map(|r| r.context.run_id.as_str()).collect();
        assert_eq!(ids, ["run1", "run0"], "run2 is unchanged and hidden");
        assert_eq!(second.next, None);
        let all = log.list(&Query { limit: 10, unchanged: true, ..Query::default() }).unwrap();
        assert_eq!(all.runs.len(), 5);

        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let file = dir.path().join(format!("{}.jsonl", now.date()));
            assert_eq!(fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }

    fn day_file(dir: &Path, day: Date) -> PathBuf {
        dir.join(format!("{day}.jsonl"))
    }

    #[test]
    fn every_line_is_kept_seven_days_and_no_day_longer() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let today = time::macros::date!(2026 - 09 - 26);
        for back in [6, 7, 8, 9] {
            fs::write(day_file(dir.path(), today - time::Duration::days(back)), "").unwrap();
        }
        assert_eq!(log.prune(today).unwrap(), 2);
        // 2026-09-19's last line, written at 23:59, is not 7 days old until 2026-09-26 ends.
        assert!(day_file(dir.path(), time::macros::date!(2026 - 09 - 19)).exists());
        assert!(!day_file(dir.path(), time::macros::date!(2026 - 09 - 18)).exists());
    }

    #[test]
    fn the_first_line_of_a_new_day_prunes_while_the_log_stays_open() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let monday = time::macros::datetime!(2026-09-21 23:59 UTC);
        let week_before = monday.date() - time::Duration::days(7);
        fs::write(day_file(dir.path(), week_before), "").unwrap();
        log.append(&Record::finish(
            monday,
            "a",
            &json!({}),
            1,
            context("late"),
            outcome(&Value::Null, &[], false),
        ))
        .unwrap();
        assert!(day_file(dir.path(), week_before).exists(), "still inside the 7 days");
        let tuesday = time::macros::datetime!(2026-09-22 00:01 UTC);
        log.append(&Record::finish(
            tuesday,
            "a",
            &json!({}),
            1,
            context("early"),
            outcome(&Value::Null, &[], false),
        ))
        .unwrap();
        assert!(
            !day_file(dir.path(), week_before).exists(),
            "the day rolled over: its lines are now 7 days old"
        );
        assert_eq!(log.records().unwrap().len(), 2);
    }

    #[test]
    fn runs_list_by_start_so_a_caller_comes_after_the_run_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let t0 = time::macros::datetime!(2026-09-26 10:00 UTC);
        let at = |secs: i64| t0 + time::Duration::seconds(secs);
        // Appended as runs finish: the callee (started at +1 s) before its caller (started at 0).
        for (id, start) in
            [("first", at(-5)), ("callee", at(1)), ("caller", at(0)), ("last", at(9))]
        {
            log.append(&Record::finish(
                start,
                "r",
                &json!({}),
                1,
                context(id),
                outcome(&Value::Null, &[], false),
            ))
            .unwrap();
        }
        let ids =
            |page: &Page| page.runs.iter().map(|r| r.context.run_id.clone()).collect::<Vec<_>>();
        let first = log.list(&Query { limit: 2, ..Query::default() }).unwrap();
        assert_eq!(ids(&first), ["last", "callee"]);
        let second = log.list(&Query { limit: 2, before: first.next, ..Query::default() }).unwrap();
        assert_eq!(ids(&second), ["caller", "first"]);
    }

    #[test]
    fn a_task_filter_matches_the_task_id_of_the_context() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let mut for_task = context("for-task");
        for_task.task_id = Some("t-42".into());
        for ctx in [context("plain"), for_task] {
            log.append(&Record::finish(
                OffsetDateTime::now_utc(),
                "r",
                &json!({}),
                1,
                ctx,
                outcome(&Value::Null, &[], false),
            ))
            .unwrap();
        }
        let page =
            log.list(&Query { limit: 10, task: Some("t-42".into()), ..Query::default() }).unwrap();
        assert_eq!(
            page.runs.iter().map(|r| r.context.run_id.as_str()).collect::<Vec<_>>(),
            ["for-task"]
        );
        assert!(fs::read_to_string(day_file(dir.path(), OffsetDateTime::now_utc().date()))
            .unwrap()
            .contains("\"taskId\":\"t-42\""));
    }

    #[test]
    fn a_torn_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let r = Record::finish(
            OffsetDateTime::now_utc(),
            "a",
            &json!({}),
            1,
            context("whole"),
            outcome(&Value::Null, &[], false),
        );
        log.append(&r).unwrap();
        let file = dir.path().join(format!("{}.jsonl", OffsetDateTime::now_utc().date()));
        let mut f = fs::OpenOptions::new().append(true).open(&file).unwrap();
        f.write_all(b"{\"ts\":\"2026-").unwrap();
        assert_eq!(log.records().unwrap().len(), 1);
    }

    #[test]
    fn a_line_appended_after_a_torn_one_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let now = OffsetDateTime::now_utc();
        let file = day_file(dir.path(), now.date());
        fs::write(&file, "{\"ts\":\"2026-").unwrap();
        log.append(&Record::finish(
            now,
            "a",
            &json!({}),
            1,
            context("after-crash"),
            outcome(&Value::Null, &[], false),
        ))
        .unwrap();
        let ids: Vec<_> = log.records().unwrap().into_iter().map(|r| r.context.run_id).collect();
        assert_eq!(ids, ["after-crash"]);
        assert!(
            fs::read_to_string(&file).unwrap().starts_with("{\"ts\":\"2026-\n{"),
            "the fragment ends on its own line"
        );
    }

    /// A webhook refusal at `at` (seconds after 10:00:00 on 2026-03-01, UTC) named `name`.
    fn refusal(at: i64, name: ErrorName) -> Record {
        let ts = time::macros::datetime!(2026-03-01 10:00:00 UTC) + time::Duration::seconds(at);
        let mut context = context(&format!("r{at}"));
        context.source = Source::Webhook;
        let outcome = Outcome {
            status: Status::Denied,
            error: Some(RecordedError { name, message: "missing or wrong".into() }),
            result: None,
            log_lines: &[],
            unchanged: false,
            mask: None,
        };
        Record::finish(ts, "mail-hook", &Value::Null, 0, context, outcome)
    }

    fn lines(dir: &Path) -> Vec<Record> {
        let text = fs::read_to_string(dir.join("2026-03-01.jsonl")).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    #[test]
    fn a_flood_of_refusals_is_one_line_and_one_summary_a_minute() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        assert_eq!(
            log.append_refusal(&refusal(0, ErrorName::Forbidden)).unwrap(),
            Refusal::Written
        );
        let flush_at = time::macros::datetime!(2026-03-01 10:01:00 UTC);
        assert_eq!(
            log.append_refusal(&refusal(1, ErrorName::Forbidden)).unwrap(),
            Refusal::Counted { first: true, flush_at }
        );
        for n in 2..999 {
            let name =
                if n == 500 { ErrorName::Other("NotArmed".into()) } else { ErrorName::Forbidden };
            assert_eq!(
                log.append_refusal(&refusal(n % 59, name)).unwrap(),
                Refusal::Counted { first: false, flush_at }
            );
        }
        assert_eq!(lines(dir.path()).len(), 1, "counted, not written");
        // Another routine, or another source, has a window of its own.
        let mut other = refusal(2, ErrorName::Forbidden);
        other.capability = "mail-other".into();
        assert_eq!(log.append_refusal(&other).unwrap(), Refusal::Written);

        // Nothing has ended before the minute is up; then the summary line.
        assert_eq!(log.flush_refusals(Some(flush_at - time::Duration::SECOND)).unwrap(), 0);
        assert_eq!(log.flush_refusals(Some(flush_at)).unwrap(), 1);
        let written = lines(dir.path());
        assert_eq!(written.len(), 3);
        let summary = &written[2];
        assert_eq!(summary.repeated, Some(998));
        assert_eq!(summary.status, Status::Denied);
        assert_eq!(summary.ts, "2026-03-01T10:00:01.000Z", "from the first one counted");
        let error = summary.error.as_ref().unwrap();
        assert_eq!(error.name, ErrorName::Forbidden);
        assert!(
            error.message.starts_with(
                "998 more refused webhook calls of mail-hook from 2026-03-01T10:00:01.000Z"
            ),
            "{}",
            error.message
        );
        assert!(error.message.contains("(Forbidden ×997, NotArmed ×1)"), "{}", error.message);

        // The next minute starts a window again: a refusal after its end writes the summary first.
        assert_eq!(
            log.append_refusal(&refusal(70, ErrorName::Forbidden)).unwrap(),
            Refusal::Written
        );
        log.append_refusal(&refusal(71, ErrorName::Forbidden)).unwrap();
        assert_eq!(
            log.append_refusal(&refusal(131, ErrorName::Forbidden)).unwrap(),
            Refusal::Written
        );
        let written = lines(dir.path());
        let repeated: Vec<_> = written.iter().map(|r| r.repeated).collect();
        assert_eq!(repeated, [None, None, Some(998), None, Some(1), None]);

        // A log dropped (the daemon stops) writes what it still counted.
        log.append_refusal(&refusal(132, ErrorName::Forbidden)).unwrap();
        drop(log);
        assert_eq!(lines(dir.path()).last().unwrap().repeated, Some(1));
    }

    #[test]
    fn refusals_stop_at_the_day_cap_and_say_so_once_while_runs_go_on() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let file = dir.path().join("2026-03-01.jsonl");
        fs::create_dir_all(dir.path()).unwrap();
        let filler = format!("{}\n", "x".repeat(1024));
        fs::write(&file, filler.repeat((REFUSAL_DAY_CAP / 1025 + 1) as usize)).unwrap();
        let size = || fs::metadata(&file).unwrap().len();
        let before = size();

        assert_eq!(log.append_refusal(&refusal(0, ErrorName::Forbidden)).unwrap(), Refusal::Capped);
        let notice = lines_after(&file, before);
        assert_eq!(notice.len(), 1);
        assert!(notice[0]
            .error
            .as_ref()
            .unwrap()
            .message
            .starts_with("refused calls are no longer written for 2026-03-01"));
        let noticed = size();
        for n in 1..100 {
            let mut other = refusal(n * 61, ErrorName::Forbidden);
            other.capability = format!("hook-{n}");
            assert_eq!(log.append_refusal(&other).unwrap(), Refusal::Capped);
        }
        assert_eq!(log.flush_refusals(None).unwrap(), 0);
        assert_eq!(size(), noticed, "nothing more for the day");

        // A run is written whatever the size.
        let mut run = refusal(7000, ErrorName::Other("x".into()));
        run.status = Status::Ok;
        run.error = None;
        log.append(&run).unwrap();
        assert!(size() > noticed);
    }

    fn lines_after(file: &Path, offset: u64) -> Vec<Record> {
        let text = fs::read(file).unwrap();
        String::from_utf8_lossy(&text[offset as usize..])
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}
