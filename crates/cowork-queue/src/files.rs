//! Attachments coming in: content by name, or (from a routine or the CLI, never a widget: see
//! [`crate::WidgetCall`]) a workspace file by path, never one outside the workspace. Their bytes
//! are copied into the store, so a task keeps them when the file changes.

use crate::error::{QueueError, Result};
use crate::model::{FileContent, FileInput, MAX_FILE};
use base64::Engine;
use std::path::Path;

/// An attachment read and checked, ready to store.
pub(crate) struct Attachment {
    pub name: String,
    pub content: Vec<u8>,
}

/// Reads every input; `field` names the list in errors (`files`, `--file`).
pub(crate) fn load(workspace: &Path, field: &str, inputs: &[FileInput]) -> Result<Vec<Attachment>> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| load_one(workspace, &format!("{field}[{i}]"), input))
        .collect()
}

fn load_one(workspace: &Path, field: &str, input: &FileInput) -> Result<Attachment> {
    let attachment = match input {
        FileInput::Path { path } => {
            let field = format!("{field}.path");
            let root = workspace.canonicalize()?;
            let given = Path::new(path);
            let joined = if given.is_absolute() { given.to_path_buf() } else { root.join(given) };
            let real = joined.canonicalize().map_err(|source| QueueError::ReadFile {
                field: field.clone(),
                path: joined.clone(),
                source,
            })?;
            if !real.starts_with(&root) {
                return Err(QueueError::bad(
                    field,
                    format!("{path} is outside the workspace {}", root.display()),
                ));
            }
            if !real.is_file() {
                return Err(QueueError::bad(field, format!("{path} is not a file")));
            }
            let name = real.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let content = std::fs::read(&real).map_err(|source| QueueError::ReadFile {
                field: field.clone(),
                path: real,
                source,
            })?;
            Attachment { name, content }
        }
        FileInput::Content(FileContent::Text { name, text }) => {
            Attachment { name: checked_name(field, name)?, content: text.as_bytes().to_vec() }
        }
        FileInput::Content(FileContent::Base64 { name, base64 }) => {
            let content =
                base64::engine::general_purpose::STANDARD.decode(base64).map_err(|e| {
                    QueueError::bad(format!("{field}.base64"), format!("not base64: {e}"))
                })?;
            Attachment { name: checked_name(field, name)?, content }
        }
    };
    if attachment.content.len() > MAX_FILE {
        return Err(QueueError::bad(
            field,
            format!(
                "{} is {} bytes, over the {MAX_FILE}-byte limit",
                attachment.name,
                attachment.content.len()
            ),
        ));
    }
    Ok(attachment)
}

/// A file name given with content: one path component, so it cannot name a place on disk.
fn checked_name(field: &str, name: &str) -> Result<String> {
    let plain = !name.is_empty()
        && name.len() <= 255
        && !name.contains(['/', '\\', '\0'])
        && name != "."
        && name != "..";
    if plain {
        Ok(name.to_string())
    } else {
        Err(QueueError::bad(
            format!("{field}.name"),
            format!("\"{name}\" is not a plain file name"),
        ))
    }
}
