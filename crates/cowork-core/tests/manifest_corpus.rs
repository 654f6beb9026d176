//! The corpus of manifests in `tests/fixtures/manifests/`, one file per validation rule.
//!
//! Each fixture holds `about` (the rule), the manifest (`manifest`, or raw `text`), the `files` to
//! create in the app folder (a path, or `{path, bytes}` / `{path, symlinkTo}`), the exact
//! `problems` lines, and either `notAnApp: true` or `expect`: a part of the validated manifest (as
//! serialized) that must still be there — `null` meaning the key is gone.

use std::fs;
use std::path::Path;

use cowork_core::manifest;
use serde_json::Value;

const LABEL: &str = ".cowork/apps/mail/cowork.json";

#[test]
fn every_fixture_gives_its_exact_problems_and_keeps_the_rest() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/manifests");
    let mut names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert!(names.len() >= 60, "the corpus is there");
    let failures: Vec<String> = names.iter().filter_map(|path| run(path).err()).collect();
    assert!(
        failures.is_empty(),
        "{} fixture(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn run(path: &Path) -> Result<(), String> {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let case: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let app = tempfile::tempdir().unwrap();
    for file in case["files"].as_array().into_iter().flatten() {
        make_file(app.path(), file);
    }
    let text = match &case["text"] {
        Value::String(text) => text.clone(),
        _ => serde_json::to_string_pretty(&case["manifest"]).unwrap(),
    };
    let expected: Vec<&str> = case["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let fail = |what: String| {
        Err(format!(
            "{name} ({}):\n{what}",
            case["about"].as_str().unwrap_or("")
        ))
    };
    let (problems, manifest) = match manifest::validate(&text, app.path(), LABEL) {
        Ok(checked) => (checked.problems, Some(checked.manifest)),
        Err(problems) => (problems, None),
    };
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    if lines != expected {
        return fail(format!(
            "expected problems {expected:#?}\n     got problems {lines:#?}"
        ));
    }
    let not_an_app = case["notAnApp"].as_bool().unwrap_or(false);
    match (manifest, not_an_app) {
        (Some(_), true) => fail("expected not an app, but it validated".into()),
        (None, false) => fail("expected an app, but it is not one".into()),
        (None, true) => Ok(()),
        (Some(manifest), false) => {
            let actual = serde_json::to_value(&manifest).unwrap();
            let mut mismatches = Vec::new();
            contains(&actual, &case["expect"], "", &mut mismatches);
            if mismatches.is_empty() {
                Ok(())
            } else {
                fail(format!("{}\nmanifest: {actual:#}", mismatches.join("\n")))
            }
        }
    }
}

fn make_file(folder: &Path, spec: &Value) {
    let (rel, bytes, link) = match spec {
        Value::String(rel) => (rel.as_str(), 0, None),
        spec => (
            spec["path"].as_str().unwrap(),
            spec["bytes"].as_u64().unwrap_or(0) as usize,
            spec["symlinkTo"].as_str(),
        ),
    };
    let path = folder.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    match link {
        #[cfg(unix)]
        Some(target) => std::os::unix::fs::symlink(target, &path).unwrap(),
        #[cfg(not(unix))]
        Some(_) => panic!("symlink fixtures need unix"),
        None => fs::write(&path, vec![b'x'; bytes]).unwrap(),
    }
}

/// Records where `actual` does not contain `expected`: objects by key (a `null` expects the key
/// gone or null), arrays item by item with the same length, anything else equal.
fn contains(actual: &Value, expected: &Value, at: &str, mismatches: &mut Vec<String>) {
    match expected {
        Value::Object(keys) => {
            for (key, want) in keys {
                let got = actual.get(key).unwrap_or(&Value::Null);
                contains(got, want, &format!("{at}.{key}"), mismatches);
            }
        }
        Value::Array(items) => match actual.as_array() {
            Some(got) if got.len() == items.len() => {
                for (i, (got, want)) in got.iter().zip(items).enumerate() {
                    contains(got, want, &format!("{at}[{i}]"), mismatches);
                }
            }
            _ => mismatches.push(format!("{at}: expected {expected}, got {actual}")),
        },
        want if want != actual => mismatches.push(format!("{at}: expected {want}, got {actual}")),
        _ => {}
    }
}
