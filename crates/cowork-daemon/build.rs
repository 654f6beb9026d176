//! With the `embed-ui` feature, puts the built workbench (`ui/dist`) inside the binary: an
//! installed `cowork` or `cowork-desktop` then serves it from anywhere (`scripts/package` builds
//! with it). Without the feature nothing is embedded and the daemon reads `ui/dist` of this
//! repository at run time, so `cargo test` works from a clean clone and a rebuilt workbench shows
//! without recompiling. The feature without a built workbench is a build error that says how to
//! build it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_EMBED_UI").is_none() {
        return;
    }
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dist = manifest.join("../../ui/dist");
    if !dist.join("index.html").is_file() || !dist.join("frame.html").is_file() {
        panic!(
            "the `embed-ui` feature embeds the built workbench, but {} holds no index.html and \
             frame.html\nhint: build it first: `npm ci && npm run build` in ui/ (scripts/package does)",
            dist.display()
        );
    }
    // Cargo scans a watched folder whole: a rebuilt workbench is embedded again.
    println!("cargo:rerun-if-changed={}", dist.display());
    let mut files = Vec::new();
    collect(&dist, &dist, &mut files);
    files.sort();
    let mut code = String::from(
        "/// The built workbench: (path under `ui/dist`, contents), sorted by path.\n",
    );
    code.push_str("pub static FILES: &[(&str, &[u8])] = &[\n");
    // Named under CARGO_MANIFEST_DIR, not by absolute path: cargo may reuse this output for a
    // clone at another path (its fingerprints are relative to the workspace).
    for rel in &files {
        let under_manifest = format!("/../../ui/dist/{rel}");
        writeln!(
            code,
            "    ({rel:?}, include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {under_manifest:?}))),"
        )
        .expect("writing to a String cannot fail");
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("embedded_ui.rs"), code)
        .expect("failed to write embedded_ui.rs in OUT_DIR");
}

/// Every file under `dir` as its `/`-separated path under `root`, skipping
/// dotfiles and dot-folders (`.vite/manifest.json` is the build test's, never served).
fn collect(root: &Path, dir: &Path, files: &mut Vec<String>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("failed to read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| panic!("failed to read {}: {e}", dir.display())).path();
        if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let rel = path.strip_prefix(root).expect("walked from root");
            let rel = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>();
            files.push(rel.join("/"));
        }
    }
}
