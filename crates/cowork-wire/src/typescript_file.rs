//! A generated TypeScript file of the workbench (`ui/src/workbench/wire/*.ts`), for the staleness
//! tests of this crate and of the crates above it that generate their own (cowork-queue's
//! `queue.ts`): one way to assemble a file and one check, so every generated file reads and
//! refreshes alike.

use std::path::Path;

/// `header`, then each declaration, exported. Panics when a doc comment ts-rs copied holds `*/`
/// (say a cron schedule in backticks): it would end the TypeScript comment early and the file
/// would not compile.
pub fn join(header: &str, decls: impl IntoIterator<Item = String>) -> String {
    let mut out = String::from(header);
    for decl in decls {
        let inside = decl.lines().find(|line| line.starts_with(" * ") && line.contains("*/"));
        assert!(
            inside.is_none(),
            "a doc comment holds `*/`, which ends it in TypeScript: {inside:?}"
        );
        out.push_str("\nexport ");
        out.push_str(&decl);
        out.push('\n');
    }
    out
}

/// Writes `fresh` to `file` (relative to the repository, whose root is two folders above
/// `manifest_dir`) when `COWORK_WRITE_TS` is set; otherwise panics when the checked-in file
/// differs, naming `refresh`, the command that rewrites it.
pub fn check(manifest_dir: &str, file: &str, fresh: &str, refresh: &str) {
    let path = Path::new(manifest_dir).join("../..").join(file);
    if std::env::var_os("COWORK_WRITE_TS").is_some() {
        std::fs::write(&path, fresh).unwrap();
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "{file} is stale: the Rust types it is generated from changed. Refresh it with\n  {refresh}"
    );
}
