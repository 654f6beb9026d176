//! The skill journal: learnings, errors and notes left for a skill, open until an agent folds
//! them into the skill's SKILL.md and resolves them. Kept in the same store as the queues.

use crate::error::{QueueError, Result};
use crate::model::{check_body, check_name};
use crate::store::{now_ms, Store};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Something learned that the skill should say (the default).
    #[default]
    Learning,
    /// A mistake the skill should prevent.
    Error,
    /// Anything else.
    Note,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Learning => "learning",
            Kind::Error => "error",
            Kind::Note => "note",
        }
    }
}

/// A new entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewEntry {
    /// The skill it is for.
    pub skill: String,
    /// Learning (the default), error or note.
    #[serde(default)]
    pub kind: Kind,
    /// Its text.
    pub text: String,
    /// Where it comes from (default: `cli`; at most 200 characters).
    pub source: Option<String>,
}

/// One journal entry.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntry {
    /// The entry's id.
    pub id: i64,
    /// The skill it is for.
    pub skill: String,
    /// `learning`, `error` or `note`.
    pub kind: String,
    /// Its text.
    pub text: String,
    /// Where it came from.
    pub source: String,
    /// `open` or `applied`.
    pub status: &'static str,
    /// When it was written (ms since the epoch).
    pub created: i64,
    /// When it was marked applied (ms since the epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<i64>,
}

/// A skill with entries.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// The skill's name.
    pub skill: String,
    /// How many of its entries are open.
    pub open: u64,
    /// How many are applied.
    pub applied: u64,
    /// Its SKILL.md, workspace-relative, when one is found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill_md: Option<String>,
}

/// Which entries `entries` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Not yet folded into the skill (the default).
    #[default]
    Open,
    /// Marked applied.
    Applied,
    /// Every entry.
    All,
}

/// Where a skill's SKILL.md may be, relative to the workspace, in the order looked at.
const SKILL_DIRS: &[&str] = &[".claude/skills", ".agents/skills", ".cowork/skills"];

impl Store {
    /// Writes an entry; `source` defaults to `cli`.
    pub fn journal_add(&mut self, entry: &NewEntry) -> Result<JournalEntry> {
        check_name("skill", &entry.skill)?;
        if entry.text.trim().is_empty() {
            return Err(QueueError::bad("text", "an entry needs text"));
        }
        check_body("text", &entry.text)?;
        let source = entry.source.as_deref().unwrap_or("cli");
        if source.len() > 200 {
            return Err(QueueError::bad("source", "a source is at most 200 characters"));
        }
        self.conn.execute(
            "INSERT INTO journal (skill, kind, text, source, created) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![entry.skill, entry.kind.as_str(), entry.text, source, now_ms()],
        )?;
        let id = self.conn.last_insert_rowid();
        self.journal_entry(id)
    }

    /// Every skill with entries, by name.
    pub fn journal_skills(&mut self) -> Result<Vec<Skill>> {
        let mut statement = self.conn.prepare(
            "SELECT skill, count(*) FILTER (WHERE NOT applied), count(*) FILTER (WHERE applied)
             FROM journal GROUP BY skill ORDER BY skill",
        )?;
        let rows: Vec<(String, u64, u64)> = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let workspace = self.workspace().to_path_buf();
        Ok(rows
            .into_iter()
            .map(|(skill, open, applied)| Skill {
                skill_md: skill_md(&workspace, &skill),
                skill,
                open,
                applied,
            })
            .collect())
    }

    /// A skill's entries, oldest first.
    pub fn journal_entries(
        &mut self,
        skill: &str,
        filter: Filter,
        limit: u32,
    ) -> Result<Vec<JournalEntry>> {
        check_name("skill", skill)?;
        if limit == 0 || limit > 200 {
            return Err(QueueError::bad("limit", format!("{limit} is not within 1..=200")));
        }
        let condition = match filter {
            Filter::Open => "NOT applied",
            Filter::Applied => "applied",
            Filter::All => "1",
        };
        let mut statement = self.conn.prepare(&format!(
            "SELECT {ENTRY_COLUMNS} FROM journal WHERE skill = ?1 AND {condition} ORDER BY id LIMIT ?2"
        ))?;
        let entries = statement
            .query_map(params![skill, limit], entry_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(entries)
    }

    /// Marks the given entries of a skill (or every open one) applied; answers how many changed.
    pub fn journal_resolve(&mut self, skill: &str, ids: &[i64]) -> Result<u64> {
        check_name("skill", skill)?;
        let now = now_ms();
        // `new_unchecked`: the store lends its connection only shared (it holds statements on it).
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?;
        let mut changed = 0;
        if ids.is_empty() {
            changed = tx.execute(
                "UPDATE journal SET applied = 1, resolved = ?2 WHERE skill = ?1 AND NOT applied",
                params![skill, now],
            )?;
        }
        for &id in ids {
            let of: Option<String> = tx
                .query_row("SELECT skill FROM journal WHERE id = ?1", [id], |r| r.get(0))
                .optional()?;
            match of {
                Some(of) if of == skill => {}
                Some(of) => {
                    return Err(QueueError::bad(
                        "id",
                        format!("entry {id} is {of}'s, not {skill}'s"),
                    ))
                }
                None => return Err(QueueError::NoEntry(id)),
            }
            changed += tx.execute(
                "UPDATE journal SET applied = 1, resolved = ?2 WHERE id = ?1 AND NOT applied",
                params![id, now],
            )?;
        }
        tx.commit()?;
        Ok(changed as u64)
    }

    /// Deletes one entry.
    pub fn journal_delete(&mut self, id: i64) -> Result<()> {
        match self.conn.execute("DELETE FROM journal WHERE id = ?1", [id])? {
            0 => Err(QueueError::NoEntry(id)),
            _ => Ok(()),
        }
    }

    /// Every open entry, oldest first (for `queue summary`), at most 200.
    pub fn journal_open(&mut self) -> Result<Vec<JournalEntry>> {
        let mut statement = self.conn.prepare(&format!(
            "SELECT {ENTRY_COLUMNS} FROM journal WHERE NOT applied ORDER BY id LIMIT 200"
        ))?;
        let entries = statement.query_map([], entry_row)?.collect::<rusqlite::Result<_>>()?;
        Ok(entries)
    }

    fn journal_entry(&mut self, id: i64) -> Result<JournalEntry> {
        self.conn
            .query_row(
                &format!("SELECT {ENTRY_COLUMNS} FROM journal WHERE id = ?1"),
                [id],
                entry_row,
            )
            .optional()?
            .ok_or(QueueError::NoEntry(id))
    }
}

const ENTRY_COLUMNS: &str = "id, skill, kind, text, source, applied, created, resolved";

fn entry_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<JournalEntry> {
    let applied: bool = r.get(5)?;
    Ok(JournalEntry {
        id: r.get(0)?,
        skill: r.get(1)?,
        kind: r.get(2)?,
        text: r.get(3)?,
        source: r.get(4)?,
        status: if applied { "applied" } else { "open" },
        created: r.get(6)?,
        resolved: r.get(7)?,
    })
}

fn skill_md(workspace: &Path, skill: &str) -> Option<String> {
    SKILL_DIRS
        .iter()
        .map(|dir| format!("{dir}/{skill}/SKILL.md"))
        .find(|relative| workspace.join(relative).is_file())
}
