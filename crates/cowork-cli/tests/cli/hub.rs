//! `cowork hub …`: the team hub from the CLI (the same code as the `cowork-hub` binary; the hub's
//! own tests, on both back ends, are in crates/cowork-hub/tests/hub).

use crate::support::*;
use std::process::{Output, Stdio};
use std::time::Duration;

#[test]
fn hub_serve_refuses_plain_http_beyond_loopback() {
    let env = Env::new("node");
    let data = env.home.path().join("hub");
    let out = env.run(&["hub", "serve", "--data", &path_str(&data), "--listen", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let err = stderr(&out);
    assert!(
        err.contains("failed to start the hub: it would serve plain HTTP on 0.0.0.0:0"),
        "{err}"
    );
    assert!(
        err.contains("hint: put HTTPS in front of it (a reverse proxy) and pass --behind-https"),
        "{err}"
    );
}

/// `cowork hub user add --data <data> --email <email> --password-stdin [more]`, the password on
/// stdin.
fn user_add(env: &Env, data: &str, email: &str, password: &str, more: &[&str]) -> Output {
    let mut args = vec!["hub", "user", "add", "--data", data, "--email", email, "--password-stdin"];
    args.extend_from_slice(more);
    with_stdin(env.cmd(&args), &format!("{password}\n"))
}

#[test]
fn hub_user_add_reads_the_password_from_stdin_and_serve_signs_the_account_in() {
    let env = Env::new("node");
    let data = path_str(&env.home.path().join("hub"));
    let out = user_add(&env, &data, "Ana@Example.com", "correct horse battery", &[]);
    assert_eq!(stdout(&out), "created ana@example.com (hub admin)\n", "{}", transcript(&out));
    assert!(stderr(&out).contains("held no hub: this made a new one"), "{}", transcript(&out));
    let short = env.run(&[
        "hub",
        "user",
        "add",
        "--data",
        &data,
        "--email",
        "bo@example.com",
        "--password-stdin",
    ]);
    assert_eq!(short.status.code(), Some(1));
    assert!(
        stderr(&short).contains("failed to accept the password: it needs 8 to 1,024 characters"),
        "{}",
        transcript(&short)
    );
    let out = user_add(&env, &data, "cy@example.com", "correct horse battery", &["--json"]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap(),
        serde_json::json!({"ok": true, "email": "cy@example.com", "hubAdmin": false, "newHub": false}),
        "{}",
        transcript(&out)
    );

    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut serve = env
        .cmd(&["hub", "serve", "--data", &data, "--listen", &listen])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let http = reqwest::blocking::Client::new();
    let health = format!("http://{listen}/health");
    assert!(
        eventually(Duration::from_secs(30), || http
            .get(&health)
            .send()
            .is_ok_and(|r| r.status().is_success())),
        "the hub answers"
    );
    let sign_in = cowork_wire::hub::PasswordSignIn {
        email: "ana@example.com".into(),
        password: "correct horse battery".into(),
        device_id: None,
        device_name: None,
    };
    let signed_in: cowork_wire::hub::TokenAnswer = http
        .post(format!("http://{listen}/api/auth/password"))
        .json(&sign_in)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(signed_in.me.user.email, "ana@example.com");
    assert!(
        !std::path::Path::new(&data).join("setup-link").exists(),
        "no setup link once an account exists"
    );
    // The database holds every store's signing key and the ID-token key: nobody else reads it
    // (it was a 0644 file in a 0755 folder), nor the published files.
    use std::os::unix::fs::PermissionsExt;
    let mode = |name: &str| {
        let path = std::path::Path::new(&data).join(name);
        std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0)
    };
    assert_eq!(
        [mode(""), mode("hub.db"), mode("hub.db-wal"), mode("blobs")],
        [0o700, 0o600, 0o600, 0o700]
    );
    let _ = std::process::Command::new("kill").arg(serve.id().to_string()).status();
    let status = serve.wait().unwrap();
    assert!(status.success(), "SIGTERM stops it cleanly: {status:?}");

    // A database an earlier version left readable is made private at the next open.
    let db = std::path::Path::new(&data).join("hub.db");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let added = user_add(&env, &data, "bo@example.com", "another long password", &[]);
    assert!(added.status.success(), "{}", transcript(&added));
    assert_eq!(stderr(&added), "", "the hub was there: no note");
    assert_eq!(mode("hub.db"), 0o600);
}
