//! The daemon's log on stderr, for both binaries that host it (the `cowork` CLI and the desktop
//! app): filtered by `COWORK_LOG`, else `default`.

/// Installs the process's log subscriber. Colours only on a terminal: a daemon's stderr is usually
/// a log file or a pipe, where escape codes are noise around the text.
pub fn init(default: &str) {
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let filter = tracing_subscriber::EnvFilter::try_from_env("COWORK_LOG")
        .unwrap_or_else(|_| default.into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .init();
}
