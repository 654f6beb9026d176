//! `docs/llms.txt` and `docs/llms-full.txt` (the llmstxt.org format), built from `docs/README.md`:
//! its title and summary, then each section's pages (`- [title](page.md): what it is.`) in order;
//! the full file is every one of those pages in that order.

use crate::Generated;
use std::fmt::Write;

/// `[text](target)` links of a Markdown text, in order.
pub fn links(markdown: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = markdown;
    while let Some(close) = rest.find("](") {
        let text_start = rest[..close].rfind('[').map(|i| i + 1).unwrap_or(close);
        let after = &rest[close + 2..];
        let Some(end) = after.find(')') else { break };
        found.push((rest[text_start..close].to_string(), after[..end].to_string()));
        rest = &after[end..];
    }
    found
}

/// `llms.txt` and `llms-full.txt`; `generated` are the pages generated in this run, read in
/// place of their files so both come out of one pass.
pub fn render(generated: &[Generated]) -> Vec<Generated> {
    let index = crate::read("docs/README.md");
    let page = |target: &str| {
        let path = format!("docs/{target}");
        generated
            .iter()
            .find(|g| g.path == path)
            .map(|g| g.text.clone())
            .unwrap_or_else(|| crate::read(&path))
    };
    let title =
        index.lines().find_map(|l| l.strip_prefix("# ")).expect("docs/README.md has a title");
    let summary: Vec<&str> = index.lines().filter_map(|l| l.strip_prefix("> ")).collect();
    let head = format!(
        "# {title}\n\n> {}\n\nBuilt from docs/README.md and the pages it links ({}).\n",
        summary.join(" "),
        crate::UPDATE
    );

    let mut short = head.clone();
    let mut full = head;
    let (mut section, mut headed) = (None, None);
    for line in index.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            section = Some(title);
            continue;
        }
        // A page of docs/ the index lists as `- [title](page.md): what it is.`
        let Some(((text, target), what)) = section
            .and(line.strip_prefix("- "))
            .and_then(|item| {
                links(item).into_iter().next().zip(item.split_once("): ").map(|(_, what)| what))
            })
            .filter(|((_, target), _)| target.ends_with(".md") && !target.starts_with("../"))
        else {
            continue;
        };
        if headed != section {
            headed = section;
            let _ = writeln!(short, "\n## {}\n", section.unwrap_or_default());
        }
        let _ = writeln!(short, "- [{}]({target}): {what}", text.trim_matches('`'));
        let body = page(&target);
        let body: Vec<&str> =
            body.lines().filter(|l| !l.starts_with("<!-- Generated from")).collect();
        let _ = write!(full, "\n---\n\nSource: docs/{target}\n\n{}\n", body.join("\n").trim());
    }
    vec![
        Generated { path: "docs/llms.txt".into(), text: short },
        Generated { path: "docs/llms-full.txt".into(), text: full },
    ]
}
