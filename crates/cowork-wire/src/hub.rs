//! What the team hub (`cowork-hub`) speaks: every request body, answer and error, and (behind the
//! `client` feature) [`client::HubClient`], one typed method per route.
//!
//! Conventions: JSON bodies are camelCase, except the OAuth 2.0 endpoints (`/oauth/token`,
//! `/oauth/device`, `/oauth/revoke`), which keep the snake_case field names of RFC 6749 / 8628 so
//! any OAuth library can talk to them. Times are milliseconds since the Unix epoch ([`Millis`]).
//! Every refusal of a `/api` route is an [`ErrorBody`] whose [`HubErrorName`] a caller branches
//! on; the OAuth endpoints answer an [`OAuthErrorBody`] instead, as the RFCs say.

#[cfg(feature = "client")]
pub mod client;
pub mod store;
#[cfg(feature = "verify")]
pub mod verify;

pub use store::*;

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

/// The OAuth `client_id` of Cowork's own clients (the CLI, the daemon, the desktop app): a public
/// client, so PKCE is required and there is no secret.
pub const CLIENT_ID: &str = "cowork";

/// The device flow's grant type (RFC 8628 §3.4).
pub const GRANT_DEVICE_CODE: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// The hub page an authorization ends on when no loopback port can be reached: it shows the
/// address to paste into the terminal ("paste the address the browser ends on"). A public client
/// may use `<hub>` + this path as its `redirect_uri`.
pub const PASTE_REDIRECT_PATH: &str = "/oauth/done";

/// The header an `/updates` answer's cursor also travels in, for a poller that reads no body.
pub const CURSOR_HEADER: &str = "x-hub-cursor";

// ---------------------------------------------------------------------------------------------
// Errors

/// What went wrong, as a name a caller branches on (the CLI shows it, the UI maps it to words).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum HubErrorName {
    /// The request does not parse, or a field is out of range; the message names it.
    BadRequest,
    /// No bearer token (or browser session) where one is needed.
    NotSignedIn,
    /// A token that is not one of the hub's, or does not match its session.
    InvalidToken,
    /// The access token's time ran out: refresh it.
    SessionExpired,
    /// The session was signed out (logout, the sessions page, a reused refresh token).
    SessionRevoked,
    /// Wrong email or password (never says which).
    InvalidCredentials,
    /// Too many attempts: wait the `Retry-After` seconds.
    RateLimited,
    /// A form was posted without the page's CSRF token.
    CsrfMismatch,
    /// Nothing by that name — or nothing this account may see (another org's private server).
    NotFound,
    /// The account is not a member of that team server (or organization).
    NotMember,
    /// The route needs an admin (or owner) of the team server or organization.
    NotAdmin,
    /// The route needs the team server's owner.
    NotOwner,
    /// Something by that name is already there (an account's email, a group's name, a member).
    AlreadyExists,
    /// The change contradicts the current state (the last owner leaving, a request settled twice).
    Conflict,
    /// `If-Match` names a state that is no longer the latest: read again and re-apply.
    PreconditionFailed,
    /// The route needs `If-Match` (a group edit).
    PreconditionRequired,
    /// A body or blob over its limit.
    TooLarge,
    /// A publish names a version the store already has, with other files: bump the patch and
    /// publish again.
    VersionTaken,
    /// A publish names a version older than the store's latest: the store is newer than your
    /// copy — update first.
    VersionBehind,
    /// A publish names blobs this store does not hold: upload them (`blobs/missing` says which),
    /// then publish again.
    MissingBlobs,
    /// The hub failed; details are in its log.
    Internal,
    /// A back end (database, object store) did not answer.
    Unavailable,
    /// A name this version does not know (a newer hub).
    #[serde(other)]
    Unknown,
}

impl HubErrorName {
    /// The name as it travels.
    pub fn as_str(self) -> &'static str {
        match self {
            HubErrorName::BadRequest => "BadRequest",
            HubErrorName::NotSignedIn => "NotSignedIn",
            HubErrorName::InvalidToken => "InvalidToken",
            HubErrorName::SessionExpired => "SessionExpired",
            HubErrorName::SessionRevoked => "SessionRevoked",
            HubErrorName::InvalidCredentials => "InvalidCredentials",
            HubErrorName::RateLimited => "RateLimited",
            HubErrorName::CsrfMismatch => "CsrfMismatch",
            HubErrorName::NotFound => "NotFound",
            HubErrorName::NotMember => "NotMember",
            HubErrorName::NotAdmin => "NotAdmin",
            HubErrorName::NotOwner => "NotOwner",
            HubErrorName::AlreadyExists => "AlreadyExists",
            HubErrorName::Conflict => "Conflict",
            HubErrorName::PreconditionFailed => "PreconditionFailed",
            HubErrorName::PreconditionRequired => "PreconditionRequired",
            HubErrorName::TooLarge => "TooLarge",
            HubErrorName::VersionTaken => "VersionTaken",
            HubErrorName::VersionBehind => "VersionBehind",
            HubErrorName::MissingBlobs => "MissingBlobs",
            HubErrorName::Internal => "Internal",
            HubErrorName::Unavailable => "Unavailable",
            HubErrorName::Unknown => "Unknown",
        }
    }
}

impl std::fmt::Display for HubErrorName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One refusal: its name, a message for the person, and what to do about it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct HubError {
    pub name: HubErrorName,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The body of every `/api` error answer: `{ "error": { "name", "message", "hint"? } }`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ErrorBody {
    pub error: HubError,
}

/// The error codes of RFC 6749 §5.2 and RFC 8628 §3.5 that the token endpoints answer.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum OAuthErrorCode {
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnauthorizedClient,
    UnsupportedGrantType,
    /// Device flow: the person has not approved yet; poll again after `interval`.
    AuthorizationPending,
    /// Device flow: polled too fast; add 5 s to the interval.
    SlowDown,
    /// The person refused.
    AccessDenied,
    /// Device flow: the code's time ran out; start again.
    ExpiredToken,
    /// Too many attempts (also carries `Retry-After`).
    RateLimited,
    /// A code this version does not know.
    #[serde(other)]
    Other,
}

/// An OAuth endpoint's refusal (RFC 6749 §5.2).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OAuthErrorBody {
    pub error: OAuthErrorCode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_description: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Sign-in and sessions

/// `POST /oauth/token` (form-encoded). Which fields count depends on `grant_type`:
/// `authorization_code` (code, redirect_uri, code_verifier), `refresh_token` (refresh_token),
/// [`GRANT_DEVICE_CODE`] (device_code). `device_id` / `device_name` name the machine on the
/// sessions page and in run reports (taken from the first grant of a session).
#[derive(Serialize, Deserialize, Clone, Default, PartialEq, Eq, Debug)]
pub struct TokenRequest {
    pub grant_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_verifier: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_name: Option<String>,
}

/// Every successful sign-in or refresh (RFC 6749 §5.1 field names), with who signed in so the
/// client needs no second call.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TokenAnswer {
    /// Short-lived bearer for `/api` routes.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds the access token lives.
    pub expires_in: u64,
    /// Rotating: each refresh answers a new one and the old one stops working; presenting a
    /// rotated one again signs the whole session out (`SessionRevoked`).
    pub refresh_token: String,
    /// A signed ID token (EdDSA, verifiable against `/.well-known/jwks.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
    /// The session these tokens belong to (the sessions page names it).
    pub session_id: String,
    pub me: Me,
}

/// `POST /api/auth/password`: an account with a password, no browser.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PasswordSignIn {
    pub email: String,
    pub password: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_name: Option<String>,
}

/// `POST /oauth/device` (form-encoded; RFC 8628 §3.1).
#[derive(Serialize, Deserialize, Clone, Default, PartialEq, Eq, Debug)]
pub struct DeviceRequest {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_name: Option<String>,
}

/// RFC 8628 §3.2: what the terminal prints, and what it polls with.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct DeviceAuthorization {
    pub device_code: String,
    /// `XXXX-XXXX`, letters without vowels or look-alikes.
    pub user_code: String,
    pub verification_uri: String,
    pub verification_uri_complete: String,
    pub expires_in: u64,
    /// Seconds between polls.
    pub interval: u64,
}

/// `POST /oauth/revoke` (form-encoded; RFC 7009): a refresh or access token; its whole session
/// ends. Answers 200 whether or not the token was known, as the RFC says.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
pub struct RevokeRequest {
    pub token: String,
}

/// An account as others see it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct User {
    pub uid: String,
    pub email: String,
    pub display_name: String,
}

/// An organization, named.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OrgRef {
    pub id: String,
    pub slug: String,
    pub name: String,
}

/// `GET /api/me`: who this token is, their organization (the first they belong to, which
/// `ctx.identity` carries) and the organizations they manage.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Me {
    pub user: User,
    pub organization: Option<OrgRef>,
    pub manages: Vec<OrgRef>,
    /// May create accounts and see the hub's settings.
    pub hub_admin: bool,
    pub session_id: String,
    pub device_id: Option<String>,
}

/// `POST /api/id-token`: a short-lived ID token for `ctx.auth.getIdToken()`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct IdToken {
    /// A JWT (`alg: EdDSA`, `kid` in the JWKS): `iss` the hub, `sub` the uid, `aud` `cowork`,
    /// `email`, `name`, `iat`, `exp`.
    pub id_token: String,
    pub expires_at: Millis,
}

/// One key of `/.well-known/jwks.json` (RFC 8037: an Ed25519 public key).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Jwk {
    pub kty: String,
    pub crv: String,
    /// The public key, base64url without padding.
    pub x: String,
    pub kid: String,
    pub alg: String,
    #[serde(rename = "use")]
    pub use_: String,
}

/// `/.well-known/jwks.json`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Jwks {
    pub keys: Vec<Jwk>,
}

/// One signed-in session of the account (`GET /api/sessions`, the sessions page).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SessionInfo {
    pub id: String,
    pub device_id: Option<String>,
    pub device_name: Option<String>,
    /// How it signed in: `password`, `browser`, `device`.
    pub method: String,
    pub created_at: Millis,
    pub last_seen_at: Millis,
    /// The session this request came with.
    pub current: bool,
}

/// `GET /api/sessions`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SessionList {
    pub sessions: Vec<SessionInfo>,
}

// ---------------------------------------------------------------------------------------------
// Accounts

/// `POST /api/accounts`: a password account (a hub admin's call, or anyone's on a hub started
/// with `--open-signup`).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NewAccount {
    pub email: String,
    pub password: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Only a hub admin may make another.
    #[serde(default)]
    pub hub_admin: bool,
}

/// An account, as its creator sees it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Account {
    pub user: User,
    pub hub_admin: bool,
    pub created_at: Millis,
}

// ---------------------------------------------------------------------------------------------
// Organizations and groups

/// A role in a team server or an organization.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Role {
    Member,
    Admin,
    Owner,
}

impl Role {
    /// The word as it travels and as the database keeps it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Member => "member",
            Role::Admin => "admin",
            Role::Owner => "owner",
        }
    }

    /// The role a stored word names.
    pub fn parse(word: &str) -> Option<Role> {
        match word {
            "member" => Some(Role::Member),
            "admin" => Some(Role::Admin),
            "owner" => Some(Role::Owner),
            _ => None,
        }
    }

    /// An admin or the owner.
    pub fn manages(self) -> bool {
        self >= Role::Admin
    }
}

/// `POST /api/orgs`: the caller becomes its owner. No slug: one is minted from the name.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NewOrg {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
}

/// An organization and the caller's role in it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Org {
    #[serde(flatten)]
    pub org: OrgRef,
    pub role: Role,
}

/// `GET /api/orgs/{org}`: the organization, its members, and the team servers it lets the
/// caller install from.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OrgInfo {
    pub org: Org,
    pub members: Vec<OrgMember>,
    pub team_servers: Vec<TeamServer>,
}

/// One member of an organization.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OrgMember {
    pub user: User,
    pub role: Role,
}

/// `POST /api/orgs/{org}/members` (an org admin): someone who already has an account.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OrgMemberAdd {
    pub email: String,
    #[serde(default = "member_role")]
    pub role: Role,
}

fn member_role() -> Role {
    Role::Member
}

/// A group of an organization: a name and its members' emails. `etag` is the state it was read
/// in; `PUT` it back with `If-Match: <etag>`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Group {
    pub name: String,
    pub members: Vec<String>,
    pub etag: String,
    pub updated_at: Millis,
}

/// `GET /api/orgs/{org}/groups` (org admins).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct GroupList {
    pub groups: Vec<Group>,
}

/// `POST /api/orgs/{org}/groups`: members are emails of people already in the organization.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NewGroup {
    pub name: String,
    #[serde(default)]
    pub members: Vec<String>,
}

/// `PUT /api/orgs/{org}/groups/{name}` with `If-Match`: the whole member list as the caller
/// computed it from the state it read. A stale `If-Match` is `PreconditionFailed` (412): read
/// again, apply the change again, once.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct GroupSet {
    pub members: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Team servers

/// Who may find and join a team server.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Default)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Visibility {
    /// Anyone with an account can see it and join (or ask to).
    Public,
    /// Invite-only: invisible to anyone not a member, except to the members of the groups it is
    /// opened to.
    #[default]
    Private,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Private => "private",
        }
    }

    pub fn parse(word: &str) -> Option<Visibility> {
        match word {
            "public" => Some(Visibility::Public),
            "private" => Some(Visibility::Private),
            _ => None,
        }
    }
}

/// `POST /api/team-servers`: display names are not unique, the slug is minted.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NewTeamServer {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default)]
    pub requires_approval: bool,
    /// The organization it belongs to (its slug; the caller must manage it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org: Option<String>,
    /// Groups of that organization whose members may see and join it even when private.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_to_groups: Vec<String>,
}

/// A team server as the caller sees it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TeamServer {
    pub slug: String,
    pub name: String,
    pub description: Option<String>,
    pub visibility: Visibility,
    pub requires_approval: bool,
    pub org: Option<OrgRef>,
    /// The caller's role; `None` when they are not a member (a public server, or one opened to
    /// their group).
    pub role: Option<Role>,
    /// The caller has asked to join and waits for an admin.
    pub requested: bool,
    pub members: u64,
    /// Join requests waiting (only counted for admins; 0 otherwise).
    pub pending_requests: u64,
    /// Items in its store.
    pub items: u64,
    pub open_to_groups: Vec<String>,
    pub created_at: Millis,
}

/// `GET /api/team-servers`: the caller's team servers (member or asked to join).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TeamServerList {
    pub team_servers: Vec<TeamServer>,
}

/// `POST /api/team-servers/{slug}/join`.
#[derive(Serialize, Deserialize, Clone, Default, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Join {
    /// Rides a join request (a server that requires approval), at most 500 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a join did.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum JoinStatus {
    /// A member now.
    Joined,
    /// A request waits for an admin.
    Requested,
}

/// The answer to a join.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct JoinAnswer {
    pub status: JoinStatus,
    pub team_server: TeamServer,
}

/// One member of a team server.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Member {
    pub user: User,
    pub role: Role,
    pub joined_at: Millis,
}

/// `GET /api/team-servers/{slug}/members` (any member).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MemberList {
    pub members: Vec<Member>,
}

/// `POST /api/team-servers/{slug}/members` (admins; only the owner adds admins).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MemberAdd {
    pub email: String,
    #[serde(default)]
    pub admin: bool,
}

/// One waiting join request.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct JoinRequest {
    pub user: User,
    pub note: Option<String>,
    pub requested_at: Millis,
}

/// `GET /api/team-servers/{slug}/requests` (admins).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RequestList {
    pub requests: Vec<JoinRequest>,
}

// ---------------------------------------------------------------------------------------------
// Updates

/// One team server in an updates answer.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TeamServerState {
    pub slug: String,
    pub name: String,
    pub role: Role,
    /// Moves forward on every change of its members, store or courses: compare with the last
    /// one seen to know which servers changed.
    pub rev: i64,
    pub store_rev: i64,
}

/// `GET /api/updates?since=<cursor>`: `304 Not Modified` (no body) when nothing this account can
/// see changed since `cursor`; otherwise the FULL list of team servers the account belongs to (a
/// server that is absent was left or removed: drop it) and the cursor to send next.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Updates {
    /// Opaque to clients.
    pub cursor: String,
    pub team_servers: Vec<TeamServerState>,
    /// The latest version of every item, for each team server whose store changed since the
    /// cursor sent (all of them when none was): a new version (a course's too) reaches clients
    /// within one poll. A team server absent here has the store it had.
    #[serde(default)]
    pub stores: Vec<StoreHeads>,
    /// The account's course subscriptions, in every team server it belongs to.
    #[serde(default)]
    pub subscriptions: Vec<SubscriptionRef>,
}

// ---------------------------------------------------------------------------------------------
// Run reports

/// How a run ended (the audit log's words).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum RunStatus {
    Ok,
    Error,
    Denied,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Error => "error",
            RunStatus::Denied => "denied",
        }
    }

    pub fn parse(word: &str) -> Option<RunStatus> {
        match word {
            "ok" => Some(RunStatus::Ok),
            "error" => Some(RunStatus::Error),
            "denied" => Some(RunStatus::Denied),
            _ => None,
        }
    }
}

/// A failed run's error: its name and message (credential-looking strings cut by the hub too).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunError {
    pub name: String,
    pub message: String,
}

/// `POST /api/team-servers/{slug}/runs` (a member's runner): one run of an app installed from
/// that server. Never its input or result; a failed run's last lines (at most 2,000 characters,
/// credential-looking strings cut — the hub cuts them again).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunReport {
    pub run_id: String,
    pub app: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_version: Option<String>,
    pub routine: String,
    pub device_id: String,
    /// The machine's host name.
    pub device: String,
    pub status: RunStatus,
    pub duration_ms: u64,
    /// When it started.
    pub ts: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_tail: Option<String>,
}

/// A stored report, with who sent it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ReportedRun {
    #[serde(flatten)]
    pub report: RunReport,
    /// The reporting account's email.
    pub user: String,
    pub received_at: Millis,
}

/// `GET /api/team-servers/{slug}/runs` (owners and admins), newest first.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunPage {
    pub runs: Vec<ReportedRun>,
    /// Pass as `before` for the next page; `None` on the last.
    pub next: Option<String>,
}

/// The query of `GET /api/team-servers/{slug}/runs`.
#[derive(Serialize, Deserialize, Clone, Default, PartialEq, Eq, Debug)]
pub struct RunQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// A device id or host name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RunStatus>,
    /// Default 50, at most 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// The audit log

/// What happened to a team server: every membership and store action.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum AuditAction {
    #[serde(rename = "teamServer.create")]
    TeamServerCreate,
    #[serde(rename = "teamServer.update")]
    TeamServerUpdate,
    #[serde(rename = "member.join")]
    MemberJoin,
    #[serde(rename = "member.request")]
    MemberRequest,
    #[serde(rename = "member.approve")]
    MemberApprove,
    #[serde(rename = "member.deny")]
    MemberDeny,
    #[serde(rename = "member.add")]
    MemberAdd,
    #[serde(rename = "member.remove")]
    MemberRemove,
    #[serde(rename = "member.leave")]
    MemberLeave,
    /// Lost access when a group it was opened to was deleted.
    #[serde(rename = "member.groupClosed")]
    MemberGroupClosed,
    /// A blob uploaded (hubs before issue 42 wrote one per upload; a publish's line now names
    /// its version and files instead).
    #[serde(rename = "store.blob")]
    StoreBlob,
    /// A new version (`target` the item, `detail` `v<version>, <n> files`).
    #[serde(rename = "store.publish")]
    StorePublish,
    /// A whole item unpublished (`target` the item) or one version withdrawn (`name@version`).
    #[serde(rename = "store.unpublish")]
    StoreUnpublish,
    /// A store card changed without a new version.
    #[serde(rename = "store.card")]
    StoreCard,
    /// The store's signing key rotated (`target` the new key's id, `detail` the old one's).
    #[serde(rename = "store.keyRotate")]
    StoreKeyRotate,
    /// A name this version does not know.
    #[serde(other)]
    Unknown,
}

impl AuditAction {
    /// The word as it travels and as the database keeps it.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::TeamServerCreate => "teamServer.create",
            AuditAction::TeamServerUpdate => "teamServer.update",
            AuditAction::MemberJoin => "member.join",
            AuditAction::MemberRequest => "member.request",
            AuditAction::MemberApprove => "member.approve",
            AuditAction::MemberDeny => "member.deny",
            AuditAction::MemberAdd => "member.add",
            AuditAction::MemberRemove => "member.remove",
            AuditAction::MemberLeave => "member.leave",
            AuditAction::MemberGroupClosed => "member.groupClosed",
            AuditAction::StoreBlob => "store.blob",
            AuditAction::StorePublish => "store.publish",
            AuditAction::StoreUnpublish => "store.unpublish",
            AuditAction::StoreCard => "store.card",
            AuditAction::StoreKeyRotate => "store.keyRotate",
            AuditAction::Unknown => "unknown",
        }
    }

    pub fn parse(word: &str) -> AuditAction {
        [
            AuditAction::TeamServerCreate,
            AuditAction::TeamServerUpdate,
            AuditAction::MemberJoin,
            AuditAction::MemberRequest,
            AuditAction::MemberApprove,
            AuditAction::MemberDeny,
            AuditAction::MemberAdd,
            AuditAction::MemberRemove,
            AuditAction::MemberLeave,
            AuditAction::MemberGroupClosed,
            AuditAction::StoreBlob,
            AuditAction::StorePublish,
            AuditAction::StoreUnpublish,
            AuditAction::StoreCard,
            AuditAction::StoreKeyRotate,
        ]
        .into_iter()
        .find(|a| a.as_str() == word)
        .unwrap_or(AuditAction::Unknown)
    }
}

/// One line of a team server's audit log.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AuditEntry {
    pub id: String,
    pub ts: Millis,
    /// Who did it (an email; `None` for the hub itself).
    pub actor: Option<String>,
    pub action: AuditAction,
    /// Whom or what it was done to (an email, a blob's hash, an item).
    pub target: Option<String>,
    pub detail: Option<String>,
}

/// `GET /api/team-servers/{slug}/audit?before=&limit=` (the owner), newest first.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    pub next: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_error_name_reads_as_unknown() {
        let body: ErrorBody =
            serde_json::from_str(r#"{"error":{"name":"Brand new","message":"m"}}"#).unwrap();
        assert_eq!(body.error.name, HubErrorName::Unknown);
    }

    #[test]
    fn error_names_travel_as_their_word() {
        for name in [HubErrorName::NotAdmin, HubErrorName::PreconditionFailed] {
            let json = serde_json::to_string(&name).unwrap();
            assert_eq!(json, format!("\"{}\"", name.as_str()));
        }
    }

    #[test]
    fn audit_actions_parse_back() {
        for word in ["member.add", "store.publish", "teamServer.create"] {
            let action = AuditAction::parse(word);
            assert_eq!(action.as_str(), word);
            assert_eq!(serde_json::to_string(&action).unwrap(), format!("\"{word}\""));
        }
    }

    #[test]
    fn roles_order_member_admin_owner() {
        assert!(Role::Owner.manages() && Role::Admin.manages() && !Role::Member.manages());
    }
}
