//! Skills for coding agents: each switched-on app or capability with a `SKILL.md` linked as the
//! project skill `.claude/skills/<name>` (a symlink to its folder, so an edit or an update shows at
//! once), and the `cowork-studio` skill — how to build Cowork apps, from this version's own guide —
//! written for Claude Code (`~/.claude/skills/`) and Codex (`~/.codex/skills/`).

use crate::registry::Registry;
use std::io;
use std::path::{Path, PathBuf};

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The guide the `cowork-studio` skill carries: the first-app guide of the docs this binary was
/// built with.
const GUIDE: &str = include_str!("../../../docs/guides/first-app.md");

/// What [`link`] did.
#[derive(Debug, Default, PartialEq)]
pub struct Linked {
    /// Skill names linked now (or already linked to the right folder).
    pub linked: Vec<String>,
    /// Stale links into `.cowork/apps/` removed (an app gone, switched off, or its SKILL.md gone).
    pub removed: Vec<String>,
    /// Names left alone because something that is not Cowork's link holds them.
    pub skipped: Vec<String>,
}

/// Links `.claude/skills/<name>` → `../../.cowork/apps/<folder>` for every switched-on app that
/// owns its name and has a `SKILL.md`, and removes Cowork's links that no longer match one. A
/// skill the person wrote there themselves is never touched.
pub fn link(registry: &Registry) -> io::Result<Linked> {
    // A `.claude` or `.claude/skills` that leads elsewhere (`~/.claude`) would have Cowork add and
    // remove links outside the workspace.
    crate::own_folders::check(&registry.root).map_err(|e| {
        io::Error::new(io::ErrorKind::PermissionDenied, format!("{e}; {}", e.hint()))
    })?;
    let dir = registry.root.join(".claude/skills");
    let mut done = Linked::default();
    let wanted: Vec<(&str, &str)> = registry
        .apps
        .iter()
        .filter(|a| a.enabled && a.owns_name && a.path.join(SKILL_FILE).is_file())
        .map(|a| (a.manifest.name.as_str(), a.dir.as_str()))
        .collect();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let ours = cowork_target(&entry.path()).is_some();
            if ours && !wanted.iter().any(|(n, _)| *n == name) {
                std::fs::remove_file(entry.path())?;
                done.removed.push(name);
            }
        }
    }
    for (name, app_dir) in wanted {
        let link = dir.join(name);
        let target = Path::new("../..").join(app_dir);
        match std::fs::symlink_metadata(&link) {
            Ok(_) if cowork_target(&link).as_deref() == Some(target.as_path()) => {}
            Ok(_) if cowork_target(&link).is_some() => {
                std::fs::remove_file(&link)?;
                symlink(&target, &link)?;
            }
            Ok(_) => {
                done.skipped.push(name.to_string());
                continue;
            }
            Err(_) => {
                std::fs::create_dir_all(&dir)?;
                symlink(&target, &link)?;
            }
        }
        done.linked.push(name.to_string());
    }
    Ok(done)
}

/// Where a link Cowork made points (`../../.cowork/apps/…`), or `None` for anything else.
fn cowork_target(path: &Path) -> Option<PathBuf> {
    std::fs::read_link(path).ok().filter(|t| t.starts_with("../../.cowork/apps"))
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

/// How an agent reaches a workspace's capabilities through the door: the four tools it offers
/// (`cowork-daemon`'s `mcp/tools.rs`), so what the skill says matches what the client lists.
const DOOR: &str = "## Using a workspace's capabilities (the `cowork` MCP server)\n\nThrough Cowork's MCP door (`cowork agent create` prints how to connect) an agent has four tools: `start_task` first (it answers a `taskId`; pass it to every call), `list_capabilities` (every routine of every capability: its input schema, its risk, whether it is called with `read` or `run`, and whether you may — a routine that is not granted comes with the exact `cowork agent grant …` line the workspace's owner runs), then `read` for a granted read and `run` for any other granted routine, each `{\"capability\": \"tasks\", \"tool\": \"tasks-add\", \"params\": {…}, \"taskId\": \"…\"}`. A refusal names the grant line: show it to the person rather than working around it. On the workspace's own machine, `cowork routine run` runs a routine as the owner instead.\n";

/// The `cowork-studio` skill's SKILL.md for this `version`.
pub fn guide(version: &str) -> String {
    format!(
        "---\nname: cowork-studio\ndescription: How to build Cowork Studio apps (cowork.json, routines, widgets) with the `cowork` command, and how to use a workspace's capabilities through its MCP door, version {version}. Use when asked to make or change an app in a Cowork workspace, or to use its capabilities.\n---\n\n{}\n\n{DOOR}",
        GUIDE.trim()
    )
}

/// Writes the `cowork-studio` skill under each agent home in `home` (`.claude/skills/`,
/// `.codex/skills/`), replacing an older version's; the files written.
pub fn install_guide(home: &Path, version: &str) -> io::Result<Vec<PathBuf>> {
    let text = guide(version);
    let mut written = Vec::new();
    for agent in [".claude", ".codex"] {
        let path = home.join(agent).join("skills/cowork-studio").join(SKILL_FILE);
        crate::fs_atomic::write(&path, text.as_bytes(), false)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn app(ws: &Path, name: &str, skill: bool) {
        let dir = ws.join(".cowork/apps").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("cowork.json"),
            format!(r#"{{ "name": "{name}", "version": "1.0.0", "kind": "capability" }}"#),
        )
        .unwrap();
        if skill {
            std::fs::write(dir.join(SKILL_FILE), "---\nname: x\n---\n").unwrap();
        }
    }

    #[test]
    fn apps_with_a_skill_are_linked_and_stale_links_go_but_a_persons_own_skill_stays() {
        let ws = tempfile::tempdir().unwrap();
        app(ws.path(), "mail", true);
        app(ws.path(), "notes", false);
        let own = ws.path().join(".claude/skills/mine");
        std::fs::create_dir_all(&own).unwrap();
        let first = link(&crate::registry::load(ws.path())).unwrap();
        assert_eq!(first.linked, ["mail"]);
        let linked = ws.path().join(".claude/skills/mail");
        assert_eq!(std::fs::read_link(&linked).unwrap(), Path::new("../../.cowork/apps/mail"));
        assert!(linked.join(SKILL_FILE).is_file(), "the link resolves to the app folder");

        std::fs::remove_file(ws.path().join(".cowork/apps/mail").join(SKILL_FILE)).unwrap();
        let second = link(&crate::registry::load(ws.path())).unwrap();
        assert_eq!((second.linked.len(), second.removed), (0, vec!["mail".to_string()]));
        assert!(own.is_dir(), "a skill the person made is never touched");
    }

    #[test]
    fn the_guide_names_its_version() {
        let home = tempfile::tempdir().unwrap();
        let written = install_guide(home.path(), "9.9.9").unwrap();
        assert_eq!(written.len(), 2);
        let text = std::fs::read_to_string(&written[0]).unwrap();
        assert!(text.starts_with("---\nname: cowork-studio\n"), "{text}");
        assert!(text.contains("version 9.9.9"));
    }
}
