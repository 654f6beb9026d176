//! `cowork table create|list`: workspace SQLite tables under `.cowork/data/`.

use super::queue::{failure, print};
use crate::cli::TableCommand;
use crate::exit::{CommandResult, Exit};
use crate::{table, workspace};
use cowork_queue::tables;

pub fn run(command: TableCommand) -> CommandResult {
    match command {
        TableCommand::Create { name, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let (path, created) = tables::create(&ws, &name).map_err(failure)?;
            let relative = path.strip_prefix(&ws).unwrap_or(&path).display().to_string();
            if created {
                outln!("Created {relative}.");
            } else {
                outln!("{relative} already exists.");
            }
        }
        TableCommand::List { json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let files = tables::list(&ws).map_err(failure)?;
            print(json, &files, || {
                if files.is_empty() {
                    outln!(
                        "No tables in {}/{} (`cowork table create <name>` makes one).",
                        ws.display(),
                        tables::DATA_DIR
                    );
                    return;
                }
                let rows: Vec<Vec<String>> = files
                    .iter()
                    .map(|f| {
                        vec![
                            f.name.clone(),
                            f.path.clone(),
                            f.size.to_string(),
                            f.tables.join(", "),
                        ]
                    })
                    .collect();
                table::print(&["NAME", "PATH", "BYTES", "TABLES"], &rows);
            });
        }
    }
    Ok(Exit::Ok)
}
