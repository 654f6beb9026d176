//! The corpus of manifests in `tests/fixtures/manifests/`, one file per validation rule (see
//! `fixtures/manifest_case.rs` for a case's shape).

use std::path::Path;

use cowork_core::manifest;
use serde_json::Value;

#[path = "fixtures/manifest_case.rs"]
mod manifest_case;
use manifest_case::{Case, LABEL};

#[test]
fn every_fixture_gives_its_exact_problems_and_keeps_the_rest() {
    let cases = Case::all(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/manifests"));
    assert!(cases.len() >= 60, "the corpus is there");
    let failures: Vec<String> = cases.iter().filter_map(|case| run(case).err()).collect();
    assert!(
        failures.is_empty(),
        "{} fixture(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn run(case: &Case) -> Result<(), String> {
    let app = tempfile::tempdir().unwrap();
    case.write_files(app.path());
    let expected = case.problems();
    let fail = |what: String| Err(format!("{} ({}):\n{what}", case.name, case.about()));
    let (problems, manifest) = match manifest::validate(&case.manifest_text(), app.path(), LABEL) {
        Ok(checked) => (checked.problems, Some(checked.manifest)),
        Err(problems) => (problems, None),
    };
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    if lines != expected {
        return fail(format!("expected problems {expected:#?}\n     got problems {lines:#?}"));
    }
    match (manifest, case.not_an_app()) {
        (Some(_), true) => fail("expected not an app, but it validated".into()),
        (None, false) => fail("expected an app, but it is not one".into()),
        (None, true) => Ok(()),
        (Some(manifest), false) => {
            let actual = serde_json::to_value(&manifest).unwrap();
            let mut mismatches = Vec::new();
            contains(&actual, &case.json["expect"], "", &mut mismatches);
            if mismatches.is_empty() {
                Ok(())
            } else {
                fail(format!("{}\nmanifest: {actual:#}", mismatches.join("\n")))
            }
        }
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
