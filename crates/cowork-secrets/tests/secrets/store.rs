//! Stores in key-file mode: what they keep, what they refuse, and what tampering does.

use crate::{files_under, snapshot, Child};
use cowork_core::paths::Root;
use cowork_secrets::{
    init_key_file, probe, repair_key_check, KeyKind, SecretError, SecretStore, DB_FILE,
    KEY_FILE_ENV, KEY_FILE_NAME, LOCAL_ACCOUNT,
};
use rusqlite::{params, Connection};
use std::path::Path;
use std::sync::Arc;
use tempfile::TempDir;

/// A root in key-file mode (`cowork secrets init --key-file`).
fn key_file_root() -> (TempDir, Root) {
    assert!(std::env::var_os(KEY_FILE_ENV).is_none(), "unset {KEY_FILE_ENV} to run these tests");
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path());
    let path = init_key_file(&root).unwrap();
    assert_eq!(path, dir.path().join(KEY_FILE_NAME));
    (dir, root)
}

fn open(root: &Root) -> SecretStore {
    SecretStore::open(root, LOCAL_ACCOUNT).unwrap()
}

fn value(store: &SecretStore, name: &str) -> Option<String> {
    store.get(name).unwrap().map(|v| v.as_str().to_owned())
}

/// The raw database, as someone with the file (but not the key) sees it.
fn raw(root: &Root) -> Connection {
    Connection::open(root.dir().join(DB_FILE)).unwrap()
}

fn record(db: &Connection, account: &str, name: &str) -> (Vec<u8>, Vec<u8>) {
    db.query_row(
        "SELECT nonce, ciphertext FROM secrets WHERE account = ?1 AND name = ?2",
        params![account, name],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

fn put_record(
    db: &Connection,
    account: &str,
    name: &str,
    (nonce, ciphertext): &(Vec<u8>, Vec<u8>),
) {
    db.execute(
        "INSERT OR REPLACE INTO secrets (account, name, nonce, ciphertext) VALUES (?1, ?2, ?3, ?4)",
        params![account, name, nonce, ciphertext],
    )
    .unwrap();
}

fn write_private(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn round_trip() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    assert_eq!(store.mode().kind, KeyKind::KeyFile);
    assert!(store.mode().ok);
    assert_eq!(value(&store, "openai.key"), None);
    store.set("openai.key", "sk-1").unwrap();
    store.set("b_name", "").unwrap();
    store.set("clickup.user_id", "ünï — 🔑").unwrap();
    assert_eq!(value(&store, "openai.key").as_deref(), Some("sk-1"));
    store.set("openai.key", "sk-2").unwrap();
    assert_eq!(value(&store, "openai.key").as_deref(), Some("sk-2"));
    assert_eq!(value(&store, "b_name").as_deref(), Some(""));
    assert_eq!(value(&store, "clickup.user_id").as_deref(), Some("ünï — 🔑"));
    assert_eq!(store.list().unwrap(), ["b_name", "clickup.user_id", "openai.key"]);
    assert!(store.delete("openai.key").unwrap());
    assert!(!store.delete("openai.key").unwrap());
    assert_eq!(value(&store, "openai.key"), None);
    drop(store);
    let again = open(&root);
    assert_eq!(again.list().unwrap(), ["b_name", "clickup.user_id"]);
    assert_eq!(value(&again, "clickup.user_id").as_deref(), Some("ünï — 🔑"));
}

#[test]
fn accounts_do_not_see_each_other() {
    let (_dir, root) = key_file_root();
    let local = open(&root);
    let ana = SecretStore::open(&root, "ana@example.com").unwrap();
    local.set("token", "local's").unwrap();
    ana.set("token", "ana's").unwrap();
    assert_eq!(value(&local, "token").as_deref(), Some("local's"));
    assert_eq!(value(&ana, "token").as_deref(), Some("ana's"));
    ana.set("only.ana", "x").unwrap();
    assert_eq!(local.list().unwrap(), ["token"]);
    for bad in ["", "a\0b"] {
        let err = SecretStore::open(&root, bad).err().expect("a bad account is refused");
        assert!(matches!(err, SecretError::InvalidAccount { .. }), "{err}");
    }
}

#[test]
fn a_store_opened_before_the_first_set_sees_it() {
    // The daemon opens its store at start; the CLI creates the database later.
    let (_dir, root) = key_file_root();
    std::fs::remove_file(root.dir().join(DB_FILE)).unwrap();
    let daemon = open(&root);
    assert_eq!(daemon.list().unwrap(), Vec::<String>::new());
    assert_eq!(value(&daemon, "x"), None);
    open(&root).set("x", "from the cli").unwrap();
    assert_eq!(value(&daemon, "x").as_deref(), Some("from the cli"));
    assert_eq!(daemon.list().unwrap(), ["x"]);
}

#[test]
fn one_store_shared_by_threads_and_two_stores_on_one_file() {
    let (_dir, root) = key_file_root();
    let shared = Arc::new(open(&root));
    let other = Arc::new(open(&root));
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let store = if i % 2 == 0 { shared.clone() } else { other.clone() };
            std::thread::spawn(move || {
                for j in 0..10 {
                    let name = format!("t{i}.n{j}");
                    store.set(&name, &format!("{i}-{j}")).unwrap();
                    assert_eq!(store.get(&name).unwrap().unwrap().as_str(), format!("{i}-{j}"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(shared.list().unwrap().len(), 80);
}

#[test]
fn a_flipped_byte_fails_that_secret_only() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("a.key", "alpha").unwrap();
    store.set("b.key", "beta").unwrap();
    let db = raw(&root);
    let (nonce, mut ciphertext) = record(&db, LOCAL_ACCOUNT, "a.key");
    ciphertext[2] ^= 0x01;
    put_record(&db, LOCAL_ACCOUNT, "a.key", &(nonce, ciphertext));
    let err = store.get("a.key").unwrap_err();
    assert!(matches!(err, SecretError::Tampered { .. }), "{err}");
    assert!(err.to_string().contains("\"a.key\""), "{err}");
    assert!(err.to_string().contains("set it again"), "{err}");
    assert_eq!(err.hint().as_deref(), Some("cowork secrets set a.key --stdin"));
    assert_eq!(value(&store, "b.key").as_deref(), Some("beta"));
    // A fresh store opens too: tampering with one record does not lock the rest away.
    assert_eq!(value(&open(&root), "b.key").as_deref(), Some("beta"));
    // A flipped nonce byte, and a nonce cut short, fail the same way.
    let (mut nonce, ciphertext) = record(&db, LOCAL_ACCOUNT, "b.key");
    nonce[0] ^= 0x80;
    put_record(&db, LOCAL_ACCOUNT, "b.key", &(nonce.clone(), ciphertext.clone()));
    assert!(matches!(store.get("b.key"), Err(SecretError::Tampered { .. })));
    put_record(&db, LOCAL_ACCOUNT, "b.key", &(nonce[..10].to_vec(), ciphertext));
    assert!(matches!(store.get("b.key"), Err(SecretError::Tampered { .. })));
}

#[test]
fn swapped_records_both_fail() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("a.key", "alpha").unwrap();
    store.set("b.key", "beta!").unwrap(); // same length: a swap is not told apart by size
    let db = raw(&root);
    let a = record(&db, LOCAL_ACCOUNT, "a.key");
    let b = record(&db, LOCAL_ACCOUNT, "b.key");
    // Whole records (nonce and ciphertext) swapped.
    put_record(&db, LOCAL_ACCOUNT, "a.key", &b);
    put_record(&db, LOCAL_ACCOUNT, "b.key", &a);
    assert!(matches!(store.get("a.key"), Err(SecretError::Tampered { .. })));
    assert!(matches!(store.get("b.key"), Err(SecretError::Tampered { .. })));
    // Only the ciphertexts swapped.
    put_record(&db, LOCAL_ACCOUNT, "a.key", &(a.0.clone(), b.1.clone()));
    put_record(&db, LOCAL_ACCOUNT, "b.key", &(b.0.clone(), a.1.clone()));
    assert!(matches!(store.get("a.key"), Err(SecretError::Tampered { .. })));
    assert!(matches!(store.get("b.key"), Err(SecretError::Tampered { .. })));
    // Put back, both open again: nothing else was damaged.
    put_record(&db, LOCAL_ACCOUNT, "a.key", &a);
    put_record(&db, LOCAL_ACCOUNT, "b.key", &b);
    assert_eq!(value(&store, "a.key").as_deref(), Some("alpha"));
    assert_eq!(value(&store, "b.key").as_deref(), Some("beta!"));
}

#[test]
fn a_record_copied_to_another_name_or_account_fails() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("github.token", "ghp_secret").unwrap();
    let db = raw(&root);
    let original = record(&db, LOCAL_ACCOUNT, "github.token");
    put_record(&db, LOCAL_ACCOUNT, "github.copy", &original);
    put_record(&db, "ana@example.com", "github.token", &original);
    assert!(matches!(store.get("github.copy"), Err(SecretError::Tampered { .. })));
    let ana = SecretStore::open(&root, "ana@example.com").unwrap();
    assert!(matches!(ana.get("github.token"), Err(SecretError::Tampered { .. })));
    assert_eq!(value(&store, "github.token").as_deref(), Some("ghp_secret"));
}

#[test]
fn a_wrong_key_fails_at_open_and_changes_nothing() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("a.key", "alpha").unwrap();
    drop(store);
    let key_file = root.dir().join(KEY_FILE_NAME);
    let db = root.dir().join(DB_FILE);
    write_private(&key_file, &format!("{}\n", "ab".repeat(32)));
    let before = snapshot(root.dir());
    let err = SecretStore::open(&root, LOCAL_ACCOUNT).err().expect("another key is refused");
    assert!(matches!(err, SecretError::KeyMismatch { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "the key from the key file {} does not open {}: restore the key that created it; nothing was changed",
            key_file.display(),
            db.display()
        )
    );
    assert_eq!(err.hint(), Some(format!("restore the key that created {}", db.display())));
    let mode = probe(&root);
    assert_eq!((mode.kind, mode.ok), (KeyKind::KeyFile, false));
    assert_eq!(mode.problem.as_deref(), Some(err.to_string().as_str()));
    assert_eq!(snapshot(root.dir()), before, "the root changed, byte for byte");
}

#[test]
fn a_damaged_key_check_says_to_repair_it_not_to_restore_the_key() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("a.key", "alpha").unwrap();
    store.set("b.key", "beta").unwrap();
    drop(store);
    for (i, damage) in [
        "UPDATE key_check SET ciphertext = CAST(zeroblob(length(ciphertext)) AS BLOB)",
        "DELETE FROM key_check",
    ]
    .iter()
    .enumerate()
    {
        raw(&root).execute(damage, []).unwrap(); // closed at once: the snapshot sees the change
        let before = snapshot(root.dir());
        let err =
            SecretStore::open(&root, LOCAL_ACCOUNT).err().expect("a damaged check is refused");
        assert!(matches!(err, SecretError::KeyCheckDamaged { .. }), "case {i}: {err}");
        assert!(
            err.to_string().contains(
                "run `cowork secrets repair` to write a new key check; nothing was changed"
            ),
            "{err}"
        );
        assert!(
            !err.to_string().contains("restore the key")
                && !err.to_string().contains("set your secrets again"),
            "{err}"
        );
        assert_eq!(probe(&root).problem.as_deref(), Some(err.to_string().as_str()));
        assert_eq!(snapshot(root.dir()), before, "case {i}: nothing overwritten");
        assert_eq!(repair_key_check(&root).unwrap(), 2);
        assert_eq!(value(&open(&root), "b.key").as_deref(), Some("beta"), "case {i}");
        assert_eq!(repair_key_check(&root).unwrap(), 0, "nothing left to repair");
    }
}

#[test]
fn repair_refuses_a_key_that_does_not_open_every_secret() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("a.key", "alpha").unwrap();
    store.set("b.key", "beta").unwrap();
    let db = raw(&root);
    let (nonce, mut ciphertext) = record(&db, LOCAL_ACCOUNT, "b.key");
    ciphertext[0] ^= 1;
    put_record(&db, LOCAL_ACCOUNT, "b.key", &(nonce, ciphertext));
    db.execute("DELETE FROM key_check", []).unwrap();
    drop((db, store));
    let before = snapshot(root.dir());
    assert!(
        matches!(repair_key_check(&root), Err(SecretError::Tampered { name, .. }) if name == "b.key")
    );
    assert_eq!(snapshot(root.dir()), before);
}

#[test]
fn a_missing_key_file_of_a_store_with_secrets_asks_for_it_back_and_status_says_key_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let key_file = dir.path().join("cowork.key");
    write_private(&key_file, &cowork_secrets_test_key());
    assert_eq!(Child::new("set", &root).env(KEY_FILE_ENV, &key_file).run().line("OK"), Some("set"));
    std::fs::remove_file(&key_file).unwrap();
    let missing = Child::new("open", &root).env(KEY_FILE_ENV, &key_file).run();
    assert_eq!(
        missing.error(),
        "StoreNeedsKeyFile",
        "not `secrets init`, which would refuse: {missing:?}"
    );
    assert!(
        missing
            .message()
            .contains(&format!("there is none at {}: restore it there", key_file.display())),
        "{missing:?}"
    );

    // Without the variable, the store still says what it was made with.
    let probed = Child::new("probe", &root).run();
    assert!(probed.line("PROBE").unwrap().starts_with("kind=key-file ok=false"), "{probed:?}");
}

#[test]
fn a_store_kept_open_follows_a_key_replaced_under_it() {
    // The daemon keeps its store for hours; an empty store re-keyed meanwhile is not a wrong key.
    let (_dir, root) = key_file_root();
    let kept = open(&root);
    kept.set("a", "1").unwrap();
    kept.delete("a").unwrap();
    std::fs::remove_file(root.dir().join(KEY_FILE_NAME)).unwrap();
    init_key_file(&root).unwrap();
    kept.set("b", "2").unwrap();
    assert_eq!(value(&open(&root), "b").as_deref(), Some("2"));
    open(&root).set("c", "3").unwrap();
    assert_eq!(value(&kept, "c").as_deref(), Some("3"));
}

#[test]
fn plaintext_never_reaches_the_disk() {
    let canary = "PLAINTEXT-CANARY-5e1f0c7a9b";
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("canary.one", canary).unwrap();
    store.set("canary.two", &format!("prefix {canary} suffix")).unwrap();
    store.set("canary.one", &format!("{canary}{canary}")).unwrap(); // an overwrite too
    let check = |when: &str| {
        let files = files_under(root.dir());
        assert!(
            files.iter().any(|f| f.ends_with("secrets.db-wal")) || when == "after",
            "{files:?}"
        );
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            assert!(
                !bytes.windows(canary.len()).any(|w| w == canary.as_bytes()),
                "{when}: {} holds the plaintext",
                file.display()
            );
        }
    };
    check("while open"); // the write-ahead log holds the newest pages now
    drop(store);
    check("after");
}

#[test]
fn files_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("a", "b").unwrap();
    let mode =
        |name: &str| std::fs::metadata(root.dir().join(name)).unwrap().permissions().mode() & 0o777;
    for name in [KEY_FILE_NAME, DB_FILE, "secrets.db-wal", "secrets.db-shm"] {
        assert_eq!(mode(name), 0o600, "{name}");
    }
    // A database found open to others (names are in the clear) is made owner-only when opened.
    drop(store);
    std::fs::set_permissions(root.dir().join(DB_FILE), std::fs::Permissions::from_mode(0o644))
        .unwrap();
    open(&root);
    assert_eq!(mode(DB_FILE), 0o600);
}

#[test]
fn bad_names_are_refused_and_quoted() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    for bad in ["", "1password", "a b", "../x", "a/b", "ключ", &"x".repeat(201)] {
        for err in [
            store.set(bad, "v").unwrap_err(),
            store.get(bad).unwrap_err(),
            store.delete(bad).unwrap_err(),
        ] {
            assert!(matches!(err, SecretError::InvalidName { .. }), "{bad:?}: {err}");
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
    }
    assert_eq!(store.list().unwrap(), Vec::<String>::new());
}

#[test]
fn cowork_names_are_reserved_for_cowork() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    let err = store.set("cowork.openrouter", "sk-or").unwrap_err();
    assert!(matches!(err, SecretError::ReservedName { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "the secret name \"cowork.openrouter\" is reserved: names starting with `cowork.` belong to Cowork itself; choose another name"
    );
    store.set_reserved("cowork.oauth.google", "{\"refresh_token\":\"r\"}").unwrap();
    assert_eq!(value(&store, "cowork.oauth.google").as_deref(), Some("{\"refresh_token\":\"r\"}"));
    assert_eq!(store.list().unwrap(), ["cowork.oauth.google"]);
    assert!(matches!(store.delete("cowork.oauth.google"), Err(SecretError::ReservedName { .. })));
    assert!(store.delete_reserved("cowork.oauth.google").unwrap());
    assert!(matches!(store.set_reserved("no spaces", "v"), Err(SecretError::InvalidName { .. })));
    store.set("coworkers.list", "not reserved: the prefix is `cowork.`").unwrap();
}

#[test]
fn a_key_file_open_to_others_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, root) = key_file_root();
    let key_file = root.dir().join(KEY_FILE_NAME);
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let err = SecretStore::open(&root, LOCAL_ACCOUNT).err().expect("a 0644 key file is refused");
    assert!(matches!(err, SecretError::KeyFileInsecure { mode: 0o644, .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "the key file {0} is open to other users (mode 644): run `chmod 600 {0}` and try again",
            key_file.display()
        )
    );
    assert_eq!(err.hint(), Some(format!("chmod 600 {}", key_file.display())));
    assert!(!probe(&root).ok);
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    open(&root).set("now", "fine").unwrap();
}

#[test]
fn a_key_file_without_a_key_is_refused() {
    let (_dir, root) = key_file_root();
    write_private(&root.dir().join(KEY_FILE_NAME), "not a key\n");
    let err = SecretStore::open(&root, LOCAL_ACCOUNT).err().expect("a broken key file is refused");
    assert!(matches!(err, SecretError::KeyFileInvalid { .. }), "{err}");
}

#[test]
fn init_key_file_never_overwrites_a_key() {
    let (_dir, root) = key_file_root();
    let key_file = root.dir().join(KEY_FILE_NAME);
    let before = std::fs::read(&key_file).unwrap();
    let err = init_key_file(&root).unwrap_err();
    assert!(matches!(err, SecretError::KeyFileExists { .. }), "{err}");
    assert!(err.to_string().contains(&key_file.display().to_string()), "{err}");
    assert_eq!(std::fs::read(&key_file).unwrap(), before);
}

#[test]
fn init_key_file_never_rekeys_a_store_with_secrets() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("a", "1").unwrap();
    store.set_reserved("cowork.oauth.google", "2").unwrap();
    drop(store);
    let key_file = root.dir().join(KEY_FILE_NAME);
    std::fs::rename(&key_file, root.dir().join("moved.key")).unwrap();
    let before = snapshot(root.dir());
    let err = init_key_file(&root).unwrap_err();
    assert!(matches!(err, SecretError::StoreHasSecrets { count: 2, .. }), "{err}");
    assert_eq!(snapshot(root.dir()), before);
    assert!(!key_file.exists());
    // The way out needs no key (deleting the secrets one by one would): moving the store aside,
    // after which the same command succeeds.
    let db = root.dir().join("secrets.db");
    let hint = err.hint().unwrap();
    assert_eq!(
        hint,
        format!(
            "to start over: mv {} {}.old, then run `cowork secrets init --key-file` again",
            db.display(),
            db.display()
        )
    );
    std::fs::rename(&db, root.dir().join("secrets.db.old")).unwrap();
    init_key_file(&root).unwrap();
    assert!(open(&root).list().unwrap().is_empty());
}

#[test]
fn init_key_file_rekeys_an_empty_store() {
    let (_dir, root) = key_file_root();
    let store = open(&root);
    store.set("a", "1").unwrap();
    assert!(store.delete("a").unwrap());
    drop(store);
    std::fs::remove_file(root.dir().join(KEY_FILE_NAME)).unwrap();
    init_key_file(&root).unwrap();
    let store = open(&root);
    store.set("b", "2").unwrap();
    assert_eq!(value(&open(&root), "b").as_deref(), Some("2"));
}

#[test]
fn a_store_made_with_a_key_file_asks_for_it_back() {
    // Without the file, Cowork would look in the keychain: it must not, and say why.
    let (_dir, root) = key_file_root();
    open(&root).set("a", "1").unwrap();
    let key_file = root.dir().join(KEY_FILE_NAME);
    std::fs::remove_file(&key_file).unwrap();
    let err = SecretStore::open(&root, LOCAL_ACCOUNT).err().expect("the key file is missing");
    assert!(matches!(err, SecretError::StoreNeedsKeyFile { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "{} was created with a key file, and there is none at {}: restore it there, or set COWORK_SECRETS_KEY_FILE to where it is; nothing was changed",
            root.dir().join(DB_FILE).display(),
            key_file.display()
        )
    );
}

#[test]
fn the_key_file_can_live_outside_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let key_file = dir.path().join("keys/cowork.key");
    // The variable is process-wide: the child process has it, the other tests do not.
    let missing = Child::new("open", &root).env(KEY_FILE_ENV, &key_file).run();
    assert_eq!(missing.error(), "KeyFileMissing");
    assert!(missing.message().contains("cowork secrets init --key-file"), "{missing:?}");
    // `init_key_file` writes where the variable points; the store then uses it.
    std::fs::create_dir_all(key_file.parent().unwrap()).unwrap();
    let key = cowork_secrets_test_key();
    write_private(&key_file, &key);
    let set = Child::new("set", &root).env(KEY_FILE_ENV, &key_file).run();
    assert_eq!(set.line("OK"), Some("set"), "{set:?}");
    let opened = Child::new("open", &root).env(KEY_FILE_ENV, &key_file).run();
    assert_eq!(
        opened.line("OK"),
        Some(
            format!("the key file {} (from COWORK_SECRETS_KEY_FILE)", key_file.display()).as_str()
        )
    );
    assert!(!root.join(KEY_FILE_NAME).exists());
}

/// A key file's contents, as `init_key_file` writes them.
fn cowork_secrets_test_key() -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = init_key_file(&Root::new(dir.path())).unwrap();
    std::fs::read_to_string(path).unwrap()
}
