//! A real team hub in the test process (cowork-hub's `test_support`, on SQLite + a folder or on
//! Postgres + SeaweedFS), accounts made straight in its database, and a scripted browser for the
//! hub's sign-in pages (a cookie jar, no JavaScript), for the `cowork login|org|team-server` tests.

use crate::support::{stderr, stdout, with_stdin, Env};
pub use cowork_hub::test_support::Backend;
use cowork_hub::test_support::TestHub;
use cowork_wire::hub::client::HubClient;
use cowork_wire::hub::{NewAccount, PasswordSignIn};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// Every account's password in these tests.
pub const PASSWORD: &str = "correct horse battery";

/// A hub serving on a free loopback port; its runtime lives as long as it does.
pub struct Hub {
    pub hub: TestHub,
    runtime: tokio::runtime::Runtime,
}

impl Hub {
    /// A hub on `backend` with a test hub's defaults (device-flow interval 1 s).
    pub fn start(backend: Backend) -> Hub {
        Hub::start_with(backend, |_| {})
    }

    /// A hub after `tweak` changed its configuration (`access_ttl` for expiry tests).
    pub fn start_with(
        backend: Backend,
        tweak: impl FnOnce(&mut cowork_hub::config::Config),
    ) -> Hub {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let hub = runtime.block_on(cowork_hub::test_support::start(backend, tweak));
        Hub { hub, runtime }
    }

    pub fn url(&self) -> &str {
        &self.hub.url
    }

    /// Runs `future` on the hub's runtime.
    pub fn block_on<T>(&self, future: impl std::future::Future<Output = T>) -> T {
        self.runtime.block_on(future)
    }

    /// Makes a password account (its name: the email's local part).
    pub fn account(&self, email: &str) {
        let new = NewAccount {
            email: email.into(),
            password: PASSWORD.into(),
            display_name: None,
            hub_admin: false,
        };
        self.block_on(cowork_hub::accounts::create(&self.hub.running.hub.db, &new))
            .unwrap_or_else(|e| panic!("failed to create {email}: {e}"));
    }

    /// A typed client signed in as `email` (the test's own session, not the CLI's).
    pub fn client(&self, email: &str) -> HubClient {
        let answer = self
            .block_on(self.hub.client().sign_in_password(&PasswordSignIn {
                email: email.into(),
                password: PASSWORD.into(),
                device_id: None,
                device_name: Some("the test".into()),
            }))
            .unwrap_or_else(|e| panic!("failed to sign {email} in: {e}"));
        self.hub.client().with_token(answer.access_token)
    }

    /// A browser with a cookie jar, signed in to the hub's pages as `email`.
    pub fn browser(&self, email: &str) -> Browser {
        let http = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let browser = Browser { http, url: self.url().to_string() };
        self.block_on(async {
            let page = browser.page(&format!("{}/signin", browser.url)).await;
            let form = [
                ("csrf", csrf_of(&page)),
                ("next", "/sessions".into()),
                ("email", email.into()),
                ("password", PASSWORD.into()),
            ];
            let answer = browser.post("/signin", &form).await;
            assert_eq!(
                answer.status(),
                reqwest::StatusCode::SEE_OTHER,
                "{email} signs in to the hub's pages"
            );
        });
        browser
    }
}

/// What the sign-in and store tests need of a hub, wherever it runs: its address, and accounts.
pub trait AnyHub {
    /// Its address.
    fn url(&self) -> &str;
    /// Makes a password account ([`PASSWORD`]; its name: the email's local part).
    fn account(&self, email: &str);
}

impl AnyHub for Hub {
    fn url(&self) -> &str {
        Hub::url(self)
    }

    fn account(&self, email: &str) {
        Hub::account(self, email)
    }
}

/// A hub served by another build's `cowork` binary (`cowork hub serve` on SQLite + a folder, a
/// process of its own, periodic jobs off as in [`Hub`]): what a benchmark of a release build runs
/// against, so that neither the hub nor the CLI is this test's debug build. Stopped on drop.
pub struct HubProcess {
    child: Child,
    url: String,
    bin: PathBuf,
    data: tempfile::TempDir,
}

impl HubProcess {
    /// Starts `bin hub serve` on a free loopback port; returns once it says where it serves.
    pub fn start(bin: &Path) -> HubProcess {
        let data = tempfile::tempdir().unwrap();
        let mut child = HubProcess::command(bin, &data)
            .args(["serve", "--listen", "127.0.0.1:0", "--no-jobs"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("failed to start {} hub serve: {e}", bin.display()));
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut seen = String::new();
        // "cowork-hub: serving http://127.0.0.1:PORT (SQLite; blobs: …)": the readiness line.
        let url = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.kill();
                panic!("{} hub serve ended before serving:\n{seen}", bin.display());
            };
            seen.push_str(&line);
            seen.push('\n');
            if let Some(rest) = line.strip_prefix("cowork-hub: serving ") {
                break rest.split_whitespace().next().unwrap().to_string();
            }
        };
        // Keep reading what it logs, so a full pipe never blocks it.
        std::thread::spawn(move || lines.for_each(drop));
        HubProcess { child, url, bin: bin.to_path_buf(), data }
    }

    /// `bin hub …` on the hub's folder, none of the caller's hub settings leaking in.
    fn command(bin: &Path, data: &tempfile::TempDir) -> Command {
        let mut command = Command::new(bin);
        command
            .arg("hub")
            .env("COWORK_HUB_DATA", data.path())
            .env("COWORK_HOME", data.path())
            .env_remove("COWORK_HUB_DATABASE")
            .env_remove("COWORK_HUB_BLOBS");
        command
    }
}

impl AnyHub for HubProcess {
    fn url(&self) -> &str {
        &self.url
    }

    fn account(&self, email: &str) {
        let mut add = HubProcess::command(&self.bin, &self.data);
        add.args(["user", "add", "--email", email, "--password-stdin"]);
        let out = with_stdin(add, PASSWORD);
        assert!(out.status.success(), "failed to create {email}: {}", stderr(&out));
    }
}

impl Drop for HubProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of `name=csrf` in a hub page.
pub fn csrf_of(html: &str) -> String {
    let at = html.find("name=csrf value=\"").expect("a form with a CSRF token")
        + "name=csrf value=\"".len();
    html[at..].split('"').next().unwrap().to_string()
}

/// A person's browser on the hub's pages.
pub struct Browser {
    http: reqwest::Client,
    url: String,
}

impl Browser {
    /// A page's HTML.
    async fn page(&self, url: &str) -> String {
        self.http.get(url).send().await.unwrap().text().await.unwrap()
    }

    /// Posts a form to `path` on the hub, as the page's button does.
    async fn post<T: serde::Serialize + ?Sized>(&self, path: &str, form: &T) -> reqwest::Response {
        self.http.post(format!("{}{path}", self.url)).form(form).send().await.unwrap()
    }

    /// Approves the authorization request `authorize` (the address `cowork login` printed) on its
    /// consent page: where the hub sends the browser next (the loopback port, or the paste page).
    pub async fn approve(&self, authorize: &str) -> reqwest::Url {
        let page = self.page(authorize).await;
        let asked = reqwest::Url::parse(authorize).unwrap();
        let mut form: Vec<(String, String)> =
            vec![("csrf".into(), csrf_of(&page)), ("decision".into(), "approve".into())];
        form.extend(asked.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())));
        let answer = self.post("/oauth/authorize", &form).await;
        assert_eq!(
            answer.status(),
            reqwest::StatusCode::SEE_OTHER,
            "the consent page sends the browser on"
        );
        reqwest::Url::parse(answer.headers()["location"].to_str().unwrap()).unwrap()
    }

    /// Types `user_code` on the device page and approves it.
    pub async fn approve_device(&self, verification_uri: &str, user_code: &str) {
        let page = self.page(verification_uri).await;
        let form = [
            ("csrf", csrf_of(&page)),
            ("user_code", user_code.to_string()),
            ("decision", "approve".into()),
        ];
        let done = self.post("/device", &form).await.text().await.unwrap();
        assert!(done.contains("is signed in"), "the device page approves the code: {done}");
    }

    /// Follows a redirect to the loopback port of `cowork login` (the browser coming back).
    pub async fn get(&self, url: &str) -> String {
        reqwest::get(url).await.unwrap().text().await.unwrap()
    }
}

impl Env {
    /// `cowork login --hub <hub> --email <email>` with the password on stdin.
    pub fn login(&self, hub: &impl AnyHub, email: &str) -> Output {
        self.login_with(hub.url(), email, PASSWORD)
    }

    /// `cowork login --hub <url> --email <email>`, `password` on stdin. The root keeps its secrets
    /// with a key file (`cowork secrets init --key-file`), so the tests need no keychain.
    pub fn login_with(&self, url: &str, email: &str, password: &str) -> Output {
        self.key_file();
        let login = self.cmd(&["login", "--hub", url, "--email", email]);
        with_stdin(login, &format!("{password}\n"))
    }

    /// Signs in and checks it worked.
    pub fn signed_in(&self, hub: &impl AnyHub, email: &str) -> &Self {
        let out = self.login(hub, email);
        assert!(out.status.success(), "login {email}: {}{}", stdout(&out), stderr(&out));
        self
    }

    /// Keeps this root's secret-store key in a 0600 file (once).
    pub fn key_file(&self) {
        if !self.home.path().join("secrets.key").exists() {
            let out = self.run(&["secrets", "init", "--key-file"]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
    }

    /// A `cowork` command started with piped stdin, stdout and stderr (an interactive sign-in),
    /// without a display unless `display`.
    pub fn spawn_login(&self, args: &[&str], display: bool) -> Child {
        self.key_file();
        let mut cmd = self.cmd(args);
        cmd.env_remove("WAYLAND_DISPLAY").env("BROWSER", "true");
        if display {
            cmd.env("DISPLAY", ":77");
        } else {
            cmd.env_remove("DISPLAY");
        }
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
    }
}

/// A command's stderr, read line by line while it runs (what an interactive sign-in prints).
pub struct Lines {
    reader: BufReader<std::process::ChildStderr>,
    /// Every line read so far.
    pub seen: String,
}

impl Lines {
    /// `child`'s stderr (taken from it).
    pub fn of(child: &mut Child) -> Lines {
        Lines { reader: BufReader::new(child.stderr.take().unwrap()), seen: String::new() }
    }

    /// Reads lines until `pick` finds what it wants (the address to open, a code).
    pub fn until<T>(&mut self, mut pick: impl FnMut(&str) -> Option<T>) -> T {
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).unwrap();
            assert!(n > 0, "the command ended before printing what was awaited:\n{}", self.seen);
            self.seen.push_str(&line);
            if let Some(found) = pick(line.trim()) {
                return found;
            }
        }
    }

    /// The rest of stderr, once the command ended.
    pub fn rest(mut self) -> String {
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.reader, &mut rest).unwrap();
        self.seen + &rest
    }
}
