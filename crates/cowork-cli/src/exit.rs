//! Exit codes and how a failure is printed — decided here and nowhere else.
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | success |
//! | 1 | the command or the routine failed |
//! | 2 | usage: bad flags or arguments (clap uses 2 too) |
//! | 3 | not found: no such routine, app or run |
//! | 4 | the daemon is needed and not running, or unreachable |
//! | 130 | a routine run without the daemon was stopped by Ctrl-C or SIGTERM |

use std::fmt::Display;

/// A process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Failed = 1,
    Usage = 2,
    NotFound = 3,
    NoDaemon = 4,
    Interrupted = 130,
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
}

impl Failure {
    pub fn new(code: Exit, message: impl Display) -> Self {
        Failure { code, message: message.to_string(), causes: Vec::new(), hint: None }
    }

    pub fn hint(mut self, hint: impl Display) -> Self {
        self.hint = Some(hint.to_string());
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

    pub fn print(&self) {
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
