//! A workspace end to end: discovery, the registry's collisions and switches, `.cowork/workspace.json`
//! read and written back, and the reference's example manifests.

use std::fs;
use std::path::Path;

use cowork_core::discovery;
use cowork_core::manifest::{Display, Kind, Risk};
use cowork_core::registry::{self, Registry};
use cowork_core::workspace_json::{self, WORKSPACE_FILE};
use serde_json::{json, Value};
use tempfile::TempDir;

/// A workspace in a temporary folder.
struct Workspace {
    dir: TempDir,
}

impl Workspace {
    fn new() -> Workspace {
        Workspace { dir: tempfile::tempdir().unwrap() }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `rel` (workspace-relative), creating folders.
    fn file(&self, rel: &str, text: &str) -> &Self {
        let path = self.root().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        self
    }

    /// Writes `.cowork/apps/<folder>/cowork.json` and the app files it names.
    fn app(&self, folder: &str, manifest: Value, files: &[&str]) -> &Self {
        self.file(&format!(".cowork/apps/{folder}/cowork.json"), &manifest.to_string());
        for file in files {
            self.file(&format!(".cowork/apps/{folder}/{file}"), "");
        }
        // Its widgets too: a missing widget file is a problem of its own, tested apart.
        let widgets = manifest["entry"].as_str().into_iter().chain(
            manifest["fileRouting"]
                .as_object()
                .into_iter()
                .flat_map(|m| m.values().filter_map(Value::as_str)),
        );
        for widget in widgets.filter(|w| !w.ends_with(".html")) {
            self.file(&format!(".cowork/apps/{folder}/{widget}"), "");
        }
        self
    }

    fn state(&self, value: Value) -> &Self {
        self.file(WORKSPACE_FILE, &serde_json::to_string_pretty(&value).unwrap())
    }

    fn load(&self) -> Registry {
        registry::load(self.root())
    }
}

fn lines<'a>(
    problems: impl IntoIterator<Item = &'a cowork_core::registry::Problem>,
) -> Vec<String> {
    problems.into_iter().map(ToString::to_string).collect()
}

fn with_routines(name: &str, routines: &[(&str, &str)]) -> Value {
    let routines: serde_json::Map<String, Value> =
        routines.iter().map(|(id, file)| (id.to_string(), json!(file))).collect();
    json!({"name": name, "version": "1.0.0", "routines": routines})
}

// ── discovery ────────────────────────────────────────────────────────────────────────────────

#[test]
fn apps_are_found_one_level_deep_in_folder_name_order() {
    let ws = Workspace::new();
    for name in ["zeta", "alpha", "mid"] {
        ws.app(name, json!({"name": name, "version": "1.0.0"}), &[]);
    }
    ws.app("alpha/nested", json!({"name": "nested", "version": "1.0.0"}), &[]);
    let found = discovery::discover(ws.root());
    let dirs: Vec<&str> = found.folders.iter().map(|f| f.dir.as_str()).collect();
    assert_eq!(dirs, [".cowork/apps/alpha", ".cowork/apps/mid", ".cowork/apps/zeta"]);
    assert_eq!(found.folders[0].path, ws.root().join(".cowork/apps/alpha"));
    assert!(found.notes.is_empty() && found.problems.is_empty());
}

#[test]
fn a_workspace_without_apps_is_empty_and_fine() {
    let ws = Workspace::new();
    let registry = ws.load();
    assert!(
        registry.apps.is_empty()
            && registry.notes.is_empty()
            && registry.all_problems().next().is_none()
    );
    assert_eq!(registry.config.name, ws.root().file_name().unwrap().to_string_lossy());
}

#[test]
fn each_kind_of_skipped_folder_is_a_note_not_an_error() {
    let ws = Workspace::new();
    for folder in ["Mail", "my.app", ".hidden", "data", "con", "lpt3"] {
        ws.app(folder, json!({"name": "x", "version": "1.0.0"}), &[]);
    }
    ws.app("real", json!({"name": "real", "version": "1.0.0"}), &[]);
    ws.file(".cowork/apps/empty/readme.md", "no manifest here");
    ws.file(".cowork/apps/README.md", "a loose file is not a folder");
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        ws.root().join(".cowork/apps/real"),
        ws.root().join(".cowork/apps/linked"),
    )
    .unwrap();
    let registry = ws.load();
    assert_eq!(registry.apps.iter().map(|a| a.folder.as_str()).collect::<Vec<_>>(), ["real"]);
    assert_eq!(registry.all_problems().count(), 0, "skipped folders are notes, not problems");
    let mut expected = vec![
        ".cowork/apps/.hidden: skipped: a dot-folder is never an app",
        ".cowork/apps/Mail: skipped: an app folder's name is lowercase letters, digits and dashes (^[a-z0-9][a-z0-9-]{0,62}$)",
        ".cowork/apps/con: skipped: the name is a Windows device name",
        ".cowork/apps/data: skipped: the name is kept for .cowork's own folders",
        ".cowork/apps/empty: skipped: no cowork.json, so not an app",
        ".cowork/apps/lpt3: skipped: the name is a Windows device name",
        ".cowork/apps/my.app: skipped: an app folder's name is lowercase letters, digits and dashes (^[a-z0-9][a-z0-9-]{0,62}$)",
    ];
    if cfg!(unix) {
        expected.insert(5, ".cowork/apps/linked: skipped: a symlinked folder is never an app");
    }
    assert_eq!(lines(&registry.notes), expected);
}

#[test]
fn a_keep_both_copy_is_recognised_beside_its_original() {
    let ws = Workspace::new();
    ws.app("gmail", json!({"name": "gmail", "version": "1.0.0"}), &[]);
    ws.app("gmail-v1-2-3", json!({"name": "gmail", "version": "1.2.3"}), &[]);
    ws.app("tool-v2-0-0", json!({"name": "tool", "version": "2.0.0"}), &[]);
    let registry = ws.load();
    assert_eq!(registry.app(".cowork/apps/gmail").unwrap().keep_both_of, None);
    assert_eq!(
        registry.app(".cowork/apps/gmail-v1-2-3").unwrap().keep_both_of,
        Some(("gmail".into(), "1.2.3".into()))
    );
    assert_eq!(
        registry.app(".cowork/apps/tool-v2-0-0").unwrap().keep_both_of,
        None,
        "no original beside it"
    );
}

// ── broken apps ──────────────────────────────────────────────────────────────────────────────

#[test]
fn a_broken_manifest_is_listed_with_its_reason_and_registers_nothing() {
    let ws = Workspace::new();
    ws.app(
        "bad",
        json!({"name": "bad", "version": "one", "routines": {"bad-run": "run.ts"}}),
        &["run.ts"],
    );
    ws.file(".cowork/apps/garbled/cowork.json", "{\"name\": \"garbled\",");
    ws.app("good", with_routines("good", &[("good-run", "run.ts")]), &["run.ts"]);
    let registry = ws.load();
    assert_eq!(registry.apps.len(), 1);
    assert_eq!(registry.routines.keys().collect::<Vec<_>>(), ["good-run"]);
    assert_eq!(
        lines(registry.all_problems()),
        [
            ".cowork/apps/bad/cowork.json: \"version\": \"one\" is not a semver version X.Y.Z (optional -pre / +build, no leading v) — not an app",
            ".cowork/apps/garbled/cowork.json: is not valid JSON (EOF while parsing a value at line 1 column 19) — not an app",
        ]
    );
    assert_eq!(
        registry.broken.iter().map(|b| b.dir.as_str()).collect::<Vec<_>>(),
        [".cowork/apps/bad", ".cowork/apps/garbled"]
    );
}

// ── collisions ───────────────────────────────────────────────────────────────────────────────

#[test]
fn a_routine_id_belongs_to_the_first_app_folder() {
    let ws = Workspace::new();
    ws.app("alpha", with_routines("alpha", &[("shared-send", "send.ts")]), &["send.ts"]);
    ws.app(
        "beta",
        with_routines("beta", &[("shared-send", "send.ts"), ("beta-own", "own.ts")]),
        &["send.ts", "own.ts"],
    );
    let registry = ws.load();
    let entry = registry.routine("shared-send").unwrap();
    assert_eq!((entry.app_dir.as_str(), entry.app_name.as_str()), (".cowork/apps/alpha", "alpha"));
    assert_eq!(entry.file, ws.root().join(".cowork/apps/alpha/send.ts"));
    assert_eq!(
        registry.routine("beta-own").unwrap().app_name,
        "beta",
        "the loser keeps its other routines"
    );
    assert_eq!(
        lines(&registry.app(".cowork/apps/beta").unwrap().problems),
        [".cowork/apps/beta/cowork.json: \"routines.shared-send\" is already registered by .cowork/apps/alpha — ignored here"]
    );
}

#[test]
fn a_switched_off_folder_loses_its_routine_ids_to_a_switched_on_one() {
    let ws = Workspace::new();
    ws.app("alpha", with_routines("alpha", &[("shared-send", "send.ts")]), &["send.ts"]);
    ws.app("beta", with_routines("beta", &[("shared-send", "send.ts")]), &["send.ts"]);
    ws.state(json!({"disabled": {"apps": [".cowork/apps/alpha"]}}));
    let registry = ws.load();
    let entry = registry.routine("shared-send").unwrap();
    assert_eq!(entry.app_name, "beta");
    assert!(!entry.disabled);
    assert_eq!(
        lines(&registry.app(".cowork/apps/alpha").unwrap().problems),
        [".cowork/apps/alpha/cowork.json: \"routines.shared-send\" is already registered by .cowork/apps/beta — ignored here"]
    );
}

#[test]
fn a_routine_only_switched_off_apps_declare_is_registered_disabled_from_the_first() {
    let ws = Workspace::new();
    ws.app("alpha", with_routines("alpha", &[("shared-send", "send.ts")]), &["send.ts"]);
    ws.app("beta", with_routines("beta", &[("shared-send", "send.ts")]), &["send.ts"]);
    ws.state(json!({"disabled": {"apps": ["./.cowork/apps/alpha/", ".cowork/apps/beta"]}}));
    let entry = ws.load().routine("shared-send").unwrap().clone();
    assert_eq!((entry.app_name.as_str(), entry.disabled), ("alpha", true));
}

#[test]
fn two_folders_with_one_name_the_switched_on_one_owns_it_and_the_other_registers_nothing() {
    let ws = Workspace::new();
    let gmail = |version: &str, send: &str| {
        json!({"name": "gmail", "version": version, "entry": "gmail.jsx", "routines": {"gmail-send": send, "gmail-extra": "extra.ts"},
               "fileRouting": {"**/*.eml": "eml.jsx"}})
    };
    ws.app("gmail", gmail("1.0.0", "send.ts"), &["send.ts", "extra.ts"]);
    ws.app("gmail-v1-2-0", gmail("1.2.0", "send2.ts"), &["send2.ts", "extra.ts"]);
    let registry = ws.load();
    assert_eq!(registry.app_by_name("gmail").unwrap().dir, ".cowork/apps/gmail");
    let copy = registry.app(".cowork/apps/gmail-v1-2-0").unwrap();
    assert!(!copy.owns_name);
    assert_eq!(
        lines(&copy.problems),
        [".cowork/apps/gmail-v1-2-0/cowork.json: \"name\": \"gmail\" belongs to .cowork/apps/gmail — this folder registers nothing"]
    );
    assert!(registry.routines.values().all(|r| r.app_dir == ".cowork/apps/gmail"));
    assert!(registry.routes.iter().all(|r| r.app_dir == ".cowork/apps/gmail"));
    assert!(registry.route_conflicts.is_empty(), "the copy claims no route");

    // Switch yours off and the copy on: the copy takes over.
    workspace_json::set_app_disabled(ws.root(), ".cowork/apps/gmail", true).unwrap();
    let registry = ws.load();
    assert_eq!(registry.app_by_name("gmail").unwrap().dir, ".cowork/apps/gmail-v1-2-0");
    assert_eq!(registry.routine("gmail-send").unwrap().rel_file, "send2.ts");
    assert!(!registry.routine("gmail-send").unwrap().disabled);
    assert_eq!(registry.route("a/b.eml", false).unwrap().app_dir, ".cowork/apps/gmail-v1-2-0");
    assert!(
        registry.app(".cowork/apps/gmail").unwrap().problems.is_empty(),
        "a switched-off folder that lost its name is expected, not a problem"
    );
}

#[test]
fn a_switched_off_keep_both_copy_is_listed_without_a_problem() {
    let ws = Workspace::new();
    ws.app("gmail", json!({"name": "gmail", "version": "1.0.0"}), &[]);
    ws.app("gmail-v1-2-0", json!({"name": "gmail", "version": "1.2.0"}), &[]);
    // Page 02's own example: the copy lands switched off.
    workspace_json::set_app_disabled(ws.root(), ".cowork/apps/gmail-v1-2-0", true).unwrap();
    let registry = ws.load();
    let copy = registry.app(".cowork/apps/gmail-v1-2-0").unwrap();
    assert!(!copy.owns_name && !copy.enabled);
    assert_eq!(lines(registry.all_problems()), Vec::<String>::new());
}

#[test]
fn two_switched_off_folders_with_one_name_the_first_keeps_it() {
    let ws = Workspace::new();
    ws.app("gmail", json!({"name": "gmail", "version": "1.0.0"}), &[]);
    ws.app("gmail-v1-2-0", json!({"name": "gmail", "version": "1.2.0"}), &[]);
    ws.state(json!({"disabled": {"apps": [".cowork/apps/gmail", ".cowork/apps/gmail-v1-2-0"]}}));
    assert_eq!(ws.load().app_by_name("gmail").unwrap().dir, ".cowork/apps/gmail");
}

// ── file routes ──────────────────────────────────────────────────────────────────────────────

fn routed(ws: &Workspace, folder: &str, routes: Value) {
    ws.app(folder, json!({"name": folder, "version": "1.0.0", "fileRouting": routes}), &[]);
}

#[test]
fn file_routes_match_files_and_folder_routes_match_folders() {
    let ws = Workspace::new();
    routed(
        &ws,
        "notes",
        json!({"Notebook/": "notebook.jsx", "**/*.md": "md.jsx", "Projects/*/": "project.tsx"}),
    );
    let registry = ws.load();
    let route = registry.route("Notebook", true).unwrap();
    assert_eq!((route.file.as_str(), route.folder), ("notebook.jsx", true));
    assert_eq!(registry.route("./Notebook/", true).unwrap().file, "notebook.jsx");
    assert_eq!(registry.route("Notebook", false), None, "a folder route never matches a file");
    assert_eq!(registry.route("docs/a.md", false).unwrap().file, "md.jsx");
    assert_eq!(registry.route("a.md", false).unwrap().file, "md.jsx");
    assert_eq!(registry.route("docs/a.md", true), None, "a file route never matches a folder");
    assert_eq!(registry.route("Projects/acme", true).unwrap().file, "project.tsx");
    assert_eq!(registry.route("Projects/acme/sub", true), None);
    assert_eq!(registry.route("a.txt", false), None);
}

#[test]
fn a_glob_two_apps_claim_goes_to_the_first_switched_on_one_until_open_with_says() {
    let ws = Workspace::new();
    routed(&ws, "docs", json!({"**/*.docx": "docx.jsx"}));
    routed(&ws, "notes", json!({"**/*.md": "md.jsx"}));
    ws.app(
        "wordcraft",
        json!({"name": "wordcraft", "version": "0.10.0", "web": {"index": "web/index.html"},
        "fileRouting": {"**/*.docx": "web/index.html"}}),
        &[],
    );
    let registry = ws.load();
    assert_eq!(registry.route("r/q.docx", false).unwrap().app_name, "docs");
    assert_eq!(
        serde_json::to_value(&registry.route_conflicts).unwrap(),
        json!([{"glob": "**/*.docx", "claimants": ["docs", "wordcraft"], "chosen": "docs", "remembered": false}])
    );

    ws.state(json!({"openWith": {"**/*.docx": "wordcraft"}}));
    let registry = ws.load();
    let route = registry.route("r/q.docx", false).unwrap();
    assert_eq!(
        (route.app_name.as_str(), route.file.as_str(), route.web),
        ("wordcraft", "web/index.html", true)
    );
    assert_eq!(route.path, ws.root().join(".cowork/apps/wordcraft/web/index.html"));
    assert!(registry.route_conflicts[0].remembered);

    ws.state(json!({"openWith": {"**/*.docx": "notes"}}));
    let registry = ws.load();
    assert_eq!(registry.route("r/q.docx", false).unwrap().app_name, "docs");
    assert_eq!(
        lines(registry.all_problems()),
        [".cowork/workspace.json: \"openWith.**/*.docx\": \"notes\" does not claim this glob — ignored"]
    );

    ws.state(json!({"disabled": {"apps": [".cowork/apps/docs"]}}));
    let registry = ws.load();
    assert_eq!(
        registry.route("r/q.docx", false).unwrap().app_name,
        "wordcraft",
        "a switched-off app's routes fall through"
    );
    assert!(registry.route_conflicts.is_empty());
}

#[test]
fn a_switched_off_app_file_switches_off_its_route_and_routine() {
    let ws = Workspace::new();
    ws.app("gmail", json!({"name": "gmail", "version": "1.0.0", "routines": {"gmail-send": "send.ts", "gmail-fetch": "fetch.ts"},
        "fileRouting": {"**/*.eml": "eml.jsx"}}), &["send.ts", "fetch.ts"]);
    ws.state(json!({"disabled": {"apps": [".cowork/apps/gmail/send.ts", "./.cowork/apps/gmail/eml.jsx"], "routines": []}}));
    let registry = ws.load();
    let app = registry.app(".cowork/apps/gmail").unwrap();
    assert!(app.enabled);
    assert_eq!(app.disabled_files, ["send.ts", "eml.jsx"]);
    assert!(registry.routine("gmail-send").unwrap().disabled);
    assert!(!registry.routine("gmail-fetch").unwrap().disabled);
    assert_eq!(registry.route("x.eml", false), None);
}

#[test]
fn routines_are_disabled_by_id_by_app_or_by_file() {
    let ws = Workspace::new();
    ws.app(
        "a",
        with_routines("a", &[("a-one", "one.ts"), ("a-two", "two.ts")]),
        &["one.ts", "two.ts"],
    );
    ws.app("b", with_routines("b", &[("b-one", "one.ts")]), &["one.ts"]);
    ws.state(json!({"disabled": {"routines": ["a-two"], "apps": [".cowork/apps/b/"]}}));
    let registry = ws.load();
    let disabled = |id: &str| registry.routine(id).unwrap().disabled;
    assert!(!disabled("a-one"));
    assert!(disabled("a-two"));
    assert!(disabled("b-one"));
    assert!(!registry.app(".cowork/apps/b").unwrap().enabled);
}

// ── routine entries ──────────────────────────────────────────────────────────────────────────

#[test]
fn routine_entries_carry_their_app_their_tool_keys_and_their_risk() {
    let ws = Workspace::new();
    ws.app("invoices", json!({"name": "invoices", "version": "1.0.0", "title": "Invoices", "kind": "capability", "routines": {
        "invoices-list": {"file": "list.ts", "readOnly": true, "description": "Lists open invoices"},
        "invoices-approve": {"file": "approve.ts", "reachesOthers": true, "timeout": 120},
        "invoices-delete": {"file": "delete.ts", "destructive": true},
        "invoices-tag": "tag.ts"}}), &["list.ts", "approve.ts", "delete.ts", "tag.ts"]);
    ws.app("legacy", with_routines("legacy", &[("legacy-run", "run.mjs")]), &["run.mjs"]);
    let registry = ws.load();
    let risk = |id: &str| registry.routine(id).unwrap().risk;
    assert_eq!(risk("invoices-list"), Risk::Low);
    assert_eq!(risk("invoices-approve"), Risk::High);
    assert_eq!(risk("invoices-delete"), Risk::High);
    assert_eq!(risk("invoices-tag"), Risk::Medium);
    let approve = registry.routine("invoices-approve").unwrap();
    assert_eq!(
        (approve.timeout_s, approve.kind, approve.kind_declared),
        (120, Kind::Capability, true)
    );
    assert_eq!((approve.app_title.as_str(), approve.app_version.as_str()), ("Invoices", "1.0.0"));
    let legacy = registry.routine("legacy-run").unwrap();
    assert_eq!(
        (legacy.timeout_s, legacy.kind, legacy.kind_declared, legacy.declares_uses),
        (30, Kind::App, false, false)
    );
    assert_eq!(legacy.app_title, "legacy");

    let json = serde_json::to_value(registry.routine("invoices-list").unwrap()).unwrap();
    assert_eq!(json["appDir"], ".cowork/apps/invoices");
    assert_eq!(json["risk"], "low");
    assert_eq!(json["kind"], "capability");
    assert_eq!(json["readOnly"], true);
    assert_eq!(json["relFile"], "list.ts");
}

#[test]
fn the_registry_serializes_in_camel_case() {
    let ws = Workspace::new();
    routed(&ws, "docs", json!({"**/*.docx": "docx.jsx"}));
    let json = serde_json::to_value(ws.load()).unwrap();
    for key in [
        "root",
        "config",
        "apps",
        "broken",
        "routines",
        "problems",
        "notes",
        "routes",
        "routeConflicts",
        "homeDir",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    assert_eq!(json["apps"][0]["ownsName"], true);
    assert_eq!(json["apps"][0]["manifest"]["fileRouting"][0]["glob"], "**/*.docx");
    assert_eq!(json["routes"][0]["appName"], "docs");
}

// ── home and resolving apps ──────────────────────────────────────────────────────────────────

#[test]
fn home_is_startup_home_else_the_app_named_home_never_a_switched_off_one() {
    let ws = Workspace::new();
    ws.app("home", json!({"name": "home", "version": "1.0.0", "entry": "home.jsx"}), &[]);
    ws.app("mail", json!({"name": "mail", "version": "1.0.0", "entry": "mail.jsx"}), &[]);
    assert_eq!(ws.load().home().unwrap().manifest.name, "home");

    ws.state(json!({"startup": {"home": "mail"}}));
    assert_eq!(ws.load().home().unwrap().manifest.name, "mail");

    ws.state(json!({"startup": {"home": "mail"}, "disabled": {"apps": [".cowork/apps/mail"]}}));
    let registry = ws.load();
    assert_eq!(registry.home().unwrap().manifest.name, "home");
    assert_eq!(
        lines(registry.all_problems()),
        [".cowork/workspace.json: \"startup.home\": \"mail\" is switched off — ignored"]
    );

    ws.state(json!({"startup": {"home": "calendar"}, "disabled": {"apps": [".cowork/apps/home"]}}));
    let registry = ws.load();
    assert!(registry.home().is_none());
    assert_eq!(lines(registry.all_problems()), [".cowork/workspace.json: \"startup.home\": \"calendar\" is not an app of this workspace — ignored"]);
}

#[test]
fn an_app_resolves_by_folder_by_folder_name_or_by_manifest_name() {
    let ws = Workspace::new();
    ws.app("gmail", json!({"name": "gmail", "version": "1.0.0"}), &[]);
    ws.app("mail-client", json!({"name": "postbox", "version": "1.0.0"}), &[]);
    let registry = ws.load();
    let dir = |spec: &str| registry.resolve_app(spec).map(|a| a.dir.as_str());
    assert_eq!(dir(".cowork/apps/gmail"), Some(".cowork/apps/gmail"));
    assert_eq!(dir("./.cowork/apps/gmail/"), Some(".cowork/apps/gmail"));
    assert_eq!(dir("gmail"), Some(".cowork/apps/gmail"));
    assert_eq!(dir("mail-client"), Some(".cowork/apps/mail-client"));
    assert_eq!(dir("postbox"), Some(".cowork/apps/mail-client"));
    assert_eq!(dir("nothing"), None);
}

// ── workspace.json ───────────────────────────────────────────────────────────────────────────

#[test]
fn workspace_json_values_of_the_wrong_type_are_ignored_never_an_error() {
    let ws = Workspace::new();
    ws.state(json!({
        "name": 5,
        "startup": {"home": "Bad Name", "left": "yes", "right": false},
        "disabled": {"apps": ".cowork/apps/x", "routines": ["a-run", 3]},
        "rail": {"folders": [{"id": "google", "title": "Google", "members": []}, {"id": "work", "title": "Work", "members": ["workbench.view.cowork.app.gmail"]}]},
        "notifications": {"muted": [".cowork/apps/chat/"]},
        "openWith": {"**/*.docx": 1, "**/*.md": "notes"},
        "publishTo": "acme",
        "deployments": {"gmail-sync": {"target": "cloudflare-worker", "mode": "local", "schedule": "0 * * * *"}, "bad": {"mode": "local"}},
        "someoneElses": {"kept": true}
    }));
    let registry = ws.load();
    let config = &registry.config;
    assert_eq!(config.name, ws.root().file_name().unwrap().to_string_lossy());
    assert_eq!(
        (config.startup.home.as_deref(), config.startup.left, config.startup.right),
        (None, None, Some(false))
    );
    assert!(config.disabled.apps.is_empty());
    assert_eq!(config.disabled.routines, ["a-run"]);
    assert_eq!(config.rail.folders.len(), 1);
    assert_eq!(config.rail.folders[0].id, "work");
    assert!(config.is_muted(".cowork/apps/chat"));
    assert_eq!(config.open_with.get("**/*.md").map(String::as_str), Some("notes"));
    assert!(!config.open_with.contains_key("**/*.docx"));
    assert_eq!(config.publish_to.as_deref(), Some("acme"));
    assert_eq!(config.deployments.keys().collect::<Vec<_>>(), ["gmail-sync"]);
    assert_eq!(
        lines(registry.all_problems()),
        [
            ".cowork/workspace.json: \"name\": 5 is not a string — ignored",
            ".cowork/workspace.json: \"startup.home\": \"Bad Name\" is not an app name (lowercase letters, digits and dashes) — ignored",
            ".cowork/workspace.json: \"startup.left\": \"yes\" is not a boolean — ignored",
            ".cowork/workspace.json: \"disabled.apps\": \".cowork/apps/x\" is not an array — ignored",
            ".cowork/workspace.json: \"disabled.routines[1]\": 3 is not a string — ignored",
            ".cowork/workspace.json: \"rail.folders[0].members\": [] is empty — ignored",
            ".cowork/workspace.json: \"openWith.**/*.docx\": 1 is not a string — ignored",
            ".cowork/workspace.json: \"deployments.bad.target\" is missing — \"deployments.bad\" ignored",
            // Dropping the members left the folder without them: it goes too.
            ".cowork/workspace.json: \"rail.folders[0].members\" is missing — \"rail.folders[0]\" ignored",
        ]
    );
}

#[test]
fn a_missing_workspace_json_is_normal_and_an_unreadable_one_is_ignored() {
    let ws = Workspace::new();
    let (config, problems) = workspace_json::read(ws.root());
    assert!(problems.is_empty());
    assert_eq!(config.name, ws.root().file_name().unwrap().to_string_lossy());

    ws.file(WORKSPACE_FILE, "{\"name\": \"Acme\",}");
    let (config, problems) = workspace_json::read(ws.root());
    assert_eq!(config.name, ws.root().file_name().unwrap().to_string_lossy());
    assert_eq!(lines(&problems), [".cowork/workspace.json: is not valid JSON (trailing comma at line 1 column 17) — ignored"]);

    ws.file(WORKSPACE_FILE, "{\"name\": \"Acme\", \"rail\": {\"folders\": [{\"id\": \"a\", \"title\": \"A\", \"members\": [\"x\"]}]}}");
    let (config, problems) = workspace_json::read(ws.root());
    assert!(problems.is_empty());
    assert_eq!(config.name, "Acme");
}

#[test]
fn rail_folders_are_at_most_12_with_at_most_24_members() {
    let folder = |id: usize, members: usize| json!({"id": format!("f{id}"), "title": "F", "members": vec!["m"; members]});
    let thirteen: Vec<Value> = (0..13).map(|i| folder(i, 1)).collect();
    let text = json!({"rail": {"folders": thirteen}}).to_string();
    let (config, problems) = workspace_json::parse(&text, "ws");
    assert!(config.rail.folders.is_empty());
    assert_eq!(
        lines(&problems),
        [".cowork/workspace.json: \"rail.folders\": […13 items] has more than 12 items — ignored"]
    );

    let text = json!({"rail": {"folders": [folder(0, 25), folder(1, 24)]}}).to_string();
    let (config, problems) = workspace_json::parse(&text, "ws");
    assert_eq!(config.rail.folders.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["f1"]);
    assert_eq!(
        lines(&problems),
        [
            ".cowork/workspace.json: \"rail.folders[0].members\": […25 items] has more than 24 items — ignored",
            ".cowork/workspace.json: \"rail.folders[0].members\" is missing — \"rail.folders[0]\" ignored",
        ]
    );
}

#[test]
fn switching_an_app_off_and_on_keeps_every_other_key_in_place_as_written() {
    let ws = Workspace::new();
    let original = "{\n  \"publishTo\": \"acme\",\n  \"zeta\": {\"b\": 1, \"a\": [1, 2]},\n  \"disabled\": {\"routines\": [\"x-run\"]},\n  \"alpha\": null\n}\n";
    ws.file(WORKSPACE_FILE, original);
    assert!(workspace_json::set_app_disabled(ws.root(), ".cowork/apps/gmail/", true).unwrap());
    let written = fs::read_to_string(ws.root().join(WORKSPACE_FILE)).unwrap();
    assert_eq!(
        written,
        "{\n  \"publishTo\": \"acme\",\n  \"zeta\": {\"b\": 1, \"a\": [1, 2]},\n  \"disabled\": {\n    \"routines\": [\n      \"x-run\"\n    ],\n    \"apps\": [\n      \".cowork/apps/gmail\"\n    ]\n  },\n  \"alpha\": null\n}\n"
    );
    assert!(workspace_json::read(ws.root()).0.is_app_disabled(".cowork/apps/gmail"));

    assert!(
        !workspace_json::set_app_disabled(ws.root(), "./.cowork/apps/gmail", true).unwrap(),
        "already off: no change"
    );
    assert_eq!(fs::read_to_string(ws.root().join(WORKSPACE_FILE)).unwrap(), written);

    // Switching on removes every spelling of the entry.
    ws.file(WORKSPACE_FILE, "{\"disabled\": {\"apps\": [\"./.cowork/apps/gmail/\", \".cowork/apps/other\", \".cowork/apps/gmail\"]}}");
    assert!(workspace_json::set_app_disabled(ws.root(), ".cowork/apps/gmail", false).unwrap());
    let value: Value =
        serde_json::from_str(&fs::read_to_string(ws.root().join(WORKSPACE_FILE)).unwrap()).unwrap();
    assert_eq!(value, json!({"disabled": {"apps": [".cowork/apps/other"]}}));
    assert!(!ws.root().join(".cowork").read_dir().unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".tmp")));
}

#[test]
fn muting_creates_the_file_when_missing_and_unmuting_takes_it_back() {
    let ws = Workspace::new();
    assert!(workspace_json::set_app_muted(ws.root(), ".cowork/apps/chat", true).unwrap());
    let value: Value =
        serde_json::from_str(&fs::read_to_string(ws.root().join(WORKSPACE_FILE)).unwrap()).unwrap();
    assert_eq!(value, json!({"notifications": {"muted": [".cowork/apps/chat"]}}));
    assert!(workspace_json::read(ws.root()).0.is_muted(".cowork/apps/chat/"));
    assert!(workspace_json::set_app_muted(ws.root(), ".cowork/apps/chat/", false).unwrap());
    assert!(!workspace_json::read(ws.root()).0.is_muted(".cowork/apps/chat"));
}

#[test]
fn a_workspace_json_that_is_not_json_or_has_the_wrong_shape_is_never_overwritten() {
    let ws = Workspace::new();
    ws.file(WORKSPACE_FILE, "{ broken");
    let error =
        workspace_json::set_app_disabled(ws.root(), ".cowork/apps/gmail", true).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "failed to update {}: it is not valid JSON",
            ws.root().join(WORKSPACE_FILE).display()
        )
    );
    assert_eq!(fs::read_to_string(ws.root().join(WORKSPACE_FILE)).unwrap(), "{ broken");

    ws.file(WORKSPACE_FILE, "{\"disabled\": {\"apps\": \"gmail\"}}");
    let error =
        workspace_json::set_app_disabled(ws.root(), ".cowork/apps/gmail", true).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "failed to update {}: \"disabled.apps\" is not an array",
            ws.root().join(WORKSPACE_FILE).display()
        )
    );
    assert_eq!(
        fs::read_to_string(ws.root().join(WORKSPACE_FILE)).unwrap(),
        "{\"disabled\": {\"apps\": \"gmail\"}}"
    );
}

// ── the reference's examples ─────────────────────────────────────────────────────────────────

#[test]
fn the_reference_examples_validate_with_no_problems() {
    let ws = Workspace::new();
    ws.app("gmail", json!({ "name": "gmail", "version": "1.0.0", "title": "Gmail", "description": "Read and triage your inbox without leaving Cowork.", "icon": "mail", "color": "#EA4335", "entry": "gmail-sidemenu.jsx", "display": "sidebar", "open": { "routine": "gmail-open-inbox", "args": { "folder": "INBOX" } }, "routines": { "gmail-open-inbox": "open-inbox.ts", "gmail-fetch": "fetch.ts", "gmail-send": "send.ts" }, "fileRouting": { "**/*.maillist.json": "mail-list.jsx" }, "tags": ["email", "google"] }),
        &["open-inbox.ts", "fetch.ts", "send.ts"]);
    ws.app("sales-dashboard", json!({ "name": "sales-dashboard", "version": "0.1.0", "title": "Sales", "icon": "graph", "color": "#0F9D58", "entry": "dashboard.jsx", "display": "tab", "routines": { "sales-load": "load.ts" } }), &["load.ts"]);
    ws.app("quick-note", json!({ "name": "quick-note", "version": "0.1.0", "icon": "note", "entry": "quick-note-modal.jsx", "display": "modal" }), &[]);
    ws.app("invoices", json!({ "name": "invoices", "version": "1.0.0", "title": "Invoices", "kind": "capability", "credential": { "key": { "fields": ["token"], "url": "https://billing.example.com/settings/api", "hint": "Settings › API › New token" } }, "routines": { "invoices-list": { "file": "list.ts", "readOnly": true, "description": "Lists open invoices" }, "invoices-approve": { "file": "approve.ts", "reachesOthers": true, "description": "Approves an invoice and emails the supplier", "input": { "type": "object", "properties": { "id": { "type": "string", "description": "The invoice id" } }, "required": ["id"] } } } }),
        &["list.ts", "approve.ts"]);
    ws.app("csv-tools", json!({ "name": "csv-tools", "version": "1.2.0", "routines": { "csv-summarize": "summarize.ts" }, "fileRouting": { "**/*.csv": "csv-viewer.jsx" } }), &["summarize.ts"]);
    ws.app("wordcraft", json!({ "name": "wordcraft", "version": "0.10.0", "title": "WordCraft", "icon": "icon.png", "web": { "index": "web/index.html" }, "fileRouting": { "**/*.docx": "web/index.html" } }), &["icon.png"]);
    ws.app("whatsapp", json!({ "name": "whatsapp", "version": "1.0.0", "title": "WhatsApp", "icon": "icon.png", "web": { "url": "https://web.whatsapp.com/", "scope": "https://web.whatsapp.com/" } }), &["icon.png"]);
    ws.app("chatgpt", json!({ "name": "chatgpt", "version": "1.0.0", "title": "ChatGPT", "display": "right", "web": { "url": "https://chatgpt.com/" } }), &[]);
    ws.state(json!({ "publishTo": "acme", "startup": { "home": "gmail" }, "disabled": { "apps": [".cowork/apps/gmail-v1-2-3"], "routines": ["gmail-send"] }, "rail": { "folders": [{ "id": "google", "title": "Google", "color": "#0090ff", "members": ["workbench.view.cowork.app.gmail", "workbench.view.cowork.app.calendar"] }] }, "deployments": { "gmail-sync": { "target": "cloudflare-worker", "mode": "local", "schedule": "0 * * * *" } } }));
    let registry = ws.load();
    assert_eq!(lines(registry.all_problems()), Vec::<String>::new());
    assert_eq!(registry.apps.len(), 8);
    assert!(registry.broken.is_empty() && registry.notes.is_empty());

    let manifest = |name: &str| &registry.app_by_name(name).unwrap().manifest;
    assert_eq!(manifest("gmail").display, Display::Sidebar);
    assert_eq!(manifest("sales-dashboard").display, Display::Tab);
    assert_eq!(manifest("quick-note").display, Display::Modal);
    assert_eq!(manifest("quick-note").title, "quick-note");
    assert_eq!(manifest("wordcraft").display, Display::Tab);
    assert_eq!(manifest("whatsapp").display, Display::Tab);
    assert_eq!(manifest("chatgpt").display, Display::Right);
    assert_eq!(
        manifest("chatgpt").web.as_ref().unwrap().scope.as_deref(),
        Some("https://chatgpt.com/")
    );
    assert_eq!(manifest("wordcraft").icon_file(), Some("icon.png"));
    assert_eq!(manifest("gmail").icon_file(), None);
    assert_eq!(registry.routine("invoices-approve").unwrap().risk, Risk::High);
    assert_eq!(registry.routine("invoices-list").unwrap().risk, Risk::Low);
    assert!(registry.routine("gmail-send").unwrap().disabled);
    assert_eq!(registry.route("books/q3.docx", false).unwrap().app_name, "wordcraft");
    assert_eq!(registry.route("data/sales.csv", false).unwrap().file, "csv-viewer.jsx");
    assert_eq!(registry.home().unwrap().manifest.name, "gmail");
    assert_eq!(registry.config.rail.folders[0].members.len(), 2);
}

#[test]
fn missing_widget_files_and_unmet_uses_are_reported() {
    let ws = Workspace::new();
    ws.file(".cowork/apps/board/cowork.json", &json!({"name": "board", "version": "1.0.0", "entry": "board.jsx", "fileRouting": {"**/*.board": "page.jsx"},
        "uses": {"gone": "1.0.0", "old": "2.0.0", "off": "1.0.0", "plain": "1.0.0", "fine": "1.2.0"}}).to_string());
    ws.app("old", json!({"name": "old", "version": "1.9.0", "kind": "capability"}), &[]);
    ws.app("off", json!({"name": "off", "version": "1.0.0", "kind": "capability"}), &[]);
    ws.app("plain", json!({"name": "plain", "version": "1.0.0"}), &[]);
    ws.app("fine", json!({"name": "fine", "version": "1.4.0", "kind": "capability"}), &[]);
    ws.state(json!({"disabled": {"apps": [".cowork/apps/off"]}}));
    let registry = ws.load();
    let lines: Vec<String> = registry
        .app(".cowork/apps/board")
        .unwrap()
        .problems
        .iter()
        .map(|p| p.to_string())
        .collect();
    let file = ".cowork/apps/board/cowork.json";
    let uses =
        |rest: &str| format!("{file}: {rest} — the routines it would answer fail with NotFound");
    assert_eq!(
        lines,
        [
            format!("{file}: \"entry\": \"board.jsx\" is not in the app folder — the widget cannot open"),
            format!("{file}: \"fileRouting.**/*.board\": \"page.jsx\" is not in the app folder — the widget cannot open"),
            uses("\"uses.gone\": there is no \"gone\" in this workspace"),
            uses("\"uses.off\": off is switched off"),
            uses("\"uses.old\": old here is 1.9.0, not 2.0.0 or a later version of the same major"),
            uses("\"uses.plain\": plain is an app, not a capability"),
        ]
    );
}
