//! `cowork template install <ts>/<name> --name <component>`: scaffold an app, routine or skill
//! template into `.cowork/apps/<component>/` (a workspace template into the folder itself), as
//! the Create menu does. Nothing is written if any target path exists; the folder appears whole
//! (staged, then renamed into place). A scaffold is the person's own app from then on: untracked,
//! no receipt. The capabilities its manifest `uses` come from the same team server.
//!
//! **Renaming.** A template holds a real app; its manifest `name` (say `records`) is the word the
//! scaffold renames: every occurrence of it, and of its title-cased form (`Records`), in file
//! names and text files becomes the component's (`clients`, `Clients`) — whole words only (not
//! inside a longer word of letters and digits), and never inside a web address.

use crate::error::{Result, StoreError};
use crate::fetch;
use crate::install::{install, InstallOptions, Installed};
use crate::place::Place;
use crate::remote::Remote;
use crate::resolve::resolve;
use crate::stage::{self, Stage};
use cowork_wire::hub::{is_item_name, Host, ItemKind, TemplateSubtype};
use std::sync::LazyLock;

/// How to scaffold.
#[derive(Debug, Clone, Default)]
pub struct Scaffold {
    /// The component's name: its folder, and the word the template's own name becomes.
    pub component: String,
    /// Where it will run (`--host`): a template that needs the other host is refused.
    pub host: Option<Host>,
    /// Scaffold from a template that does not verify: only when the person explicitly asks.
    pub allow_unverified: bool,
}

/// What a scaffold wrote.
#[derive(Debug, Clone)]
pub struct Scaffolded {
    /// Workspace-relative folder written (`.cowork/apps/clients`), or `.` for a workspace.
    pub dir: String,
    /// What the template scaffolded.
    pub subtype: TemplateSubtype,
    /// Files written, relative to `dir`.
    pub files: Vec<String>,
    /// Capabilities its manifest `uses`, installed from the same team server.
    pub capabilities: Vec<Installed>,
    /// Capabilities it uses that could not be installed, each with why: the scaffold is written
    /// all the same (page 12: a missing capability is listed, not fatal).
    pub missing: Vec<String>,
}

/// Scaffolds template `name` of `remote` into `place`.
pub async fn scaffold<R: Remote>(
    place: &Place,
    remote: &R,
    name: &str,
    options: &Scaffold,
) -> Result<Scaffolded> {
    let component = options.component.as_str();
    if !is_item_name(component) {
        return Err(StoreError::BadFlag {
            flag: "--name",
            value: component.to_string(),
            why: "a component's name is lowercase letters, digits and dashes (^[a-z0-9][a-z0-9-]{0,62}$), not a name .cowork keeps".into(),
        });
    }
    let resolved = resolve(place, remote, name, None, options.allow_unverified).await?;
    if resolved.manifest.kind != ItemKind::Template {
        return Err(StoreError::BadSpec {
            spec: format!("{}/{name}", remote.slug()),
            why: format!(
                "it is {}, not a template ({} takes it)",
                resolved.manifest.kind.with_article(),
                resolved.manifest.kind.installed_by()
            ),
        });
    }
    let subtype = resolved.manifest.subtype.unwrap_or(TemplateSubtype::App);
    fetch::ensure(remote, &place.cache, &resolved.label(remote.slug()), &resolved.manifest.files)
        .await?;
    let mut files = Vec::new();
    for file in &resolved.manifest.files {
        let bytes = place.cache.read(&file.sha256).ok_or_else(|| StoreError::NotFound {
            what: format!("the cached blob of {}", file.path),
        })?;
        files.push((file.path.clone(), bytes));
    }
    // The word to rename: the template's own app name.
    let token = files
        .iter()
        .find(|(path, _)| path == "cowork.json")
        .and_then(|(_, bytes)| serde_json::from_slice::<serde_json::Value>(bytes).ok())
        .and_then(|m| {
            if let (Some(host), Some(requires)) = (options.host, m["requires"].as_array()) {
                let ok = requires.is_empty()
                    || requires.iter().any(|r| r.as_str() == Some(host.as_str()));
                if !ok {
                    return Some(Err(StoreError::BadFlag {
                        flag: "--host",
                        value: host.as_str().to_string(),
                        why: format!(
                            "the template {name} runs only in {}",
                            requires
                                .iter()
                                .filter_map(|r| r.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    }));
                }
            }
            m["name"].as_str().map(|n| Ok(n.to_string()))
        })
        .transpose()?;
    let (base, dir) = match subtype {
        TemplateSubtype::Workspace => (place.workspace.clone(), ".".to_string()),
        _ => (place.apps_dir().join(component), Place::dir_of(component)),
    };
    let renamed: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|(path, bytes)| match &token {
            Some(token) if subtype != TemplateSubtype::Workspace => {
                let path = rename(&path, token, component);
                let bytes = match String::from_utf8(bytes) {
                    Ok(text) => rename(&text, token, component).into_bytes(),
                    Err(e) => e.into_bytes(),
                };
                (path, bytes)
            }
            _ => (path, bytes),
        })
        .collect();
    // Nothing is written if any target path exists.
    if subtype != TemplateSubtype::Workspace && base.exists() {
        return Err(StoreError::Exists { path: base });
    }
    for (path, _) in &renamed {
        let target = crate::pack::safe_join(&base, path)?;
        if target.exists() || target.symlink_metadata().is_ok() {
            return Err(StoreError::Exists { path: target });
        }
    }
    if subtype != TemplateSubtype::Workspace {
        let registry = cowork_core::registry::load(&place.workspace);
        if let Some(app) = registry.app_by_name(component) {
            return Err(StoreError::Exists { path: place.workspace.join(&app.dir) });
        }
        let _held = place.hold(component)?;
        let stage = Stage::new(&place.apps_dir(), component)?;
        for (path, bytes) in &renamed {
            let to = crate::pack::safe_join(&stage.path(), path)?;
            write_new(&to, bytes)?;
        }
        stage::rename_new(&stage.path(), &base)?;
    } else {
        // A workspace template: each file written only where nothing is (checked above).
        for (path, bytes) in &renamed {
            let to = crate::pack::safe_join(&base, path)?;
            cowork_core::fs_atomic::no_link_below(&base, &to)
                .map_err(|e| StoreError::io("write", &to, e))?;
            write_new(&to, bytes)?;
        }
    }
    // The capabilities it uses, from the same team server (the built-in store has none to give).
    let (mut capabilities, mut missing) = (Vec::new(), Vec::new());
    if subtype != TemplateSubtype::Workspace && remote.slug() != crate::builtin::SLUG {
        let registry = cowork_core::registry::load(&place.workspace);
        let uses = registry
            .app(&dir)
            .map(|app| app.manifest.uses.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        for capability in uses {
            if registry.app_by_name(&capability).is_some() {
                continue;
            }
            let options =
                InstallOptions { version: None, allow_unverified: options.allow_unverified };
            match install(place, remote, &capability, &options).await {
                Ok(installed) => capabilities.push(installed),
                Err(error) => missing.push(format!("{capability}: {error}")),
            }
        }
    }
    Ok(Scaffolded {
        dir,
        subtype,
        files: renamed.into_iter().map(|(p, _)| p).collect(),
        capabilities,
        missing,
    })
}

fn write_new(to: &std::path::Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| StoreError::io("create", parent, e))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    cowork_core::fs_atomic::no_follow(&mut options);
    use std::io::Write;
    options
        .open(to)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|e| StoreError::io("write", to, e))
}

/// `gmail-sync` → `Gmail Sync`.
pub fn title_case(name: &str) -> String {
    name.split('-')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

static ADDRESS: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r#"https?://[^\s"'<>)\]`]+"#).expect("a valid pattern"));

/// `text` with `token` (and its title-cased form) renamed to `name`, whole words only, web
/// addresses left as they are.
pub fn rename(text: &str, token: &str, name: &str) -> String {
    let pairs = [(token.to_string(), name.to_string()), (title_case(token), title_case(name))];
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for address in ADDRESS.find_iter(text) {
        out.push_str(&rename_words(&text[last..address.start()], &pairs));
        out.push_str(address.as_str());
        last = address.end();
    }
    out.push_str(&rename_words(&text[last..], &pairs));
    out
}

fn rename_words(text: &str, pairs: &[(String, String)]) -> String {
    let bytes = text.as_bytes();
    let word = |i: usize| bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric());
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    'scan: while i < text.len() {
        if i == 0 || !word(i - 1) {
            for (from, to) in pairs {
                if !from.is_empty() && text[i..].starts_with(from.as_str()) && !word(i + from.len())
                {
                    out.push_str(to);
                    i += from.len();
                    continue 'scan;
                }
            }
        }
        let ch = text[i..].chars().next().expect("i is on a char boundary");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaffold_renames_whole_words_but_never_web_addresses() {
        assert_eq!(rename("records-list", "records", "clients"), "clients-list");
        assert_eq!(rename("*.records.json", "records", "client-notes"), "*.client-notes.json");
        assert_eq!(rename("Search Records", "records", "client-notes"), "Search Client Notes");
        assert_eq!(rename("myrecords recordset", "records", "x"), "myrecords recordset");
        assert_eq!(
            rename(
                "\"url\": \"https://web.whatsapp.com/\", \"name\": \"whatsapp\"",
                "whatsapp",
                "chat"
            ),
            "\"url\": \"https://web.whatsapp.com/\", \"name\": \"chat\""
        );
        assert_eq!(rename("a record, not records", "records", "deals"), "a record, not deals");
        assert_eq!(title_case("daily-report"), "Daily Report");
    }
}
