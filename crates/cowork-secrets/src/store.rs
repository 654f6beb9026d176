//! The secret database: `<root>/secrets.db`, one sealed record per (account, name), and the
//! key-check record that makes a wrong key fail at `open` instead of at the first `get`.

use crate::error::SecretError;
use crate::key::{
    create_key_file, DataKey, KeyKind, KeyMode, KeySource, KEY_FILE_ENV, KEY_FILE_NAME,
};
use crate::seal::{key_check_opens, open_secret, seal_key_check, seal_secret, Sealed};
use chacha20poly1305::XChaCha20Poly1305;
use cowork_core::paths::Root;
use parking_lot::{Mutex, MutexGuard};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;
use zeroize::{Zeroize, Zeroizing};

/// The account of a person not signed in to Cowork.
pub const LOCAL_ACCOUNT: &str = "local";

/// The secret database's file name in the root.
pub const DB_FILE: &str = "secrets.db";

/// Names Cowork keeps for itself (`cowork.oauth.google`, `cowork.openrouter`).
const RESERVED_PREFIX: &str = "cowork.";

/// The longest secret name.
const MAX_NAME_LEN: usize = 200;

/// How long a write waits for another process's write (the daemon and the CLI share the file).
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// Both tables are created at once, in one transaction, by the first write.
const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS key_check (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        created_with TEXT NOT NULL,
        nonce BLOB NOT NULL,
        ciphertext BLOB NOT NULL
    );
    CREATE TABLE IF NOT EXISTS secrets (
        account TEXT NOT NULL,
        name TEXT NOT NULL,
        nonce BLOB NOT NULL,
        ciphertext BLOB NOT NULL,
        PRIMARY KEY (account, name)
    ) WITHOUT ROWID;";

/// Checks a secret name: `^[A-Za-z_][A-Za-z0-9_.-]*$`, at most 200 characters. Reserved
/// `cowork.` names pass: refusing them is [`SecretStore::set`]'s and [`SecretStore::delete`]'s.
pub fn validate_name(name: &str) -> Result<(), SecretError> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if first_ok && rest_ok && name.len() <= MAX_NAME_LEN {
        Ok(())
    } else {
        Err(SecretError::InvalidName { name: name.to_string() })
    }
}

fn refuse_reserved(name: &str) -> Result<(), SecretError> {
    if name.starts_with(RESERVED_PREFIX) {
        return Err(SecretError::ReservedName { name: name.to_string() });
    }
    Ok(())
}

/// One account's secrets in one root, encrypted at rest. Shared by the daemon's threads
/// (`Send + Sync`: the database connection sits behind a mutex).
pub struct SecretStore {
    root_dir: PathBuf,
    db: PathBuf,
    account: String,
    source: KeySource,
    mode: KeyMode,
    state: Mutex<State>,
}

/// What is opened lazily: the database once it exists, the key once the store has one.
struct State {
    conn: Option<Connection>,
    cipher: Option<XChaCha20Poly1305>,
}

/// The key-check record as stored.
struct KeyCheck {
    created_with: KeyKind,
    sealed: Sealed,
}

impl SecretStore {
    /// Opens the secrets of `account` (`"local"` when signed out) in `root`.
    ///
    /// The key source is chosen explicitly (see [`crate::probe`]); when the store exists, its key
    /// check is opened now, so a wrong or missing key fails here and nothing is written. A root
    /// with no store and no key yet opens fine: the first [`set`](Self::set) creates both.
    ///
    /// In keychain mode this asks the keychain, which on a desktop with a locked keyring shows
    /// its unlock prompt and waits for the person's answer; headless, the prompt fails at once
    /// (on Linux [`SecretError::KeychainLocked`], on macOS [`SecretError::KeychainFailed`]).
    pub fn open(root: &Root, account: &str) -> Result<SecretStore, SecretError> {
        Self::open_with(root, account, KeySource::for_root(root))
    }

    fn open_with(
        root: &Root,
        account: &str,
        source: KeySource,
    ) -> Result<SecretStore, SecretError> {
        if account.is_empty() || account.contains('\0') {
            return Err(SecretError::InvalidAccount { account: account.to_string() });
        }
        let db = root.dir().join(DB_FILE);
        let mut state = State { conn: None, cipher: None };
        if db.exists() {
            let conn = connect(&db)?;
            state.cipher = match read_check(&conn, &db)? {
                Some(check) => Some(unlock(&source, &check, &conn, root.dir(), &db)?),
                None => {
                    ensure_no_secrets(&conn, &source, &db)?;
                    source.load(&db)?.map(|key| key.cipher())
                }
            };
            state.conn = Some(conn);
        } else {
            // Reaching the keychain now is the point: no keychain fails at open, not at the first set.
            state.cipher = source.load(&db)?.map(|key| key.cipher());
        }
        let mode =
            KeyMode { kind: source.kind(), detail: source.describe(), ok: true, problem: None };
        Ok(SecretStore {
            root_dir: root.dir().to_path_buf(),
            db,
            account: account.to_string(),
            source,
            mode,
            state: Mutex::new(state),
        })
    }

    /// Whether the key source chosen at [`open`](Self::open) is still the one in force: `false`
    /// once a key file was made (`cowork secrets init --key-file`) or removed, or
    /// `COWORK_SECRETS_KEY_FILE` changed. A long-lived holder (the daemon) opens the store again.
    pub fn is_current(&self) -> bool {
        self.source.same_place(&KeySource::for_root(&Root::new(&self.root_dir)))
    }

    /// Where the key comes from (always `ok`: a store that opened works).
    pub fn mode(&self) -> &KeyMode {
        &self.mode
    }

    /// The value of `name`, `None` when unset. Reserved `cowork.` names can be read.
    pub fn get(&self, name: &str) -> Result<Option<Zeroizing<String>>, SecretError> {
        validate_name(name)?;
        let mut guard = self.lock();
        let State { conn, cipher } = &mut *guard;
        let Some(conn) = self.existing_connection(conn)? else { return Ok(None) };
        let sealed = conn
            .query_row(
                "SELECT nonce, ciphertext FROM secrets WHERE account = ?1 AND name = ?2",
                params![self.account, name],
                |row| Ok(Sealed { nonce: row.get(0)?, ciphertext: row.get(1)? }),
            )
            .optional()
            .map_err(|e| self.database(e))?;
        let Some(sealed) = sealed else { return Ok(None) };
        let key = match cipher.take() {
            Some(key) => key,
            None => self.unlock_existing(conn)?,
        };
        let mut key = cipher.insert(key);
        let mut opened = open_secret(key, &self.account, name, &sealed);
        if opened.is_none() {
            // A key replaced under this store (another process re-keyed an empty store) is not
            // tampering: the source's key now, checked again.
            if let Some(check) = read_check(conn, &self.db)? {
                if !key_check_opens(key, &check.sealed) {
                    *cipher = None;
                    key = cipher.insert(unlock(
                        &self.source,
                        &check,
                        conn,
                        &self.root_dir,
                        &self.db,
                    )?);
                    opened = open_secret(key, &self.account, name, &sealed);
                }
            }
        }
        let Some(mut plaintext) = opened else {
            return Err(SecretError::Tampered { name: name.to_string(), db: self.db.clone() });
        };
        match String::from_utf8(std::mem::take(&mut *plaintext)) {
            Ok(value) => Ok(Some(Zeroizing::new(value))),
            Err(e) => {
                e.into_bytes().zeroize();
                Err(SecretError::Corrupt {
                    db: self.db.clone(),
                    reason: "a secret's value is not UTF-8 text",
                })
            }
        }
    }

    /// Stores `value` as `name`, replacing any value it had, in one transaction. The first set
    /// of a new store creates the key (in the keychain, in keychain mode) and the key check.
    /// Refuses reserved `cowork.` names: see [`set_reserved`](Self::set_reserved).
    pub fn set(&self, name: &str, value: &str) -> Result<(), SecretError> {
        validate_name(name)?;
        refuse_reserved(name)?;
        self.write(name, value)
    }

    /// [`set`](Self::set) for Cowork itself, which may also set the reserved `cowork.` names
    /// (its OAuth engine keeps `cowork.oauth.google` there). Never reachable from a routine or the CLI.
    pub fn set_reserved(&self, name: &str, value: &str) -> Result<(), SecretError> {
        validate_name(name)?;
        self.write(name, value)
    }

    /// Removes `name`; `false` when it was not set. Refuses reserved `cowork.` names: see
    /// [`delete_reserved`](Self::delete_reserved).
    pub fn delete(&self, name: &str) -> Result<bool, SecretError> {
        validate_name(name)?;
        refuse_reserved(name)?;
        self.remove(name)
    }

    /// [`delete`](Self::delete) for Cowork itself, which may also delete the reserved `cowork.`
    /// names (a disconnected sign-in's tokens).
    pub fn delete_reserved(&self, name: &str) -> Result<bool, SecretError> {
        validate_name(name)?;
        self.remove(name)
    }

    /// The names of this account's secrets, sorted; never their values.
    pub fn list(&self) -> Result<Vec<String>, SecretError> {
        let mut guard = self.lock();
        let Some(conn) = self.existing_connection(&mut guard.conn)? else { return Ok(Vec::new()) };
        let mut statement = conn
            .prepare("SELECT name FROM secrets WHERE account = ?1 ORDER BY name")
            .map_err(|e| self.database(e))?;
        let names = statement
            .query_map(params![self.account], |row| row.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.database(e))?;
        Ok(names)
    }

    /// Whether a key is in hand (a keychain store before its first set has none).
    fn has_key(&self) -> bool {
        self.lock().cipher.is_some()
    }

    fn write(&self, name: &str, value: &str) -> Result<(), SecretError> {
        let mut guard = self.lock();
        let State { conn, cipher } = &mut *guard;
        let opened = match conn.take() {
            Some(opened) => opened,
            None => create_or_connect(&self.db)?,
        };
        let conn = conn.insert(opened);
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.database(e))?;
        // An error past this point drops the key from the cache; the next call loads it again.
        let key = self.ready_for_write(&tx, cipher.take())?;
        let sealed = seal_secret(&key, &self.account, name, value.as_bytes());
        tx.execute(
            "INSERT INTO secrets (account, name, nonce, ciphertext) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (account, name) DO UPDATE SET nonce = excluded.nonce, ciphertext = excluded.ciphertext",
            params![self.account, name, sealed.nonce, sealed.ciphertext],
        )
        .and_then(|_| tx.commit())
        .map_err(|e| self.database(e))?;
        *cipher = Some(key);
        Ok(())
    }

    /// The key that opens the store's key check, checked again under the write lock (another
    /// process may have created the store since); for a store with no key check yet, the key is
    /// loaded or created and its check written in this transaction.
    fn ready_for_write(
        &self,
        tx: &Connection,
        cached: Option<XChaCha20Poly1305>,
    ) -> Result<XChaCha20Poly1305, SecretError> {
        match read_check(tx, &self.db)? {
            Some(check) => match cached {
                Some(key) if key_check_opens(&key, &check.sealed) => Ok(key),
                // None yet, or one replaced under this store since: the source's key, checked.
                _ => unlock(&self.source, &check, tx, &self.root_dir, &self.db),
            },
            None => {
                ensure_no_secrets(tx, &self.source, &self.db)?;
                let key = match cached {
                    Some(key) => key,
                    None => self.source.load_or_create(&self.db)?.cipher(),
                };
                insert_check(tx, &seal_key_check(&key), self.source.kind(), &self.db)?;
                Ok(key)
            }
        }
    }

    fn remove(&self, name: &str) -> Result<bool, SecretError> {
        let mut guard = self.lock();
        let Some(conn) = self.existing_connection(&mut guard.conn)? else { return Ok(false) };
        let removed = conn
            .execute(
                "DELETE FROM secrets WHERE account = ?1 AND name = ?2",
                params![self.account, name],
            )
            .map_err(|e| self.database(e))?;
        Ok(removed > 0)
    }

    /// The connection, opened now if another process created the database after `open`.
    fn existing_connection<'a>(
        &self,
        conn: &'a mut Option<Connection>,
    ) -> Result<Option<&'a mut Connection>, SecretError> {
        if conn.is_none() && self.db.exists() {
            *conn = Some(connect(&self.db)?);
        }
        Ok(conn.as_mut())
    }

    /// The key of a store that holds secrets, checked against its key check.
    fn unlock_existing(&self, conn: &Connection) -> Result<XChaCha20Poly1305, SecretError> {
        let Some(check) = read_check(conn, &self.db)? else {
            ensure_no_secrets(conn, &self.source, &self.db)?;
            return Err(SecretError::Corrupt {
                db: self.db.clone(),
                reason: "it holds secrets but no key check",
            });
        };
        unlock(&self.source, &check, conn, &self.root_dir, &self.db)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic mid-call rolled its transaction back with the dropped handle: the state is sound.
        self.state.lock()
    }

    fn database(&self, source: rusqlite::Error) -> SecretError {
        SecretError::Database { db: self.db.clone(), source }
    }
}

/// Reports the key mode in force for `root` and whether it works: the key can be read and opens
/// the store, or — with no key yet — the keychain answers. Never creates anything.
pub fn probe(root: &Root) -> KeyMode {
    let source = KeySource::for_root(root);
    match SecretStore::open_with(root, LOCAL_ACCOUNT, source.clone()) {
        Ok(store) => {
            let mut mode = store.mode.clone();
            if !store.has_key() {
                // No key yet: whether the keychain could keep one is asked without creating it.
                match crate::keychain::can_take_a_key() {
                    Ok(true) => mode.detail.push_str("; no key yet: the first `cowork secrets set` creates it"),
                    Ok(false) => mode.detail.push_str("; no key yet, unverified: the first `cowork secrets set` creates it, and only then is the keychain tried"),
                    Err(e) => (mode.ok, mode.problem) = (false, Some(e.to_string())),
                }
            }
            mode
        }
        // The store's own kind when it was made with the other one: "keychain" for a key-file
        // store whose file is gone would send the person looking in the wrong place.
        Err(e) => {
            let (kind, detail) = match &e {
                SecretError::StoreNeedsKeyFile { path, .. } => {
                    (KeyKind::KeyFile, format!("the key file {} (missing)", path.display()))
                }
                SecretError::StoreNeedsKeychain { .. } => (
                    KeyKind::Keychain,
                    format!("the OS keychain, but {} is in force", source.describe()),
                ),
                _ => (source.kind(), source.describe()),
            };
            KeyMode { kind, detail, ok: false, problem: Some(e.to_string()) }
        }
    }
}

/// `cowork secrets init --key-file`: creates a new key in a 0600 file — the one
/// `COWORK_SECRETS_KEY_FILE` names, else `<root>/secrets.key` — and binds the store to it, so
/// key-file mode is in force from now on. Refuses to overwrite an existing key file, and to
/// re-key a store that holds secrets (they would become unreadable). Returns the file's path.
pub fn init_key_file(root: &Root) -> Result<PathBuf, SecretError> {
    let path = match std::env::var_os(KEY_FILE_ENV).filter(|v| !v.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => root.dir().join(KEY_FILE_NAME),
    };
    if path.exists() {
        return Err(SecretError::KeyFileExists { path });
    }
    let db = root.dir().join(DB_FILE);
    let database = |source| SecretError::Database { db: db.clone(), source };
    let mut conn = create_or_connect(&db)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(database)?;
    let count: u64 =
        tx.query_row("SELECT count(*) FROM secrets", [], |row| row.get(0)).map_err(database)?;
    if count > 0 {
        return Err(SecretError::StoreHasSecrets { db, count });
    }
    let key = DataKey::generate();
    tx.execute("DELETE FROM key_check", []).map_err(database)?;
    insert_check(&tx, &seal_key_check(&key.cipher()), KeyKind::KeyFile, &db)?;
    create_key_file(&path, &key)?;
    if let Err(e) = tx.commit() {
        let _ = std::fs::remove_file(&path); // the store still answers to its old key check
        return Err(database(e));
    }
    Ok(path)
}

/// Opens the key of a store from its source and checks it against the store's key check. When
/// the check does not open, the error says which fix applies: the store was made with the other
/// kind of key (`created_with`), the check is damaged while the key is right (it opens a secret),
/// or the key is another one.
fn unlock(
    source: &KeySource,
    check: &KeyCheck,
    conn: &Connection,
    root_dir: &Path,
    db: &Path,
) -> Result<XChaCha20Poly1305, SecretError> {
    let db_buf = db.to_path_buf();
    let needs_keychain = |path: &Path, from_env: bool| SecretError::StoreNeedsKeychain {
        db: db_buf.clone(),
        path: path.to_path_buf(),
        from_env,
    };
    if check.created_with == KeyKind::KeyFile && source.kind() == KeyKind::Keychain {
        // The key file is gone: the keychain's key could not open this store, and asking the
        // keychain would only create a new one.
        return Err(SecretError::StoreNeedsKeyFile {
            db: db_buf,
            path: root_dir.join(KEY_FILE_NAME),
        });
    }
    let key = match source.load(db) {
        Ok(Some(key)) => key.cipher(),
        Ok(None) => {
            return Err(SecretError::KeyMissing { key_from: source.describe(), db: db_buf })
        }
        // `secrets init --key-file` would refuse a store with secrets: the fix is the old key.
        Err(SecretError::KeyFileMissing { path }) => {
            return Err(match check.created_with {
                KeyKind::KeyFile => SecretError::StoreNeedsKeyFile { db: db_buf, path },
                KeyKind::Keychain => needs_keychain(&path, true),
            })
        }
        Err(e) => return Err(e),
    };
    if key_check_opens(&key, &check.sealed) {
        return Ok(key);
    }
    if opens_a_secret(conn, &key, db)? {
        return Err(SecretError::KeyCheckDamaged { key_from: source.describe(), db: db_buf });
    }
    if let (KeyKind::Keychain, KeySource::File { path, from_env }) = (check.created_with, source) {
        return Err(needs_keychain(path, *from_env));
    }
    Err(SecretError::KeyMismatch { key_from: source.describe(), db: db_buf })
}

/// Whether `key` opens the first secret of the store (any account): the trial that tells a right
/// key with a damaged key check from a wrong key.
fn opens_a_secret(
    conn: &Connection,
    key: &XChaCha20Poly1305,
    db: &Path,
) -> Result<bool, SecretError> {
    let first = conn
        .query_row(
            "SELECT account, name, nonce, ciphertext FROM secrets ORDER BY account, name LIMIT 1",
            [],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    Sealed { nonce: row.get(2)?, ciphertext: row.get(3)? },
                ))
            },
        )
        .optional()
        .map_err(|source| SecretError::Database { db: db.to_path_buf(), source })?;
    Ok(first.is_some_and(|(account, name, sealed)| {
        open_secret(key, &account, &name, &sealed).is_some()
    }))
}

/// `cowork secrets repair`: writes a new key check for a store whose check is damaged or gone,
/// once the key in force opens every secret in it (so it is the store's key). Returns how many
/// secrets were checked; 0 and nothing written when the key check is fine.
pub fn repair_key_check(root: &Root) -> Result<usize, SecretError> {
    let source = KeySource::for_root(root);
    let db = root.dir().join(DB_FILE);
    let database = |source| SecretError::Database { db: db.clone(), source };
    if !db.exists() {
        return Ok(0);
    }
    let mut conn = connect(&db)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(database)?;
    let key = source
        .load(&db)?
        .ok_or_else(|| SecretError::KeyMissing { key_from: source.describe(), db: db.clone() })?
        .cipher();
    if read_check(&tx, &db)?.is_some_and(|check| key_check_opens(&key, &check.sealed)) {
        return Ok(0);
    }
    let records: Vec<(String, String, Sealed)> = {
        let mut statement =
            tx.prepare("SELECT account, name, nonce, ciphertext FROM secrets").map_err(database)?;
        let rows = statement.query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, Sealed { nonce: row.get(2)?, ciphertext: row.get(3)? }))
        });
        rows.and_then(|rows| rows.collect()).map_err(database)?
    };
    if records.is_empty() {
        return Err(SecretError::Corrupt {
            db,
            reason: "its key check is damaged and it holds no secret to check a key against",
        });
    }
    if let Some((_, name, _)) = records
        .iter()
        .find(|(account, name, sealed)| open_secret(&key, account, name, sealed).is_none())
    {
        // A key that opens some records and not others: tampering, not a damaged check.
        return Err(SecretError::Tampered { name: name.clone(), db });
    }
    tx.execute("DELETE FROM key_check", []).map_err(database)?;
    insert_check(&tx, &seal_key_check(&key), source.kind(), &db)?;
    tx.commit().map_err(database)?;
    Ok(records.len())
}

/// Opens an existing database read-write (never creating it), with the schema in place.
fn connect(db: &Path) -> Result<Connection, SecretError> {
    let database = |source| SecretError::Database { db: db.to_path_buf(), source };
    keep_private(db)?;
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(database)?;
    conn.busy_timeout(BUSY_WAIT).map_err(database)?;
    let tables: u32 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('key_check', 'secrets')",
            [],
            |row| row.get(0),
        )
        .map_err(database)?;
    if tables < 2 {
        // A new (empty) file: WAL lets the daemon read while the CLI writes.
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
            .map_err(database)?;
        conn.execute_batch(&format!("BEGIN IMMEDIATE; {SCHEMA} COMMIT;")).map_err(database)?;
    }
    Ok(conn)
}

/// [`connect`], creating the file first, owner-only (SQLite gives its `-wal` and `-shm` files
/// the same mode).
fn create_or_connect(db: &Path) -> Result<Connection, SecretError> {
    let create = |source| SecretError::Create { path: db.to_path_buf(), source };
    if let Some(dir) = db.parent() {
        std::fs::create_dir_all(dir).map_err(create)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(db).map_err(create)?;
    connect(db)
}

/// Makes a database found open to other users owner-only again: names are stored in the clear.
#[cfg(unix)]
fn keep_private(db: &Path) -> Result<(), SecretError> {
    use std::os::unix::fs::PermissionsExt;
    let fix = |source| SecretError::Create { path: db.to_path_buf(), source };
    if std::fs::metadata(db).map_err(fix)?.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(db, std::fs::Permissions::from_mode(0o600)).map_err(fix)?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn keep_private(_db: &Path) -> Result<(), SecretError> {
    Ok(())
}

fn read_check(conn: &Connection, db: &Path) -> Result<Option<KeyCheck>, SecretError> {
    let row = conn
        .query_row(
            "SELECT created_with, nonce, ciphertext FROM key_check WHERE id = 1",
            [],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    Sealed { nonce: row.get(1)?, ciphertext: row.get(2)? },
                ))
            },
        )
        .optional()
        .map_err(|source| SecretError::Database { db: db.to_path_buf(), source })?;
    let Some((created_with, sealed)) = row else { return Ok(None) };
    let created_with = match created_with.as_str() {
        "keychain" => KeyKind::Keychain,
        "key-file" => KeyKind::KeyFile,
        _ => {
            return Err(SecretError::Corrupt {
                db: db.to_path_buf(),
                reason: "its key check names no known key source",
            })
        }
    };
    Ok(Some(KeyCheck { created_with, sealed }))
}

fn insert_check(
    conn: &Connection,
    sealed: &Sealed,
    kind: KeyKind,
    db: &Path,
) -> Result<(), SecretError> {
    conn.execute(
        "INSERT INTO key_check (id, created_with, nonce, ciphertext) VALUES (1, ?1, ?2, ?3)",
        params![kind.as_str(), sealed.nonce, sealed.ciphertext],
    )
    .map_err(|source| SecretError::Database { db: db.to_path_buf(), source })?;
    Ok(())
}

/// A store without a key check must hold no secrets: any it held could not be checked. When the
/// key in force opens them, only the check is gone (`cowork secrets repair` writes it again).
fn ensure_no_secrets(conn: &Connection, source: &KeySource, db: &Path) -> Result<(), SecretError> {
    let any: bool = conn
        .query_row("SELECT EXISTS (SELECT 1 FROM secrets)", [], |row| row.get(0))
        .map_err(|source| SecretError::Database { db: db.to_path_buf(), source })?;
    if !any {
        return Ok(());
    }
    if let Ok(Some(key)) = source.load(db) {
        if opens_a_secret(conn, &key.cipher(), db)? {
            return Err(SecretError::KeyCheckDamaged {
                key_from: source.describe(),
                db: db.to_path_buf(),
            });
        }
    }
    Err(SecretError::Corrupt { db: db.to_path_buf(), reason: "it holds secrets but no key check" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for good in ["a", "_", "openai.key", "A_b-c.d9", "cowork.oauth.google", &"n".repeat(200)] {
            validate_name(good).unwrap();
        }
        for bad in ["", "9lives", ".hidden", "-x", "a b", "a/b", "é", "a\0b", &"n".repeat(201)] {
            let err = validate_name(bad).unwrap_err();
            assert!(matches!(err, SecretError::InvalidName { .. }), "{bad:?}");
        }
        assert!(validate_name("a b").unwrap_err().to_string().contains("\"a b\""));
    }

    #[test]
    fn the_store_is_shared_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<SecretStore>();
    }
}
