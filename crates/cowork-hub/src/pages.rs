//! The hub's own pages, server-rendered, usable without JavaScript: sign in, approve a sign-in
//! (browser or device), "copy this address into your terminal", your sessions, and the first
//! admin's setup. A browser signs in with a cookie session (`hub_session`, HttpOnly, SameSite=Lax,
//! Secure behind HTTPS); every form carries the CSRF token of the `hub_csrf` cookie (double submit,
//! SameSite=Strict) and a form without it is refused with `CsrfMismatch`. Sign-in attempts count
//! against the same per-account and per-address limits as the API; wrong device codes count per
//! address.

use crate::accounts::{self, UserRow};
use crate::crypto;
use crate::db::now_ms;
use crate::error::HubErr;
use crate::guard::ClientAddr;
use crate::limits;
use crate::oauth::{self, AuthorizeParams};
use crate::sessions;
use crate::state::Hub;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use cowork_wire::hub::{HubErrorName, NewAccount};
use serde::Deserialize;
use sqlx::Row;

const SESSION_COOKIE: &str = "hub_session";
const CSRF_COOKIE: &str = "hub_csrf";
const WEB_SESSION_MS: i64 = 12 * 3_600_000;

/// HTML-escape.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then(|| v.to_string())
        })
}

/// What a page is rendered with: the CSRF token (and its cookie, when new).
struct Csrf {
    token: String,
    set: Option<String>,
}

fn csrf(hub: &Hub, headers: &HeaderMap) -> Csrf {
    match cookie(headers, CSRF_COOKIE).filter(|v| v.len() >= 20) {
        Some(token) => Csrf { token, set: None },
        None => {
            let token = crypto::secret();
            let secure = if hub.config.behind_https { "; Secure" } else { "" };
            let set = format!("{CSRF_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict{secure}");
            Csrf { token, set: Some(set) }
        }
    }
}

fn check_csrf(headers: &HeaderMap, sent: &str) -> Result<(), HubErr> {
    match cookie(headers, CSRF_COOKIE) {
        Some(token) if !sent.is_empty() && crypto::same(&token, sent) => Ok(()),
        _ => Err(HubErr::new(
            HubErrorName::CsrfMismatch,
            "failed to accept the form: it did not come from this hub's page",
        )
        .hint("open the page again and send the form from it")),
    }
}

fn page(hub: &Hub, status: StatusCode, title: &str, body: &str, csrf: Option<&Csrf>) -> Response {
    let html = format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content=\"width=device-width\">\
         <title>{title} — Cowork hub</title><style>body{{font:15px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1f2328}}\
         input{{display:block;width:100%;padding:.4rem;margin:.2rem 0 .8rem;box-sizing:border-box}}button{{padding:.4rem 1rem;margin-right:.5rem}}\
         .err{{background:#ffebe9;padding:.6rem;border-radius:6px}}code,pre{{background:#f6f8fa;padding:.2rem .4rem;border-radius:4px;word-break:break-all;white-space:pre-wrap}}\
         table{{border-collapse:collapse;width:100%}}td,th{{text-align:left;padding:.3rem;border-bottom:1px solid #ddd}}</style></head>\
         <body><h1>{title}</h1>{body}<p><small>{hub}</small></p></body></html>",
        title = esc(title),
        hub = esc(&hub.public_url),
    );
    let mut response =
        (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"),
    );
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if let Some(set) = csrf.and_then(|c| c.set.as_deref()) {
        if let Ok(value) = HeaderValue::from_str(set) {
            headers.append(header::SET_COOKIE, value);
        }
    }
    response
}

fn error_page(hub: &Hub, error: &HubErr) -> Response {
    let hint = error.hint.as_deref().map(|h| format!("<p>{}</p>", esc(h))).unwrap_or_default();
    let body = format!("<p class=err><b>{}</b>: {}</p>{hint}", error.name, esc(&error.message));
    let mut response = page(hub, error.status, "Something went wrong", &body, None);
    if let Some(seconds) = error.retry_after {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// The account signed in on this browser.
async fn web_user(hub: &Hub, headers: &HeaderMap) -> Result<Option<UserRow>, HubErr> {
    let Some(secret) = cookie(headers, SESSION_COOKIE) else { return Ok(None) };
    let row =
        sqlx::query("SELECT user_id FROM web_sessions WHERE id_hash = $1 AND expires_at > $2")
            .bind(crypto::hash(&secret))
            .bind(now_ms())
            .fetch_optional(hub.db.pool())
            .await?;
    match row {
        Some(row) => accounts::by_id(&hub.db, &row.try_get::<String, _>(0)?).await,
        None => Ok(None),
    }
}

async fn start_web_session(hub: &Hub, user: &UserRow) -> Result<String, HubErr> {
    let secret = crypto::secret();
    let now = now_ms();
    sqlx::query("INSERT INTO web_sessions (id_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)")
        .bind(crypto::hash(&secret))
        .bind(&user.id)
        .bind(now)
        .bind(now + WEB_SESSION_MS)
        .execute(hub.db.pool())
        .await?;
    let secure = if hub.config.behind_https { "; Secure" } else { "" };
    Ok(format!(
        "{SESSION_COOKIE}={secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        WEB_SESSION_MS / 1000
    ))
}

/// Only a path on this hub: `/x`, never `//host` or a full address.
fn safe_next(next: &str) -> &str {
    if next.starts_with('/') && !next.starts_with("//") && !next.starts_with("/\\") {
        next
    } else {
        "/sessions"
    }
}

fn sign_in_form(
    hub: &Hub,
    csrf: &Csrf,
    next: &str,
    email: &str,
    problem: Option<&HubErr>,
) -> Response {
    let problem = problem
        .map(|e| format!("<p class=err><b>{}</b>: {}</p>", e.name, esc(&e.message)))
        .unwrap_or_default();
    let body = format!(
        "{problem}<form method=post action=/signin><input type=hidden name=csrf value=\"{csrf}\"><input type=hidden name=next value=\"{next}\">\
         <label>Email<input name=email type=email autocomplete=username required value=\"{email}\"></label>\
         <label>Password<input name=password type=password autocomplete=current-password required></label>\
         <button type=submit>Sign in</button></form>",
        csrf = esc(&csrf.token),
        next = esc(next),
        email = esc(email),
    );
    let status = problem_status(problem.is_empty());
    page(hub, status, "Sign in", &body, Some(csrf))
}

fn problem_status(fine: bool) -> StatusCode {
    if fine {
        StatusCode::OK
    } else {
        StatusCode::UNAUTHORIZED
    }
}

/// `GET /signin`'s query: where to go after signing in.
#[derive(Deserialize)]
pub struct NextQuery {
    #[serde(default)]
    next: Option<String>,
}

/// `GET /signin`.
pub async fn sign_in_page(
    State(hub): State<Hub>,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Response {
    let csrf = csrf(&hub, &headers);
    sign_in_form(&hub, &csrf, safe_next(q.next.as_deref().unwrap_or("/sessions")), "", None)
}

/// `POST /signin`'s form.
#[derive(Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    next: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
}

/// `POST /signin`.
pub async fn sign_in(
    State(hub): State<Hub>,
    headers: HeaderMap,
    address: ClientAddr,
    Form(form): Form<SignInForm>,
) -> Response {
    if let Err(error) = check_csrf(&headers, &form.csrf) {
        return error_page(&hub, &error);
    }
    let csrf = csrf(&hub, &headers);
    match accounts::check_password_sign_in(&hub, &form.email, &form.password, &address.0).await {
        Ok(user) => match start_web_session(&hub, &user).await {
            Ok(cookie) => {
                let mut response = Redirect::to(safe_next(&form.next)).into_response();
                if let Ok(value) = HeaderValue::from_str(&cookie) {
                    response.headers_mut().append(header::SET_COOKIE, value);
                }
                response
            }
            Err(error) => error_page(&hub, &error),
        },
        Err(error) if error.name == HubErrorName::RateLimited => error_page(&hub, &error),
        Err(error) if error.name == HubErrorName::InvalidCredentials => {
            sign_in_form(&hub, &csrf, safe_next(&form.next), &form.email, Some(&error))
        }
        Err(error) => error_page(&hub, &error),
    }
}

/// A form that carries only its CSRF token (sign-out).
#[derive(Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

/// `POST /signout`: end this browser's session.
pub async fn sign_out(
    State(hub): State<Hub>,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    if let Err(error) = check_csrf(&headers, &form.csrf) {
        return error_page(&hub, &error);
    }
    if let Some(secret) = cookie(&headers, SESSION_COOKIE) {
        if let Err(error) = sqlx::query("DELETE FROM web_sessions WHERE id_hash = $1")
            .bind(crypto::hash(&secret))
            .execute(hub.db.pool())
            .await
        {
            return error_page(&hub, &HubErr::from(error));
        }
    }
    let mut response = Redirect::to("/signin").into_response();
    response
        .headers_mut()
        .append(header::SET_COOKIE, HeaderValue::from_static("hub_session=; Path=/; Max-Age=0"));
    response
}

fn authorize_query(params: &AuthorizeParams) -> String {
    let mut pairs = url::form_urlencoded::Serializer::new(String::new());
    pairs.append_pair("response_type", &params.response_type);
    pairs.append_pair("client_id", &params.client_id);
    pairs.append_pair("redirect_uri", &params.redirect_uri);
    pairs.append_pair("code_challenge", &params.code_challenge);
    pairs.append_pair("code_challenge_method", &params.code_challenge_method);
    if let Some(state) = &params.state {
        pairs.append_pair("state", state);
    }
    pairs.finish()
}

/// `GET /oauth/authorize`: sign in if needed, then "Sign Cowork in as …?".
pub async fn authorize_page(
    State(hub): State<Hub>,
    headers: HeaderMap,
    Query(params): Query<AuthorizeParams>,
) -> Response {
    if let Err(error) = oauth::check_authorize(&params, &hub.public_url) {
        return error_page(&hub, &error);
    }
    let csrf = csrf(&hub, &headers);
    let user = match web_user(&hub, &headers).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            return sign_in_form(
                &hub,
                &csrf,
                &format!("/oauth/authorize?{}", authorize_query(&params)),
                "",
                None,
            )
        }
        Err(error) => return error_page(&hub, &error),
    };
    let hidden: String = url::form_urlencoded::parse(authorize_query(&params).as_bytes())
        .map(|(k, v)| format!("<input type=hidden name=\"{}\" value=\"{}\">", esc(&k), esc(&v)))
        .collect();
    let body = format!(
        "<p>Sign Cowork on this computer in as <b>{email}</b>?</p><p>It will act as you on this hub: your team servers, their stores, your organization.</p>\
         <form method=post action=/oauth/authorize><input type=hidden name=csrf value=\"{csrf}\">{hidden}\
         <button name=decision value=approve type=submit>Sign in</button><button name=decision value=deny type=submit>Cancel</button></form>",
        email = esc(&user.email),
        csrf = esc(&csrf.token),
    );
    page(&hub, StatusCode::OK, "Sign in to Cowork", &body, Some(&csrf))
}

/// `POST /oauth/authorize`'s form: allow or deny, with the authorization's parameters.
#[derive(Deserialize)]
pub struct AuthorizeForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    decision: String,
    #[serde(flatten)]
    params: AuthorizeParams,
}

/// `POST /oauth/authorize`: the person's answer, sent back to the redirect address.
pub async fn authorize(
    State(hub): State<Hub>,
    headers: HeaderMap,
    Form(form): Form<AuthorizeForm>,
) -> Response {
    if let Err(error) = check_csrf(&headers, &form.csrf)
        .and_then(|()| oauth::check_authorize(&form.params, &hub.public_url))
    {
        return error_page(&hub, &error);
    }
    let user = match web_user(&hub, &headers).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            let csrf = csrf(&hub, &headers);
            return sign_in_form(
                &hub,
                &csrf,
                &format!("/oauth/authorize?{}", authorize_query(&form.params)),
                "",
                None,
            );
        }
        Err(error) => return error_page(&hub, &error),
    };
    let state = form.params.state.clone().unwrap_or_default();
    let mut extra = vec![];
    if !state.is_empty() {
        extra.push(("state", state.as_str()));
    }
    if form.decision != "approve" {
        let mut params = vec![("error", "access_denied")];
        params.extend(extra);
        return Redirect::to(&oauth::redirect_with(&form.params.redirect_uri, &params))
            .into_response();
    }
    match oauth::issue_code(&hub.db, &user, &form.params).await {
        Ok(code) => {
            let mut params = vec![("code", code.as_str())];
            params.extend(extra);
            Redirect::to(&oauth::redirect_with(&form.params.redirect_uri, &params)).into_response()
        }
        Err(error) => error_page(&hub, &error),
    }
}

/// `GET /oauth/done`'s query: the code to paste, or the error.
#[derive(Deserialize)]
pub struct DoneQuery {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// `GET /oauth/done`: where a sign-in ends when nothing on the computer listens — the address to
/// paste into the terminal.
pub async fn done(State(hub): State<Hub>, Query(q): Query<DoneQuery>) -> Response {
    if let Some(error) = q.error {
        return page(
            &hub,
            StatusCode::OK,
            "Sign-in cancelled",
            &format!("<p>The sign-in was not approved ({}).</p>", esc(&error)),
            None,
        );
    }
    let Some(code) = q.code else {
        return error_page(
            &hub,
            &HubErr::bad_request("failed to show the sign-in's end: no code in the address"),
        );
    };
    let mut pairs = vec![("code", code.as_str())];
    if let Some(state) = q.state.as_deref() {
        pairs.push(("state", state));
    }
    let address = oauth::redirect_with(
        &format!("{}{}", hub.public_url, cowork_wire::hub::PASTE_REDIRECT_PATH),
        &pairs,
    );
    let body = format!(
        "<p>Copy this address and paste it into the terminal that asked for it:</p><pre>{}</pre><p>It works once, for 10 minutes.</p>",
        esc(&address)
    );
    page(&hub, StatusCode::OK, "Almost there", &body, None)
}

/// `GET /device`'s query: the code a terminal shows, when the link carried it.
#[derive(Deserialize)]
pub struct DeviceQuery {
    #[serde(default)]
    user_code: Option<String>,
}

/// `GET /device`: type (or confirm) the code a terminal shows.
pub async fn device_page(
    State(hub): State<Hub>,
    headers: HeaderMap,
    Query(q): Query<DeviceQuery>,
) -> Response {
    let csrf = csrf(&hub, &headers);
    let code = q.user_code.unwrap_or_default();
    let user = match web_user(&hub, &headers).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            let next = format!(
                "/device?user_code={}",
                url::form_urlencoded::byte_serialize(code.as_bytes()).collect::<String>()
            );
            return sign_in_form(&hub, &csrf, &next, "", None);
        }
        Err(error) => return error_page(&hub, &error),
    };
    let body = format!(
        "<p>Signed in as <b>{email}</b>. Enter the code your terminal shows to sign that computer in:</p>\
         <form method=post action=/device><input type=hidden name=csrf value=\"{csrf}\">\
         <label>Code<input name=user_code autocomplete=off required value=\"{code}\"></label>\
         <button name=decision value=approve type=submit>Sign it in</button><button name=decision value=deny type=submit>Refuse</button></form>",
        email = esc(&user.email),
        csrf = esc(&csrf.token),
        code = esc(&code),
    );
    page(&hub, StatusCode::OK, "Sign in a device", &body, Some(&csrf))
}

/// `POST /device`'s form: the code, allowed or denied.
#[derive(Deserialize)]
pub struct DeviceForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    user_code: String,
    #[serde(default)]
    decision: String,
}

/// `POST /device`.
pub async fn device(
    State(hub): State<Hub>,
    headers: HeaderMap,
    address: ClientAddr,
    Form(form): Form<DeviceForm>,
) -> Response {
    if let Err(error) = check_csrf(&headers, &form.csrf) {
        return error_page(&hub, &error);
    }
    let user = match web_user(&hub, &headers).await {
        Ok(Some(user)) => user,
        Ok(None) => return Redirect::to("/signin?next=/device").into_response(),
        Err(error) => return error_page(&hub, &error),
    };
    let key = format!("device:{}", address.0);
    let limits = hub.config.limits;
    if let Err(error) = limits::check(
        &hub.db,
        &key,
        limits.per_address,
        limits.window,
        "device codes tried from this address",
    )
    .await
    {
        return error_page(&hub, &error);
    }
    let approve = form.decision == "approve";
    match oauth::device_settle(&hub.db, &user, &form.user_code, approve).await {
        Ok(name) => {
            let device = name.map(|n| format!(" ({})", esc(&n))).unwrap_or_default();
            let body = if approve {
                format!("<p>The computer{device} is signed in as <b>{}</b>. You can close this page.</p>", esc(&user.email))
            } else {
                format!("<p>The computer{device} was refused.</p>")
            };
            page(&hub, StatusCode::OK, "Done", &body, None)
        }
        Err(error) => {
            let _ = limits::hit(&hub.db, &key, limits.window).await;
            error_page(&hub, &error)
        }
    }
}

/// `GET /sessions`: the account's signed-in computers, each with Sign out.
pub async fn sessions_page(State(hub): State<Hub>, headers: HeaderMap) -> Response {
    let csrf = csrf(&hub, &headers);
    let user = match web_user(&hub, &headers).await {
        Ok(Some(user)) => user,
        Ok(None) => return sign_in_form(&hub, &csrf, "/sessions", "", None),
        Err(error) => return error_page(&hub, &error),
    };
    let list = match sessions::list(&hub, &user.id, "").await {
        Ok(list) => list,
        Err(error) => return error_page(&hub, &error),
    };
    let rows: String = list
        .iter()
        .map(|s| {
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td><form method=post action=/sessions/revoke><input type=hidden name=csrf value=\"{}\"><input type=hidden name=id value=\"{}\"><button type=submit>Sign out</button></form></td></tr>",
                esc(s.device_name.as_deref().unwrap_or("(unnamed)")),
                esc(&s.method),
                esc(&crate::pages::when(s.last_seen_at)),
                esc(&csrf.token),
                esc(&s.id),
            )
        })
        .collect();
    let body = format!(
        "<p>Signed in as <b>{email}</b>.</p><table><tr><th>Computer</th><th>How</th><th>Last seen (UTC)</th><th></th></tr>{rows}</table>\
         <form method=post action=/signout><input type=hidden name=csrf value=\"{csrf}\"><p><button type=submit>Sign out of this page</button></p></form>",
        email = esc(&user.email),
        csrf = esc(&csrf.token),
    );
    page(&hub, StatusCode::OK, "Your sessions", &body, Some(&csrf))
}

/// A time for people: `2026-12-06 14:03`.
pub fn when(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(ms / 1000)
        .map(|t| {
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02}",
                t.year(),
                u8::from(t.month()),
                t.day(),
                t.hour(),
                t.minute()
            )
        })
        .unwrap_or_default()
}

/// The sessions page's form that ends one session.
#[derive(Deserialize)]
pub struct RevokeForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    id: String,
}

/// `POST /sessions/revoke`.
pub async fn revoke(
    State(hub): State<Hub>,
    headers: HeaderMap,
    Form(form): Form<RevokeForm>,
) -> Response {
    if let Err(error) = check_csrf(&headers, &form.csrf) {
        return error_page(&hub, &error);
    }
    match web_user(&hub, &headers).await {
        Ok(Some(user)) => match sessions::revoke_own(&hub, &user.id, &form.id).await {
            Ok(()) => Redirect::to("/sessions").into_response(),
            Err(error) => error_page(&hub, &error),
        },
        Ok(None) => Redirect::to("/signin?next=/sessions").into_response(),
        Err(error) => error_page(&hub, &error),
    }
}

/// `GET /setup`'s query: the one-time setup code.
#[derive(Deserialize)]
pub struct SetupQuery {
    #[serde(default)]
    code: String,
}

/// `GET /setup?code=…`: the first admin's account (the link the first start printed).
pub async fn setup_page(
    State(hub): State<Hub>,
    headers: HeaderMap,
    Query(q): Query<SetupQuery>,
) -> Response {
    let csrf = csrf(&hub, &headers);
    // Once the hub has an account the form could only be refused: say where to go instead.
    if accounts::any(&hub.db).await.unwrap_or(false) {
        let body = "<p>This hub is set up already: <a href=\"/signin\">sign in</a>.</p>";
        return page(&hub, StatusCode::OK, "Set up this hub", body, None);
    }
    let body = format!(
        "<p>Create this hub's first account; it will be the hub's admin.</p><form method=post action=/setup>\
         <input type=hidden name=csrf value=\"{csrf}\"><input type=hidden name=code value=\"{code}\">\
         <label>Email<input name=email type=email autocomplete=username required></label>\
         <label>Your name<input name=display_name></label>\
         <label>Password (8 characters or more)<input name=password type=password autocomplete=new-password required minlength=8></label>\
         <button type=submit>Create the admin account</button></form>",
        csrf = esc(&csrf.token),
        code = esc(&q.code),
    );
    page(&hub, StatusCode::OK, "Set up this hub", &body, Some(&csrf))
}

/// `POST /setup`'s form: the first admin's account.
#[derive(Deserialize)]
pub struct SetupForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    code: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    display_name: String,
    #[serde(default)]
    password: String,
}

/// `POST /setup`: the first admin, once; then signed in on this browser.
pub async fn setup(
    State(hub): State<Hub>,
    headers: HeaderMap,
    address: ClientAddr,
    Form(form): Form<SetupForm>,
) -> Response {
    if let Err(error) = check_csrf(&headers, &form.csrf) {
        return error_page(&hub, &error);
    }
    let key = format!("setup:{}", address.0);
    let limits = hub.config.limits;
    if let Err(error) = limits::check(
        &hub.db,
        &key,
        limits.per_account,
        limits.window,
        "setup attempts from this address",
    )
    .await
    {
        return error_page(&hub, &error);
    }
    let new = NewAccount {
        email: form.email,
        password: form.password,
        display_name: Some(form.display_name).filter(|n| !n.trim().is_empty()),
        hub_admin: true,
    };
    match accounts::use_setup_code(&hub.db, &form.code, &new).await {
        Ok(account) => {
            if let Some(data) = &hub.config.data {
                let _ = std::fs::remove_file(data.join(crate::SETUP_LINK_FILE));
            }
            let user = match accounts::by_id(&hub.db, &account.user.uid).await {
                Ok(Some(user)) => user,
                Ok(None) => {
                    return error_page(
                        &hub,
                        &HubErr::internal("failed to read the new account", &"gone"),
                    )
                }
                Err(error) => return error_page(&hub, &error),
            };
            match start_web_session(&hub, &user).await {
                Ok(cookie) => {
                    let mut response = Redirect::to("/sessions").into_response();
                    if let Ok(value) = HeaderValue::from_str(&cookie) {
                        response.headers_mut().append(header::SET_COOKIE, value);
                    }
                    response
                }
                Err(error) => error_page(&hub, &error),
            }
        }
        Err(error) => {
            let _ = limits::hit(&hub.db, &key, limits.window).await;
            error_page(&hub, &error)
        }
    }
}
