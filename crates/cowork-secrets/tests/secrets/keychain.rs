//! The real OS keychain (gnome-keyring over D-Bus) and the ways it can be missing.
//!
//! Tests that need a keyring run under `scripts/with-keyring`, which starts a throwaway D-Bus
//! session with an unlocked gnome-keyring and sets `COWORK_TEST_KEYRING`. Outside it they skip
//! with a printed reason — except in CI (`CI` set), where a missing keyring fails them.

use crate::{snapshot, Child};
use cowork_core::paths::Root;
use cowork_secrets::{
    probe, KeyKind, SecretError, SecretStore, DB_FILE, KEYCHAIN_SERVICE, LOCAL_ACCOUNT,
};
use keyring_core::{CredentialStore, Entry};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// Set by `scripts/with-keyring`.
const WRAPPER_MARK: &str = "COWORK_TEST_KEYRING";

/// A shell script for `dbus-run-session -- sh -c <script> sh <child…>`: starts gnome-keyring with
/// `start`, waits until it owns its bus name (the daemon returns before it does, and a call in
/// between would make the bus start a second daemon), runs the child, then stops the daemon
/// (which does not always leave with the bus). The same steps as `scripts/with-keyring`.
fn session(start: &str) -> String {
    format!(
        r#"{start} >/dev/null
tries=0
until owner=$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null); do
  tries=$((tries + 1)); [ "$tries" -lt 100 ] || exit 1; sleep 0.1
done
status=0; "$@" || status=$?
kill "${{owner##* }}" 2>/dev/null; exit "$status""#
    )
}

/// An unlocked keyring (created with this password on first use).
const UNLOCKED: &str = "echo -n pw | gnome-keyring-daemon --unlock --components=secrets";

/// The same keyring daemon started without its password: the login keyring stays locked.
const LOCKED: &str = "gnome-keyring-daemon --start --components=secrets";

/// Whether a test that needs a keyring runs here; prints why not when it skips.
fn keyring(test: &str) -> bool {
    if std::env::var_os(WRAPPER_MARK).is_some() {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{test}: CI must run the keychain tests under scripts/with-keyring, and {WRAPPER_MARK} is not set");
    }
    // Straight to stderr, past the test harness's capture, so the skip is seen.
    let _ = writeln!(
        std::io::stderr(),
        "skipped {test}: run it under scripts/with-keyring to test the real OS keychain"
    );
    false
}

/// The keychain entry of a root, read around Cowork (service `cowork-studio`, user = the path).
fn keychain_entry(root: &Path) -> Entry {
    let store: Arc<CredentialStore> = dbus_secret_service_keyring_store::Store::new().unwrap();
    Entry::new_in_store(&store, KEYCHAIN_SERVICE, &root.display().to_string()).unwrap()
}

#[test]
fn the_keychain_keeps_the_key_and_a_second_open_finds_it() {
    if !keyring("the_keychain_keeps_the_key_and_a_second_open_finds_it") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path());
    let before = probe(&root);
    assert_eq!((before.kind, before.ok), (KeyKind::Keychain, true), "{before:?}");
    assert!(
        before.detail.ends_with("no key yet: the first `cowork secrets set` creates it"),
        "{before:?}"
    );
    assert!(
        keychain_entry(dir.path()).get_password().is_err(),
        "nothing is created before the first set"
    );

    let store = SecretStore::open(&root, LOCAL_ACCOUNT).unwrap();
    assert_eq!(
        store.mode().detail,
        format!("the OS keychain (service cowork-studio, user {})", dir.path().display())
    );
    store.set("openai.key", "sk-keychain").unwrap();
    let key = keychain_entry(dir.path()).get_password().unwrap();
    assert!(
        key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()),
        "the keychain holds the hex key"
    );

    let second = SecretStore::open(&root, LOCAL_ACCOUNT).unwrap();
    assert_eq!(
        second.get("openai.key").unwrap().as_deref().map(String::as_str),
        Some("sk-keychain")
    );
    second.set("b", "2").unwrap();
    assert_eq!(store.get("b").unwrap().as_deref().map(String::as_str), Some("2"));
    let after = probe(&root);
    assert!(after.ok && !after.detail.contains("no key yet"), "{after:?}");
    assert_eq!(keychain_entry(dir.path()).get_password().unwrap(), key, "the key is created once");
}

#[test]
fn two_roots_have_two_keys() {
    if !keyring("two_roots_have_two_keys") {
        return;
    }
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    SecretStore::open(&Root::new(a.path()), LOCAL_ACCOUNT).unwrap().set("x", "a").unwrap();
    SecretStore::open(&Root::new(b.path()), LOCAL_ACCOUNT).unwrap().set("x", "b").unwrap();
    assert_ne!(
        keychain_entry(a.path()).get_password().unwrap(),
        keychain_entry(b.path()).get_password().unwrap()
    );
}

#[test]
fn a_replaced_or_deleted_keychain_key_fails_at_open_and_changes_nothing() {
    if !keyring("a_replaced_or_deleted_keychain_key_fails_at_open_and_changes_nothing") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path());
    SecretStore::open(&root, LOCAL_ACCOUNT).unwrap().set("a", "1").unwrap();
    let entry = keychain_entry(dir.path());
    entry.set_password(&"cd".repeat(32)).unwrap();
    let before = snapshot(dir.path());
    let db = dir.path().join(DB_FILE);
    let err = SecretStore::open(&root, LOCAL_ACCOUNT).err().expect("another key is refused");
    assert!(matches!(err, SecretError::KeyMismatch { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "the key from the OS keychain (service cowork-studio, user {}) does not open {}: restore the key that created it; nothing was changed",
            dir.path().display(),
            db.display()
        )
    );
    assert_eq!(snapshot(dir.path()), before, "the root changed, byte for byte");

    entry.delete_credential().unwrap();
    let err = SecretStore::open(&root, LOCAL_ACCOUNT).err().expect("a missing key is refused");
    assert!(matches!(err, SecretError::KeyMissing { .. }), "{err}");
    assert!(err.to_string().contains("has no key, but"), "{err}");
    assert!(entry.get_password().is_err(), "no new key was made in its place");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn without_a_session_bus_open_says_to_use_a_key_file() {
    // Needs no keyring: the child simply has no bus.
    let dir = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap(); // an empty XDG_RUNTIME_DIR: no `bus` socket there either
    let no_bus = |op: &str| {
        Child::new(op, dir.path())
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env("XDG_RUNTIME_DIR", runtime.path())
    };
    let unset = no_bus("open").run();
    assert_eq!(unset.error(), "NoSessionBus", "{unset:?}");
    let message = unset.message();
    assert!(message.starts_with("no OS keychain: there is no D-Bus session bus ("), "{message}");
    assert!(
        message.ends_with("run `cowork secrets init --key-file` to keep the key in a 0600 file instead, or set COWORK_SECRETS_KEY_FILE to an existing key file"),
        "{message}"
    );
    let probed = no_bus("probe").run();
    let line = probed.line("PROBE").unwrap();
    assert!(
        line.starts_with(
            "kind=keychain ok=false problem=Some(\"no OS keychain: there is no D-Bus session bus"
        ),
        "{line}"
    );

    let dead = Child::new("open", dir.path())
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            format!("unix:path={}", runtime.path().join("gone").display()),
        )
        .run();
    assert_eq!(dead.error(), "NoSessionBus", "{dead:?}");
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "nothing was created");
}

#[test]
fn a_bus_without_a_secret_service_says_so() {
    if !keyring("a_bus_without_a_secret_service_says_so") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A session bus that knows no services: nothing can be started for org.freedesktop.secrets.
    let config = dir.path().join("bare-bus.conf");
    std::fs::write(
        &config,
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
    )
    .unwrap();
    let root = dir.path().join("root");
    let flag = format!("--config-file={}", config.display());
    let outcome = Child::wrapped("open", &root, &["dbus-run-session", &flag, "--"]).run();
    assert_eq!(outcome.error(), "NoSecretService", "{outcome:?}");
    let message = outcome.message();
    assert!(
        message.starts_with("no OS keychain: the D-Bus session bus has no Secret Service ("),
        "{message}"
    );
    assert!(
        message.contains(
            "start one (gnome-keyring, KeePassXC), or run `cowork secrets init --key-file`"
        ),
        "{message}"
    );
}

#[test]
fn a_locked_keyring_says_to_unlock_it() {
    if !keyring("a_locked_keyring_says_to_unlock_it") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data"); // the child sessions' own keyring folder
    let root = dir.path().join("root");
    let (unlocked, locked) = (session(UNLOCKED), session(LOCKED));
    let unlocked = ["dbus-run-session", "--", "sh", "-c", &unlocked, "sh"];
    let locked = ["dbus-run-session", "--", "sh", "-c", &locked, "sh"];
    let set = Child::wrapped("set", &root, &unlocked).env("XDG_DATA_HOME", &data).run();
    assert_eq!(set.line("OK"), Some("set"), "{set:?}");

    let outcome = Child::wrapped("open", &root, &locked).env("XDG_DATA_HOME", &data).run();
    assert_eq!(outcome.error(), "KeychainLocked", "{outcome:?}");
    let message = outcome.message();
    assert!(
        message.starts_with("the OS keychain is locked or has no default keyring ("),
        "{message}"
    );
    assert!(
        message.contains("unlock the keyring (log in to the desktop session, or `gnome-keyring-daemon --unlock`)"),
        "{message}"
    );
    assert!(message.contains("or run `cowork secrets init --key-file`"), "{message}");

    // Unlocked again, the same keyring opens the store: the key was there all along.
    let get = Child::wrapped("get", &root, &unlocked).env("XDG_DATA_HOME", &data).run();
    assert_eq!(get.line("OK"), Some("Some(\"v\")"), "{get:?}");
}

#[test]
fn a_keyring_with_no_default_collection_refuses_the_first_set() {
    if !keyring("a_keyring_with_no_default_collection_refuses_the_first_set") {
        return;
    }
    // The bus starts gnome-keyring on demand, with no login keyring and no one to create it.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let bare = ["dbus-run-session", "--"];
    let opened =
        Child::wrapped("open", &root, &bare).env("XDG_DATA_HOME", dir.path().join("data")).run();
    assert!(opened.line("OK").is_some(), "reading finds no key, which is no error: {opened:?}");
    let probed =
        Child::wrapped("probe", &root, &bare).env("XDG_DATA_HOME", dir.path().join("data")).run();
    let line = probed.line("PROBE").unwrap();
    assert!(
        line.starts_with("kind=keychain ok=false") && line.contains("no default keyring"),
        "doctor must not say ok: {probed:?}"
    );
    let set =
        Child::wrapped("set", &root, &bare).env("XDG_DATA_HOME", dir.path().join("data")).run();
    assert_eq!(set.error(), "KeychainLocked", "{set:?}");
}

#[test]
fn a_locked_keyring_without_a_key_yet_is_not_ok() {
    if !keyring("a_locked_keyring_without_a_key_yet_is_not_ok") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (unlocked, locked) = (session(UNLOCKED), session(LOCKED));
    let unlocked = ["dbus-run-session", "--", "sh", "-c", &unlocked, "sh"];
    let locked = ["dbus-run-session", "--", "sh", "-c", &locked, "sh"];
    // The login keyring exists (made unlocked once), then is started again without its password.
    let made = Child::wrapped("probe", &dir.path().join("first"), &unlocked)
        .env("XDG_DATA_HOME", &data)
        .run();
    assert!(made.line("PROBE").unwrap().starts_with("kind=keychain ok=true"), "{made:?}");
    let probed = Child::wrapped("probe", &dir.path().join("root"), &locked)
        .env("XDG_DATA_HOME", &data)
        .run();
    let line = probed.line("PROBE").unwrap();
    assert!(
        line.starts_with("kind=keychain ok=false")
            && line.contains("the default keyring is locked"),
        "{probed:?}"
    );
}

#[test]
fn every_spelling_of_the_root_finds_the_same_key() {
    if !keyring("every_spelling_of_the_root_finds_the_same_key") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("root");
    std::fs::create_dir(&root).unwrap();
    std::os::unix::fs::symlink(&root, dir.path().join("link")).unwrap();
    SecretStore::open(&Root::new(&root), LOCAL_ACCOUNT).unwrap().set("a", "1").unwrap();
    assert!(
        keychain_entry(&root).get_password().is_ok(),
        "filed under the canonical path, as before"
    );
    for spelling in [
        format!("{}/", root.display()),
        format!("{}/../root", root.display()),
        dir.path().join("link").display().to_string(),
    ] {
        let store = SecretStore::open(&Root::new(&spelling), LOCAL_ACCOUNT)
            .unwrap_or_else(|e| panic!("{spelling}: {e}"));
        assert_eq!(store.get("a").unwrap().as_deref().map(String::as_str), Some("1"), "{spelling}");
    }
}

#[test]
fn a_keychain_store_with_a_stray_key_file_variable_says_to_unset_it() {
    if !keyring("a_keychain_store_with_a_stray_key_file_variable_says_to_unset_it") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    SecretStore::open(&Root::new(&root), LOCAL_ACCOUNT).unwrap().set("a", "1").unwrap();
    let other = tempfile::tempdir().unwrap();
    let stray = cowork_secrets::init_key_file(&Root::new(other.path())).unwrap();
    let before = snapshot(&root);
    for key_file in [stray.clone(), other.path().join("missing.key")] {
        let opened = Child::new("open", &root).env(cowork_secrets::KEY_FILE_ENV, &key_file).run();
        assert_eq!(opened.error(), "StoreNeedsKeychain", "{opened:?}");
        assert!(
            opened.message().contains("was created with the OS keychain")
                && opened.message().contains("unset COWORK_SECRETS_KEY_FILE; nothing was changed"),
            "{opened:?}"
        );
        assert!(
            !opened.message().contains("restore the key")
                && !opened.message().contains("init --key-file"),
            "{opened:?}"
        );
    }
    assert_eq!(snapshot(&root), before);
}
