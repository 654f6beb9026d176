//! One module per command group; `dispatch` routes a parsed command line to it.

mod absent;
mod account;
mod agent;
mod app;
mod component;
mod consent;
mod credential;
mod deploy;
mod doctor;
mod hub;
mod journal;
mod mcp_browser;
mod onboarding;
mod open;
mod org;
mod publish;
mod queue;
mod routine;
mod runtime;
mod secrets;
mod setup;
mod start;
mod status;
mod store;
mod tables;
mod team_server;

use crate::cli::{Cli, Command};
use crate::exit::{CommandResult, Exit, Failure};
use cowork_wire::daemon::client::ClientError;

pub async fn dispatch(cli: Cli) -> CommandResult {
    // A command that may write under the Cowork root creates it private first (fs_atomic's parent
    // folders would be 0755); the read-only ones leave a missing root missing, for doctor to report.
    if !matches!(cli.command, Some(Command::Status { .. } | Command::Stop | Command::Doctor { .. }))
    {
        let root = cowork_core::paths::Root::from_env();
        root.create().map_err(|e| {
            Failure::new(
                Exit::Failed,
                format!("failed to create the Cowork root {}: {e}", root.dir().display()),
            )
            .hint("set COWORK_HOME to a folder you can write")
        })?;
    }
    let Some(command) = cli.command else {
        // No command (page 05): the workbench of the folder the person is in.
        return app::serve(None, None, false).await;
    };
    match command {
        Command::Start(args) => start::run(args).await,
        Command::Status { json } => status::status(json).await,
        Command::Stop => status::stop().await,
        Command::Open { browser, workspace } => open::run(browser, workspace.as_deref()).await,
        Command::Doctor { disable_autostart: true, .. } => setup::disable_autostart(),
        Command::Doctor { fix, .. } => doctor::run(fix).await,
        Command::Setup { yes: _, force } => setup::setup(force).await,
        Command::Install { force } => setup::install(force).await,
        Command::Onboarding { command } => onboarding::run(command).await,
        Command::Routine(command) => routine::run(command).await,
        Command::App(command) => app::run(command).await,
        Command::Consent(command) => consent::run(command),
        Command::Secrets(command) => secrets::run(command),
        Command::Credential(command) => credential::run(command).await,
        Command::Deploy(command) => deploy::run(command).await,
        Command::Queue(command) => queue::run(command).await,
        Command::Journal(command) => journal::run(command),
        Command::Table(command) => tables::run(command),
        Command::Agent(command) => agent::run(command).await,
        Command::McpBrowser { agent, workspace } => {
            mcp_browser::run(agent, workspace.workspace.as_deref()).await
        }
        Command::Login(args) => account::login(args).await,
        Command::Logout { forget, json } => account::logout(forget, json).await,
        Command::Org(args) => org::run(args).await,
        Command::TeamServer(command) => team_server::run(command).await,
        Command::Hub(command) => hub::run(command).await,
        Command::Push(args) => store::push(args).await,
        Command::Publish(args) => publish::run(args).await,
        Command::Component(command) => component::run(command),
        Command::Template(command) => store::template(command).await,
        Command::Restart(_) => Err(absent::refused("restart")),
        Command::Update(_) => Err(absent::refused("update")),
        Command::SelfUpdate(_) => Err(absent::refused("self-update")),
        Command::Machine(_) => Err(absent::refused("machine")),
        Command::Webapp(_) => Err(absent::refused("webapp")),
        Command::PersonalServer(_) => Err(absent::refused("personal-server")),
    }
}

/// A request to the running daemon that failed: unreachable is exit 4; a refusal is the
/// command's failure in the daemon's words (not found: exit 3, as without a daemon).
pub fn daemon_failure(error: ClientError) -> Failure {
    match error {
        ClientError::Unreachable { .. } => Failure::new(Exit::NoDaemon, &error)
            .caused_by(&error)
            .hint("`cowork doctor` checks the daemon"),
        ClientError::Refused { status: 404, .. } => Failure::new(Exit::NotFound, &error),
        ClientError::Refused { .. } => Failure::new(Exit::Failed, &error),
        ClientError::Answer { .. } => Failure::new(Exit::Failed, &error)
            .hint("`cowork stop` then `cowork start` runs this version's daemon"),
    }
}
