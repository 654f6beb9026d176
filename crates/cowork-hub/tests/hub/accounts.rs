//! Accounts, sessions and tokens: password sign-in, its rate limits, refresh rotation and reuse,
//! expiry, revocation, ID tokens, account creation rights, the setup link.

use crate::support::*;
use cowork_hub::test_support::start;
use cowork_wire::hub::{HubErrorName, NewAccount, OAuthErrorCode, PasswordSignIn};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn password_sign_in_answers_who_signed_in_and_refuses_a_wrong_password() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, tokens) = account(&hub, "Ana@Example.com").await;
        assert_eq!(
            tokens.me.user.email, "ana@example.com",
            "{backend:?}: emails are kept lower case"
        );
        assert!(tokens.me.hub_admin, "{backend:?}: the first account is the hub's admin");
        let me = ana.me().await.unwrap();
        assert_eq!(me.user.uid, tokens.me.user.uid);
        assert_eq!(me.device_id.as_deref(), Some("0123456789abcdef0123456789abcdef"));
        let wrong = hub
            .client()
            .sign_in_password(&PasswordSignIn {
                email: "ana@example.com".into(),
                password: "nope nope nope".into(),
                device_id: None,
                device_name: None,
            })
            .await;
        assert_eq!(name(wrong), HubErrorName::InvalidCredentials, "{backend:?}");
        let unknown = hub
            .client()
            .sign_in_password(&PasswordSignIn {
                email: "nobody@example.com".into(),
                password: PASSWORD.into(),
                device_id: None,
                device_name: None,
            })
            .await;
        assert_eq!(
            name(unknown),
            HubErrorName::InvalidCredentials,
            "{backend:?}: an unknown email reads as a wrong password"
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_attempts_are_rate_limited_per_account_and_per_address() {
    for backend in Backend::BOTH {
        let hub = start(backend, |c| {
            c.limits.per_account = 3;
            c.limits.per_address = 5;
        })
        .await;
        account(&hub, "ana@example.com").await;
        let attempt = |email: &str, password: &str| {
            let client = hub.client();
            let body = PasswordSignIn {
                email: email.into(),
                password: password.into(),
                device_id: None,
                device_name: None,
            };
            async move { client.sign_in_password(&body).await }
        };
        for _ in 0..3 {
            assert_eq!(
                name(attempt("ana@example.com", "wrong password").await),
                HubErrorName::InvalidCredentials
            );
        }
        // The right password no longer helps: the account is locked for the window.
        let locked = attempt("ana@example.com", PASSWORD).await;
        match &locked {
            Err(cowork_wire::hub::client::ClientError::Hub { retry_after, .. }) => {
                assert!(retry_after.is_some_and(|s| s > 0))
            }
            other => panic!("{backend:?}: expected a rate limit, got {other:?}"),
        }
        assert_eq!(name(locked), HubErrorName::RateLimited, "{backend:?}");
        // Per address: two more failures on other accounts reach the address's limit of 5.
        for email in ["x@example.com", "y@example.com"] {
            assert_eq!(
                name(attempt(email, "wrong password").await),
                HubErrorName::InvalidCredentials
            );
        }
        assert_eq!(
            name(attempt("z@example.com", "wrong password").await),
            HubErrorName::RateLimited,
            "{backend:?}"
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_wrong_expired_and_revoked_are_refused_by_name() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, tokens) = account(&hub, "ana@example.com").await;
        assert_eq!(name(hub.client().me().await), HubErrorName::NotSignedIn, "{backend:?}");
        assert_eq!(
            name(hub.client().with_token("hat_nonsense").me().await),
            HubErrorName::InvalidToken
        );
        let forged = format!("{}x", tokens.access_token);
        assert_eq!(
            name(hub.client().with_token(forged).me().await),
            HubErrorName::InvalidToken,
            "{backend:?}: one character off"
        );
        // Revoked (logout with the refresh token): the access token stops working at once.
        hub.client().revoke(&tokens.refresh_token).await.unwrap();
        assert_eq!(name(ana.me().await), HubErrorName::SessionRevoked, "{backend:?}");
        let refreshed = hub.client().refresh(&tokens.refresh_token, None).await;
        assert_eq!(refreshed.unwrap_err().oauth_code(), Some(OAuthErrorCode::InvalidGrant));
        hub.running.stop().await;

        let hub = start(backend, |c| c.access_ttl = std::time::Duration::ZERO).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        assert_eq!(name(ana.me().await), HubErrorName::SessionExpired, "{backend:?}");
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_rotates_and_a_reused_refresh_token_signs_the_session_out() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (_, first) = account(&hub, "ana@example.com").await;
        let second = hub.client().refresh(&first.refresh_token, None).await.unwrap();
        assert_ne!(second.refresh_token, first.refresh_token);
        assert_eq!(second.session_id, first.session_id);
        let ana = hub.client().with_token(second.access_token.clone());
        assert_eq!(ana.me().await.unwrap().user.email, "ana@example.com");
        assert_eq!(
            name(hub.client().with_token(first.access_token.clone()).me().await),
            HubErrorName::InvalidToken,
            "{backend:?}: the old access token ended"
        );
        // A thief replays the first refresh token: the whole session ends.
        let replay = hub.client().refresh(&first.refresh_token, None).await;
        assert_eq!(replay.unwrap_err().oauth_code(), Some(OAuthErrorCode::InvalidGrant));
        assert_eq!(name(ana.me().await), HubErrorName::SessionRevoked, "{backend:?}");
        assert!(hub.client().refresh(&second.refresh_token, None).await.is_err());
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn id_tokens_verify_against_the_published_keys() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, tokens) = account(&hub, "ana@example.com").await;
        let jwks = hub.client().jwks().await.unwrap();
        let id = ana.id_token().await.unwrap();
        let claims = cowork_hub::keys::verify(&id.id_token, &jwks).expect("the ID token verifies");
        assert_eq!(claims["sub"], tokens.me.user.uid.as_str());
        assert_eq!(claims["email"], "ana@example.com");
        assert_eq!(claims["iss"], hub.url.as_str());
        let mut tampered = id.id_token.clone();
        tampered.insert(tampered.len() - 3, 'A');
        assert!(cowork_hub::keys::verify(&tampered, &jwks).is_none());
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_hub_admin_creates_accounts_unless_signup_is_open() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (admin, _) = account(&hub, "admin@example.com").await;
        let (bo, _) = account(&hub, "bo@example.com").await;
        let new = |email: &str| NewAccount {
            email: email.into(),
            password: PASSWORD.into(),
            display_name: Some("Cy".into()),
            hub_admin: true,
        };
        assert_eq!(
            name(bo.create_account(&new("cy@example.com")).await),
            HubErrorName::NotAdmin,
            "{backend:?}"
        );
        assert_eq!(
            name(hub.client().create_account(&new("cy@example.com")).await),
            HubErrorName::NotAdmin
        );
        let cy = admin.create_account(&new("cy@example.com")).await.unwrap();
        assert!(cy.hub_admin);
        assert_eq!(
            name(admin.create_account(&new("CY@example.com")).await),
            HubErrorName::AlreadyExists
        );
        let short = NewAccount { password: "short".into(), ..new("dee@example.com") };
        assert_eq!(name(admin.create_account(&short).await), HubErrorName::BadRequest);
        hub.running.stop().await;

        let open = start(backend, |c| c.open_signup = true).await;
        let dee = open.client().create_account(&new("dee@example.com")).await.unwrap();
        assert!(dee.hub_admin, "{backend:?}: the first account is the admin");
        let eve = open.client().create_account(&new("eve@example.com")).await.unwrap();
        assert!(!eve.hub_admin, "{backend:?}: a self-made account never makes itself admin");
        open.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_link_makes_the_first_admin_once() {
    let hub = hub(Backend::Sqlite).await;
    let link = hub.running.setup_link.clone().expect("a hub without accounts has a setup link");
    let file = hub.dir.path().join(cowork_hub::SETUP_LINK_FILE);
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), link);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let code = link.split("code=").nth(1).unwrap();
    let new = NewAccount {
        email: "root@example.com".into(),
        password: PASSWORD.into(),
        display_name: None,
        hub_admin: false,
    };
    let admin =
        cowork_hub::accounts::use_setup_code(&hub.running.hub.db, code, &new).await.unwrap();
    assert!(admin.hub_admin);
    let again = NewAccount { email: "other@example.com".into(), ..new };
    let err =
        cowork_hub::accounts::use_setup_code(&hub.running.hub.db, code, &again).await.unwrap_err();
    assert_eq!(err.name, HubErrorName::InvalidToken);
    // The page no longer offers a form it would refuse, and the next start clears the old link.
    let page = reqwest::get(&link).await.unwrap().text().await.unwrap();
    assert!(page.contains("This hub is set up already") && !page.contains("<form"), "{page}");
    hub.running.stop().await;
    let config =
        cowork_hub::Config::embedded(hub.dir.path().to_path_buf(), "127.0.0.1:0".parse().unwrap());
    let again = cowork_hub::start(config).await.unwrap();
    assert!(again.setup_link.is_none() && !file.exists(), "the link of the last start is gone");
    again.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_beyond_loopback_needs_behind_https() {
    let dir = tempfile::tempdir().unwrap();
    let config =
        cowork_hub::Config::embedded(dir.path().to_path_buf(), "0.0.0.0:0".parse().unwrap());
    let err = cowork_hub::start(config.clone()).await.err().expect("refused");
    assert!(err.message.contains("plain HTTP on 0.0.0.0:0"), "{err}");
    assert!(err.hint.as_deref().unwrap().contains("--behind-https"));
    let mut behind = config;
    behind.behind_https = true;
    behind.jobs = false;
    cowork_hub::start(behind).await.expect("allowed behind HTTPS").stop().await;
}

/// `cowork-hub user add --json`, as a provisioning script reads it: one line on stdout for the
/// account, and one for a refusal (with its name and hint), the password from stdin.
#[test]
fn user_add_json_is_one_line_for_an_account_and_for_a_refusal() {
    use std::io::Write;
    let data = tempfile::tempdir().unwrap();
    let add = |email: &str, password: &str| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cowork-hub"))
            .args(["user", "add", "--email", email, "--password-stdin", "--json", "--data"])
            .arg(data.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(password.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let line: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{out:?}"));
        (out.status.success(), line)
    };
    let (ok, line) = add("ana@example.com", "correct horse battery\n");
    assert!(ok, "{line}");
    assert_eq!(
        line,
        serde_json::json!({"ok": true, "email": "ana@example.com", "hubAdmin": true, "newHub": true})
    );
    let (ok, line) = add("bo@example.com", "short\n");
    assert!(!ok);
    assert_eq!(line["ok"], false, "{line}");
    assert_eq!(line["error"]["name"], "BadRequest", "{line}");
    assert!(
        line["error"]["message"].as_str().unwrap().contains("it needs 8 to 1,024 characters"),
        "{line}"
    );
    let (ok, line) = add("cy@example.com", "correct horse battery\n");
    assert!(ok, "{line}");
    assert_eq!((&line["hubAdmin"], &line["newHub"]), (&false.into(), &false.into()), "{line}");
}
