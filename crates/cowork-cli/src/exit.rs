//! Exit codes and how a failure is printed — decided here and nowhere else.
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | success |
//! | 1 | the command or the routine failed |
//! | 2 | usage: bad flags or arguments (clap uses 2 too) |
//! | 3 | not found: no such routine, app or run |
//! | 4 | the daemon is needed and not running, or unreachable |
//! | 5 | not available in this version (`cowork deploy build\|dev\|run\|doctor`) |
//! | 130 | Ctrl-C or SIGTERM during `routine run` (without the daemon, the routine's processes end too) |

use cowork_core::error_name::ErrorName;
use std::fmt::Display;

/// A process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Failed = 1,
    Usage = 2,
    NotFound = 3,
    NoDaemon = 4,
    Unsupported = 5,
    Interrupted = 130,
}

impl Exit {
    /// The error's `name` in a `--json` line: what a program reading it branches on.
    pub fn name(self) -> &'static str {
        match self {
            Exit::Ok => "Ok",
            Exit::Failed => "Failed",
            Exit::Usage => "Usage",
            Exit::NotFound => "NotFound",
            Exit::NoDaemon => "NoDaemon",
            Exit::Unsupported => "Unsupported",
            Exit::Interrupted => "Interrupted",
        }
    }
}

/// Whether the command line asks for `--json` (before any `--`). Read from the raw arguments, so
/// that a line clap refuses gets its JSON answer too.
pub fn json_requested() -> bool {
    std::env::args_os().skip(1).take_while(|a| a != "--").any(|a| a == "--json")
}

/// With `--json`, a failure is also one line on stdout, `{"ok":false,"error":{name,message,hint?}}`,
/// the shape `routine run --json` gives a routine's error, so a program reading stdout always gets
/// one JSON line; the readable lines still go to stderr.
pub fn print_json_failure(name: &str, message: &str, hint: Option<&str>) {
    let mut error = serde_json::json!({ "name": name, "message": message });
    if let Some(hint) = hint {
        error["hint"] = hint.into();
    }
    print_line(format_args!("{}", serde_json::json!({ "ok": false, "error": error })));
}

impl From<Exit> for std::process::ExitCode {
    fn from(code: Exit) -> Self {
        std::process::ExitCode::from(code as u8)
    }
}

/// What went wrong, printed as `error:` / `Caused by:` / `hint:` lines on stderr.
#[derive(Debug)]
pub struct Failure {
    pub code: Exit,
    pub message: String,
    pub causes: Vec<String>,
    pub hint: Option<String>,
    /// The `--json` line's error name when it is finer than the exit code's (`StaleReceipt`).
    pub name: Option<ErrorName>,
}

impl Failure {
    pub fn new(code: Exit, message: impl Display) -> Self {
        Failure { code, message: message.to_string(), causes: Vec::new(), hint: None, name: None }
    }

    pub fn hint(mut self, hint: impl Display) -> Self {
        self.hint = Some(hint.to_string());
        self
    }

    /// Names the error in the `--json` line (else the exit code's name).
    pub fn named(mut self, name: ErrorName) -> Self {
        self.name = Some(name);
        self
    }

    /// Adds the chain of an error's sources as `Caused by:` lines.
    pub fn caused_by(mut self, error: &(dyn std::error::Error + 'static)) -> Self {
        let mut source = error.source();
        while let Some(cause) = source {
            self.causes.push(cause.to_string());
            source = cause.source();
        }
        self
    }

    /// Prints the failure on stderr; with `json`, first as one JSON line on stdout.
    pub fn print(&self, json: bool) {
        if json {
            print_json_failure(
                self.name.as_ref().map_or(self.code.name(), ErrorName::as_str),
                &self.message,
                self.hint.as_deref(),
            );
        }
        eprintln!("error: {}", self.message);
        for cause in &self.causes {
            eprintln!("Caused by: {cause}");
        }
        if let Some(hint) = &self.hint {
            eprintln!("hint: {hint}");
        }
    }
}

/// The result every command returns.
pub type CommandResult = Result<Exit, Failure>;

/// Writes one line to stdout; a closed pipe ends the process with success (the reader has what it
/// wanted). Not for the daemon, which must outlive its terminal.
pub fn print_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(error) = writeln!(std::io::stdout().lock(), "{line}") {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
    }
}
