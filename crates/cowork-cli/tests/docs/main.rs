//! The reference under `docs/`: the pages whose source of truth is code are generated here, from
//! clap's `Cli`, `schemas/*.json`, `cowork.d.ts` and the error names, together with
//! `docs/llms.txt` and `docs/llms-full.txt` built from every page. The test regenerates them in
//! memory and fails, naming each stale file, when one differs from what is checked in;
//! `COWORK_UPDATE_DOCS=1` writes them instead.
//!
//! The CLI's `Cli` lives in the `cowork` binary, which has no library target: `cli.rs` is
//! included here by path (it needs only clap), so the reference reads the very type `main` parses.

/// The command line, as the binary parses it.
// The binary reads the parsed fields; this test only asks clap to describe them.
#[allow(dead_code)]
#[path = "../../src/cli.rs"]
mod cli;
mod cli_page;
mod errors_page;
mod llms;
mod schema_page;
mod sdk_page;

use std::path::{Path, PathBuf};

/// The command that rewrites every generated page.
const UPDATE: &str = "COWORK_UPDATE_DOCS=1 cargo test -p cowork-cli --test docs";

/// One generated file: where it goes under the repository, and its whole text.
pub struct Generated {
    pub path: String,
    pub text: String,
}

impl Generated {
    /// A page with the first line every generated page carries: what it comes from and how to
    /// refresh it.
    fn page(path: &str, source: &str, body: &str) -> Generated {
        Generated { path: path.to_string(), text: format!("{}\n{body}", generated_line(source)) }
    }
}

/// The first line of a generated page (an HTML comment: invisible where the Markdown is shown).
pub fn generated_line(source: &str) -> String {
    format!("<!-- Generated from {source}; do not edit. Refresh: {UPDATE} -->")
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository")
}

pub fn read(relative: &str) -> String {
    let path = repo().join(relative);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("failed to read {}: {e}", path.display()))
}

/// Every generated file, the llms files last (they are built from the pages before them).
fn generate() -> Vec<Generated> {
    let mut pages = vec![
        Generated::page(
            "docs/reference/cli.md",
            "crates/cowork-cli/src/cli.rs",
            &cli_page::render(),
        ),
        Generated::page(
            "docs/reference/cowork-json.md",
            "schemas/cowork.schema.json",
            &schema_page::render("schemas/cowork.schema.json"),
        ),
        Generated::page(
            "docs/reference/workspace-json.md",
            "schemas/workspace.schema.json",
            &schema_page::render("schemas/workspace.schema.json"),
        ),
        Generated::page(
            "docs/reference/sdk.md",
            "crates/cowork-engine/src/cowork.d.ts",
            &sdk_page::render(&read("crates/cowork-engine/src/cowork.d.ts")),
        ),
        Generated::page(
            "docs/reference/errors.md",
            "crates/cowork-core/src/error_name.rs",
            &errors_page::render(&read("crates/cowork-core/src/error_name.rs")),
        ),
    ];
    let llms = llms::render(&pages);
    pages.extend(llms);
    pages
}

#[test]
fn generated_pages_are_fresh() {
    let root = repo();
    let generated = generate();
    if std::env::var_os("COWORK_UPDATE_DOCS").is_some_and(|v| v == "1") {
        for file in &generated {
            let path = root.join(&file.path);
            std::fs::create_dir_all(path.parent().expect("a page is in a folder")).unwrap();
            // Written beside and renamed over: the link test, running at the same time, reads
            // these pages and must never see one half-written.
            let part = PathBuf::from(format!("{}.part", path.display()));
            std::fs::write(&part, &file.text)
                .and_then(|()| std::fs::rename(&part, &path))
                .unwrap_or_else(|e| panic!("failed to write {}: {e}", path.display()));
        }
        return;
    }
    let stale: Vec<&str> = generated
        .iter()
        .filter(|file| {
            std::fs::read_to_string(root.join(&file.path)).ok().as_ref() != Some(&file.text)
        })
        .map(|file| file.path.as_str())
        .collect();
    assert!(
        stale.is_empty(),
        "these generated pages are stale (their sources changed):\n  {}\nrefresh them with:\n  {UPDATE}",
        stale.join("\n  ")
    );
}

#[test]
fn every_page_is_linked_from_the_index_and_every_link_resolves() {
    let docs = repo().join("docs");
    let index = read("docs/README.md");
    let linked: Vec<String> = llms::links(&index).into_iter().map(|(_, target)| target).collect();
    let mut unlinked = Vec::new();
    let mut broken = Vec::new();
    for page in markdown_files(&docs) {
        let relative = page.strip_prefix(&docs).unwrap().to_string_lossy().replace('\\', "/");
        if relative != "README.md" && !linked.contains(&relative) {
            unlinked.push(relative.clone());
        }
        let text = std::fs::read_to_string(&page).unwrap();
        for (_, target) in llms::links(&text) {
            let file = target.split('#').next().unwrap_or_default();
            if file.contains("://") || file.starts_with("mailto:") {
                continue;
            }
            let linked =
                if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            let anchor_missing = || match target.split_once('#') {
                Some((_, anchor)) if linked.extension().is_some_and(|ext| ext == "md") => {
                    let text = std::fs::read_to_string(&linked).unwrap_or_default();
                    !text.lines().filter_map(|l| l.strip_prefix('#')).any(|heading| {
                        cli_page::anchor(heading.trim_start_matches('#').trim()) == anchor
                    })
                }
                _ => false,
            };
            if !linked.exists() || anchor_missing() {
                broken.push(format!("docs/{relative} → {target}"));
            }
        }
    }
    assert!(unlinked.is_empty(), "pages docs/README.md does not link: {unlinked:?}");
    assert!(broken.is_empty(), "links to files that do not exist:\n  {}", broken.join("\n  "));
}

#[test]
fn the_errors_page_lists_every_error_name() {
    let documented = errors_page::names(&read("crates/cowork-core/src/error_name.rs"));
    let names: Vec<&str> = documented.iter().map(|(name, _)| name.as_str()).collect();
    let all: Vec<&str> = cowork_engine::ErrorName::ALL.iter().map(|name| name.as_str()).collect();
    assert_eq!(names, all, "error_name.rs as read for docs/reference/errors.md vs ErrorName::ALL");
    assert!(
        documented.iter().all(|(_, meaning)| !meaning.is_empty()),
        "an error name has no doc comment"
    );
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(markdown_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}
