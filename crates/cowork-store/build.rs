//! Embeds the built-in `cowork` store (`templates/`) in the library: one `(path, bytes)` entry
//! per file, so `cowork template install cowork/<name>` works with no hub and no network.
//! The generated code names each file under `CARGO_MANIFEST_DIR` rather than by its absolute path:
//! cargo reuses a build script's output for a clone at another path (its fingerprint is relative
//! to the workspace), so a baked-in absolute path would point into the first clone.

use std::path::{Path, PathBuf};

fn files(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir.join(rel))
        .expect("templates/ is readable")
        .map(|e| e.expect("a templates/ entry"))
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().into_string().expect("template file names are UTF-8");
        let path = if rel.is_empty() { name } else { format!("{rel}/{name}") };
        if entry.file_type().expect("a file type").is_dir() {
            files(dir, &path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    println!("cargo:rerun-if-changed=templates");
    let mut found = Vec::new();
    files(&dir, "", &mut found);
    let mut code = String::from("/// Every file of the built-in store: (path under templates/, bytes).\npub static FILES: &[(&str, &[u8])] = &[\n");
    for path in found {
        let under_manifest = format!("/templates/{path}");
        code.push_str(&format!(
            "    ({path:?}, include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {under_manifest:?}))),\n"
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("builtin_files.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
