//! The test rig: a real OpenID provider (oidc-provider under Node, `tests/provider/`) started
//! once for the whole binary, and a scripted browser that signs in on its pages.

use parking_lot::Mutex;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::Duration;

use cowork_oauth::{store_key, Config, MemoryStore, Provider, TokenStore};
use reqwest::{StatusCode, Url};

/// The capability that signs in through its own client (`cowork-short`, short-lived tokens).
pub const OWN_CLIENT_CAPABILITY: &str = "gcal-own";

/// How long the provider may take to print "ready".
const STARTUP: Duration = Duration::from_secs(30);

/// The running provider and the `oauth.json` pointing the `google` preset at it.
pub struct TestProvider {
    pub base: String,
    pub config: Config,
    /// The `oauth.json` that points the presets at this provider (a Cowork root can copy it).
    #[allow(dead_code)] // Read by cowork-cli's sign-in test, which includes this file.
    pub config_file: PathBuf,
    /// Held so the provider lives as long as the test binary: it exits when its stdin closes.
    _process: Child,
    _config_dir: tempfile::TempDir,
}

impl TestProvider {
    /// The shared sign-in (`cowork-test` client, hour-long access tokens).
    pub fn google(&self) -> Provider {
        self.config.provider("google").expect("oauth.json names google")
    }

    /// The `ownClient` sign-in (`cowork-short`, 5-second access tokens).
    pub fn own_client(&self) -> Provider {
        self.config
            .own_client(OWN_CLIENT_CAPABILITY, "google")
            .expect("oauth.json names the own client")
    }

    /// A refresh with `refresh_token` straight at the token endpoint, as nobody but the
    /// provider's bookkeeping would see it: the OAuth error code, or `None` if it worked.
    pub async fn raw_refresh_error(&self, client_id: &str, refresh_token: &str) -> Option<String> {
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.base))
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token),
                ("client_id", client_id),
            ])
            .send()
            .await
            .expect("the provider answers");
        if response.status().is_success() {
            return None;
        }
        let body: serde_json::Value = response.json().await.expect("an OAuth error body");
        Some(body["error"].as_str().expect("an error code").to_owned())
    }
}

/// The provider, started on first use; `None` (with the reason printed) when Node or npm is
/// missing outside CI. In CI (`CI` set) a missing tool fails the test instead.
pub fn provider() -> Option<&'static TestProvider> {
    static PROVIDER: OnceLock<Result<TestProvider, String>> = OnceLock::new();
    let in_ci = std::env::var_os("CI").is_some();
    let started = PROVIDER.get_or_init(|| {
        let started = start_provider();
        if let (Err(reason), false) = (&started, in_ci) {
            // Once, and past the harness's capture of `eprintln!`, so a skip is seen.
            let mut stderr = std::io::stderr().lock();
            writeln!(stderr, "skipping the sign-in tests: {reason}").expect("stderr is open");
        }
        started
    });
    match started {
        Ok(provider) => Some(provider),
        Err(reason) if in_ci => panic!("{reason}"),
        Err(_) => None,
    }
}

/// `tests/provider` beside this file's folder — found from this file itself, because other crates'
/// tests include it (cowork-cli's sign-in test) and their manifest folder is not this one.
fn provider_dir() -> PathBuf {
    // file!() is relative to the workspace root, two levels above any crate's manifest folder.
    let this = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(file!());
    this.parent()
        .and_then(Path::parent)
        .expect("tests/sign_in/support.rs has a tests folder")
        .join("provider")
}

fn start_provider() -> Result<TestProvider, String> {
    let dir = provider_dir();
    for tool in ["node", "npm"] {
        if Command::new(tool).arg("--version").output().is_err() {
            return Err(format!("`{tool}` is not installed; the sign-in tests need Node 20+"));
        }
    }
    if !dir.join("node_modules").exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .stdout(Stdio::null())
            .status()
            .map_err(|error| format!("failed to run npm ci: {error}"))?;
        if !status.success() {
            return Err(format!("npm ci --prefix {} failed: {status}", dir.display()));
        }
    }

    let port = free_port();
    let mut child = Command::new("node")
        .arg(dir.join("server.mjs"))
        .arg(port.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("failed to start node: {error}"))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let errors = Arc::new(Mutex::new(String::new()));
    let errors_in = errors.clone();
    // Drained all along, so the provider never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        errors_in.lock().push_str(&text);
    });
    let (ready, is_ready) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line == "ready" {
                let _ = ready.send(());
            }
        }
    });
    if is_ready.recv_timeout(STARTUP).is_err() {
        let _ = child.kill();
        let _ = child.wait();
        std::thread::sleep(Duration::from_millis(100));
        panic!(
            "the test provider did not print ready within {STARTUP:?}; it wrote:\n{}",
            errors.lock()
        );
    }

    let base = format!("http://127.0.0.1:{port}");
    let config_dir = tempfile::tempdir().expect("a temp dir");
    let path = config_dir.path().join("oauth.json");
    let oauth_json = serde_json::json!({
        "providers": {"google": {
            "issuer": base,
            "authorizationEndpoint": format!("{base}/auth"),
            "tokenEndpoint": format!("{base}/token"),
            "revocationEndpoint": format!("{base}/token/revocation"),
            "userinfoEndpoint": format!("{base}/me"),
            "clientId": "cowork-test",
            "extraScopes": ["openid", "email", "offline_access"]
        }},
        "ownClients": {OWN_CLIENT_CAPABILITY: {"clientId": "cowork-short"}}
    });
    std::fs::write(&path, oauth_json.to_string()).expect("oauth.json written");
    let config = Config::load(&path).expect("the test oauth.json is valid");
    Ok(TestProvider { base, config, config_file: path, _process: child, _config_dir: config_dir })
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// What the person does on the consent page.
#[derive(Clone, Copy)]
pub enum Consent {
    Allow,
    Deny,
}

/// A browser with a cookie jar that follows the provider's pages by script.
pub struct Browser {
    http: reqwest::Client,
}

impl Browser {
    pub fn new() -> Self {
        let http = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client");
        Self { http }
    }

    pub async fn get(&self, url: &str) -> reqwest::Response {
        self.http.get(url).send().await.expect("the page answers")
    }

    /// Opens `auth_url`, logs in as `login` if asked, answers the consent page, and follows the
    /// redirect to `redirect_uri`: returns the loopback listener's answer.
    pub async fn sign_in(
        &self,
        auth_url: &str,
        redirect_uri: &str,
        login: &str,
        consent: Consent,
    ) -> reqwest::Response {
        let callback = self.callback_url(auth_url, redirect_uri, login, consent).await;
        self.get(callback.as_str()).await
    }

    /// [`Browser::sign_in`] up to the redirect to `redirect_uri`, not taken: the callback address
    /// with its code, for a test to call (or replay) itself.
    pub async fn callback_url(
        &self,
        auth_url: &str,
        redirect_uri: &str,
        login: &str,
        consent: Consent,
    ) -> Url {
        let mut url = Url::parse(auth_url).expect("an absolute auth URL");
        let mut response = self.get(url.as_str()).await;
        for _ in 0..20 {
            if response.status().is_redirection() {
                let location = response.headers()["location"].to_str().expect("ascii");
                url = url.join(location).expect("a valid Location");
                if url.as_str().starts_with(redirect_uri) {
                    return url;
                }
                response = self.get(url.as_str()).await;
                continue;
            }
            assert_eq!(response.status(), StatusCode::OK, "at {url}");
            let page = response.text().await.expect("a page");
            response = if page.contains(r#"name="login""#) {
                let action = url.join(&attribute(&page, "action=\"", "")).expect("a form action");
                self.post(action, &[("prompt", "login"), ("login", login), ("password", "x")]).await
            } else if page.contains(r#"value="consent""#) {
                match consent {
                    Consent::Allow => {
                        let action = url.join(&attribute(&page, "action=\"", "")).unwrap();
                        self.post(action, &[("prompt", "consent")]).await
                    }
                    Consent::Deny => {
                        let abort = url.join(&attribute(&page, "href=\"", "/abort")).unwrap();
                        self.get(abort.as_str()).await
                    }
                }
            } else {
                panic!("an unexpected page at {url}:\n{page}");
            };
        }
        panic!("the provider never redirected to {redirect_uri}");
    }

    async fn post(&self, url: Url, form: &[(&str, &str)]) -> reqwest::Response {
        self.http.post(url).form(form).send().await.expect("the form posts")
    }
}

/// The value of the first attribute opened by `opening` (`action="`) that ends with `suffix`,
/// read loosely from oidc-provider's devInteractions HTML.
fn attribute(page: &str, opening: &str, suffix: &str) -> String {
    page.match_indices(opening)
        .filter_map(|(at, _)| {
            let rest = &page[at + opening.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .find(|value| value.ends_with(suffix))
        .unwrap_or_else(|| panic!("no {opening}…{suffix}\" in the page:\n{page}"))
        .replace("&amp;", "&")
}

/// The JSON stored under `key`, parsed.
pub fn stored(store: &MemoryStore, key: &str) -> Option<serde_json::Value> {
    store
        .load(key)
        .expect("the memory store never fails")
        .map(|json| serde_json::from_str(&json).expect("stored JSON"))
}

/// The shared sign-in's store key.
pub fn google_key() -> String {
    store_key("google")
}

/// Scopes as owned strings.
pub fn scopes(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}
