//! `cowork credential list|connect|disconnect`: the connections capabilities declare.

use super::secrets::{open, read_value, store_failure};
use crate::cli::CredentialCommand;
use crate::exit::{CommandResult, Exit, Failure};
use crate::{table, workspace};
use cowork_core::registry;
use cowork_engine::credentials::{self, Connection, CredentialError};
use std::collections::BTreeMap;

fn find(connections: &BTreeMap<String, Connection>, name: &str) -> Result<Connection, Failure> {
    connections.get(name).cloned().ok_or_else(|| {
        let known: Vec<&str> = connections.keys().map(String::as_str).collect();
        let hint = if known.is_empty() { "no capability in this workspace declares a \"credential\"".to_string() } else { format!("this workspace declares: {}", known.join(", ")) };
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
            let statuses: Vec<credentials::Status> = connections.values().map(|c| credentials::status(&store, c)).collect();
            if json {
                outln!("{}", serde_json::json!(statuses));
            } else if statuses.is_empty() {
                outln!("No capability in {} declares a credential.", ws.display());
            } else {
                let rows: Vec<Vec<String>> = statuses.iter().map(|s| vec![s.name.clone(), s.kind.into(), s.state.into(), s.used_by.join(", ")]).collect();
                table::print(&["NAME", "KIND", "STATE", "USED BY"], &rows);
            }
        }
        CredentialCommand::Connect { name, fields, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let connection = find(&credentials::declared(&registry::load(&ws)), &name)?;
            if fields.is_empty() {
                if connection.sign_in.is_none() {
                    let expected = connection.key.as_ref().map(|k| k.fields.join(", ")).unwrap_or_default();
                    return Err(Failure::new(Exit::Usage, format!("\"{name}\" is a key: give its fields ({expected})")).hint(format!("cowork credential connect {name} --field {}=… (or --field {} alone to read it from stdin)", connection.key.as_ref().map(|k| k.fields[0].as_str()).unwrap_or("token"), connection.key.as_ref().map(|k| k.fields[0].as_str()).unwrap_or("token"))));
                }
                return Err(Failure::new(Exit::Failed, format!("\"{name}\" is a sign-in, and sign-ins are not part of this build yet")));
            }
            let mut values = BTreeMap::new();
            for field in fields {
                let (key, value) = match field.split_once('=') {
                    Some((key, value)) => (key.to_string(), value.to_string()),
                    None => {
                        let value = read_value(&format!("{name}'s {field}"), true)?;
                        (field, value)
                    }
                };
                values.insert(key, value);
            }
            credentials::connect_key(&open()?, &connection, &values).map_err(failure)?;
            outln!("Connected {name} (used by {}).", connection.used_by.join(", "));
        }
        CredentialCommand::Disconnect { name, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let connection = find(&credentials::declared(&registry::load(&ws)), &name)?;
            let removed = credentials::forget(&open()?, &connection).map_err(failure)?;
            outln!("{} {name} (for {}).", if removed { "Disconnected" } else { "Nothing to disconnect for" }, connection.used_by.join(", "));
        }
    }
    Ok(Exit::Ok)
}
