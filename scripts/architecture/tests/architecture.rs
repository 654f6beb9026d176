//! This repository's architecture: run by `cargo test --workspace` (and so `scripts/test`).
//!
//! ```sh
//! cargo test --workspace --test architecture
//! ```

use std::fs;
use std::path::Path;

use cowork_architecture::{judge, parse_allowed, Workspace};

fn workspace() -> Workspace {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    Workspace::load(&manifest).unwrap_or_else(|e| panic!("{e}"))
}

/// Every crate of the workspace (libraries, binaries, tests, benches) is free of import circles
/// among its modules, except those `allowed-circles.txt` still lists, and that list names
/// nothing that is gone.
#[test]
fn no_import_circle_beyond_the_allow_list() {
    let workspace = workspace();
    let list = Path::new(env!("CARGO_MANIFEST_DIR")).join("allowed-circles.txt");
    let text = fs::read_to_string(&list)
        .unwrap_or_else(|e| panic!("failed to read {}: {e}", list.display()));
    let allowed =
        parse_allowed(&text).unwrap_or_else(|e| panic!("failed to read {}: {e}", list.display()));
    let found = workspace.circles().unwrap_or_else(|e| panic!("{e}"));
    let problems = judge(&found, &allowed, |file| workspace.relative(file).to_path_buf());
    assert!(
        problems.is_empty(),
        "import circles ({}):\n\n{}\n",
        workspace.relative(&list).display(),
        problems.join("\n\n")
    );
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
