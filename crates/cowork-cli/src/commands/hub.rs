//! `cowork hub serve|migrate|user`: the team hub, run from the CLI. A thin call into
//! `cowork_hub::cli::run`, the same code `cowork-hub` runs, so both are one code path.

use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::error_name::ErrorName;
use cowork_hub::cli::HubCommand;
use cowork_wire::hub::HubErrorName;

pub async fn run(command: HubCommand) -> CommandResult {
    cowork_hub::cli::run(command).await.map_err(|error| {
        let code = match error.name {
            HubErrorName::NotFound => Exit::NotFound,
            _ => Exit::Failed,
        };
        // The hub's names are a vocabulary of their own (`cowork_wire::hub`): passed through as
        // a name Cowork's own set does not list, as a routine's own name is.
        let name = ErrorName::Other(error.name.as_str().to_owned());
        let failure = Failure::new(code, &error.message).named(name);
        match &error.hint {
            Some(hint) => failure.hint(hint),
            None => failure,
        }
    })?;
    Ok(Exit::Ok)
}
