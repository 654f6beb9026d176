//! The lifecycle against a store in memory: what a person sees on disk after each operation.
//! (The same lifecycle against a real hub, two Cowork roots and the CLI is in the CLI's tests.)

use crate::audit::Actor;
use crate::install::{install, InstallOptions};
use crate::memory::MemoryRemote;
use crate::place::Place;
use crate::push::{push, PushOptions, Pushed};
use crate::remote::Remote;
use crate::update::{update, Choice, Outcome};
use cowork_core::paths::Root;
use std::path::{Path, PathBuf};

struct Machine {
    _root: tempfile::TempDir,
    _ws: tempfile::TempDir,
    place: Place,
}

impl Machine {
    fn new() -> Machine {
        let root = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let workspace = ws.path().canonicalize().unwrap();
        std::fs::create_dir_all(workspace.join(".cowork/apps")).unwrap();
        let root_dir = Root::new(root.path());
        let actor = Actor::of(&root_dir, cowork_core::audit::Source::Cli, None);
        let place = Place::new(&root_dir, &workspace, actor);
        Machine { _root: root, _ws: ws, place }
    }

    fn app(&self, folder: &str) -> PathBuf {
        self.place.apps_dir().join(folder)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.place.apps_dir().join(rel))
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.place.apps_dir().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn audit(&self) -> Vec<String> {
        cowork_core::audit::AuditLog::new(self.place.root.audit_dir(&self.place.workspace))
            .records()
            .unwrap()
            .into_iter()
            .map(|r| format!("{} {}", r.capability, r.context.source))
            .collect()
    }
}

fn manifest(version: &str) -> String {
    format!("{{\"name\": \"gmail\", \"version\": \"{version}\", \"routines\": {{\"gmail-fetch\": \"fetch.ts\"}}}}\n")
}

fn publish(store: &MemoryRemote, version: &str, fetch: &str) {
    let m = manifest(version);
    store.publish_files(
        "gmail",
        version,
        &[
            ("cowork.json", m.as_bytes()),
            ("fetch.ts", fetch.as_bytes()),
            ("lib/util.ts", b"export const x = 1;\n"),
        ],
    );
}

fn files_of(dir: &Path) -> Vec<String> {
    let (files, _) = crate::pack::walk(dir, Default::default()).unwrap();
    files.into_iter().map(|(p, _)| p).collect()
}

#[tokio::test]
async fn install_then_a_clean_app_takes_the_next_version_and_moves_only_the_changed_blob() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "export default () => 1;\n");
    let b = Machine::new();
    let installed = install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap();
    assert_eq!(
        (installed.version.as_str(), installed.pinned, installed.verified),
        ("1.0.0", false, true)
    );
    assert_eq!(installed.fetched.blobs, 3);
    assert_eq!(b.read("gmail/fetch.ts"), "export default () => 1;\n");
    publish(&store, "1.1.0", "export default () => 2;\n");
    let before = store.downloads();
    let outcome = update(&b.place, &store, "gmail", Choice::Auto, false).await.unwrap();
    assert!(
        matches!(outcome, Outcome::Updated { ref to, blobs: 2, .. } if to == "1.1.0"),
        "{outcome:?}"
    );
    // cowork.json and fetch.ts changed; lib/util.ts came from the cache.
    assert_eq!(store.downloads() - before, 2);
    assert_eq!(b.read("gmail/fetch.ts"), "export default () => 2;\n");
    let receipt = b.place.receipts.read("gmail").unwrap().unwrap();
    assert_eq!(
        (receipt.store.as_deref(), receipt.version.as_deref()),
        (Some("acme"), Some("1.1.0"))
    );
    assert_eq!(b.audit(), ["cowork.app.update cli", "cowork.app.install cli"], "newest first");
}

#[tokio::test]
async fn an_app_whose_manifest_name_a_local_app_owns_is_refused_before_anything_is_written() {
    let store = MemoryRemote::new("acme");
    let m = manifest("1.0.0");
    store.publish_files(
        "mail",
        "1.0.0",
        &[("cowork.json", m.as_bytes()), ("fetch.ts", b"steal()\n")],
    );
    let b = Machine::new();
    b.write("gmail/cowork.json", &manifest("0.1.0"));
    b.write("gmail/fetch.ts", "mine\n");
    let refused = install(&b.place, &store, "mail", &InstallOptions::default()).await.unwrap_err();
    assert_eq!(refused.name().as_str(), "AlreadyExists");
    assert_eq!(
        refused.to_string(),
        "failed to install acme/mail: its cowork.json names the app \"gmail\", which .cowork/apps/gmail already is (nothing was written)"
    );
    assert!(!b.app("mail").exists());
    assert!(b.place.receipts.read("mail").unwrap().is_none());
    assert_eq!(
        cowork_core::registry::load(&b.place.workspace).routine("gmail-fetch").unwrap().app_dir,
        ".cowork/apps/gmail"
    );
}

#[tokio::test]
async fn a_template_is_scaffolded_even_when_a_capability_it_uses_cannot_be_installed() {
    let store = MemoryRemote::new("acme");
    let manifest = br#"{"name": "standup", "version": "1.0.0", "entry": "standup.jsx", "uses": {"tasks": "1.0.0"}}"#;
    let files: [(&str, &[u8]); 2] =
        [("cowork.json", manifest), ("standup.jsx", b"export default () => null;\n")];
    let template =
        (cowork_wire::hub::ItemKind::Template, Some(cowork_wire::hub::TemplateSubtype::App));
    store.publish_item("standup-tpl", "1.0.0", template, &files);
    let b = Machine::new();
    let options = crate::template::Scaffold {
        component: "daily".into(),
        host: None,
        allow_unverified: false,
    };
    let done = crate::template::scaffold(&b.place, &store, "standup-tpl", &options).await.unwrap();
    assert_eq!(done.dir, ".cowork/apps/daily");
    assert!(b.app("daily").join("cowork.json").exists());
    assert_eq!(done.missing.len(), 1, "{:?}", done.missing);
    assert!(done.missing[0].starts_with("tasks: "), "{:?}", done.missing);
}

#[tokio::test]
async fn an_edited_app_is_never_overwritten_and_files_the_person_added_survive_replace() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "one\n");
    let b = Machine::new();
    install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap();
    b.write("gmail/fetch.ts", "mine\n");
    b.write("gmail/notes.md", "my notes\n");
    publish(&store, "1.1.0", "two\n");
    let outcome = update(&b.place, &store, "gmail", Choice::Auto, false).await.unwrap();
    assert!(
        matches!(&outcome, Outcome::Edited { changed, .. } if changed == &["fetch.ts"]),
        "{outcome:?}"
    );
    assert_eq!(b.read("gmail/fetch.ts"), "mine\n");
    let named = update(&b.place, &store, "gmail", Choice::Named, false).await.unwrap_err();
    assert_eq!(named.name().as_str(), "Edited");
    let replaced = update(&b.place, &store, "gmail", Choice::Replace, false).await.unwrap();
    assert!(matches!(replaced, Outcome::Updated { .. }), "{replaced:?}");
    assert_eq!(b.read("gmail/fetch.ts"), "two\n");
    assert_eq!(b.read("gmail/notes.md"), "my notes\n", "an added file is never touched");
    // At the version installed, --replace puts edits back, and on a clean app does nothing.
    b.write("gmail/fetch.ts", "mine again\n");
    let restored = update(&b.place, &store, "gmail", Choice::Replace, false).await.unwrap();
    assert!(matches!(&restored, Outcome::Updated { from, to, .. } if from == to), "{restored:?}");
    assert_eq!(b.read("gmail/fetch.ts"), "two\n");
    let again = update(&b.place, &store, "gmail", Choice::Replace, false).await.unwrap();
    assert_eq!(again, Outcome::UpToDate { version: "1.1.0".into() });
}

#[tokio::test]
async fn a_file_the_person_added_that_a_new_version_brings_too_stays_theirs_through_every_update() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "one\n");
    let b = Machine::new();
    install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap();
    b.write("gmail/CHANGELOG.md", "my private notes\n");
    let with_changelog = |version: &str, fetch: &str| {
        let m = manifest(version);
        let files: [(&str, &[u8]); 3] = [
            ("cowork.json", m.as_bytes()),
            ("fetch.ts", fetch.as_bytes()),
            ("CHANGELOG.md", b"# from the store\n"),
        ];
        store.publish_files("gmail", version, &files);
    };
    with_changelog("1.1.0", "two\n");
    // Not clean: the new version would shadow the person's file. Said, not done silently.
    let outcome = update(&b.place, &store, "gmail", Choice::Auto, false).await.unwrap();
    assert!(
        matches!(&outcome, Outcome::Edited { changed, .. } if changed == &["CHANGELOG.md"]),
        "{outcome:?}"
    );
    assert_eq!(b.read("gmail/fetch.ts"), "one\n");
    // --replace: the store wins everywhere else; the added file is never touched, nor claimed.
    let replaced = update(&b.place, &store, "gmail", Choice::Replace, false).await.unwrap();
    assert!(matches!(replaced, Outcome::Updated { .. }), "{replaced:?}");
    assert_eq!(
        (b.read("gmail/fetch.ts"), b.read("gmail/CHANGELOG.md")),
        ("two\n".into(), "my private notes\n".into())
    );
    let receipt = b.place.receipts.read("gmail").unwrap().unwrap();
    assert!(receipt.files.iter().all(|f| f.path != "CHANGELOG.md"), "{:?}", receipt.files);
    // And the next --replace still leaves it as the person wrote it.
    with_changelog("1.2.0", "three\n");
    update(&b.place, &store, "gmail", Choice::Replace, false).await.unwrap();
    assert_eq!(
        (b.read("gmail/fetch.ts"), b.read("gmail/CHANGELOG.md")),
        ("three\n".into(), "my private notes\n".into())
    );
    let removed = crate::remove::remove(&b.place, "gmail").unwrap();
    assert_eq!(removed.added, ["CHANGELOG.md"], "kept by a removal too");
}

#[tokio::test]
async fn keep_both_puts_the_new_version_beside_switched_off_and_skip_dismisses_it() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "one\n");
    let b = Machine::new();
    install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap();
    b.write("gmail/fetch.ts", "mine\n");
    publish(&store, "1.2.0", "two\n");
    let kept = update(&b.place, &store, "gmail", Choice::KeepBoth, false).await.unwrap();
    assert!(
        matches!(&kept, Outcome::KeptBoth { copy, .. } if copy == ".cowork/apps/gmail-v1-2-0"),
        "{kept:?}"
    );
    assert_eq!(b.read("gmail/fetch.ts"), "mine\n");
    assert_eq!(b.read("gmail-v1-2-0/fetch.ts"), "two\n");
    let registry = cowork_core::registry::load(&b.place.workspace);
    assert!(
        !registry.app(".cowork/apps/gmail-v1-2-0").unwrap().enabled,
        "the copy is switched off"
    );
    // That version is dismissed: the automatic pass leaves it; the next one asks again.
    let again = update(&b.place, &store, "gmail", Choice::Auto, false).await.unwrap();
    assert_eq!(again, Outcome::Dismissed { version: "1.2.0".into() });
    publish(&store, "1.3.0", "three\n");
    let skipped = update(&b.place, &store, "gmail", Choice::Skip, false).await.unwrap();
    assert_eq!(skipped, Outcome::Skipped { version: "1.3.0".into() });
    assert_eq!(b.read("gmail/fetch.ts"), "mine\n");
    // The copy is pinned: the pass leaves it too.
    let copy = update(&b.place, &store, "gmail-v1-2-0", Choice::Auto, false).await.unwrap();
    assert!(matches!(copy, Outcome::Pinned { .. }), "{copy:?}");
    // With the app removed, its name no longer reaches the copy (switched off): only its folder.
    crate::remove::remove(&b.place, "gmail").unwrap();
    assert_eq!(crate::spec::installed_folder(&b.place, "gmail"), None);
    assert_eq!(
        crate::spec::installed_folder(&b.place, "gmail-v1-2-0").as_deref(),
        Some("gmail-v1-2-0")
    );
}

#[tokio::test]
async fn a_pinned_version_survives_its_withdrawal_and_a_named_update_unpins() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "one\n");
    publish(&store, "1.1.0", "two\n");
    let b = Machine::new();
    let options = InstallOptions { version: Some("1.0.0".into()), ..Default::default() };
    let installed = install(&b.place, &store, "gmail", &options).await.unwrap();
    assert!(installed.pinned);
    store.unpublish("gmail", Some("1.0.0")).await.unwrap();
    let auto = update(&b.place, &store, "gmail", Choice::Auto, false).await.unwrap();
    assert!(matches!(auto, Outcome::Pinned { .. }), "{auto:?}");
    assert_eq!(b.read("gmail/fetch.ts"), "one\n", "a pinned copy keeps working");
    let withdrawn = store.item("gmail").await.unwrap();
    assert!(withdrawn.versions.iter().any(|v| v.version == "1.0.0" && v.withdrawn_at.is_some()));
    // A withdrawn version is not installed afresh.
    let c = Machine::new();
    let refused = install(&c.place, &store, "gmail", &options).await.unwrap_err();
    assert_eq!(refused.name().as_str(), "NotFound");
    let named = update(&b.place, &store, "gmail", Choice::Named, false).await.unwrap();
    assert!(matches!(named, Outcome::Updated { .. }), "{named:?}");
    assert!(!b.place.receipts.read("gmail").unwrap().unwrap().pinned);
}

#[tokio::test]
async fn a_tampered_blob_is_refused_by_name_and_nothing_is_written() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "one\n");
    let sha = cowork_wire::hub::verify::sha256_hex(b"one\n");
    store.tamper(&sha, b"evil\n");
    let b = Machine::new();
    let error = install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap_err();
    assert_eq!(error.name().as_str(), "TamperedBlob", "{error}");
    assert!(
        error
            .to_string()
            .ends_with("the manifest gives 4 bytes, the store's blob has 5 (tampered)"),
        "{error}"
    );
    assert!(!b.app("gmail").exists());
    assert!(b.place.receipts.read("gmail").unwrap().is_none());
    let leftovers: Vec<_> = std::fs::read_dir(b.place.apps_dir()).unwrap().collect();
    assert!(leftovers.is_empty(), "no stage is left behind");
    // The same size, other bytes: the hash says it.
    store.tamper(&sha, b"two\n");
    let error = install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap_err();
    let other = cowork_wire::hub::verify::sha256_hex(b"two\n");
    assert!(
        error.to_string().contains(&format!("the store's blob {sha} hashes to {other} (tampered)")),
        "{error}"
    );
}

#[tokio::test]
async fn a_rotated_key_signed_by_the_old_one_is_accepted_another_key_is_not() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "one\n");
    let b = Machine::new();
    install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap();
    store.rotate();
    publish(&store, "1.1.0", "two\n");
    let rotated = update(&b.place, &store, "gmail", Choice::Auto, false).await.unwrap();
    assert!(matches!(rotated, Outcome::Updated { .. }), "{rotated:?}");
    store.replace_key();
    publish(&store, "1.2.0", "three\n");
    let refused = update(&b.place, &store, "gmail", Choice::Auto, false).await.unwrap_err();
    assert_eq!(refused.name().as_str(), "Unverified", "{refused}");
    assert_eq!(b.read("gmail/fetch.ts"), "two\n");
    // Only when the person says so.
    let allowed = update(&b.place, &store, "gmail", Choice::Named, true).await.unwrap();
    assert!(matches!(allowed, Outcome::Updated { .. }), "{allowed:?}");
    assert!(!b.place.receipts.read("gmail").unwrap().unwrap().verified);
}

#[tokio::test]
async fn remove_deletes_what_is_as_installed_and_keeps_what_the_person_changed() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "one\n");
    let b = Machine::new();
    install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap();
    b.write("gmail/fetch.ts", "mine\n");
    b.write("gmail/extra.md", "mine\n");
    let removed = crate::remove::remove(&b.place, "gmail").unwrap();
    assert_eq!(removed.deleted, ["cowork.json", "lib/util.ts"]);
    assert_eq!(removed.edited, ["fetch.ts"]);
    assert_eq!(removed.added, ["extra.md"]);
    assert_eq!(files_of(&b.app("gmail")), ["extra.md", "fetch.ts"]);
    assert!(b.place.receipts.read("gmail").unwrap().is_none());
    assert_eq!(
        crate::remove::remove(&b.place, "gmail").unwrap_err().name().as_str(),
        "NotInstalled"
    );
}

#[tokio::test]
async fn an_installed_component_is_not_pushed_as_an_app_of_its_manifests_name() {
    let store = MemoryRemote::new("acme");
    let m = manifest("1.0.0");
    let files: [(&str, &[u8]); 2] = [("cowork.json", m.as_bytes()), ("fetch.ts", b"one\n")];
    store.publish_item(
        "gmailc",
        "1.0.0",
        (cowork_wire::hub::ItemKind::WorkspaceComponent, None),
        &files,
    );
    let b = Machine::new();
    install(&b.place, &store, "gmailc", &InstallOptions::default()).await.unwrap();
    b.write("gmailc/fetch.ts", "two\n");
    let refused =
        push(&b.place, &store, &b.app("gmailc"), PushOptions::default()).await.unwrap_err();
    assert!(
        refused.to_string().contains(
            "`cowork publish --items .cowork/apps/gmailc --name gmailc --team-server acme`"
        ),
        "{refused}"
    );
    assert!(store.item("gmail").await.is_err(), "no second item");
    assert_eq!(
        b.place.receipts.read("gmailc").unwrap().unwrap().name,
        "gmailc",
        "still follows its item"
    );
}

#[tokio::test]
async fn push_publishes_bumps_and_refuses_to_go_backwards() {
    let store = MemoryRemote::new("acme");
    let a = Machine::new();
    a.write("gmail/cowork.json", &manifest("1.0.0"));
    a.write("gmail/fetch.ts", "one\n");
    let app = a.app("gmail");
    let first = push(&a.place, &store, &app, PushOptions::default()).await.unwrap();
    assert_eq!(first, Pushed::Published { version: "1.0.0".into() });
    let again = push(&a.place, &store, &app, PushOptions::default()).await.unwrap();
    assert_eq!(again, Pushed::UpToDate { version: "1.0.0".into() });
    a.write("gmail/fetch.ts", "two\n");
    let dry = push(&a.place, &store, &app, PushOptions { dry_run: true }).await.unwrap();
    assert_eq!(dry, Pushed::Bumped { from: "1.0.0".into(), to: "1.0.1".into() });
    assert!(a.read("gmail/cowork.json").contains("\"1.0.0\""), "a dry run writes nothing");
    let bumped = push(&a.place, &store, &app, PushOptions::default()).await.unwrap();
    assert_eq!(bumped, Pushed::Bumped { from: "1.0.0".into(), to: "1.0.1".into() });
    assert!(a.read("gmail/cowork.json").contains("\"version\": \"1.0.1\""));
    // The folder is tracked like an install now, and clean.
    let receipt = a.place.receipts.read("gmail").unwrap().unwrap();
    assert_eq!((receipt.version.as_deref(), receipt.verified), (Some("1.0.1"), true));
    assert!(crate::clean::check(&a.place.receipts, "gmail", &receipt).unwrap().clean());
    // Someone else pushed 1.1.0: this copy is behind.
    publish(&store, "1.1.0", "theirs\n");
    a.write("gmail/fetch.ts", "three\n");
    let behind = push(&a.place, &store, &app, PushOptions::default()).await.unwrap_err();
    assert_eq!(behind.name().as_str(), "UpdateFirst", "{behind}");
    assert_eq!(a.audit().iter().filter(|l| l.starts_with("cowork.app.push")).count(), 4);
}

#[tokio::test]
async fn a_kill_between_the_swap_and_the_receipt_is_finished_by_the_next_operation() {
    let store = MemoryRemote::new("acme");
    publish(&store, "1.0.0", "one\n");
    let b = Machine::new();
    install(&b.place, &store, "gmail", &InstallOptions::default()).await.unwrap();
    // What a process killed right after the swap leaves: the new files in place, a journal, the
    // old version at the stage's name, the old receipt.
    publish(&store, "1.1.0", "two\n");
    let resolved = crate::resolve::resolve(&b.place, &store, "gmail", None, false).await.unwrap();
    crate::fetch::ensure(&store, &b.place.cache, "x", &resolved.manifest.files).await.unwrap();
    let stage = crate::stage::Stage::new(&b.place.apps_dir(), "gmail").unwrap();
    stage.fill(&b.place.cache, &resolved.manifest.files).unwrap();
    let receipt =
        resolved.receipt(&b.place, &store, "gmail", false, crate::receipt::Origin::Install);
    let journal = crate::stage::Journal {
        stage: stage.path().file_name().unwrap().to_string_lossy().into_owned(),
        receipt,
        carried: Vec::new(),
    };
    std::fs::write(
        b.place.receipts.dir().join("gmail.pending.json"),
        serde_json::to_vec(&journal).unwrap(),
    )
    .unwrap();
    let old = b.place.apps_dir().join("gmail.old");
    std::fs::rename(b.app("gmail"), &old).unwrap();
    std::fs::rename(stage.path(), b.app("gmail")).unwrap();
    std::fs::rename(&old, stage.path()).unwrap();
    std::mem::forget(stage);
    let held = b.place.hold("gmail").unwrap();
    assert_eq!(held.recovered, crate::stage::Recovered::Finished);
    drop(held);
    assert_eq!(b.place.receipts.read("gmail").unwrap().unwrap().version.as_deref(), Some("1.1.0"));
    assert_eq!(
        files_of(&b.place.apps_dir()),
        ["gmail/cowork.json", "gmail/fetch.ts", "gmail/lib/util.ts"]
    );
}
