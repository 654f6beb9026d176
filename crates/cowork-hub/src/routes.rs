//! The router: every route, the layers in front of them, and thin handlers — each extracts, calls
//! one function of its concern's module, and answers its wire type. Who may call what is decided by
//! the [`Caller`] extractor (a valid access token) and the concern's module (roles), never here.

use crate::accounts;
use crate::error::HubErr;
use crate::guard::{Caller, ClientAddr};
use crate::oauth;
use crate::orgs;
use crate::pages;
use crate::runs;
use crate::sessions::{self, Method};
use crate::state::Hub;
use crate::teams;
use crate::updates;
use axum::body::Bytes;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use cowork_wire::hub::*;
use serde::Deserialize;

mod store;

/// A JSON body whose refusal is a named `BadRequest` naming what did not parse.
pub struct Body<T>(pub T);

impl<T: serde::de::DeserializeOwned> FromRequest<Hub> for Body<T> {
    type Rejection = HubErr;

    async fn from_request(request: Request, hub: &Hub) -> Result<Body<T>, HubErr> {
        match Json::<T>::from_request(request, hub).await {
            Ok(Json(value)) => Ok(Body(value)),
            Err(JsonRejection::JsonDataError(error)) => Err(HubErr::bad_request(format!(
                "failed to read the request: {}",
                error.body_text()
            ))),
            Err(error) => Err(HubErr::bad_request(format!(
                "failed to read the request: {}",
                error.body_text()
            ))
            .hint("send a JSON body with Content-Type: application/json")),
        }
    }
}

/// The whole router, without a listener (tests call it directly).
pub fn app(hub: Hub) -> Router {
    let api = Router::new()
        .route("/api/auth/password", post(password))
        .route("/api/me", get(me))
        .route("/api/id-token", post(id_token))
        .route("/api/sessions", get(session_list))
        .route("/api/sessions/{id}", axum::routing::delete(session_revoke))
        .route("/api/accounts", post(create_account))
        .route("/api/orgs", post(create_org))
        .route("/api/orgs/{org}", get(org_info))
        .route("/api/orgs/{org}/members", post(add_org_member))
        .route("/api/orgs/{org}/groups", get(groups).post(create_group))
        .route("/api/orgs/{org}/groups/{name}", get(group).put(set_group).delete(delete_group))
        .route("/api/team-servers", get(team_servers).post(create_team_server))
        .route("/api/team-servers/{slug}", get(team_server).delete(delete_team_server))
        .route("/api/team-servers/{slug}/join", post(join))
        .route("/api/team-servers/{slug}/leave", post(leave))
        .route("/api/team-servers/{slug}/members", get(members).post(add_member))
        .route("/api/team-servers/{slug}/members/{email}", axum::routing::delete(remove_member))
        .route("/api/team-servers/{slug}/requests", get(requests))
        .route("/api/team-servers/{slug}/requests/{email}/approve", post(approve))
        .route("/api/team-servers/{slug}/requests/{email}/deny", post(deny))
        .route("/api/team-servers/{slug}/runs", get(runs_page).post(report_run))
        .route("/api/team-servers/{slug}/audit", get(audit_page))
        .route("/api/updates", get(poll_updates))
        // JSON bodies are small; blobs have their own limit below.
        .layer(DefaultBodyLimit::max(256 * 1024));
    let oauth = Router::new()
        .route("/oauth/token", post(token))
        .route("/oauth/device", post(device_authorization))
        .route("/oauth/revoke", post(revoke))
        .route("/oauth/authorize", get(pages::authorize_page).post(pages::authorize))
        .route("/oauth/done", get(pages::done))
        .route("/.well-known/jwks.json", get(jwks))
        .route("/.well-known/openid-configuration", get(discovery))
        .layer(DefaultBodyLimit::max(64 * 1024));
    let web = Router::new()
        .route("/", get(|| async { Redirect::to("/sessions") }))
        .route("/signin", get(pages::sign_in_page).post(pages::sign_in))
        .route("/signout", post(pages::sign_out))
        .route("/device", get(pages::device_page).post(pages::device))
        .route("/sessions", get(pages::sessions_page))
        .route("/sessions/revoke", post(pages::revoke))
        .route("/setup", get(pages::setup_page).post(pages::setup))
        .route("/health", get(|| async { "ok" }))
        .layer(DefaultBodyLimit::max(64 * 1024));
    Router::new()
        .merge(api)
        .merge(store::router())
        .merge(oauth)
        .merge(web)
        .fallback(|| async {
            HubErr::not_found("failed to find that address on this hub").hint(
                "check the hub's address: its root, as `cowork-hub serve` prints it, with no path",
            )
        })
        .with_state(hub)
}

pub(crate) type Answer<T> = Result<Json<T>, HubErr>;

async fn password(
    State(hub): State<Hub>,
    address: ClientAddr,
    Body(body): Body<PasswordSignIn>,
) -> Answer<TokenAnswer> {
    let user =
        accounts::check_password_sign_in(&hub, &body.email, &body.password, &address.0).await?;
    Ok(Json(
        sessions::create(
            &hub,
            &user,
            Method::Password,
            body.device_id.as_deref(),
            body.device_name.as_deref(),
        )
        .await?,
    ))
}

async fn me(State(hub): State<Hub>, caller: Caller) -> Answer<Me> {
    Ok(Json(
        accounts::me(&hub.db, &caller.user, &caller.session_id, caller.device_id.clone()).await?,
    ))
}

async fn id_token(State(hub): State<Hub>, caller: Caller) -> Answer<IdToken> {
    let ttl = i64::try_from(hub.config.id_token_ttl.as_millis()).unwrap_or(600_000);
    let (id_token, expires_at) =
        hub.keys.id_token(&hub.public_url, &caller.user.user(), &caller.session_id, ttl);
    Ok(Json(IdToken { id_token, expires_at }))
}

async fn session_list(State(hub): State<Hub>, caller: Caller) -> Answer<SessionList> {
    Ok(Json(SessionList {
        sessions: sessions::list(&hub, &caller.user.id, &caller.session_id).await?,
    }))
}

async fn session_revoke(
    State(hub): State<Hub>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, HubErr> {
    sessions::revoke_own(&hub, &caller.user.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn create_account(
    State(hub): State<Hub>,
    headers: HeaderMap,
    Body(body): Body<NewAccount>,
) -> Result<(StatusCode, Json<Account>), HubErr> {
    // A hub admin's call, or anyone's with --open-signup (never an admin then).
    let caller = match headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        Some(token) => Some(sessions::authenticate(&hub, token.trim()).await?),
        None => None,
    };
    let admin = caller.as_ref().is_some_and(|c| c.user.hub_admin);
    if !admin && !hub.config.open_signup {
        return Err(HubErr::new(
            HubErrorName::NotAdmin,
            "failed to create the account: only a hub admin may",
        )
        .hint("ask the hub's admin, or start the hub with --open-signup"));
    }
    let new = NewAccount { hub_admin: body.hub_admin && admin, ..body };
    Ok((StatusCode::CREATED, Json(accounts::create(&hub.db, &new).await?)))
}

async fn create_org(
    State(hub): State<Hub>,
    caller: Caller,
    Body(body): Body<NewOrg>,
) -> Result<(StatusCode, Json<Org>), HubErr> {
    Ok((StatusCode::CREATED, Json(orgs::create(&hub.db, &caller.user, &body).await?)))
}

async fn org_info(
    State(hub): State<Hub>,
    caller: Caller,
    Path(org): Path<String>,
) -> Answer<OrgInfo> {
    Ok(Json(orgs::info(&hub.db, &caller.user, &org).await?))
}

async fn add_org_member(
    State(hub): State<Hub>,
    caller: Caller,
    Path(org): Path<String>,
    Body(body): Body<OrgMemberAdd>,
) -> Answer<OrgMember> {
    Ok(Json(orgs::add_member(&hub.db, &caller.user, &org, &body).await?))
}

async fn groups(
    State(hub): State<Hub>,
    caller: Caller,
    Path(org): Path<String>,
) -> Answer<GroupList> {
    Ok(Json(GroupList { groups: orgs::groups(&hub.db, &caller.user, &org).await? }))
}

fn with_etag(group: Group) -> Response {
    let etag = HeaderValue::from_str(&format!("\"{}\"", group.etag)).ok();
    let mut response = Json(group).into_response();
    if let Some(etag) = etag {
        response.headers_mut().insert(header::ETAG, etag);
    }
    response
}

async fn group(
    State(hub): State<Hub>,
    caller: Caller,
    Path((org, name)): Path<(String, String)>,
) -> Result<Response, HubErr> {
    Ok(with_etag(orgs::group(&hub.db, &caller.user, &org, &name).await?))
}

async fn create_group(
    State(hub): State<Hub>,
    caller: Caller,
    Path(org): Path<String>,
    Body(body): Body<NewGroup>,
) -> Result<Response, HubErr> {
    let mut response = with_etag(orgs::create_group(&hub.db, &caller.user, &org, &body).await?);
    *response.status_mut() = StatusCode::CREATED;
    Ok(response)
}

async fn set_group(
    State(hub): State<Hub>,
    caller: Caller,
    Path((org, name)): Path<(String, String)>,
    headers: HeaderMap,
    Body(body): Body<GroupSet>,
) -> Result<Response, HubErr> {
    let if_match = headers.get(header::IF_MATCH).and_then(|v| v.to_str().ok());
    Ok(with_etag(orgs::set_group(&hub.db, &caller.user, &org, &name, &body, if_match).await?))
}

async fn delete_group(
    State(hub): State<Hub>,
    caller: Caller,
    Path((org, name)): Path<(String, String)>,
) -> Result<StatusCode, HubErr> {
    orgs::delete_group(&hub.db, &caller.user, &org, &name).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn team_servers(State(hub): State<Hub>, caller: Caller) -> Answer<TeamServerList> {
    Ok(Json(TeamServerList { team_servers: teams::list_mine(&hub.db, &caller.user).await? }))
}

async fn create_team_server(
    State(hub): State<Hub>,
    caller: Caller,
    Body(body): Body<NewTeamServer>,
) -> Result<(StatusCode, Json<TeamServer>), HubErr> {
    Ok((StatusCode::CREATED, Json(teams::create(&hub.db, &caller.user, &body).await?)))
}

async fn team_server(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Answer<TeamServer> {
    let access = teams::access(&hub.db, &slug, &caller.user).await?;
    Ok(Json(teams::to_wire(&hub.db, &access).await?))
}

async fn delete_team_server(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Result<StatusCode, HubErr> {
    teams::delete(&hub.db, &caller.user, &slug).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn join(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
    bytes: Bytes,
) -> Answer<JoinAnswer> {
    // The body is optional: `{ "note": … }` or nothing.
    let body: Join = if bytes.iter().all(u8::is_ascii_whitespace) {
        Join::default()
    } else {
        serde_json::from_slice(&bytes)
            .map_err(|error| HubErr::bad_request(format!("failed to read the request: {error}")))?
    };
    Ok(Json(teams::join(&hub.db, &caller.user, &slug, &body).await?))
}

async fn leave(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Answer<LeaveAnswer> {
    Ok(Json(teams::leave(&hub.db, &caller.user, &slug).await?))
}

/// A `MemberList`, whose JSON the database writes (teams::members_json: 10,000 members in one
/// value, not 10,000 rows decoded and encoded again).
async fn members(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Result<Response, HubErr> {
    let body = teams::members_json(&hub.db, &caller.user, &slug).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn add_member(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
    Body(body): Body<MemberAdd>,
) -> Result<(StatusCode, Json<Member>), HubErr> {
    Ok((StatusCode::CREATED, Json(teams::add_member(&hub.db, &caller.user, &slug, &body).await?)))
}

async fn remove_member(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, email)): Path<(String, String)>,
) -> Result<StatusCode, HubErr> {
    teams::remove_member(&hub.db, &caller.user, &slug, &email).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn requests(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Answer<RequestList> {
    Ok(Json(RequestList { requests: teams::requests(&hub.db, &caller.user, &slug).await? }))
}

async fn approve(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, email)): Path<(String, String)>,
) -> Answer<Member> {
    let member = teams::settle(&hub.db, &caller.user, &slug, &email, true).await?;
    member.map(Json).ok_or_else(|| HubErr::internal("failed to approve", &"no member"))
}

async fn deny(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, email)): Path<(String, String)>,
) -> Result<StatusCode, HubErr> {
    teams::settle(&hub.db, &caller.user, &slug, &email, false).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn report_run(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
    Body(body): Body<RunReport>,
) -> Result<StatusCode, HubErr> {
    runs::report(&hub.db, &caller.user, &slug, &body).await?;
    Ok(StatusCode::ACCEPTED)
}

async fn runs_page(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
    Query(query): Query<RunQuery>,
) -> Answer<RunPage> {
    Ok(Json(runs::page(&hub.db, &caller.user, &slug, &query).await?))
}

#[derive(Deserialize)]
struct PageQuery {
    before: Option<String>,
    limit: Option<u32>,
}

async fn audit_page(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
    Query(q): Query<PageQuery>,
) -> Answer<AuditPage> {
    Ok(Json(teams::audit(&hub.db, &caller.user, &slug, q.before.as_deref(), q.limit).await?))
}

#[derive(Deserialize)]
struct SinceQuery {
    since: Option<String>,
}

async fn poll_updates(
    State(hub): State<Hub>,
    caller: Caller,
    Query(q): Query<SinceQuery>,
) -> Result<Response, HubErr> {
    Ok(match updates::poll(&hub.db, &caller.user, q.since.as_deref()).await? {
        None => {
            let mut response = StatusCode::NOT_MODIFIED.into_response();
            if let Some(since) = q.since.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
                response.headers_mut().insert(CURSOR_HEADER, since);
            }
            response
        }
        Some(updates) => {
            let cursor = HeaderValue::from_str(&updates.cursor).ok();
            let mut response = Json(updates).into_response();
            if let Some(cursor) = cursor {
                response.headers_mut().insert(CURSOR_HEADER, cursor);
            }
            response
        }
    })
}

async fn token(
    State(hub): State<Hub>,
    Form(form): Form<TokenRequest>,
) -> Result<Json<TokenAnswer>, HubErr> {
    oauth::token(&hub, &form).await.map(Json).map_err(HubErr::as_oauth)
}

async fn device_authorization(
    State(hub): State<Hub>,
    Form(form): Form<DeviceRequest>,
) -> Result<Json<DeviceAuthorization>, HubErr> {
    oauth::device_start(&hub, &form).await.map(Json).map_err(HubErr::as_oauth)
}

async fn revoke(
    State(hub): State<Hub>,
    Form(form): Form<RevokeRequest>,
) -> Result<StatusCode, HubErr> {
    sessions::revoke_token(&hub, &form.token).await.map_err(HubErr::as_oauth)?;
    Ok(StatusCode::OK)
}

async fn jwks(State(hub): State<Hub>) -> Json<Jwks> {
    Json(hub.keys.jwks().clone())
}

async fn discovery(State(hub): State<Hub>) -> Json<serde_json::Value> {
    let base = &hub.public_url;
    Json(serde_json::json!({
        "issuer": base.as_ref(),
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "device_authorization_endpoint": format!("{base}/oauth/device"),
        "revocation_endpoint": format!("{base}/oauth/revoke"),
        "jwks_uri": format!("{base}/.well-known/jwks.json"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", GRANT_DEVICE_CODE],
        "code_challenge_methods_supported": ["S256"],
        "id_token_signing_alg_values_supported": ["EdDSA"],
        "token_endpoint_auth_methods_supported": ["none"],
    }))
}
