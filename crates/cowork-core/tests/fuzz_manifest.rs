//! Fuzzing the two files a person edits by hand: `cowork.json` and `.cowork/workspace.json`.
//! Whatever they hold — the committed corpus (the 73 manifests of `tests/fixtures/manifests/`)
//! with any key's value replaced by any JSON, or text that is not JSON at all — validation never
//! panics, and every rejection is a problem that names its file and says what is wrong.
//! `PROPTEST_CASES=100000 cargo test -p cowork-core --test fuzz_manifest` for a long run.

use std::path::Path;

use cowork_core::schema::Problem;
use cowork_core::{manifest, workspace_json};
use proptest::prelude::*;
use serde_json::Value;

/// The corpus's reader, shared with `manifest_corpus.rs` (which uses the rest of it).
#[allow(dead_code)]
#[path = "fixtures/manifest_case.rs"]
mod manifest_case;
use manifest_case::{Case, LABEL};

/// Any JSON value, a few levels deep, its strings now and then a path or a glob.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
        prop::sample::select(vec!["../x", "/etc/passwd", "*.ts", "a/**", "", "x.ts", "\u{0}"])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map("[a-zA-Z]{0,10}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn corpus() -> Vec<Case> {
    Case::all(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/manifests"))
}

/// `value` with the value at a walk of `steps` (each picks a key or an index) replaced by `new`.
fn replace_somewhere(value: &mut Value, steps: &[usize], new: Value) {
    let Some((step, rest)) = steps.split_first() else {
        *value = new;
        return;
    };
    let next = match value {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(step % map.len()).cloned().expect("in range");
            map.get_mut(&key)
        }
        Value::Array(items) if !items.is_empty() => {
            let len = items.len();
            items.get_mut(step % len)
        }
        _ => None,
    };
    match next {
        Some(next) => replace_somewhere(next, rest, new),
        None => *value = new,
    }
}

fn named(problems: &[Problem], file: &str) {
    for problem in problems {
        assert_eq!(problem.file, file, "{problem}");
        assert!(!problem.message.trim().is_empty(), "a problem without a message: {problem:?}");
    }
}

fn check_manifest(text: &str, folder: &Path) {
    match manifest::validate(text, folder, LABEL) {
        Ok(checked) => named(&checked.problems, LABEL),
        Err(problems) => {
            assert!(!problems.is_empty(), "rejected without a problem: {text}");
            named(&problems, LABEL);
        }
    }
}

fn check_workspace(text: &str) {
    let (_, problems) = workspace_json::parse(text, "fallback");
    named(&problems, workspace_json::WORKSPACE_FILE);
}

#[test]
fn fuzz_the_committed_corpus_validates_without_a_panic() {
    let app = tempfile::tempdir().unwrap();
    for case in corpus() {
        check_manifest(&case.manifest_text(), app.path());
        check_workspace(&case.manifest_text());
    }
}

proptest! {
    #[test]
    fn fuzz_a_corpus_manifest_with_any_value_anywhere(
        pick in any::<usize>(),
        steps in prop::collection::vec(any::<usize>(), 0..5),
        new in json(),
    ) {
        let cases = corpus();
        let case = &cases[pick % cases.len()];
        let mut manifest: Value = serde_json::from_str(&case.manifest_text()).unwrap_or(Value::Null);
        replace_somewhere(&mut manifest, &steps, new);
        let app = tempfile::tempdir().unwrap();
        case.write_files(app.path());
        check_manifest(&manifest.to_string(), app.path());
    }

    #[test]
    fn fuzz_any_text_as_a_manifest_or_workspace_json(text in ".{0,300}") {
        let app = tempfile::tempdir().unwrap();
        check_manifest(&text, app.path());
        check_workspace(&text);
    }

    #[test]
    fn fuzz_workspace_json_with_any_value_under_its_keys(
        keys in prop::collection::btree_map(
            prop::sample::select(vec!["name", "startup", "disabled", "rail", "notifications", "openWith", "publishTo", "wallpaper", "deployments", "unrestrictedPackages", "other"]),
            json(),
            0..6,
        ),
    ) {
        let object: serde_json::Map<String, Value> = keys.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        check_workspace(&Value::Object(object).to_string());
    }
}
