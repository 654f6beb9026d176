//! Transpiled files on disk, keyed by content, so an unchanged file is never parsed again.
//!
//! The output depends on the source and on the resolver's answers, and the answers depend on the
//! imports, which are only known after parsing. So each source has two entries:
//!
//! * `<module key>.imports` — the imports and the default-export flag, keyed by crate and oxc
//!   version, the revision of our own checks, flavor, file extension and source;
//! * `<output key>.js` — the code, keyed by the module key plus the resolver's answers.
//!
//! A hit asks the resolver about the recorded imports (no parsing), then reads the code. Both
//! files open with a line holding the SHA-256 of the rest, so a damaged entry reads as a miss.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use crate::{extension, transpile, Flavor, Import, ImportKind, Output, TranspileError};

/// The oxc release the output comes from; a different oxc may print different code for the same
/// source. A test checks it against the pin in the workspace Cargo.toml.
const OXC_VERSION: &str = "0.146.0";

/// The revision of what `transpile` refuses, beyond oxc's own rules: raised whenever a check is
/// added (two function bodies with one name in TypeScript: 2), so a file cached before it is checked
/// again instead of running as it was.
const CHECKS_REVISION: &str = "2";

/// Starts every entry, followed by the SHA-256 of the rest of the file. A `//` comment, so a
/// `.js` entry is still JavaScript to anyone who opens it.
const SEAL: &str = "// cowork-transpile sha256:";

/// A content-addressed store of transpiled files in one folder.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// A cache in `dir`, created on first write. Several processes may share it: entries are
    /// written to a temporary file and renamed into place.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// [`transpile`](crate::transpile), answered from the cache when the same source was
    /// transpiled before with the same resolver answers.
    ///
    /// The resolver is called for the recorded imports even on a hit (its answers are part of
    /// the key), and again by the transpiler on a miss, so it must answer the same import the
    /// same way. Unreadable or damaged entries are misses; failing to write one is
    /// [`TranspileError::Io`].
    pub fn transpile(
        &self,
        source: &str,
        file_name: &str,
        flavor: Flavor,
        resolve: &mut dyn FnMut(&Import) -> Result<Option<String>, String>,
    ) -> Result<Output, TranspileError> {
        let module_key = module_key(source, file_name, flavor);
        if let Some((imports, has_default_export)) =
            self.read(&module_key, "imports").and_then(|text| decode_imports(&text))
        {
            let mut answers = Vec::with_capacity(imports.len());
            for import in &imports {
                answers.push(resolve(import).map_err(|reason| TranspileError::Import {
                    file: file_name.to_owned(),
                    line: import.line,
                    column: import.column,
                    specifier: import.specifier.clone(),
                    reason,
                })?);
            }
            if let Some(code) = self.read(&output_key(&module_key, &answers), "js") {
                return Ok(Output { code, imports, has_default_export });
            }
        }

        let mut answers = Vec::new();
        let output = transpile(source, file_name, flavor, &mut |import| {
            let answer = resolve(import);
            if let Ok(rewrite) = &answer {
                answers.push(rewrite.clone());
            }
            answer
        })?;
        let imports = encode_imports(&output.imports, output.has_default_export);
        self.write(&module_key, "imports", &imports)?;
        self.write(&output_key(&module_key, &answers), "js", &output.code)?;
        Ok(output)
    }

    /// `dir/<first two hex digits>/<key>.<extension>`: 256 folders keep listings short.
    fn path(&self, key: &str, extension: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.{extension}"))
    }

    /// The entry's content, or `None` for any failure: a missing, unreadable or damaged entry is
    /// rebuilt, and a lasting problem with the folder surfaces when that entry is written.
    fn read(&self, key: &str, extension: &str) -> Option<String> {
        let text = fs::read_to_string(self.path(key, extension)).ok()?;
        unseal(&text).map(str::to_owned)
    }

    fn write(&self, key: &str, extension: &str, content: &str) -> Result<(), TranspileError> {
        let path = self.path(key, extension);
        write_atomically(&path, &seal(content))
            .map_err(|source| TranspileError::Io { path, source })
    }
}

/// Hash of everything but the resolver's answers that decides the output.
fn module_key(source: &str, file_name: &str, flavor: Flavor) -> String {
    let flavor = match flavor {
        Flavor::Routine => "routine",
        Flavor::Widget => "widget",
    };
    let mut hasher = Sha256::new();
    // NUL-separated: none of the fixed parts contains one, and the source comes last.
    for part in [
        env!("CARGO_PKG_VERSION"),
        OXC_VERSION,
        CHECKS_REVISION,
        flavor,
        extension(file_name),
        source,
    ] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hex::encode(hasher.finalize())
}

/// Hash of the module key and what the resolver answered for each import, in order.
fn output_key(module_key: &str, answers: &[Option<String>]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(module_key.as_bytes());
    for answer in answers {
        match answer {
            None => hasher.update([0]),
            Some(rewrite) => {
                // Length-prefixed, so ("a", "bc") and ("ab", "c") differ.
                hasher.update([1]);
                hasher.update((rewrite.len() as u64).to_le_bytes());
                hasher.update(rewrite.as_bytes());
            }
        }
    }
    hex::encode(hasher.finalize())
}

fn seal(content: &str) -> String {
    format!("{SEAL}{}\n{content}", hex::encode(Sha256::digest(content.as_bytes())))
}

/// The content of a sealed entry whose hash matches, else `None`.
fn unseal(text: &str) -> Option<&str> {
    let (first_line, content) = text.strip_prefix(SEAL)?.split_once('\n')?;
    (hex::encode(Sha256::digest(content.as_bytes())) == first_line).then_some(content)
}

/// One line for the default-export flag, then `kind line column hex(specifier) names` per import,
/// `names` being `*` for `None` or the names' hex joined by commas; hex because a specifier or a
/// (string-literal) name may hold spaces, commas or line breaks. An entry of the older four-field
/// form reads as a miss, and is written again.
fn encode_imports(imports: &[Import], has_default_export: bool) -> String {
    let mut text = format!("default {has_default_export}\n");
    for import in imports {
        let kind = match import.kind {
            ImportKind::Static => "static",
            ImportKind::Dynamic => "dynamic",
            ImportKind::ReExport => "reexport",
            ImportKind::Require => "require",
        };
        let specifier = hex::encode(&import.specifier);
        let names = match &import.names {
            None => "*".to_owned(),
            Some(names) => names.iter().map(hex::encode).collect::<Vec<_>>().join(","),
        };
        text.push_str(&format!("{kind} {} {} {specifier} {names}\n", import.line, import.column));
    }
    text
}

fn decode_imports(text: &str) -> Option<(Vec<Import>, bool)> {
    let mut lines = text.lines();
    let has_default_export = lines.next()?.strip_prefix("default ")?.parse().ok()?;
    let imports = lines
        .map(|line| {
            let mut fields = line.split(' ');
            let kind = match fields.next()? {
                "static" => ImportKind::Static,
                "dynamic" => ImportKind::Dynamic,
                "reexport" => ImportKind::ReExport,
                "require" => ImportKind::Require,
                _ => return None,
            };
            let line = fields.next()?.parse().ok()?;
            let column = fields.next()?.parse().ok()?;
            let specifier = String::from_utf8(hex::decode(fields.next()?).ok()?).ok()?;
            let names = match fields.next()? {
                "*" => None,
                "" => Some(Vec::new()),
                names => Some(
                    names
                        .split(',')
                        .map(|name| String::from_utf8(hex::decode(name).ok()?).ok())
                        .collect::<Option<Vec<_>>>()?,
                ),
            };
            Some(Import { specifier, line, column, kind, names })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((imports, has_default_export))
}

/// Writes `content` to a temporary file beside `path`, flushes it to disk and renames it over
/// `path`, so a reader sees the old entry or the whole new one, never a torn write.
fn write_atomically(path: &Path, content: &str) -> io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let folder = path.parent().expect("cache entries live in a shard folder");
    fs::create_dir_all(folder)?;
    let file_name = path.file_name().and_then(|name| name.to_str()).unwrap_or("entry");
    let unique = NEXT.fetch_add(1, Ordering::Relaxed);
    let temporary = folder.join(format!(".{file_name}.{}.{unique}.tmp", process::id()));
    let written = File::create(&temporary).and_then(|mut file| {
        file.write_all(content.as_bytes())?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    });
    if written.is_err() {
        // The write already failed and that error is what the caller needs; a temporary file
        // we cannot remove either is only litter.
        let _ = fs::remove_file(&temporary);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTINE: &str = "import { helper } from './helper';\nexport default () => helper();\n";

    fn to_mjs(import: &Import) -> Result<Option<String>, String> {
        Ok(Some(format!("{}.mjs", import.specifier)))
    }

    /// The only `.js` entry under `dir`.
    fn output_entry(dir: &Path) -> PathBuf {
        let mut entries = Vec::new();
        for shard in fs::read_dir(dir).unwrap() {
            for entry in fs::read_dir(shard.unwrap().path()).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|extension| extension == "js") {
                    entries.push(path);
                }
            }
        }
        assert_eq!(entries.len(), 1, "{entries:?}");
        entries.remove(0)
    }

    #[test]
    fn second_call_is_served_from_the_entry_without_transpiling() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let first = cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut to_mjs).unwrap();
        assert!(first.code.contains("./helper.mjs"));
        // Plant a different output: only a hit can return it.
        fs::write(output_entry(dir.path()), seal("planted")).unwrap();

        let second = cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut to_mjs).unwrap();
        assert_eq!(second.code, "planted");
        assert_eq!(second.imports, first.imports);
        assert!(second.has_default_export);
    }

    #[test]
    fn damaged_entry_is_a_miss_and_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let first = cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut to_mjs).unwrap();
        let entry = output_entry(dir.path());
        fs::write(&entry, fs::read_to_string(&entry).unwrap().replace("helper", "HELPER")).unwrap();

        let second = cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut to_mjs).unwrap();
        assert_eq!(second, first);
        assert_eq!(unseal(&fs::read_to_string(&entry).unwrap()), Some(first.code.as_str()));
    }

    #[test]
    fn damaged_imports_entry_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let first = cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut to_mjs).unwrap();
        let imports = cache.path(&module_key(ROUTINE, "list.ts", Flavor::Routine), "imports");
        fs::write(&imports, seal("default maybe\n")).unwrap();

        let second = cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut to_mjs).unwrap();
        assert_eq!(second, first);
    }

    #[test]
    fn a_different_resolver_answer_is_a_different_entry() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut to_mjs).unwrap();
        let kept = cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut |_| Ok(None)).unwrap();
        assert!(kept.code.contains(r#"from "./helper""#), "{}", kept.code);
    }

    #[test]
    fn refusal_on_a_hit_names_the_recorded_line() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        cache.transpile(ROUTINE, "list.ts", Flavor::Routine, &mut to_mjs).unwrap();
        let error = cache
            .transpile(ROUTINE, "list.ts", Flavor::Routine, &mut |_| Err("escapes".into()))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "failed to transpile list.ts:1:24: cannot import \"./helper\": escapes"
        );
    }

    #[test]
    fn imports_survive_encoding_even_with_odd_specifiers() {
        let odd = |names| Import {
            specifier: "weird name\nwith break".into(),
            line: 3,
            column: 9,
            kind: ImportKind::Static,
            names,
        };
        let imports = vec![
            odd(None),
            odd(Some(vec![])),
            odd(Some(vec!["Plus".into(), "a, b\nc".into(), "Ünïcode".into()])),
        ];
        assert_eq!(decode_imports(&encode_imports(&imports, true)), Some((imports, true)));
    }

    #[test]
    fn an_entry_of_the_older_form_reads_as_a_miss() {
        let older = format!("default true\nstatic 1 1 {}\n", hex::encode("react"));
        assert_eq!(decode_imports(&older), None);
    }

    #[test]
    fn oxc_version_matches_the_workspace_pin() {
        let manifest = include_str!("../../../Cargo.toml");
        let pin = format!("oxc = {{ version = \"={OXC_VERSION}\"");
        assert!(manifest.contains(&pin), "update OXC_VERSION to the oxc pinned in Cargo.toml");
    }
}
