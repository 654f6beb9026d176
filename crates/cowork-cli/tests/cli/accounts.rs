//! Accounts against a real hub, on both back ends: `cowork login` in each of its four ways,
//! `logout [--forget]`, the session renewing itself and ending, what `status` and `doctor` say,
//! and the refusals a person meets (a wrong password, a session ended elsewhere), each named.

use crate::hub_support::*;
use crate::support::*;
use serde_json::Value;

fn settings(hub: &Hub) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(hub.url()), "[HUB]");
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]");
    settings.add_filter(r"cowork(\.exe)?\b", "cowork");
    settings
}

fn account_file(env: &Env) -> Value {
    std::fs::read_to_string(env.home.path().join("account.json"))
        .map(|text| serde_json::from_str(&text).unwrap())
        .unwrap_or(Value::Null)
}

#[test]
fn login_with_a_password_remembers_the_hub_and_status_shows_the_account() {
    for backend in Backend::BOTH {
        let hub = Hub::start(backend);
        hub.account("ana@example.com");
        let env = Env::new(runtimes()[0]);
        let out = env.login(&hub, "ana@example.com");
        assert!(out.status.success(), "{backend:?}: {}", transcript(&out));
        assert_eq!(stdout(&out), format!("Signed in to {} as ana@example.com.\n", hub.url()));

        // The hub was named once: a later command needs no --hub, and the session's tokens are
        // in the secret store, never in a file of the root.
        let file = account_file(&env);
        assert_eq!(file["hub"], hub.url());
        assert_eq!(file["signedIn"]["user"]["email"], "ana@example.com");
        assert_eq!(file["signedIn"]["method"], "password");
        let text = std::fs::read_to_string(env.home.path().join("account.json")).unwrap();
        assert!(
            !text.contains("refresh") && !text.contains("access"),
            "no token in account.json: {text}"
        );

        let status = env.json(&["status"]);
        assert_eq!(status["account"]["user"]["email"], "ana@example.com", "{backend:?}");
        assert_eq!(status["account"]["hub"], hub.url());
        let text = stdout(&env.run(&["status"]));
        assert!(text.contains(&format!("account: ana@example.com on {}", hub.url())), "{text}");

        let doctor = stdout(&env.run(&["doctor"]));
        assert!(
            doctor.contains(&format!("ok   account  ana@example.com on {}; the hub takes the session; the session is kept in the secret store (key-file)", hub.url())),
            "{doctor}"
        );
        // A second sign-in (another account) replaces the first, whose session the hub ends.
        hub.account("bob@example.com");
        let out = env.login_with(hub.url(), "bob@example.com", PASSWORD);
        assert!(out.status.success(), "{}", transcript(&out));
        assert_eq!(env.json(&["status"])["account"]["user"]["email"], "bob@example.com");
    }
}

#[test]
fn a_wrong_password_is_refused_as_invalid_credentials_and_signs_nobody_in() {
    for backend in Backend::BOTH {
        let hub = Hub::start(backend);
        hub.account("ana@example.com");
        let env = Env::new(runtimes()[0]);
        let out = env.login_with(hub.url(), "ana@example.com", "not the password");
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        if backend == Backend::Sqlite {
            settings(&hub)
                .bind(|| insta::assert_snapshot!("login_wrong_password", transcript(&out)));
        }
        assert!(account_file(&env)["signedIn"].is_null(), "{backend:?}: nobody is signed in");
        // An address with a path the hub does not have: the hint is about the address.
        let out = env.login_with(&format!("{}/cowork", hub.url()), "ana@example.com", "pw");
        assert!(
            stderr(&out).contains("hint: check the hub's address: its root, as `cowork-hub serve` prints it, with no path"),
            "{}",
            transcript(&out)
        );

        let mut json =
            env.cmd(&["login", "--hub", hub.url(), "--email", "ana@example.com", "--json"]);
        let json = json.stdin(std::process::Stdio::null()).output().unwrap();
        // An empty stdin is an empty password: refused before the hub is asked.
        assert_eq!(json.status.code(), Some(2), "{}", transcript(&json));

        let no_hub = Env::new(runtimes()[0]);
        let out = no_hub.run(&["login"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains("error: failed to sign in: no hub is named on this machine\nhint: name your team's hub once: `cowork login --hub <url>`"), "{}", stderr(&out));
        // A command that needs the hub says so too, rather than send the person to a bare
        // `cowork login` that fails the same way.
        for command in
            [&["team-server", "list", "--json"][..], &["app", "install", "acme/notes", "--json"]]
        {
            let out = no_hub.run(command);
            let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or_default();
            assert_eq!(line["error"]["name"], "NoHub", "{command:?}: {}", transcript(&out));
            assert_eq!(
                line["error"]["hint"],
                "name your team's hub once: `cowork login --hub <url>`"
            );
        }
    }
}

/// A hub whose access tokens live 2 s (under the minute before expiry a client renews them in),
/// so every command renews the session first and each renewal rotates the refresh token; Ana
/// signed in on a machine.
fn short_lived(backend: Backend) -> (Hub, Env) {
    let hub =
        Hub::start_with(backend, |config| config.access_ttl = std::time::Duration::from_secs(2));
    hub.account("ana@example.com");
    let env = Env::new(runtimes()[0]);
    env.signed_in(&hub, "ana@example.com");
    (hub, env)
}

#[test]
fn an_expired_access_token_is_renewed_and_a_session_ended_elsewhere_signs_the_machine_out() {
    for backend in Backend::BOTH {
        let (hub, env) = short_lived(backend);
        for _ in 0..3 {
            let out = env.run(&["team-server", "list"]);
            assert!(out.status.success(), "{backend:?}: renewed: {}", transcript(&out));
        }

        // Signed out on the hub (its sessions page, another device): the next call says so by
        // name, and this machine is signed out.
        let ana = hub.client("ana@example.com");
        let sessions = hub.block_on(ana.sessions()).unwrap().sessions;
        let cli = sessions
            .iter()
            .find(|s| s.device_id.is_some() && !s.current)
            .expect("the CLI's session");
        hub.block_on(ana.revoke_session(&cli.id)).unwrap();
        let out = env.run(&["team-server", "list", "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(line["error"]["name"], "SessionRevoked", "{backend:?}: {line}");
        assert_eq!(line["error"]["hint"], "sign in again: `cowork login`");
        assert!(crate::support::eventually(std::time::Duration::from_secs(5), || account_file(
            &env
        )["signedIn"]
            .is_null()));
        assert!(stdout(&env.run(&["status"]))
            .contains(&format!("account: signed out (hub {}: `cowork login`)", hub.url())));
        let out = env.run(&["team-server", "list"]);
        assert!(
            stderr(&out).contains("this machine is not signed in to Cowork"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn login_on_a_server_uses_the_device_flow_and_prints_the_address_and_the_code() {
    for backend in Backend::BOTH {
        let hub = Hub::start(backend);
        hub.account("ana@example.com");
        let env = Env::new(runtimes()[0]);
        // No display: the device flow.
        let mut child = env.spawn_login(&["login", "--hub", hub.url()], false);
        let mut lines = Lines::of(&mut child);
        let address = lines.until(|line| {
            line.strip_prefix("To sign in, open ")
                .map(|rest| rest.split(' ').next().unwrap().to_string())
        });
        let code = lines.until(|line| {
            (line.len() == 9 && line.as_bytes()[4] == b'-').then(|| line.to_string())
        });
        assert_eq!(address, format!("{}/device", hub.url()));
        hub.block_on(hub.browser("ana@example.com").approve_device(&address, &code));
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{backend:?}: {}", lines.rest());
        assert_eq!(stdout(&out), format!("Signed in to {} as ana@example.com.\n", hub.url()));
        assert_eq!(account_file(&env)["signedIn"]["method"], "device");
    }
}

#[test]
fn login_pastes_the_address_the_browser_ends_on_and_refuses_another_sign_ins() {
    let hub = Hub::start(Backend::Sqlite);
    hub.account("ana@example.com");
    let env = Env::new(runtimes()[0]);
    let browser = hub.browser("ana@example.com");

    // Someone else's sign-in pasted here (another state) is refused by name.
    let mut child = env.spawn_login(&["login", "--hub", hub.url(), "--paste"], false);
    let mut lines = Lines::of(&mut child);
    let url = lines.until(|line| line.starts_with("http").then(|| line.to_string()));
    let foreign = url.replace("state=", "state=x");
    let ended_on = hub.block_on(browser.approve(&foreign));
    child.stdin.take().unwrap().write_all(format!("{ended_on}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        lines.rest().contains("it belongs to another sign-in\nhint: paste the whole address"),
        "a foreign state is refused"
    );
    assert!(account_file(&env)["signedIn"].is_null());

    let mut child = env.spawn_login(&["login", "--hub", hub.url(), "--paste", "--json"], false);
    let mut lines = Lines::of(&mut child);
    let url = lines.until(|line| line.starts_with("http").then(|| line.to_string()));
    assert!(url.contains("%2Foauth%2Fdone&"), "the redirect is the hub's paste page: {url}");
    let ended_on = hub.block_on(browser.approve(&url));
    assert_eq!(ended_on.path(), "/oauth/done");
    child.stdin.take().unwrap().write_all(format!("{ended_on}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", lines.rest());
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(line["user"]["email"], "ana@example.com");
    assert_eq!(account_file(&env)["signedIn"]["method"], "paste");
}

use std::io::Write;

#[test]
fn login_on_a_desktop_comes_back_from_the_browser_to_a_loopback_port() {
    let hub = Hub::start(Backend::Sqlite);
    hub.account("ana@example.com");
    let env = Env::new(runtimes()[0]);
    let mut child = env.spawn_login(&["login", "--hub", hub.url()], true);
    let mut lines = Lines::of(&mut child);
    let url = lines.until(|line| line.starts_with("http").then(|| line.to_string()));
    assert!(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"), "a loopback redirect: {url}");
    let browser = hub.browser("ana@example.com");
    let back = hub.block_on(browser.approve(&url));
    assert_eq!((back.host_str(), back.path()), (Some("127.0.0.1"), "/callback"));
    let page = hub.block_on(browser.get(back.as_str()));
    assert!(page.contains("Signed in to Cowork"), "{page}");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", lines.rest());
    assert_eq!(account_file(&env)["signedIn"]["method"], "browser");
}

#[test]
fn logout_revokes_the_session_and_forget_removes_the_accounts_data_but_no_workspace_file() {
    for backend in Backend::BOTH {
        let hub = Hub::start(backend);
        hub.account("ana@example.com");
        let env = Env::new(runtimes()[0]);
        env.signed_in(&hub, "ana@example.com");
        assert!(env.run(&["team-server", "create", "Acme apps"]).status.success());
        let ana = hub.client("ana@example.com");
        let before = hub.block_on(ana.sessions()).unwrap().sessions.len();

        // What --forget removes, and a workspace file it must not.
        let home = env.home.path();
        std::fs::write(home.join("onboarding.json"), "{}").unwrap();
        std::fs::write(
            home.join("desktop.json"),
            r#"{"last": "/w", "recent": ["/w"], "doNotDisturb": true}"#,
        )
        .unwrap();
        std::fs::create_dir_all(home.join("browser/Default")).unwrap();
        let uid = account_file(&env)["signedIn"]["user"]["uid"].as_str().unwrap().to_string();
        std::fs::write(
            home.join("team-servers.json"),
            format!(r#"{{"uid": "{uid}", "hub": "{}", "teamServers": []}}"#, hub.url()),
        )
        .unwrap();
        std::fs::create_dir_all(env.file(".cowork")).unwrap();
        std::fs::write(env.file("notes.md"), "mine").unwrap();

        assert_eq!(
            secrets_of(&env, &uid),
            ["cowork.session"],
            "the session is kept in the secret store"
        );
        let out = env.run(&["logout", "--forget"]);
        assert!(out.status.success(), "{}", transcript(&out));
        if backend == Backend::Sqlite {
            let mut settings = settings(&hub);
            settings.add_filter(&regex_escape(&path_str(home)), "[ROOT]");
            settings.bind(|| insta::assert_snapshot!("logout_forget", transcript(&out)));
        }
        let after = hub.block_on(ana.sessions()).unwrap().sessions.len();
        assert_eq!(after, before - 1, "{backend:?}: the CLI's session ended on the hub");
        for gone in ["onboarding.json", "team-servers.json", "browser"] {
            assert!(!home.join(gone).exists(), "{gone}");
        }
        let desktop: Value =
            serde_json::from_str(&std::fs::read_to_string(home.join("desktop.json")).unwrap())
                .unwrap();
        assert_eq!(desktop, serde_json::json!({"doNotDisturb": true}));
        assert_eq!(std::fs::read_to_string(env.file("notes.md")).unwrap(), "mine");
        assert!(
            secrets_of(&env, &uid).is_empty(),
            "the account's records are gone from the secret store"
        );
        assert_eq!(account_file(&env)["hub"], hub.url(), "the hub stays named");

        let again = env.run(&["logout"]);
        assert_eq!(stdout(&again), "Not signed in: nothing to sign out.\n");
        // --json: who was signed out, from which hub, as one line.
        env.signed_in(&hub, "ana@example.com");
        let out = env.json(&["logout"]);
        assert_eq!(
            out,
            serde_json::json!({
                "ok": true,
                "signedOut": {"email": "ana@example.com", "hub": hub.url()},
                "notRevoked": null,
                "forgotten": [],
            })
        );
        assert!(env.json(&["logout"])["signedOut"].is_null());
    }
}

/// The names of the secret-store records of the Cowork account `uid` in `env`'s root.
fn secrets_of(env: &Env, uid: &str) -> Vec<String> {
    let root = cowork_core::paths::Root::new(env.home.path());
    cowork_secrets::SecretStore::open(&root, &format!("cowork-account:{uid}"))
        .unwrap()
        .list()
        .unwrap()
}

#[test]
fn a_damaged_account_file_is_named_and_a_new_sign_in_sets_it_aside() {
    let hub = Hub::start(Backend::Sqlite);
    hub.account("ana@example.com");
    let env = Env::new(runtimes()[0]);
    let damaged = format!("{{\"hub\": \"{}\", \"signedIn\": {{\n", hub.url());
    std::fs::write(env.home.path().join("account.json"), &damaged).unwrap();
    let out = env.run(&["team-server", "list"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let err = stderr(&out);
    assert!(err.contains("account.json is damaged: EOF while parsing"), "{err}");
    assert!(
        err.contains(
            "hint: sign in afresh: `cowork login --hub <url>` sets the damaged file aside"
        ),
        "{err}"
    );
    // `login` gets past it (it could not: every command failed on the file, login too).
    env.signed_in(&hub, "ana@example.com");
    assert_eq!(account_file(&env)["signedIn"]["user"]["email"], "ana@example.com");
    let aside = std::fs::read_to_string(env.home.path().join("account.json.damaged")).unwrap();
    assert_eq!(aside, damaged, "kept to look at");
    assert!(env.run(&["team-server", "list"]).status.success());
}

#[test]
fn a_machine_without_a_keychain_or_a_key_file_is_told_how_to_keep_the_session() {
    let hub = Hub::start(Backend::Sqlite);
    hub.account("ana@example.com");
    let env = Env::new(runtimes()[0]);
    let mut login = env.cmd(&["login", "--hub", hub.url(), "--email", "ana@example.com"]);
    // No session bus: no keychain answers.
    login
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/cowork-test-bus")
        .env_remove(cowork_secrets::KEY_FILE_ENV);
    let out = with_stdin(login, &format!("{PASSWORD}\n"));
    if cfg!(target_os = "linux") {
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        assert!(stderr(&out).contains("cowork secrets init --key-file"), "{}", stderr(&out));
        assert!(account_file(&env)["signedIn"].is_null());
        // The session the hub made for it is signed out there, not left live and unseen.
        let sessions = hub.block_on(hub.client("ana@example.com").sessions()).unwrap().sessions;
        assert_eq!(sessions.iter().filter(|s| !s.current).count(), 0, "{sessions:?}");
    }
}

#[test]
fn commands_renewing_the_session_at_once_never_spend_a_refresh_token_twice() {
    for backend in Backend::BOTH {
        // Started together, the commands renew one after the other under the account lock,
        // each reading the tokens the last one saved. Two spending the same refresh token would
        // sign the session out (the hub takes a reused one for a stolen one).
        let (_hub, env) = short_lived(backend);
        let children: Vec<_> = (0..6)
            .map(|_| {
                env.cmd(&["team-server", "list", "--json"])
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{backend:?}: {}", transcript(&out));
        }
        let out = env.run(&["team-server", "list"]);
        assert!(out.status.success(), "{backend:?}: still signed in: {}", transcript(&out));
    }
}
