//! The sign-in pages as a browser uses them (a cookie jar, no JavaScript): authorization code with
//! PKCE to a loopback address, the paste page, the device flow, CSRF, the sessions page.

use crate::support::*;
use cowork_wire::hub::{DeviceRequest, OAuthErrorCode, TokenRequest, CLIENT_ID, GRANT_DEVICE_CODE};
use reqwest::redirect::Policy;
use reqwest::StatusCode;

const VERIFIER: &str = "dBjftJeZ4CVP-mJ92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "ngF5GsXcbwljx6u133FFr3Xht9xooA_DuaX_3QwODtc";

fn browser() -> reqwest::Client {
    reqwest::Client::builder().cookie_store(true).redirect(Policy::none()).build().unwrap()
}

/// The value of `name="csrf"` in a page.
fn csrf_of(html: &str) -> String {
    let at = html.find("name=csrf value=\"").expect("a form with a CSRF token")
        + "name=csrf value=\"".len();
    html[at..].split('"').next().unwrap().to_string()
}

async fn sign_in_page(browser: &reqwest::Client, hub: &TestHub, email: &str) {
    let page =
        browser.get(format!("{}/signin", hub.url)).send().await.unwrap().text().await.unwrap();
    let form = [
        ("csrf", csrf_of(&page)),
        ("next", "/sessions".into()),
        ("email", email.into()),
        ("password", PASSWORD.into()),
    ];
    let answer = browser.post(format!("{}/signin", hub.url)).form(&form).send().await.unwrap();
    assert_eq!(answer.status(), StatusCode::SEE_OTHER, "signed in");
}

fn authorize_url(hub: &TestHub, redirect: &str) -> String {
    format!(
        "{}/oauth/authorize?response_type=code&client_id=cowork&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=xyz",
        hub.url,
        url_encode(redirect)
    )
}

fn url_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn approve(browser: &reqwest::Client, hub: &TestHub, redirect: &str) -> reqwest::Url {
    let page =
        browser.get(authorize_url(hub, redirect)).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("Sign Cowork on this computer in as <b>ana@example.com</b>"), "{page}");
    let form = [
        ("csrf", csrf_of(&page)),
        ("decision", "approve".into()),
        ("response_type", "code".into()),
        ("client_id", CLIENT_ID.into()),
        ("redirect_uri", redirect.into()),
        ("code_challenge", CHALLENGE.into()),
        ("code_challenge_method", "S256".into()),
        ("state", "xyz".into()),
    ];
    let answer =
        browser.post(format!("{}/oauth/authorize", hub.url)).form(&form).send().await.unwrap();
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    reqwest::Url::parse(answer.headers()["location"].to_str().unwrap()).unwrap()
}

fn exchange(code: &str, redirect: &str) -> TokenRequest {
    TokenRequest {
        grant_type: "authorization_code".into(),
        client_id: Some(CLIENT_ID.into()),
        code: Some(code.into()),
        redirect_uri: Some(redirect.into()),
        code_verifier: Some(VERIFIER.into()),
        device_id: Some("feedfeedfeedfeedfeedfeedfeedfeed".into()),
        device_name: Some("laptop".into()),
        ..TokenRequest::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_sign_in_with_pkce_to_a_loopback_port_and_a_replayed_code() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        account(&hub, "ana@example.com").await;
        let browser = browser();
        // Not signed in yet: the authorize page is the sign-in form, coming back here after.
        let redirect = "http://127.0.0.1:53124/callback";
        let first =
            browser.get(authorize_url(&hub, redirect)).send().await.unwrap().text().await.unwrap();
        assert!(
            first.contains("action=/signin") && first.contains("/oauth/authorize?"),
            "{backend:?}"
        );
        sign_in_page(&browser, &hub, "ana@example.com").await;
        let back = approve(&browser, &hub, redirect).await;
        assert_eq!(back.as_str().split('?').next(), Some(redirect));
        let query: std::collections::HashMap<_, _> = back.query_pairs().into_owned().collect();
        assert_eq!(query["state"], "xyz");
        let code = &query["code"];
        let wrong = TokenRequest {
            code_verifier: Some("another-verifier-another-verifier-another-ver".into()),
            ..exchange(code, redirect)
        };
        assert_eq!(
            hub.client().token(&wrong).await.unwrap_err().oauth_code(),
            Some(OAuthErrorCode::InvalidGrant),
            "{backend:?}: PKCE"
        );
        let tokens = hub.client().token(&exchange(code, redirect)).await.unwrap();
        assert_eq!(tokens.me.user.email, "ana@example.com");
        let cli = hub.client().with_token(tokens.access_token.clone());
        assert!(cli.me().await.is_ok());
        // The code again (an attacker who saw it): refused, and the session it made is signed out.
        let replay = hub.client().token(&exchange(code, redirect)).await;
        assert_eq!(replay.unwrap_err().oauth_code(), Some(OAuthErrorCode::InvalidGrant));
        assert_eq!(
            name(cli.me().await),
            cowork_wire::hub::HubErrorName::SessionRevoked,
            "{backend:?}"
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paste_page_shows_the_address_to_paste_and_foreign_redirects_are_refused() {
    let hub = hub(Backend::Sqlite).await;
    account(&hub, "ana@example.com").await;
    let browser = browser();
    sign_in_page(&browser, &hub, "ana@example.com").await;
    let evil =
        browser.get(authorize_url(&hub, "https://evil.example.com/cb")).send().await.unwrap();
    assert_eq!(evil.status(), StatusCode::BAD_REQUEST);
    let paste = format!("{}/oauth/done", hub.url);
    let back = approve(&browser, &hub, &paste).await;
    let page = browser.get(back.clone()).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("paste it into the terminal"), "{page}");
    let code = back.query_pairs().find(|(k, _)| k == "code").unwrap().1.into_owned();
    assert!(page.contains(&code), "the page shows the address with its code");
    hub.client().token(&exchange(&code, &paste)).await.unwrap();
    hub.running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_without_the_csrf_token_are_refused() {
    let hub = hub(Backend::Sqlite).await;
    account(&hub, "ana@example.com").await;
    let browser = browser();
    browser.get(format!("{}/signin", hub.url)).send().await.unwrap();
    let form = [
        ("csrf", "forged-forged-forged-forged"),
        ("email", "ana@example.com"),
        ("password", PASSWORD),
    ];
    let answer = browser.post(format!("{}/signin", hub.url)).form(&form).send().await.unwrap();
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    assert!(answer.text().await.unwrap().contains("CsrfMismatch"));
    let bare = reqwest::Client::new()
        .post(format!("{}/signin", hub.url))
        .form(&[("email", "ana@example.com")])
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), StatusCode::FORBIDDEN);
    hub.running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_device_flow_signs_a_server_in_after_the_person_approves_its_code() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        account(&hub, "ana@example.com").await;
        let start = hub
            .client()
            .device_authorization(&DeviceRequest {
                client_id: CLIENT_ID.into(),
                device_id: None,
                device_name: Some("build-box".into()),
            })
            .await
            .unwrap();
        assert_eq!(start.verification_uri, format!("{}/device", hub.url));
        let poll = TokenRequest {
            grant_type: GRANT_DEVICE_CODE.into(),
            device_code: Some(start.device_code.clone()),
            ..TokenRequest::default()
        };
        assert_eq!(
            hub.client().token(&poll).await.unwrap_err().oauth_code(),
            Some(OAuthErrorCode::AuthorizationPending),
            "{backend:?}"
        );
        assert_eq!(
            hub.client().token(&poll).await.unwrap_err().oauth_code(),
            Some(OAuthErrorCode::SlowDown),
            "{backend:?}: at once again"
        );
        let browser = browser();
        sign_in_page(&browser, &hub, "ana@example.com").await;
        let page = browser
            .get(&start.verification_uri_complete)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let typed = start.user_code.to_lowercase().replace('-', " ");
        let wrong = [
            ("csrf", csrf_of(&page)),
            ("user_code", "BBBB-BBBB".into()),
            ("decision", "approve".into()),
        ];
        assert_eq!(
            browser.post(format!("{}/device", hub.url)).form(&wrong).send().await.unwrap().status(),
            StatusCode::NOT_FOUND
        );
        let form = [("csrf", csrf_of(&page)), ("user_code", typed), ("decision", "approve".into())];
        let done = browser
            .post(format!("{}/device", hub.url))
            .form(&form)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(done.contains("build-box") && done.contains("is signed in"), "{done}");
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await; // the 1 s poll interval of test hubs
        let tokens = hub.client().token(&poll).await.unwrap();
        assert_eq!(tokens.me.user.email, "ana@example.com");
        let sessions =
            hub.client().with_token(tokens.access_token).sessions().await.unwrap().sessions;
        let this = sessions.iter().find(|s| s.current).unwrap();
        assert_eq!(
            (this.method.as_str(), this.device_name.as_deref()),
            ("device", Some("build-box")),
            "{backend:?}"
        );
        assert_eq!(
            hub.client().token(&poll).await.unwrap_err().oauth_code(),
            Some(OAuthErrorCode::InvalidGrant),
            "used once"
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sessions_page_signs_a_computer_out() {
    let hub = hub(Backend::Sqlite).await;
    let (cli, _) = account(&hub, "ana@example.com").await;
    let browser = browser();
    sign_in_page(&browser, &hub, "ana@example.com").await;
    let page =
        browser.get(format!("{}/sessions", hub.url)).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("test-machine"), "{page}");
    let id = cli.sessions().await.unwrap().sessions[0].id.clone();
    let answer = browser
        .post(format!("{}/sessions/revoke", hub.url))
        .form(&[("csrf", csrf_of(&page)), ("id", id)])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    assert_eq!(name(cli.me().await), cowork_wire::hub::HubErrorName::SessionRevoked);
    hub.running.stop().await;
}
