//! `cowork`: the command line of Cowork Studio. It wires the library crates together and decides,
//! in one place, what is printed and which exit code a failure gets.

/// `println!` that ends the process quietly when stdout's reader has gone (`cowork … | head`),
/// as Unix tools do, instead of panicking. Everything a command prints goes through it.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::exit::print_line(format_args!($($arg)*)) };
}

mod cli;
mod commands;
mod exit;
mod table;
mod workspace;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let json = exit::json_requested();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // `--help` and `--version` are answers, not errors (clap prints them on stdout).
            if json && error.use_stderr() {
                // The first paragraph, whole: "the following required arguments were not
                // provided:" goes on with the arguments on the lines under it.
                let rendered = error.render().to_string();
                let paragraph: Vec<&str> = rendered
                    .lines()
                    .take_while(|line| !line.trim().is_empty())
                    .map(str::trim)
                    .collect();
                let joined = paragraph.join(" ");
                let message = joined.trim_start_matches("error: ");
                exit::print_json_failure(exit::Exit::Usage.name(), message, None);
            }
            error.exit();
        }
    };

    cowork_daemon::log::init("warn");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    match runtime.block_on(commands::dispatch(cli)) {
        Ok(code) => code.into(),
        Err(failure) => {
            failure.print(json);
            failure.code.into()
        }
    }
}
