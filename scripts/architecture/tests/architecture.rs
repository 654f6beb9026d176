//! This repository's architecture: run by `cargo test --workspace` (and so `scripts/test`).
//!
//! ```sh
//! cargo test --workspace --test architecture
//! ```

use std::path::Path;

use cowork_architecture::{describe, Workspace};

fn workspace() -> Workspace {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    Workspace::load(&manifest).unwrap_or_else(|e| panic!("{e}"))
}

/// Every crate of the workspace (libraries, binaries, tests, benches) is free of import circles
/// among its modules. (The list of known circles this once allowed, issue 39 §2, is empty and gone.)
#[test]
fn no_import_circle() {
    let workspace = workspace();
    let found = workspace.circles().unwrap_or_else(|e| panic!("{e}"));
    let problems: Vec<String> = found
        .iter()
        .map(|(target, circle)| {
            describe(target, circle, |file| workspace.relative(file).to_path_buf())
        })
        .collect();
    assert!(problems.is_empty(), "import circles:\n\n{}\n", problems.join("\n\n"));
}

/// Every crate depends only on crates of its own layer or the layers below it
/// (`[[workspace.metadata.layers]]` in the root Cargo.toml), and every crate has a layer.
#[test]
fn no_crate_depends_on_a_layer_above_its_own() {
    let workspace = workspace();
    assert!(
        !workspace.layers.is_empty(),
        "the root Cargo.toml declares no [[workspace.metadata.layers]]"
    );
    let problems = workspace.layer_problems();
    assert!(
        problems.is_empty(),
        "crate layers (the root Cargo.toml):\n  {}\n",
        problems.join("\n  ")
    );
}
