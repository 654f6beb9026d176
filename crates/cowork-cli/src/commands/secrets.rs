//! `cowork secrets set|get|list|delete <name>`, `cowork secrets init --key-file` and `cowork secrets repair`.
//!
//! The CLI opens the store itself: no daemon route can ever read a value. `set` takes the value
//! from stdin or a hidden prompt, never from argv (which `ps` and shell history would show).

use crate::cli::SecretsCommand;
use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::error_name::ErrorName;
use cowork_core::paths::Root;
use cowork_engine::LOCAL_ACCOUNT;
use cowork_secrets::{SecretError, SecretStore};
use std::io::{IsTerminal, Read};

/// A store failure as the CLI prints it: the sentence, and the fix as a hint. A store that cannot
/// be opened or read (no keychain, a locked one, a missing key file …) is `Unavailable` in a
/// `--json` line, the name a routine's `ctx.secrets` gets for it.
pub fn store_failure(error: SecretError) -> Failure {
    let failure = match error {
        SecretError::InvalidName { .. } | SecretError::ReservedName { .. } => {
            Failure::new(Exit::Usage, &error)
        }
        SecretError::KeyFileExists { .. } | SecretError::StoreHasSecrets { .. } => {
            Failure::new(Exit::Failed, &error)
        }
        _ => Failure::new(Exit::Failed, &error).named(ErrorName::Unavailable),
    };
    let hint = error.hint();
    match hint {
        Some(hint) if !error.to_string().contains(&hint) => failure.hint(hint),
        _ => failure,
    }
}

pub fn open() -> Result<SecretStore, Failure> {
    SecretStore::open(&Root::from_env(), LOCAL_ACCOUNT).map_err(store_failure)
}

/// The value of a secret or field, from stdin or a hidden prompt.
pub fn read_value(what: &str, from_stdin: bool) -> Result<String, Failure> {
    let value = if from_stdin || !std::io::stdin().is_terminal() {
        if !from_stdin {
            return Err(Failure::new(Exit::Usage, format!("{what} was not given: stdin is not a terminal, and --stdin was not set")).hint("pass the value on stdin with --stdin (e.g. `cowork secrets set openai.key --stdin <<< \"$KEY\"`)"));
        }
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            Failure::new(Exit::Failed, format!("failed to read {what} from stdin: {e}"))
        })?;
        // One trailing newline is the shell's, not the secret's.
        text.strip_suffix("\r\n").or_else(|| text.strip_suffix('\n')).unwrap_or(&text).to_string()
    } else {
        rpassword::prompt_password(format!("{what}: "))
            .map_err(|e| Failure::new(Exit::Failed, format!("failed to read {what}: {e}")))?
    };
    if value.is_empty() {
        return Err(Failure::new(Exit::Usage, format!("{what} is empty")));
    }
    Ok(value)
}

fn no_secret(name: &str) -> Failure {
    Failure::new(Exit::NotFound, format!("no secret \"{name}\""))
        .hint("`cowork secrets list` shows the names")
}

pub fn run(command: SecretsCommand) -> CommandResult {
    match command {
        SecretsCommand::Init { .. } => {
            let path = cowork_secrets::init_key_file(&Root::from_env()).map_err(store_failure)?;
            outln!("Created the key file {} (0600). Keep a copy somewhere safe: without it the secrets cannot be read.", path.display());
        }
        SecretsCommand::Set { name, stdin, given } => {
            if !given.is_empty() {
                return Err(Failure::new(
                    Exit::Usage,
                    format!("refused to take the value of {name} from the command line: it is in your shell's history and visible to other users' `ps` while this runs (not repeated here)"),
                )
                .hint(format!("pipe it in: `cowork secrets set {name} --stdin <<< \"$VALUE\"`, or run `cowork secrets set {name}` for a hidden prompt; treat the value you typed as exposed")));
            }
            cowork_secrets::validate_name(&name).map_err(store_failure)?;
            let value = read_value(&format!("the value of {name}"), stdin)?;
            open()?.set(&name, &value).map_err(store_failure)?;
            outln!("Saved {name}.");
        }
        SecretsCommand::Get { name } => {
            let value =
                open()?.get(&name).map_err(store_failure)?.ok_or_else(|| no_secret(&name))?;
            outln!("{}", value.as_str());
        }
        SecretsCommand::List { json } => {
            let names = open()?.list().map_err(store_failure)?;
            if json {
                outln!("{}", serde_json::json!(names));
            } else {
                for name in names {
                    outln!("{name}");
                }
            }
        }
        SecretsCommand::Repair => match cowork_secrets::repair_key_check(&Root::from_env())
            .map_err(store_failure)?
        {
            0 => outln!("Nothing to repair: the key check opens with the key in force."),
            count => outln!("Wrote a new key check: the key in force opens all {count} secret(s)."),
        },
        SecretsCommand::Delete { name } => {
            if !open()?.delete(&name).map_err(store_failure)? {
                return Err(no_secret(&name));
            }
            outln!("Deleted {name}.");
        }
    }
    Ok(Exit::Ok)
}
