//! `cowork-hub`: the team hub's own binary (`cowork hub …` runs the same commands).

use clap::Parser;
use cowork_hub::cli::{run, HubCommand};

/// Cowork's team hub: accounts and sign-in, organizations, team servers and their stores.
#[derive(Parser, Debug)]
#[command(name = "cowork-hub", version)]
struct Cli {
    #[command(subcommand)]
    command: HubCommand,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_env("COWORK_HUB_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,cowork_hub=info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
    match run(cli.command).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // With --json, the failure is also one line on stdout, as `cowork … --json` gives it.
            if std::env::args().skip(1).take_while(|a| a != "--").any(|a| a == "--json") {
                let mut line =
                    serde_json::json!({ "name": error.name.as_str(), "message": error.message });
                if let Some(hint) = &error.hint {
                    line["hint"] = hint.as_str().into();
                }
                println!("{}", serde_json::json!({ "ok": false, "error": line }));
            }
            #[allow(clippy::print_stderr)] // The binary's one error report.
            {
                eprintln!("error: {}", error.message);
                if let Some(hint) = &error.hint {
                    eprintln!("hint: {hint}");
                }
            }
            std::process::ExitCode::FAILURE
        }
    }
}
