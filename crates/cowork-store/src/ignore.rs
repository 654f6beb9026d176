//! Which files of a folder never travel: the rules every push, publish and clean check share.
//!
//! Page 12: "Everything in the folder travels when the app is pushed/installed" — except what
//! must never leave a machine or is not the app:
//!
//! - version-control and dependency folders (`.git/`, `.hg/`, `.svn/`, `node_modules/`);
//! - secrets by their usual names (`.env`, `.env.*`, `*.pem`, `*.key`, `*.p12`, `*.pfx`,
//!   `id_rsa*`, `id_ed25519*`, `id_ecdsa*`, `.npmrc`, `.netrc`, `.pypirc`);
//! - the operating system's litter (`.DS_Store`, `Thumbs.db`, `desktop.ini`);
//! - Cowork's own machine-local folders when a whole workspace is published (`.cowork/data/`,
//!   `.cowork/local/`, `.cowork/workspace.json` — state that "never travels");
//! - whatever a `.gitignore` in the folder (or below it) names, with git's rules for the lines it
//!   uses most: `#` comments, `!` to take a name back, a trailing `/` for folders only, a `/`
//!   inside anchoring to that `.gitignore`'s folder, `*`, `?`, `[…]` and `**`;
//! - symlinks (never followed: a link could point anywhere on this machine).

use globset::{Glob, GlobMatcher};

/// Folder names never packed, at any depth.
const NEVER_DIRS: [&str; 4] = [".git", ".hg", ".svn", "node_modules"];

/// File names (globs on the name alone) never packed: secrets and litter.
const NEVER_FILES: [&str; 16] = [
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_ed25519*",
    "id_ecdsa*",
    ".npmrc",
    ".netrc",
    ".pypirc",
    ".DS_Store",
    "Thumbs.db",
    "desktop.ini",
    // A write in progress (fs_atomic's temporary files, an editor's swap file).
    ".*.tmp",
];

/// Workspace-relative paths never packed with a whole workspace.
pub const WORKSPACE_NEVER: [&str; 3] = [".cowork/data", ".cowork/local", ".cowork/workspace.json"];

/// Why a path was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// A version-control or dependency folder.
    Tooling,
    /// A secret's usual name.
    Secret,
    /// A `.gitignore` names it.
    GitIgnored,
    /// A symlink.
    Symlink,
    /// Cowork's machine-local state.
    MachineLocal,
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Why::Tooling => "a tool's folder",
            Why::Secret => "secrets never travel",
            Why::GitIgnored => ".gitignore",
            Why::Symlink => "a symlink (never followed)",
            Why::MachineLocal => "this machine's state",
        })
    }
}

/// The fixed rules on one name (a file or a folder's last component).
pub fn never(name: &str, is_dir: bool) -> Option<Why> {
    if is_dir {
        return NEVER_DIRS.contains(&name).then_some(Why::Tooling);
    }
    static FILES: std::sync::LazyLock<Vec<GlobMatcher>> = std::sync::LazyLock::new(|| {
        NEVER_FILES
            .iter()
            .map(|p| Glob::new(p).expect("the fixed patterns are valid").compile_matcher())
            .collect()
    });
    FILES.iter().any(|m| m.is_match(name)).then_some(Why::Secret)
}

/// One `.gitignore`'s rules, for paths relative to the folder it sits in.
#[derive(Debug, Clone, Default)]
pub struct GitIgnore {
    rules: Vec<Rule>,
}

#[derive(Debug, Clone)]
struct Rule {
    matcher: GlobMatcher,
    negated: bool,
    dir_only: bool,
}

impl GitIgnore {
    /// Reads the rules of a `.gitignore`'s text; lines that are not valid globs are skipped.
    pub fn parse(text: &str) -> GitIgnore {
        let rules = text
            .lines()
            .filter_map(|line| {
                let line = line.trim_end();
                if line.is_empty() || line.starts_with('#') {
                    return None;
                }
                let (negated, line) = match line.strip_prefix('!') {
                    Some(rest) => (true, rest),
                    None => (false, line.strip_prefix('\\').unwrap_or(line)),
                };
                let (dir_only, line) = match line.strip_suffix('/') {
                    Some(rest) => (true, rest),
                    None => (false, line),
                };
                if line.is_empty() {
                    return None;
                }
                // A slash before the end anchors the pattern to this folder; otherwise it matches
                // a name at any depth below it.
                let pattern = match line.strip_prefix('/') {
                    Some(anchored) => anchored.to_string(),
                    None if line.contains('/') => line.to_string(),
                    None => format!("**/{line}"),
                };
                let glob =
                    globset::GlobBuilder::new(&pattern).literal_separator(true).build().ok()?;
                Some(Rule { matcher: glob.compile_matcher(), negated, dir_only })
            })
            .collect();
        GitIgnore { rules }
    }

    /// Whether `rel` (relative to this `.gitignore`'s folder, `/`-separated) is ignored: the last
    /// rule that matches decides (`None`: no rule matches).
    pub fn decides(&self, rel: &str, is_dir: bool) -> Option<bool> {
        self.rules
            .iter()
            .rev()
            .find(|rule| (is_dir || !rule.dir_only) && rule.matcher.is_match(rel))
            .map(|rule| !rule.negated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_tooling_never_travel() {
        assert_eq!(never(".env", false), Some(Why::Secret));
        assert_eq!(never(".env.production", false), Some(Why::Secret));
        assert_eq!(never("server.key", false), Some(Why::Secret));
        assert_eq!(never("id_ed25519.pub", false), Some(Why::Secret));
        assert_eq!(never("node_modules", true), Some(Why::Tooling));
        assert_eq!(never(".git", true), Some(Why::Tooling));
        assert_eq!(never("notes.ts", false), None);
        assert_eq!(never(".gitignore", false), None);
        // A folder called like a secret file is a folder.
        assert_eq!(never("keys.key", true), None);
    }

    #[test]
    fn gitignore_lines_follow_gits_rules() {
        let rules = GitIgnore::parse("# cache\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/*.tmp\n");
        assert_eq!(rules.decides("a.log", false), Some(true));
        assert_eq!(rules.decides("deep/b.log", false), Some(true));
        assert_eq!(rules.decides("keep.log", false), Some(false));
        assert_eq!(rules.decides("build", true), Some(true));
        assert_eq!(rules.decides("build", false), None, "build/ names folders only");
        assert_eq!(rules.decides("top.txt", false), Some(true));
        assert_eq!(rules.decides("sub/top.txt", false), None, "/top.txt is anchored");
        assert_eq!(rules.decides("docs/a.tmp", false), Some(true));
        assert_eq!(rules.decides("docs/sub/a.tmp", false), None, "* stops at a slash");
        assert_eq!(rules.decides("main.ts", false), None);
    }
}
