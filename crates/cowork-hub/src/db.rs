//! The hub's database: one pool over sqlx's Any driver, so every query is written once for both
//! back ends. Placeholders are `$1, $2 …`, which Postgres takes and SQLite takes too (sqlx binds
//! `$NNN` to argument NNN); integers are BIGINT (booleans 0/1), times milliseconds. The few
//! dialect differences live here and in `migrations.rs`: how a write transaction starts,
//! `FOR UPDATE SKIP LOCKED` (jobs.rs), and the members listing, whose JSON SQLite writes itself
//! (teams.rs: 10,000 rows through the Any driver cost twice the CPU of one value).
//!
//! SQLite (the embedded hub, one process): WAL, a busy timeout, foreign keys on, and write
//! transactions that start with `BEGIN IMMEDIATE` so two writers queue instead of failing on the
//! upgrade from a read lock. Postgres (replicas): plain transactions; what must not race takes a
//! row lock (the `rev` counter, which also orders every change, see `next_rev`).

use crate::error::HubErr;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{Any, AnyPool, Executor, Row, Transaction};
use std::path::Path;
use std::time::Duration;

/// Which engine is behind the pool.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Backend {
    /// SQLite: the embedded hub.
    Sqlite,
    /// Postgres: a hub of many replicas.
    Postgres,
}

/// The pool and what kind of database it talks to.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
}

/// A write transaction.
pub type Tx = Transaction<'static, Any>;

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is after 1970");
    i64::try_from(now.as_millis()).expect("milliseconds fit in i64 until the year 292 million")
}

/// A random id: 16 bytes as 32 hex characters.
pub fn new_id() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

impl Db {
    /// Connect to (and create, for SQLite) the database at `url` — `sqlite://<path>` or
    /// `postgres://…` — leaving its schema as it is: `Db::open` (in `migrations`) is this and the
    /// migrations.
    pub async fn connect(url: &str) -> Result<Db, HubErr> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            return Err(HubErr::config(
                format!("failed to open the database {url:?}: not a sqlite:// or postgres:// URL"),
                "pass --database postgres://user@host/db, or --data DIR for the embedded SQLite",
            ));
        };
        let options = AnyPoolOptions::new()
            .max_connections(if backend == Backend::Sqlite { 8 } else { 16 })
            .acquire_timeout(Duration::from_secs(10));
        let options = if backend == Backend::Sqlite {
            options.after_connect(|conn, _| {
                Box::pin(async move {
                    // Per connection: WAL persists in the file, the rest does not.
                    conn.execute("PRAGMA busy_timeout = 10000").await?;
                    conn.execute("PRAGMA foreign_keys = ON").await?;
                    conn.execute("PRAGMA synchronous = NORMAL").await?;
                    Ok(())
                })
            })
        } else {
            options
        };
        if backend == Backend::Sqlite {
            private_sqlite_files(url)?;
        }
        let pool = options.connect(url).await.map_err(|error| {
            HubErr::unavailable(format!("failed to open the database {}", redact_url(url)), error)
        })?;
        if backend == Backend::Sqlite {
            sqlx::query("PRAGMA journal_mode = WAL").execute(&pool).await?;
        }
        Ok(Db { pool, backend })
    }

    /// The engine behind the pool, for the few places the dialects differ.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool every query runs on.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// A write transaction (SQLite: `BEGIN IMMEDIATE`, so it holds the write lock from its start).
    pub async fn begin(&self) -> Result<Tx, HubErr> {
        Ok(match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        })
    }

    /// Close the pool (SQLite checkpoints its WAL).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// The sqlx URL of a SQLite file, created when missing.
pub fn sqlite_url(path: &Path) -> String {
    format!("sqlite://{}?mode=rwc", path.display())
}

/// The hub's SQLite file holds every store's signing key and the ID-token key: it is made 0600
/// before SQLite opens it (SQLite gives its `-wal` and `-shm` the database's mode), in folders
/// made 0700, and a file an earlier version left readable by others is made 0600 again.
fn private_sqlite_files(url: &str) -> Result<(), HubErr> {
    let path = url.trim_start_matches("sqlite:").trim_start_matches("//");
    let path = Path::new(path.split('?').next().unwrap_or(path));
    if path.as_os_str().is_empty() || path.as_os_str() == ":memory:" {
        return Ok(());
    }
    let failed = |error: std::io::Error| {
        HubErr::config(
            format!("failed to create the hub's database {}: {error}", path.display()),
            "pass --data with a folder this user may write",
        )
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        cowork_core::fs_atomic::create_dir(dir, true).map_err(failed)?;
    }
    // Only where SQLite itself would create it (`mode=rwc`): a URL naming a file that is not
    // there must still fail as SQLite fails.
    if url.contains("mode=rwc") {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(path).map_err(failed)?;
    }
    #[cfg(unix)]
    for suffix in ["", "-wal", "-shm"] {
        use std::os::unix::fs::PermissionsExt;
        let file = std::path::PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::metadata(&file) {
            Ok(meta) if meta.permissions().mode() & 0o077 != 0 => {
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
                    .map_err(failed)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// A database URL without its password, for messages.
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

/// The next value of the hub's change counter, inside `tx`. Every change an `/updates` poll must
/// see stamps the rows it touched with it. On Postgres the counter's row stays locked until `tx`
/// commits, so revisions become visible in the order they were taken: a poller that has seen
/// revision N can never later find a commit stamped below N.
pub async fn next_rev(tx: &mut Tx) -> Result<i64, HubErr> {
    let row =
        sqlx::query("UPDATE counters SET value = value + 1 WHERE name = 'rev' RETURNING value")
            .fetch_one(&mut **tx)
            .await?;
    Ok(row.try_get::<i64, _>(0)?)
}

/// A text column that may be NULL.
pub fn opt_text(row: &AnyRow, column: &str) -> Result<Option<String>, sqlx::Error> {
    row.try_get::<Option<String>, _>(column)
}

/// A 0/1 column as a bool.
pub fn flag(row: &AnyRow, column: &str) -> Result<bool, sqlx::Error> {
    Ok(row.try_get::<i64, _>(column)? != 0)
}
