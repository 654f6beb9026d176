//! Sign-ins against a real OpenID provider (oidc-provider 9.13.3 under Node, see
//! `tests/provider/server.mjs`), driven through its own login and consent pages.

mod support;

use std::sync::Arc;
use std::time::Duration;

use cowork_oauth::{
    status, store_key, Config, Connections, MemoryStore, OAuthError, Revocation, State, TokenStore,
};
use reqwest::StatusCode;
use support::{google_key, provider, scopes, stored, Browser, Consent, OWN_CLIENT_CAPABILITY};

/// Signs `login` in to `key` with `needed` scopes, consenting; returns the connection's email.
async fn connect(
    connections: &Connections,
    provider: &cowork_oauth::Provider,
    store: &Arc<MemoryStore>,
    key: &str,
    needed: &[String],
    login: &str,
) -> Option<String> {
    let pending =
        connections.start(provider, needed, store.clone(), key).await.expect("the sign-in starts");
    let page = Browser::new()
        .sign_in(&pending.auth_url, &pending.redirect_uri, login, Consent::Allow)
        .await;
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.text().await.unwrap().contains("You can close this tab."));
    let connection = pending.wait().await.expect("the sign-in succeeds");
    connection.account.map(|account| account.email)
}

#[tokio::test]
async fn signs_in_refreshes_on_force_and_a_replayed_refresh_token_disconnects() {
    let Some(test) = provider() else { return };
    let (connections, store, google, key) =
        (Connections::new(), Arc::new(MemoryStore::default()), test.google(), google_key());
    let needed = scopes(&["calendar.read"]);

    let pending = connections.start(&google, &needed, store.clone(), &key).await.unwrap();
    assert!(pending.redirect_uri.starts_with("http://127.0.0.1:"));
    assert!(pending.redirect_uri.ends_with("/oauth/callback"));
    assert!(pending.auth_url.contains("code_challenge_method=S256"));
    let page = Browser::new()
        .sign_in(&pending.auth_url, &pending.redirect_uri, "ada@example.com", Consent::Allow)
        .await;
    assert_eq!(page.status(), StatusCode::OK);
    let text = page.text().await.unwrap();
    assert!(text.contains("connected to google as ada@example.com"), "{text}");
    let connection = pending.wait().await.unwrap();
    assert_eq!(connection.name, "google");
    assert_eq!(connection.account.unwrap().email, "ada@example.com");
    assert!(connection.scopes.contains(&"calendar.read".to_owned()));

    let first = stored(&store, &key).expect("tokens stored");
    assert!(first["refreshToken"].is_string(), "offline_access gave a refresh token");
    assert_eq!(first["account"]["email"], "ada@example.com");
    let now = status(store.as_ref(), &key, &needed).unwrap();
    assert_eq!(now.state, State::Connected);
    assert_eq!(now.account.unwrap().email, "ada@example.com");

    // Fresh for an hour: handed out as stored.
    let token = connections.access_token(&google, store.as_ref(), &key, false).await.unwrap();
    assert_eq!(token, first["accessToken"]);

    // The service said 401: a forced refresh renews it and rotates the refresh token.
    let forced = connections.access_token(&google, store.as_ref(), &key, true).await.unwrap();
    let second = stored(&store, &key).unwrap();
    assert_ne!(forced, token);
    assert_eq!(second["accessToken"], forced.as_str());
    assert_ne!(second["refreshToken"], first["refreshToken"], "rotated");
    assert_eq!(second["account"], first["account"], "kept across refreshes");

    // Someone puts the rotated-out refresh token back: the provider sees a reuse, revokes the
    // whole grant, and the connection is gone.
    let mut replayed = second.clone();
    replayed["refreshToken"] = first["refreshToken"].clone();
    store.save(&key, &replayed.to_string()).unwrap();
    let error = connections.access_token(&google, store.as_ref(), &key, true).await.unwrap_err();
    assert!(matches!(error, OAuthError::NotConnected { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("cowork credential connect google"), "{message}");
    assert!(message.contains("no longer accepts this sign-in"), "{message}");
    assert_eq!(stored(&store, &key), None, "tokens removed");
    let current = second["refreshToken"].as_str().unwrap();
    assert_eq!(
        test.raw_refresh_error("cowork-test", current).await.as_deref(),
        Some("invalid_grant"),
        "the provider revoked the whole grant, the current refresh token with it"
    );
    assert_eq!(status(store.as_ref(), &key, &needed).unwrap().state, State::NotConnected);
}

#[tokio::test]
async fn expiring_tokens_refresh_and_rotate_under_the_own_clients_key() {
    let Some(test) = provider() else { return };
    let (connections, store, own) =
        (Connections::new(), Arc::new(MemoryStore::default()), test.own_client());
    let key = store_key(OWN_CLIENT_CAPABILITY);
    let email =
        connect(&connections, &own, &store, &key, &scopes(&["mail.read"]), "bo@example.com").await;
    assert_eq!(email.as_deref(), Some("bo@example.com"));
    assert_eq!(stored(&store, &google_key()), None, "not under the shared key");
    let first = stored(&store, &key).unwrap();

    // `cowork-short` tokens live 5 s, inside the 60-second margin: every use refreshes.
    let token = connections.access_token(&own, store.as_ref(), &key, false).await.unwrap();
    let second = stored(&store, &key).unwrap();
    assert_ne!(token, first["accessToken"]);
    assert_eq!(second["accessToken"], token.as_str());
    assert_ne!(second["refreshToken"], first["refreshToken"], "rotated");
    assert!(second["expiresAt"].as_u64() >= first["expiresAt"].as_u64());
    let again = connections.access_token(&own, store.as_ref(), &key, false).await.unwrap();
    assert_ne!(again, token);
}

#[tokio::test]
async fn concurrent_refreshes_of_one_key_share_one_refresh() {
    let Some(test) = provider() else { return };
    let (connections, store, own) =
        (Arc::new(Connections::new()), Arc::new(MemoryStore::default()), test.own_client());
    let key = store_key(OWN_CLIENT_CAPABILITY);
    connect(&connections, &own, &store, &key, &[], "cy@example.com").await;

    // Eight callers all got a 401 at once. Racing refreshes would present one refresh token
    // twice, and the provider would revoke the grant.
    let mut callers = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (connections, store, own, key) =
            (connections.clone(), store.clone(), own.clone(), key.clone());
        callers
            .spawn(async move { connections.access_token(&own, store.as_ref(), &key, true).await });
    }
    let tokens: Vec<String> = callers.join_all().await.into_iter().map(Result::unwrap).collect();
    assert!(tokens.iter().all(|token| *token == tokens[0]), "one refresh, shared");
    connections.access_token(&own, store.as_ref(), &key, true).await.expect("the grant survived");
}

#[tokio::test]
async fn a_capability_needing_more_scopes_needs_them_until_the_union_is_granted() {
    let Some(test) = provider() else { return };
    let (connections, store, google, key) =
        (Connections::new(), Arc::new(MemoryStore::default()), test.google(), google_key());
    let calendar = scopes(&["calendar.read"]);
    let mail = scopes(&["calendar.read", "mail.send"]);
    connect(&connections, &google, &store, &key, &calendar, "di@example.com").await;
    assert_eq!(status(store.as_ref(), &key, &calendar).unwrap().state, State::Connected);
    assert_eq!(
        status(store.as_ref(), &key, &mail).unwrap().state,
        State::NeedsScopes { missing: scopes(&["mail.send"]) }
    );

    // Connecting again asks for what every capability needs together.
    connect(&connections, &google, &store, &key, &mail, "di@example.com").await;
    assert_eq!(status(store.as_ref(), &key, &calendar).unwrap().state, State::Connected);
    assert_eq!(status(store.as_ref(), &key, &mail).unwrap().state, State::Connected);
}

#[tokio::test]
async fn saying_no_on_the_consent_page_is_denied() {
    let Some(test) = provider() else { return };
    let (connections, store, google, key) =
        (Connections::new(), Arc::new(MemoryStore::default()), test.google(), google_key());
    let pending = connections.start(&google, &[], store.clone(), &key).await.unwrap();
    let page = Browser::new()
        .sign_in(&pending.auth_url, &pending.redirect_uri, "ed@example.com", Consent::Deny)
        .await;
    assert!(page.text().await.unwrap().contains("Sign-in failed"));
    let error = pending.wait().await.unwrap_err();
    assert!(matches!(error, OAuthError::Denied { .. }), "{error:?}");
    assert_eq!(error.name(), cowork_core::error_name::ErrorName::Denied);
    assert!(error.to_string().contains("declined"), "{error}");
    assert_eq!(stored(&store, &key), None);
}

#[tokio::test]
async fn a_callback_with_another_state_is_refused_and_the_real_one_still_counts() {
    let Some(test) = provider() else { return };
    let (connections, store, google, key) =
        (Connections::new(), Arc::new(MemoryStore::default()), test.google(), google_key());
    let pending = connections.start(&google, &[], store.clone(), &key).await.unwrap();
    let browser = Browser::new();
    let forged = browser.get(&format!("{}?code=planted&state=guessed", pending.redirect_uri)).await;
    assert_eq!(forged.status(), StatusCode::BAD_REQUEST);
    assert!(forged.text().await.unwrap().contains("not the sign-in Cowork is waiting for"));
    assert_eq!(stored(&store, &key), None);

    let page = browser
        .sign_in(&pending.auth_url, &pending.redirect_uri, "fa@example.com", Consent::Allow)
        .await;
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(pending.wait().await.unwrap().account.unwrap().email, "fa@example.com");
}

#[tokio::test]
async fn disconnect_revokes_at_the_provider_and_forgets() {
    let Some(test) = provider() else { return };
    let (connections, store, google, key) =
        (Connections::new(), Arc::new(MemoryStore::default()), test.google(), google_key());
    connect(&connections, &google, &store, &key, &[], "gu@example.com").await;
    let refresh_token = stored(&store, &key).unwrap()["refreshToken"].as_str().unwrap().to_owned();

    let revocation = connections.disconnect(&google, store.as_ref(), &key).await.unwrap();
    assert!(matches!(revocation, Revocation::Revoked), "{revocation:?}");
    assert_eq!(stored(&store, &key), None);
    assert_eq!(
        test.raw_refresh_error("cowork-test", &refresh_token).await.as_deref(),
        Some("invalid_grant")
    );
    let error = connections.access_token(&google, store.as_ref(), &key, false).await.unwrap_err();
    assert_eq!(error.name(), cowork_core::error_name::ErrorName::NotConnected);
    let again = connections.disconnect(&google, store.as_ref(), &key).await.unwrap();
    assert!(matches!(again, Revocation::NothingStored), "{again:?}");
}

// The two below need no provider: nobody ever comes back to the listener, or comes back wrong.

fn offline_google() -> cowork_oauth::Provider {
    Config::from_value(
        serde_json::json!({"providers": {"google": {"clientId": "offline-test"}}}),
        "oauth.json",
    )
    .unwrap()
    .provider("google")
    .unwrap()
}

#[tokio::test]
async fn an_unfinished_sign_in_times_out_and_closes_its_port() {
    let connections = Connections::new().with_sign_in_timeout(Duration::from_millis(300));
    let store = Arc::new(MemoryStore::default());
    let pending = connections.start(&offline_google(), &[], store, "k").await.unwrap();
    let redirect_uri = pending.redirect_uri.clone();
    let error = pending.wait().await.unwrap_err();
    assert!(matches!(error, OAuthError::TimedOut { .. }), "{error:?}");
    assert!(error.to_string().contains("within 300 milliseconds"), "{error}");
    let closed = reqwest::get(&redirect_uri).await;
    assert!(closed.is_err(), "the listener is gone: {closed:?}");
}

#[tokio::test]
async fn the_listener_answers_only_its_exact_path_on_loopback() {
    let connections = Connections::new().with_sign_in_timeout(Duration::from_secs(5));
    let store = Arc::new(MemoryStore::default());
    let pending = connections.start(&offline_google(), &[], store, "k").await.unwrap();
    let origin = pending.redirect_uri.trim_end_matches("/oauth/callback");
    let browser = Browser::new();
    for path in ["/", "/oauth/callback/", "/oauth/callbackx", "/favicon.ico"] {
        let response = browser.get(&format!("{origin}{path}?state=x&code=y")).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let auth_url = reqwest::Url::parse(&pending.auth_url).unwrap();
    let params: std::collections::HashMap<_, _> = auth_url.query_pairs().collect();
    assert_eq!(params["redirect_uri"], pending.redirect_uri);
    assert_eq!(params["access_type"], "offline", "Google's preset parameters");
    assert_eq!(params["prompt"], "consent");
    assert_eq!(params["scope"], "openid email");
    assert!((43..=128).contains(&params["code_challenge"].len()));
    assert!(params["state"].len() >= 43);
}

#[tokio::test]
async fn a_replayed_authorization_code_is_turned_away() {
    let Some(test) = provider() else { return };
    let (connections, store) = (Connections::new(), Arc::new(MemoryStore::default()));
    let pending = connections
        .start(&test.google(), &scopes(&["calendar.read"]), store.clone(), &google_key())
        .await
        .unwrap();
    let callback = Browser::new()
        .callback_url(&pending.auth_url, &pending.redirect_uri, "ana@example.com", Consent::Allow)
        .await;
    // The same callback twice at once (a double-clicked link, a page replaying the code): one
    // finishes the sign-in, the other is told it is finished; the code is redeemed once.
    let (first, second) =
        tokio::join!(reqwest::get(callback.as_str()), reqwest::get(callback.as_str()));
    let mut statuses = [first.unwrap().status(), second.unwrap().status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT]);
    let connection = pending.wait().await.expect("the first callback signed in");
    assert_eq!(connection.account.unwrap().email, "ana@example.com");
    assert_eq!(
        status(&*store, &google_key(), &scopes(&["calendar.read"])).unwrap().state,
        State::Connected
    );
}
