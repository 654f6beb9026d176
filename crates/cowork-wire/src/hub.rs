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
    /// What a client branches on.
    pub name: HubErrorName,
    /// What was refused, for the person.
    pub message: String,
    /// What to do about it, when there is something.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The body of every `/api` error answer: `{ "error": { "name", "message", "hint"? } }`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ErrorBody {
    /// The refusal.
    pub error: HubError,
}

/// The error codes of RFC 6749 §5.2 and RFC 8628 §3.5 that the token endpoints answer.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum OAuthErrorCode {
    /// The request is malformed (a missing or repeated parameter).
    InvalidRequest,
    /// The client is not one the hub knows.
    InvalidClient,
    /// The code, refresh token or device code is wrong, spent or expired.
    InvalidGrant,
    /// This client may not use this grant type.
    UnauthorizedClient,
    /// The hub does not take this grant type.
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
    /// What the endpoint refused, by code.
    pub error: OAuthErrorCode,
    /// What was wrong, for a person, when the hub says.
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
    /// `authorization_code`, `refresh_token` or [`GRANT_DEVICE_CODE`].
    pub grant_type: String,
    /// The client asking (`cowork`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// `authorization_code`: the code the browser brought back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// `authorization_code`: the redirect address the code was issued for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    /// `authorization_code`: the PKCE verifier of the code's challenge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_verifier: Option<String>,
    /// `refresh_token`: the refresh token to trade (it rotates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// [`GRANT_DEVICE_CODE`]: the device code being polled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_code: Option<String>,
    /// The machine's id, for the sessions page and run reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    /// The machine's name, for the sessions page.
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
    /// Who signed in.
    pub me: Me,
}

/// `POST /api/auth/password`: an account with a password, no browser.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PasswordSignIn {
    /// The account's email.
    pub email: String,
    /// Its password.
    pub password: String,
    /// The machine's id, for the sessions page and run reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    /// The machine's name, for the sessions page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_name: Option<String>,
}

/// `POST /oauth/device` (form-encoded; RFC 8628 §3.1).
#[derive(Serialize, Deserialize, Clone, Default, PartialEq, Eq, Debug)]
pub struct DeviceRequest {
    /// The client asking (`cowork`).
    pub client_id: String,
    /// The machine's id, for the sessions page and run reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    /// The machine's name, for the sessions page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_name: Option<String>,
}

/// RFC 8628 §3.2: what the terminal prints, and what it polls with.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct DeviceAuthorization {
    /// What the terminal polls `/oauth/token` with.
    pub device_code: String,
    /// `XXXX-XXXX`, letters without vowels or look-alikes.
    pub user_code: String,
    /// The page where the person types the code.
    pub verification_uri: String,
    /// The same page with the code filled in.
    pub verification_uri_complete: String,
    /// Seconds before the codes expire.
    pub expires_in: u64,
    /// Seconds between polls.
    pub interval: u64,
}

/// `POST /oauth/revoke` (form-encoded; RFC 7009): a refresh or access token; its whole session
/// ends. Answers 200 whether or not the token was known, as the RFC says.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
pub struct RevokeRequest {
    /// The token to revoke.
    pub token: String,
}

/// An account as others see it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct User {
    /// The account's id.
    pub uid: String,
    /// The account's email.
    pub email: String,
    /// The name people see.
    pub display_name: String,
}

/// An organization, named.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OrgRef {
    /// The organization's id.
    pub id: String,
    /// Its short name, unique on the hub.
    pub slug: String,
    /// Its name as people read it.
    pub name: String,
}

/// `GET /api/me`: who this token is, their organization (the first they belong to, which
/// `ctx.identity` carries) and the organizations they manage.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Me {
    /// The account.
    pub user: User,
    /// The first organization it belongs to (what `ctx.identity` carries).
    pub organization: Option<OrgRef>,
    /// The organizations it is an admin or owner of.
    pub manages: Vec<OrgRef>,
    /// May create accounts and see the hub's settings.
    pub hub_admin: bool,
    /// The session this token belongs to.
    pub session_id: String,
    /// The machine the session signed in from, when it said.
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
    /// When the token expires.
    pub expires_at: Millis,
}

/// One key of `/.well-known/jwks.json` (RFC 8037: an Ed25519 public key).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Jwk {
    /// Always `OKP`.
    pub kty: String,
    /// Always `Ed25519`.
    pub crv: String,
    /// The public key, base64url without padding.
    pub x: String,
    /// The key's id, as a token's header names it.
    pub kid: String,
    /// Always `EdDSA`.
    pub alg: String,
    /// Always `sig`.
    #[serde(rename = "use")]
    pub use_: String,
}

/// `/.well-known/jwks.json`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Jwks {
    /// The hub's signing keys.
    pub keys: Vec<Jwk>,
}

/// One signed-in session of the account (`GET /api/sessions`, the sessions page).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SessionInfo {
    /// The session's id.
    pub id: String,
    /// The machine it signed in from, when it said.
    pub device_id: Option<String>,
    /// The machine's name, when it said.
    pub device_name: Option<String>,
    /// How it signed in: `password`, `browser`, `device`.
    pub method: String,
    /// When it signed in.
    pub created_at: Millis,
    /// When it was last used.
    pub last_seen_at: Millis,
    /// The session this request came with.
    pub current: bool,
}

/// `GET /api/sessions`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SessionList {
    /// The account's sessions.
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
    /// The new account's email.
    pub email: String,
    /// Its password.
    pub password: String,
    /// The name people see; none = from the email.
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
    /// The account.
    pub user: User,
    /// It may create accounts and see the hub's settings.
    pub hub_admin: bool,
    /// When it was created.
    pub created_at: Millis,
}

// ---------------------------------------------------------------------------------------------
// Organizations and groups

/// A role in a team server or an organization.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Role {
    /// Uses what the team server or organization offers.
    Member,
    /// Manages members (and, in a team server, its store).
    Admin,
    /// Made it; the only one who adds admins.
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
    /// Its name as people read it.
    pub name: String,
    /// Its short name; none = minted from the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
}

/// An organization and the caller's role in it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Org {
    /// The organization.
    #[serde(flatten)]
    pub org: OrgRef,
    /// The caller's role in it.
    pub role: Role,
}

/// `GET /api/orgs/{org}`: the organization, its members, and the team servers it lets the
/// caller install from.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OrgInfo {
    /// The organization, with the caller's role.
    pub org: Org,
    /// Its members.
    pub members: Vec<OrgMember>,
    /// The team servers it lets the caller install from.
    pub team_servers: Vec<TeamServer>,
}

/// One member of an organization.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OrgMember {
    /// The account.
    pub user: User,
    /// Its role in the organization.
    pub role: Role,
}

/// `POST /api/orgs/{org}/members` (an org admin): someone who already has an account.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OrgMemberAdd {
    /// The account's email.
    pub email: String,
    /// The role to give; `member` when left out.
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
    /// Its name in the organization.
    pub name: String,
    /// Its members' emails.
    pub members: Vec<String>,
    /// The state it was read in, for `If-Match`.
    pub etag: String,
    /// When it last changed.
    pub updated_at: Millis,
}

/// `GET /api/orgs/{org}/groups` (org admins).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct GroupList {
    /// The organization's groups.
    pub groups: Vec<Group>,
}

/// `POST /api/orgs/{org}/groups`: members are emails of people already in the organization.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NewGroup {
    /// Its name, unique in the organization.
    pub name: String,
    /// Its members' emails (already in the organization).
    #[serde(default)]
    pub members: Vec<String>,
}

/// `PUT /api/orgs/{org}/groups/{name}` with `If-Match`: the whole member list as the caller
/// computed it from the state it read. A stale `If-Match` is `PreconditionFailed` (412): read
/// again, apply the change again, once.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct GroupSet {
    /// Every member's email, as the caller computed the list.
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
    /// The word as it travels and as the database keeps it.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Private => "private",
        }
    }

    /// The visibility a stored word names.
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
    /// Its name as people read it (not unique).
    pub name: String,
    /// A line about it, for people who find it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Who may find and join it (private when left out).
    #[serde(default)]
    pub visibility: Visibility,
    /// Joining waits for an admin's approval.
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
    /// Its short name, minted and unique: what commands and URLs use.
    pub slug: String,
    /// Its name as people read it.
    pub name: String,
    /// A line about it.
    pub description: Option<String>,
    /// Who may find and join it.
    pub visibility: Visibility,
    /// Joining waits for an admin's approval.
    pub requires_approval: bool,
    /// The organization it belongs to, if any.
    pub org: Option<OrgRef>,
    /// The caller's role; `None` when they are not a member (a public server, or one opened to
    /// their group).
    pub role: Option<Role>,
    /// The caller has asked to join and waits for an admin.
    pub requested: bool,
    /// How many members it has.
    pub members: u64,
    /// Join requests waiting (only counted for admins; 0 otherwise).
    pub pending_requests: u64,
    /// Items in its store.
    pub items: u64,
    /// Groups of its organization whose members may see and join it even when private.
    pub open_to_groups: Vec<String>,
    /// When it was made.
    pub created_at: Millis,
}

/// `GET /api/team-servers`: the caller's team servers (member or asked to join).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TeamServerList {
    /// The caller's team servers.
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
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct JoinAnswer {
    /// Joined, or asked to.
    pub status: JoinStatus,
    /// The team server as the caller now sees it.
    pub team_server: TeamServer,
}

/// What a leave did.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum LeaveStatus {
    /// A member no longer.
    Left,
    /// The caller only had a join request, and it is withdrawn.
    Withdrawn,
}

/// The answer to a leave.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LeaveAnswer {
    /// Left, or withdrew the request.
    pub status: LeaveStatus,
}

/// One member of a team server.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Member {
    /// The account.
    pub user: User,
    /// Its role in the team server.
    pub role: Role,
    /// When it joined.
    pub joined_at: Millis,
}

/// `GET /api/team-servers/{slug}/members` (any member).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MemberList {
    /// The team server's members.
    pub members: Vec<Member>,
}

/// `POST /api/team-servers/{slug}/members` (admins; only the owner adds admins).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MemberAdd {
    /// The account's email.
    pub email: String,
    /// Make them an admin (only the owner may).
    #[serde(default)]
    pub admin: bool,
}

/// One waiting join request.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct JoinRequest {
    /// Who asks.
    pub user: User,
    /// What they wrote with the request.
    pub note: Option<String>,
    /// When they asked.
    pub requested_at: Millis,
}

/// `GET /api/team-servers/{slug}/requests` (admins).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RequestList {
    /// The waiting requests.
    pub requests: Vec<JoinRequest>,
}

// ---------------------------------------------------------------------------------------------
// Updates

/// One team server in an updates answer.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TeamServerState {
    /// Its short name.
    pub slug: String,
    /// Its name as people read it.
    pub name: String,
    /// The account's role in it.
    pub role: Role,
    /// Moves forward on every change of its members, store or courses: compare with the last
    /// one seen to know which servers changed.
    pub rev: i64,
    /// Moves forward on every change of its store.
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
    /// Every team server the account belongs to.
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
    /// It returned a result.
    Ok,
    /// It ran and failed.
    Error,
    /// It was refused before it started.
    Denied,
}

impl RunStatus {
    /// The word as it travels and as the database keeps it.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Error => "error",
            RunStatus::Denied => "denied",
        }
    }

    /// The status a stored word names.
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
    /// The error's name (`Timeout`, a name the routine threw…).
    pub name: String,
    /// Its message, cut.
    pub message: String,
}

/// `POST /api/team-servers/{slug}/runs` (a member's runner): one run of an app installed from
/// that server. Never its input or result; a failed run's last lines (at most 2,000 characters,
/// credential-looking strings cut — the hub cuts them again).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunReport {
    /// The run's id on the member's machine.
    pub run_id: String,
    /// The app's name in the store.
    pub app: String,
    /// The installed version that ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_version: Option<String>,
    /// The routine that ran.
    pub routine: String,
    /// The machine's id (as its session names it).
    pub device_id: String,
    /// The machine's host name.
    pub device: String,
    /// How it ended.
    pub status: RunStatus,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// When it started.
    pub ts: Millis,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    /// A failed run's last lines (at most 2,000 characters, credential-looking strings cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_tail: Option<String>,
}

/// A stored report, with who sent it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ReportedRun {
    /// The report as sent.
    #[serde(flatten)]
    pub report: RunReport,
    /// The reporting account's email.
    pub user: String,
    /// When the hub got it.
    pub received_at: Millis,
}

/// `GET /api/team-servers/{slug}/runs` (owners and admins), newest first.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunPage {
    /// The reports, newest first.
    pub runs: Vec<ReportedRun>,
    /// Pass as `before` for the next page; `None` on the last.
    pub next: Option<String>,
}

/// The query of `GET /api/team-servers/{slug}/runs`.
#[derive(Serialize, Deserialize, Clone, Default, PartialEq, Eq, Debug)]
pub struct RunQuery {
    /// Only this app's runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// A device id or host name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Only the runs that ended so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RunStatus>,
    /// Default 50, at most 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The `next` of the page before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// The audit log

/// What happened to a team server: every membership and store action.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum AuditAction {
    /// A team server was made.
    #[serde(rename = "teamServer.create")]
    TeamServerCreate,
    /// Its name, description, visibility or groups changed.
    #[serde(rename = "teamServer.update")]
    TeamServerUpdate,
    /// Someone joined.
    #[serde(rename = "member.join")]
    MemberJoin,
    /// Someone asked to join.
    #[serde(rename = "member.request")]
    MemberRequest,
    /// An admin approved a request.
    #[serde(rename = "member.approve")]
    MemberApprove,
    /// An admin denied a request.
    #[serde(rename = "member.deny")]
    MemberDeny,
    /// An admin added someone.
    #[serde(rename = "member.add")]
    MemberAdd,
    /// An admin removed someone.
    #[serde(rename = "member.remove")]
    MemberRemove,
    /// Someone left.
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

    /// The action a stored word names (`Unknown` for one this version does not know).
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
    /// The line's id.
    pub id: String,
    /// When it happened.
    pub ts: Millis,
    /// Who did it (an email; `None` for the hub itself).
    pub actor: Option<String>,
    /// What happened.
    pub action: AuditAction,
    /// Whom or what it was done to (an email, a blob's hash, an item).
    pub target: Option<String>,
    /// More about it (a version and its files, a key).
    pub detail: Option<String>,
}

/// `GET /api/team-servers/{slug}/audit?before=&limit=` (the owner), newest first.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AuditPage {
    /// The lines, newest first.
    pub entries: Vec<AuditEntry>,
    /// Pass as `before` for the next page; `None` on the last.
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
