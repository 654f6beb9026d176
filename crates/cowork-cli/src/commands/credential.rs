//! `cowork credential list|connect|disconnect`: the connections capabilities declare.

use super::secrets::{open, read_value, store_failure};
use crate::cli::CredentialCommand;
use crate::exit::{CommandResult, Exit, Failure};
use crate::{table, workspace};
use cowork_core::paths::Root;
use cowork_core::registry;
use cowork_engine::credentials::{self, Connection, CredentialError};
use cowork_engine::signin::OAuth;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;

/// A sign-in from a terminal: print the address to open, wait for the browser to come back.
async fn sign_in(connection: &Connection) -> CommandResult {
    let store = Arc::new(open()?);
    let pending =
        credentials::start_sign_in(&OAuth::load(&Root::from_env(), true), store, connection)
            .await
            .map_err(|e| Failure::new(Exit::Failed, e.message))?;
    eprintln!(
        "Open this address in a browser to sign in to {} (waiting up to 10 minutes):",
        connection.name
    );
    outln!("{}", pending.auth_url);
    let done = pending.wait().await.map_err(|e| Failure::new(Exit::Failed, &e))?;
    let who = done.account.map(|a| format!(" as {}", a.email)).unwrap_or_default();
    outln!("Connected {}{who} (used by {}).", connection.name, connection.used_by.join(", "));
    Ok(Exit::Ok)
}

fn find(connections: &BTreeMap<String, Connection>, name: &str) -> Result<Connection, Failure> {
    connections.get(name).cloned().ok_or_else(|| {
        let known: Vec<&str> = connections.keys().map(String::as_str).collect();
        let hint = if known.is_empty() {
            "no capability in this workspace declares a \"credential\"".to_string()
        } else {
            format!("this workspace declares: {}", known.join(", "))
        };
        Failure::new(Exit::NotFound, CredentialError::Unknown(name.to_string())).hint(hint)
    })
}

fn failure(error: CredentialError) -> Failure {
    match error {
        CredentialError::Store(error) => store_failure(error),
        other => Failure::new(Exit::Usage, other),
    }
}

pub async fn run(command: CredentialCommand) -> CommandResult {
    match command {
        CredentialCommand::List { json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let connections = credentials::declared(&registry::load(&ws));
            let store = open()?;
            let statuses: Vec<credentials::Status> =
                connections.values().map(|c| credentials::status(&store, c)).collect();
            if json {
                outln!("{}", serde_json::json!(statuses));
            } else if statuses.is_empty() {
                outln!("No capability in {} declares a credential.", ws.display());
            } else {
                let rows: Vec<Vec<String>> = statuses
                    .iter()
                    .map(|s| {
                        vec![
                            s.name.clone(),
                            s.kind.as_str().into(),
                            s.state.as_str().into(),
                            s.used_by.join(", "),
                        ]
                    })
                    .collect();
                table::print(&["NAME", "KIND", "STATE", "USED BY"], &rows);
            }
        }
        CredentialCommand::Connect { name, fields, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let connection = find(&credentials::declared(&registry::load(&ws)), &name)?;
            if fields.is_empty() {
                if connection.sign_in.is_none() {
                    let expected =
                        connection.key.as_ref().map(|k| k.fields.join(", ")).unwrap_or_default();
                    return Err(Failure::new(Exit::Usage, format!("\"{name}\" is a key: give its fields ({expected})")).hint(format!("cowork credential connect {name} --field {} (it asks for the value, or reads it from stdin)", connection.key.as_ref().map(|k| k.fields[0].as_str()).unwrap_or("token"))));
                }
                return sign_in(&connection).await;
            }
            let mut values = BTreeMap::new();
            for field in fields {
                // A value on the command line is in `ps` and the shell's history: refused, as
                // `cowork secrets set` has no place for one.
                if let Some((key, _)) = field.split_once('=') {
                    return Err(Failure::new(
                        Exit::Usage,
                        format!("--field {key}=… puts a secret on the command line, where other programs and the shell's history see it"),
                    )
                    .hint(format!("give `--field {key}` alone: Cowork asks for the value, or reads it from stdin")));
                }
                // A terminal gets the hidden prompt (as `cowork secrets set`); else stdin.
                let value =
                    read_value(&format!("{name}'s {field}"), !std::io::stdin().is_terminal())?;
                values.insert(field, value);
            }
            credentials::connect_key(&open()?, &connection, &values).map_err(failure)?;
            outln!("Connected {name} (used by {}).", connection.used_by.join(", "));
        }
        CredentialCommand::Disconnect { name, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let connection = find(&credentials::declared(&registry::load(&ws)), &name)?;
            let store = open()?;
            let status = credentials::status(&store, &connection);
            credentials::disconnect(&OAuth::load(&Root::from_env(), true), &store, &connection)
                .await
                .map_err(|e| Failure::new(Exit::Failed, e.message))?;
            let was = if status.state == credentials::ConnectionState::NotConnected {
                "Nothing to disconnect for"
            } else {
                "Disconnected"
            };
            outln!("{was} {name} (for {}).", connection.used_by.join(", "));
        }
    }
    Ok(Exit::Ok)
}
