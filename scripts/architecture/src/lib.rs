//! The workspace's architecture, checked: no import circle among the modules of any crate, and no
//! crate depending on a crate of a layer above its own (the layers are declared once, in the root `Cargo.toml`'s
//! `[[workspace.metadata.layers]]`).
//!
//! `tests/architecture.rs` runs both on this repository, so `cargo test --workspace` (and
//! `scripts/test`) fails on a circle or an upward dependency:
//!
//! ```sh
//! cargo test --workspace --test architecture
//! ```
//!
//! Why a checker of our own: it reads `use crate::…`/`super::…` paths (and `pub use` re-exports)
//! from the source text, needs nothing but the files, and checks the whole workspace in well under
//! a second. `cargo-modules` (`dependencies --acyclic`) answers the same question through
//! rust-analyzer's crates, which would add minutes to a cold build of the suite and seconds of
//! loading per crate to every run.

#![warn(missing_docs)]

pub mod circles;
pub mod lex;
pub mod modules;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub use circles::{Circle, Edge};

/// The workspace as `cargo metadata` describes it.
#[derive(Debug)]
pub struct Workspace {
    /// Its root folder.
    pub root: PathBuf,
    /// Its member packages.
    pub packages: Vec<Package>,
    /// Its layers, lowest first, from `[[workspace.metadata.layers]]`.
    pub layers: Vec<Layer>,
}

/// A member package.
#[derive(Debug)]
pub struct Package {
    /// Its name (`cowork-engine`).
    pub name: String,
    /// Its targets with a crate root of their own.
    pub targets: Vec<Target>,
    /// Its dependencies on other packages of the workspace (by path).
    pub dependencies: Vec<Dependency>,
}

/// A target: a library, a binary, a test, a bench or an example.
#[derive(Debug)]
pub struct Target {
    /// Its name.
    pub name: String,
    /// `lib`, `bin`, `test`, `bench`, `example`.
    pub kind: String,
    /// Its root file.
    pub root: PathBuf,
}

/// A dependency on a package of the workspace.
#[derive(Debug)]
pub struct Dependency {
    /// The package depended on.
    pub name: String,
    /// `normal`, `dev` or `build`.
    pub kind: String,
}

/// One layer: crates that may depend on one another and on the layers below.
#[derive(Debug)]
pub struct Layer {
    /// Its name.
    pub name: String,
    /// Its crates.
    pub crates: Vec<String>,
}

impl Workspace {
    /// Reads the workspace around `manifest` (any member's `Cargo.toml`) with `cargo metadata`.
    pub fn load(manifest: &Path) -> Result<Workspace, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args([
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--offline",
                "--manifest-path",
            ])
            .arg(manifest)
            .output()
            .map_err(|e| format!("failed to run `cargo metadata`: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "failed to read the workspace with `cargo metadata`: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let metadata: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("failed to read the output of `cargo metadata`: {e}"))?;
        Workspace::from_metadata(&metadata)
    }

    /// The workspace from the JSON of `cargo metadata --no-deps --format-version 1`.
    pub fn from_metadata(metadata: &Value) -> Result<Workspace, String> {
        let string = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let root = PathBuf::from(string(&metadata["workspace_root"]));
        let packages = metadata["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| Package {
                name: string(&p["name"]),
                targets: p["targets"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| {
                        let kind = string(&t["kind"][0]);
                        let has_root = matches!(
                            kind.as_str(),
                            "lib" | "rlib" | "proc-macro" | "bin" | "test" | "bench" | "example"
                        );
                        has_root.then(|| Target {
                            name: string(&t["name"]),
                            kind,
                            root: PathBuf::from(string(&t["src_path"])),
                        })
                    })
                    .collect(),
                dependencies: p["dependencies"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|d| d["path"].is_string())
                    .map(|d| Dependency {
                        name: string(&d["name"]),
                        kind: d["kind"].as_str().unwrap_or("normal").to_string(),
                    })
                    .collect(),
            })
            .collect();
        let layers = match &metadata["metadata"]["layers"] {
            Value::Null => Vec::new(),
            Value::Array(layers) => layers
                .iter()
                .map(|l| {
                    let crates = l["crates"].as_array().ok_or_else(|| {
                        format!("failed to read the layer {}: `crates` must be a list of package names", l["name"])
                    })?;
                    Ok(Layer { name: string(&l["name"]), crates: crates.iter().map(string).collect() })
                })
                .collect::<Result<_, String>>()?,
            other => return Err(format!("failed to read `workspace.metadata.layers`: a list of tables was expected, not {other}")),
        };
        Ok(Workspace { root, packages, layers })
    }

    /// A file's path from the workspace root, for messages.
    pub fn relative<'a>(&self, file: &'a Path) -> &'a Path {
        file.strip_prefix(&self.root).unwrap_or(file)
    }

    /// Every circle of every target: its key (`cowork-engine`, `cowork-cli (test cli)`) and the
    /// circle.
    pub fn circles(&self) -> Result<Vec<(String, Circle)>, String> {
        let mut found = Vec::new();
        for package in &self.packages {
            for target in &package.targets {
                let krate = modules::Crate::load(&target.root).map_err(|e| e.to_string())?;
                let key = target_key(package, target);
                found.extend(circles::circles(&krate).into_iter().map(|c| (key.clone(), c)));
            }
        }
        Ok(found)
    }

    /// Each dependency that points to a layer above its crate's, and each crate in no layer or
    /// in two, and each layer's name that is no package: one line each.
    pub fn layer_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut layer_of: BTreeMap<&str, usize> = BTreeMap::new();
        for (index, layer) in self.layers.iter().enumerate() {
            for name in &layer.crates {
                if let Some(before) = layer_of.insert(name, index) {
                    problems.push(format!(
                        "`{name}` is in two layers, `{}` and `{}`: keep it in one",
                        self.layers[before].name, layer.name
                    ));
                }
                if !self.packages.iter().any(|p| &p.name == name) {
                    problems.push(format!(
                        "the layer `{}` names `{name}`, which is no package of the workspace: take it out",
                        layer.name
                    ));
                }
            }
        }
        for package in &self.packages {
            let Some(&own) = layer_of.get(package.name.as_str()) else {
                problems.push(format!(
                    "`{}` is in no layer: add it to one in the root Cargo.toml's [[workspace.metadata.layers]]",
                    package.name
                ));
                continue;
            };
            for dependency in &package.dependencies {
                let Some(&theirs) = layer_of.get(dependency.name.as_str()) else { continue };
                if theirs > own {
                    problems.push(format!(
                        "`{}` (layer `{}`) depends on `{}` (layer `{}`, above it){}: move what it needs down, or the \
                         dependent up",
                        package.name,
                        self.layers[own].name,
                        dependency.name,
                        self.layers[theirs].name,
                        if dependency.kind == "normal" { String::new() } else { format!(" as a {}-dependency", dependency.kind) },
                    ));
                }
            }
        }
        problems
    }
}

fn target_key(package: &Package, target: &Target) -> String {
    match target.kind.as_str() {
        "lib" | "rlib" | "proc-macro" => package.name.clone(),
        kind => format!("{} ({kind} {})", package.name, target.name),
    }
}

/// A circle found, as the check reports it: the target, its modules, each edge with the file and
/// line that makes it, and what to do. `relative` shortens the files in the message.
pub fn describe(target: &str, circle: &Circle, relative: impl Fn(&Path) -> PathBuf) -> String {
    let mut message = format!("{target}: an import circle among {}:", circle.modules.join(", "));
    for edge in &circle.edges {
        let _ = write!(
            message,
            "\n    {}:{}: {} → {} ({})",
            relative(&edge.file).display(),
            edge.line,
            edge.from,
            edge.to,
            edge.written
        );
    }
    message.push_str(
        "\n  hint: move what both sides need into a leaf module (one that imports neither), or pass it in",
    );
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_circle_is_named_with_the_lines_that_make_it() {
        let circle = Circle {
            modules: vec!["a".into(), "b".into()],
            edges: vec![
                Edge {
                    from: "a".into(),
                    to: "b".into(),
                    file: "/w/src/a.rs".into(),
                    line: 3,
                    written: "crate::b::f".into(),
                },
                Edge {
                    from: "b".into(),
                    to: "a".into(),
                    file: "/w/src/b.rs".into(),
                    line: 7,
                    written: "crate::a::X".into(),
                },
            ],
        };
        let message =
            describe("cowork-engine", &circle, |f| f.strip_prefix("/w").unwrap().to_path_buf());
        assert_eq!(
            message,
            "cowork-engine: an import circle among a, b:\n    src/a.rs:3: a → b (crate::b::f)\n    src/b.rs:7: b → a (crate::a::X)\n  hint: move what both sides need into a leaf module (one that imports neither), or pass it in"
        );
    }

    fn workspace(layers: serde_json::Value) -> Workspace {
        let metadata = serde_json::json!({
            "workspace_root": "/w",
            "metadata": { "layers": layers },
            "packages": [
                { "name": "core", "targets": [], "dependencies": [] },
                { "name": "engine", "targets": [], "dependencies": [
                    { "name": "core", "kind": null, "path": "/w/core" },
                    { "name": "serde", "kind": null }
                ] },
                { "name": "cli", "targets": [], "dependencies": [
                    { "name": "engine", "kind": null, "path": "/w/engine" },
                    { "name": "core", "kind": "dev", "path": "/w/core" }
                ] }
            ]
        });
        Workspace::from_metadata(&metadata).unwrap()
    }

    #[test]
    fn dependencies_point_down_the_layers_or_within_one() {
        let layers = serde_json::json!([
            { "name": "base", "crates": ["core"] },
            { "name": "middle", "crates": ["engine"] },
            { "name": "apps", "crates": ["cli"] }
        ]);
        assert_eq!(workspace(layers).layer_problems(), Vec::<String>::new());
        let layers = serde_json::json!([
            { "name": "base", "crates": ["core", "engine"] },
            { "name": "apps", "crates": ["cli"] }
        ]);
        assert_eq!(workspace(layers).layer_problems(), Vec::<String>::new());
    }

    #[test]
    fn a_dependency_up_a_layer_and_a_crate_in_no_layer_are_named() {
        let layers = serde_json::json!([
            { "name": "base", "crates": ["core", "cli"] },
            { "name": "middle", "crates": ["engine", "gone"] }
        ]);
        assert_eq!(
            workspace(layers).layer_problems(),
            [
                "the layer `middle` names `gone`, which is no package of the workspace: take it out",
                "`cli` (layer `base`) depends on `engine` (layer `middle`, above it): move what it needs down, or the dependent up",
            ]
        );
        let layers = serde_json::json!([{ "name": "base", "crates": ["core", "engine"] }]);
        assert_eq!(
            workspace(layers).layer_problems(),
            ["`cli` is in no layer: add it to one in the root Cargo.toml's [[workspace.metadata.layers]]"]
        );
    }
}
