//! The schema, for both back ends, as numbered steps recorded in `hub_meta.schema_version`. A step
//! is a list of statements; the text is shared except for the column type of bytes (`BLOB` /
//! `BYTEA`), which `{bytes}` stands for. Steps only ever append: a hub opened by an older version
//! refuses a newer schema rather than guess.
//!
//! The store (step 2, issue 42): `store_items` (one row per name, kept as a tombstone when the
//! item is unpublished, so its name, kind and last version stay its own), `store_versions` (the
//! signed manifests, at most 10 per item), `version_blobs` (the blobs each version references),
//! `blob_refs` (the blobs a team server holds: uploaded by its admins, `held_at` refreshed when a
//! push asks about them), `card_blobs` (the images store cards show), `store_keys` (each team
//! server's Ed25519 keys, one current), and the course subscriptions and progress, keyed by course
//! name so they outlive an unpublish. The blob GC (jobs.rs) keeps what any of them references.

use crate::db::{sqlite_url, Backend, Db};
use crate::error::HubErr;
use sqlx::{AssertSqlSafe, Row};
use std::path::Path;

/// One column of a table, as `migrate` copies it.
#[derive(Clone, Copy, Debug)]
pub enum Col {
    /// A text column, by name.
    Text(&'static str),
    /// An integer column (BIGINT), by name.
    Int(&'static str),
    /// A bytes column (BLOB or BYTEA), by name.
    Bytes(&'static str),
}

/// Every table in the order rows can be copied (parents first), with its columns.
pub const TABLES: &[(&str, &[Col])] = {
    use Col::*;
    &[
        (
            "users",
            &[
                Text("id"),
                Text("email"),
                Text("display_name"),
                Text("password_hash"),
                Int("hub_admin"),
                Int("created_at"),
                Int("rev"),
            ],
        ),
        (
            "sessions",
            &[
                Text("id"),
                Text("user_id"),
                Text("method"),
                Text("device_id"),
                Text("device_name"),
                Int("created_at"),
                Int("last_seen_at"),
                Int("revoked_at"),
                Text("refresh_hash"),
                Text("access_hash"),
                Int("access_expires_at"),
            ],
        ),
        ("refresh_used", &[Text("hash"), Text("session_id"), Int("used_at")]),
        ("signing_keys", &[Text("kid"), Bytes("pkcs8"), Int("created_at")]),
        ("orgs", &[Text("id"), Text("slug"), Text("name"), Int("created_at")]),
        ("org_members", &[Text("org_id"), Text("user_id"), Text("role"), Int("joined_at")]),
        ("org_groups", &[Text("org_id"), Text("name"), Text("etag"), Int("updated_at")]),
        ("group_members", &[Text("org_id"), Text("group_name"), Text("user_id")]),
        (
            "team_servers",
            &[
                Text("id"),
                Text("slug"),
                Text("name"),
                Text("description"),
                Text("visibility"),
                Int("requires_approval"),
                Text("org_id"),
                Text("owner_id"),
                Int("created_at"),
                Int("rev"),
                Int("store_rev"),
            ],
        ),
        ("ts_groups", &[Text("team_server_id"), Text("org_id"), Text("group_name")]),
        (
            "members",
            &[
                Text("team_server_id"),
                Text("user_id"),
                Text("role"),
                Int("joined_at"),
                Text("via_group"),
            ],
        ),
        (
            "join_requests",
            &[Text("team_server_id"), Text("user_id"), Text("note"), Int("requested_at")],
        ),
        (
            "run_reports",
            &[
                Text("id"),
                Text("team_server_id"),
                Text("run_id"),
                Text("user_id"),
                Text("app"),
                Text("app_version"),
                Text("routine"),
                Text("device_id"),
                Text("device"),
                Text("status"),
                Int("duration_ms"),
                Int("ts"),
                Text("error_name"),
                Text("error_message"),
                Text("log_tail"),
                Int("received_at"),
            ],
        ),
        (
            "audit",
            &[
                Text("id"),
                Text("team_server_id"),
                Int("ts"),
                Text("actor_id"),
                Text("actor_email"),
                Text("action"),
                Text("target"),
                Text("detail"),
            ],
        ),
        ("blobs", &[Text("sha256"), Int("size"), Int("created_at")]),
        (
            "store_items",
            &[
                Text("team_server_id"),
                Text("name"),
                Text("kind"),
                Text("title"),
                Text("description"),
                Text("tags"),
                Text("latest_version"),
                Int("created_at"),
                Int("updated_at"),
                Text("subtype"),
                Text("icon"),
                Text("banner"),
                Text("screenshots"),
                Text("requires"),
                Int("unpublished_at"),
            ],
        ),
        (
            "store_versions",
            &[
                Text("team_server_id"),
                Text("name"),
                Text("version"),
                Bytes("manifest"),
                Text("signature"),
                Text("published_by"),
                Int("published_at"),
                Int("withdrawn_at"),
                Text("kid"),
                Int("files"),
                Int("size"),
            ],
        ),
        ("version_blobs", &[Text("team_server_id"), Text("name"), Text("version"), Text("sha256")]),
        ("blob_refs", &[Text("team_server_id"), Text("sha256"), Int("held_at")]),
        ("card_blobs", &[Text("team_server_id"), Text("name"), Text("sha256")]),
        (
            "store_keys",
            &[
                Text("team_server_id"),
                Text("kid"),
                Bytes("pkcs8"),
                Text("public_key"),
                Int("created_at"),
                Text("previous_kid"),
                Text("statement"),
                Text("signature"),
                Int("retired_at"),
            ],
        ),
        (
            "course_subscriptions",
            &[Text("team_server_id"), Text("course"), Text("user_id"), Int("subscribed_at")],
        ),
        (
            "course_progress",
            &[
                Text("team_server_id"),
                Text("course"),
                Text("user_id"),
                Text("lesson"),
                Int("done_at"),
            ],
        ),
    ]
};

/// The schema steps. Never edit a step that has shipped; add one.
const STEPS: &[&[&str]] = &[&[
    "CREATE TABLE users (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL, password_hash TEXT, hub_admin BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL, rev BIGINT NOT NULL DEFAULT 0)",
    "CREATE TABLE sessions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, method TEXT NOT NULL, device_id TEXT, device_name TEXT, created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL, revoked_at BIGINT, refresh_hash TEXT NOT NULL, access_hash TEXT NOT NULL, access_expires_at BIGINT NOT NULL)",
    "CREATE INDEX sessions_user ON sessions (user_id)",
    "CREATE TABLE refresh_used (hash TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, used_at BIGINT NOT NULL)",
    "CREATE TABLE web_sessions (id_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)",
    "CREATE TABLE auth_codes (code_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, redirect_uri TEXT NOT NULL, challenge TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, session_id TEXT)",
    "CREATE TABLE device_codes (device_hash TEXT PRIMARY KEY, user_code TEXT NOT NULL UNIQUE, device_id TEXT, device_name TEXT, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, user_id TEXT REFERENCES users(id) ON DELETE CASCADE, denied BIGINT NOT NULL DEFAULT 0, last_poll_at BIGINT NOT NULL DEFAULT 0, poll_interval BIGINT NOT NULL, session_id TEXT)",
    "CREATE TABLE setup_codes (code_hash TEXT PRIMARY KEY, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT)",
    "CREATE TABLE login_attempts (key TEXT PRIMARY KEY, window_start BIGINT NOT NULL, count BIGINT NOT NULL)",
    "CREATE TABLE signing_keys (kid TEXT PRIMARY KEY, pkcs8 {bytes} NOT NULL, created_at BIGINT NOT NULL)",
    "CREATE TABLE orgs (id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, name TEXT NOT NULL, created_at BIGINT NOT NULL)",
    "CREATE TABLE org_members (org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, role TEXT NOT NULL, joined_at BIGINT NOT NULL, PRIMARY KEY (org_id, user_id))",
    "CREATE INDEX org_members_user ON org_members (user_id)",
    "CREATE TABLE org_groups (org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE, name TEXT NOT NULL, etag TEXT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (org_id, name))",
    "CREATE TABLE group_members (org_id TEXT NOT NULL, group_name TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, PRIMARY KEY (org_id, group_name, user_id), FOREIGN KEY (org_id, group_name) REFERENCES org_groups(org_id, name) ON DELETE CASCADE)",
    "CREATE INDEX group_members_user ON group_members (user_id)",
    "CREATE TABLE team_servers (id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT, visibility TEXT NOT NULL, requires_approval BIGINT NOT NULL, org_id TEXT REFERENCES orgs(id) ON DELETE SET NULL, owner_id TEXT NOT NULL REFERENCES users(id), created_at BIGINT NOT NULL, rev BIGINT NOT NULL, store_rev BIGINT NOT NULL)",
    "CREATE TABLE ts_groups (team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, org_id TEXT NOT NULL, group_name TEXT NOT NULL, PRIMARY KEY (team_server_id, org_id, group_name))",
    "CREATE TABLE members (team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, role TEXT NOT NULL, joined_at BIGINT NOT NULL, via_group TEXT, PRIMARY KEY (team_server_id, user_id))",
    "CREATE INDEX members_user ON members (user_id)",
    "CREATE TABLE join_requests (team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, note TEXT, requested_at BIGINT NOT NULL, PRIMARY KEY (team_server_id, user_id))",
    "CREATE TABLE run_reports (id TEXT PRIMARY KEY, team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, run_id TEXT NOT NULL, user_id TEXT NOT NULL, app TEXT NOT NULL, app_version TEXT, routine TEXT NOT NULL, device_id TEXT NOT NULL, device TEXT NOT NULL, status TEXT NOT NULL, duration_ms BIGINT NOT NULL, ts BIGINT NOT NULL, error_name TEXT, error_message TEXT, log_tail TEXT, received_at BIGINT NOT NULL, UNIQUE (team_server_id, run_id))",
    "CREATE INDEX run_reports_page ON run_reports (team_server_id, received_at, id)",
    "CREATE TABLE audit (id TEXT PRIMARY KEY, team_server_id TEXT NOT NULL, ts BIGINT NOT NULL, actor_id TEXT, actor_email TEXT, action TEXT NOT NULL, target TEXT, detail TEXT)",
    "CREATE INDEX audit_page ON audit (team_server_id, ts, id)",
    "CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    "INSERT INTO counters (name, value) VALUES ('rev', 0)",
    "CREATE TABLE jobs (name TEXT PRIMARY KEY, every_ms BIGINT NOT NULL, next_run_at BIGINT NOT NULL, locked_by TEXT, locked_until BIGINT, last_run_at BIGINT, last_outcome TEXT)",
    "CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, size BIGINT NOT NULL, created_at BIGINT NOT NULL)",
    "CREATE TABLE store_items (team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, name TEXT NOT NULL, kind TEXT NOT NULL, title TEXT, description TEXT, tags TEXT, latest_version TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (team_server_id, name))",
    "CREATE TABLE store_versions (team_server_id TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, manifest {bytes} NOT NULL, signature TEXT NOT NULL, published_by TEXT NOT NULL, published_at BIGINT NOT NULL, withdrawn_at BIGINT, PRIMARY KEY (team_server_id, name, version), FOREIGN KEY (team_server_id, name) REFERENCES store_items(team_server_id, name) ON DELETE CASCADE)",
    "CREATE TABLE version_blobs (team_server_id TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (team_server_id, name, version, sha256), FOREIGN KEY (team_server_id, name, version) REFERENCES store_versions(team_server_id, name, version) ON DELETE CASCADE)",
    "CREATE INDEX version_blobs_sha ON version_blobs (sha256)",
    "CREATE TABLE blob_refs (team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, sha256 TEXT NOT NULL, PRIMARY KEY (team_server_id, sha256))",
    "CREATE INDEX blob_refs_sha ON blob_refs (sha256)",
], &[
    // Issue 42: the store's lifecycle.
    "ALTER TABLE store_items ADD COLUMN subtype TEXT",
    "ALTER TABLE store_items ADD COLUMN icon TEXT",
    "ALTER TABLE store_items ADD COLUMN banner TEXT",
    "ALTER TABLE store_items ADD COLUMN screenshots TEXT",
    "ALTER TABLE store_items ADD COLUMN requires TEXT",
    "ALTER TABLE store_items ADD COLUMN unpublished_at BIGINT",
    "ALTER TABLE store_versions ADD COLUMN kid TEXT",
    "ALTER TABLE store_versions ADD COLUMN files BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE store_versions ADD COLUMN size BIGINT NOT NULL DEFAULT 0",
    "CREATE INDEX store_versions_item ON store_versions (team_server_id, name, published_at)",
    "CREATE INDEX version_blobs_ts_sha ON version_blobs (team_server_id, sha256)",
    "ALTER TABLE blob_refs ADD COLUMN held_at BIGINT NOT NULL DEFAULT 0",
    "CREATE TABLE card_blobs (team_server_id TEXT NOT NULL, name TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (team_server_id, name, sha256), FOREIGN KEY (team_server_id, name) REFERENCES store_items(team_server_id, name) ON DELETE CASCADE)",
    "CREATE INDEX card_blobs_sha ON card_blobs (sha256)",
    "CREATE TABLE store_keys (team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, kid TEXT NOT NULL, pkcs8 {bytes} NOT NULL, public_key TEXT NOT NULL, created_at BIGINT NOT NULL, previous_kid TEXT, statement TEXT, signature TEXT, retired_at BIGINT, PRIMARY KEY (team_server_id, kid))",
    "CREATE UNIQUE INDEX store_keys_current ON store_keys (team_server_id) WHERE retired_at IS NULL",
    "CREATE TABLE course_subscriptions (team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, course TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, subscribed_at BIGINT NOT NULL, PRIMARY KEY (team_server_id, course, user_id))",
    "CREATE INDEX course_subscriptions_user ON course_subscriptions (user_id)",
    "CREATE TABLE course_progress (team_server_id TEXT NOT NULL REFERENCES team_servers(id) ON DELETE CASCADE, course TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, lesson TEXT NOT NULL, done_at BIGINT NOT NULL, PRIMARY KEY (team_server_id, course, user_id, lesson))",
]];

// Opening lives here, not in `db`, so the pool below knows nothing of the schema above it.
impl Db {
    /// Open (and create, for SQLite) the database at `url` — `sqlite://<path>` or
    /// `postgres://…` — and bring its schema up to date.
    pub async fn open(url: &str) -> Result<Db, HubErr> {
        let db = Db::connect(url).await?;
        run(&db).await?;
        Ok(db)
    }

    /// The SQLite database of an embedded hub in `dir` (`hub.db`).
    pub async fn open_embedded(dir: &Path) -> Result<Db, HubErr> {
        cowork_core::fs_atomic::create_dir(dir, true).map_err(|error| {
            HubErr::config(
                format!("failed to create the hub's data folder {}: {error}", dir.display()),
                "pass --data with a folder this user may write",
            )
        })?;
        Db::open(&sqlite_url(&dir.join("hub.db"))).await
    }
}

/// Bring the schema up to date (in one transaction per step; two replicas starting at once
/// serialize on `hub_meta`'s row, and the second finds the step done).
pub async fn run(db: &Db) -> Result<(), HubErr> {
    let bytes = match db.backend() {
        Backend::Sqlite => "BLOB",
        Backend::Postgres => "BYTEA",
    };
    sqlx::query("CREATE TABLE IF NOT EXISTS hub_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        .execute(db.pool())
        .await?;
    sqlx::query(
        "INSERT INTO hub_meta (key, value) VALUES ('schema_version', '0') ON CONFLICT (key) DO NOTHING",
    )
    .execute(db.pool())
    .await?;
    loop {
        let mut tx = db.begin().await?;
        // Takes the row's lock on Postgres (SQLite's BEGIN IMMEDIATE already holds the file's).
        let row = sqlx::query(
            "UPDATE hub_meta SET value = value WHERE key = 'schema_version' RETURNING value",
        )
        .fetch_one(&mut *tx)
        .await?;
        let version: usize = row.try_get::<String, _>(0)?.parse().unwrap_or(usize::MAX);
        if version > STEPS.len() {
            return Err(HubErr::config(
                format!("failed to open the database: its schema ({version}) is newer than this hub's ({})", STEPS.len()),
                "run the newer cowork-hub, or restore a backup taken before it upgraded",
            ));
        }
        if version == STEPS.len() {
            tx.commit().await?;
            return Ok(());
        }
        for statement in STEPS[version] {
            let sql = statement.replace("{bytes}", bytes);
            sqlx::query(AssertSqlSafe(sql)).execute(&mut *tx).await?;
        }
        sqlx::query("UPDATE hub_meta SET value = $1 WHERE key = 'schema_version'")
            .bind((version + 1).to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
    }
}

/// A value from `hub_meta` (settings the hub keeps for itself, such as the CSRF key).
pub async fn meta(db: &Db, key: &str) -> Result<Option<String>, HubErr> {
    let row = sqlx::query("SELECT value FROM hub_meta WHERE key = $1")
        .bind(key)
        .fetch_optional(db.pool())
        .await?;
    Ok(match row {
        Some(row) => Some(row.try_get::<String, _>(0)?),
        None => None,
    })
}

/// `hub_meta[key]`, set to `value` unless another replica set it first; answers the one kept.
pub async fn meta_or_insert(db: &Db, key: &str, value: &str) -> Result<String, HubErr> {
    sqlx::query("INSERT INTO hub_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
        .bind(key)
        .bind(value)
        .execute(db.pool())
        .await?;
    Ok(meta(db, key).await?.unwrap_or_else(|| value.to_string()))
}
