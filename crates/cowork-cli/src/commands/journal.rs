//! `cowork journal …`: the skill journal, in the same store as the task queues.

use super::queue::{failure, open, print, read_file, time};
use crate::cli::{JournalCommand, JournalKind};
use crate::exit::{print_json_failure, CommandResult, Exit, Failure};
use crate::table;
use cowork_queue::journal::{Filter, Kind, NewEntry};
use std::io::Read;

pub fn run(command: JournalCommand) -> CommandResult {
    match command {
        JournalCommand::Add { skill, text, text_file, stdin, kind, source, json, workspace } => {
            let text = match (text, text_file) {
                (_, Some(file)) => read_file(&file, "--text-file")?,
                (Some(text), None) => text,
                (None, None) if stdin => {
                    let mut text = String::new();
                    std::io::stdin().read_to_string(&mut text).map_err(|e| {
                        Failure::new(
                            Exit::Usage,
                            format!("failed to read the text from stdin: {e}"),
                        )
                    })?;
                    text
                }
                (None, None) => String::new(),
            };
            let kind = match kind {
                JournalKind::Learning => Kind::Learning,
                JournalKind::Error => Kind::Error,
                JournalKind::Note => Kind::Note,
            };
            let entry = open(workspace.workspace.as_deref())?
                .journal_add(&NewEntry { skill, kind, text, source })
                .map_err(failure)?;
            print(json, &entry, || {
                outln!("Entry {} for {} ({}), open.", entry.id, entry.skill, entry.kind)
            });
        }
        JournalCommand::List { json, workspace } => {
            let skills = open(workspace.workspace.as_deref())?.journal_skills().map_err(failure)?;
            print(json, &skills, || {
                if skills.is_empty() {
                    outln!("No journal entries.");
                    return;
                }
                let rows: Vec<Vec<String>> = skills
                    .iter()
                    .map(|s| {
                        let md = s.skill_md.clone().unwrap_or_else(|| "(no SKILL.md found)".into());
                        vec![s.skill.clone(), s.open.to_string(), s.applied.to_string(), md]
                    })
                    .collect();
                table::print(&["SKILL", "OPEN", "APPLIED", "SKILL.MD"], &rows);
            });
        }
        JournalCommand::Entries { skill, open: _, applied, all, json, workspace } => {
            let filter = match (applied, all) {
                (true, _) => Filter::Applied,
                (_, true) => Filter::All,
                _ => Filter::Open,
            };
            let entries = open(workspace.workspace.as_deref())?
                .journal_entries(&skill, filter, 200)
                .map_err(failure)?;
            if entries.is_empty() && filter == Filter::Open {
                let message = format!("no open entries for {skill}");
                if json {
                    print_json_failure("Empty", &message, None);
                }
                eprintln!("{message}");
                return Ok(Exit::NotFound);
            }
            print(json, &entries, || {
                for entry in &entries {
                    outln!(
                        "#{} {} · {} · {} · {}",
                        entry.id,
                        entry.kind,
                        entry.status,
                        entry.source,
                        time(entry.created)
                    );
                    outln!("{}\n", entry.text.trim_end());
                }
            });
        }
        JournalCommand::Resolve { skill, ids, workspace } => {
            let changed = open(workspace.workspace.as_deref())?
                .journal_resolve(&skill, &ids)
                .map_err(failure)?;
            outln!(
                "Marked {changed} entr{} of {skill} applied.",
                if changed == 1 { "y" } else { "ies" }
            );
        }
        JournalCommand::Delete { id, workspace } => {
            open(workspace.workspace.as_deref())?.journal_delete(id).map_err(failure)?;
            outln!("Deleted entry {id}.");
        }
    }
    Ok(Exit::Ok)
}
