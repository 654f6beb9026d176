//! [`HubClient`]: one async method per hub route, each answering its wire type or a
//! [`ClientError`] that names what the hub refused. The CLI, the daemon and the hub's own tests use
//! it; nobody reads a hub answer as a `Value`.

use super::*;
use reqwest::header::{HeaderMap, HeaderValue, ETAG, IF_MATCH, RETRY_AFTER};
use reqwest::{Method, RequestBuilder, Response, StatusCode, Url};
use serde::de::DeserializeOwned;

/// A hub call that did not give its answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The hub refused: its named error. `retry_after` is set on `RateLimited`.
    #[error("{}", error.message)]
    Hub {
        /// The HTTP status.
        status: u16,
        /// The hub's named error.
        error: HubError,
        /// Seconds to wait before trying again (`Retry-After`).
        retry_after: Option<u64>,
    },
    /// An OAuth endpoint refused (RFC 6749 §5.2 / RFC 8628 §3.5).
    #[error("the hub refused the sign-in: {}", describe_oauth(error))]
    OAuth {
        /// The HTTP status.
        status: u16,
        /// The OAuth error code and its description.
        error: OAuthErrorBody,
        /// Seconds to wait before polling again (`Retry-After`).
        retry_after: Option<u64>,
    },
    /// The hub did not answer (down, wrong address, TLS).
    #[error("failed to reach the hub at {url}")]
    Transport {
        /// The address that was asked.
        url: String,
        /// What the connection said.
        #[source]
        source: reqwest::Error,
    },
    /// The hub answered something that is not its wire format (a proxy's page, another server).
    #[error("failed to read the hub's answer from {url} (HTTP {status}): {detail}")]
    Decode {
        /// The address that answered.
        url: String,
        /// The HTTP status it answered with.
        status: u16,
        /// What could not be read.
        detail: String,
    },
    /// The base address is not a URL.
    #[error("failed to use {0:?} as the hub's address")]
    BadAddress(String),
}

fn describe_oauth(error: &OAuthErrorBody) -> String {
    let code = serde_json::to_value(error.error)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    match &error.error_description {
        Some(description) => format!("{code}: {description}"),
        None => code,
    }
}

impl ClientError {
    /// The hub's error name, when the hub answered one.
    pub fn name(&self) -> Option<HubErrorName> {
        match self {
            ClientError::Hub { error, .. } => Some(error.name),
            _ => None,
        }
    }

    /// The OAuth error code, when an OAuth endpoint refused.
    pub fn oauth_code(&self) -> Option<OAuthErrorCode> {
        match self {
            ClientError::OAuth { error, .. } => Some(error.error),
            _ => None,
        }
    }

    /// The hub's hint, when it gave one.
    pub fn hint(&self) -> Option<&str> {
        match self {
            ClientError::Hub { error, .. } => error.hint.as_deref(),
            _ => None,
        }
    }
}

/// A typed client of one hub. Cheap to clone (the connection pool is shared).
#[derive(Clone, Debug)]
pub struct HubClient {
    base: Url,
    http: reqwest::Client,
    token: Option<String>,
}

impl HubClient {
    /// A client of the hub at `base` (`http://127.0.0.1:8480`), with no token yet. Redirects are
    /// not followed automatically: a blob download follows its one redirect itself.
    pub fn new(base: &str) -> Result<HubClient, ClientError> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|source| ClientError::Transport { url: base.to_string(), source })?;
        HubClient::with_http(base, http)
    }

    /// The same, over a client the caller built (timeouts, proxies).
    pub fn with_http(base: &str, http: reqwest::Client) -> Result<HubClient, ClientError> {
        let mut base = Url::parse(base).map_err(|_| ClientError::BadAddress(base.to_string()))?;
        if base.cannot_be_a_base() || !matches!(base.scheme(), "http" | "https") {
            return Err(ClientError::BadAddress(base.to_string()));
        }
        // Paths are appended segment by segment: drop a trailing slash once here.
        if base.path().ends_with('/') {
            let trimmed = base.path().trim_end_matches('/').to_string();
            base.set_path(&trimmed);
        }
        Ok(HubClient { base, http, token: None })
    }

    /// This client with an access token for the `/api` routes.
    pub fn with_token(mut self, access_token: impl Into<String>) -> HubClient {
        self.token = Some(access_token.into());
        self
    }

    /// Replace the access token (after a refresh).
    pub fn set_token(&mut self, access_token: Option<String>) {
        self.token = access_token;
    }

    /// The hub's address.
    pub fn base(&self) -> &Url {
        &self.base
    }

    /// The address of a path on the hub, each segment percent-encoded.
    pub fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        {
            let mut path = url.path_segments_mut().expect("checked in with_http: a base URL");
            path.pop_if_empty();
            for segment in segments {
                path.push(segment);
            }
        }
        url
    }

    fn request(&self, method: Method, segments: &[&str]) -> RequestBuilder {
        let builder = self.http.request(method, self.url(segments));
        match &self.token {
            Some(token) => builder.bearer_auth(token),
            None => builder,
        }
    }

    // -----------------------------------------------------------------------------------------
    // OAuth and sign-in

    /// `POST /oauth/token`: any grant (authorization code with PKCE, refresh, device code).
    pub async fn token(&self, request: &TokenRequest) -> Result<TokenAnswer, ClientError> {
        let builder = self.http.post(self.url(&["oauth", "token"])).form(request);
        oauth_answer(send(builder).await?).await
    }

    /// A refresh: the new tokens (the old refresh token stops working).
    pub async fn refresh(
        &self,
        refresh_token: &str,
        device_id: Option<&str>,
    ) -> Result<TokenAnswer, ClientError> {
        self.token(&TokenRequest {
            grant_type: "refresh_token".into(),
            client_id: Some(CLIENT_ID.into()),
            refresh_token: Some(refresh_token.into()),
            device_id: device_id.map(str::to_owned),
            ..TokenRequest::default()
        })
        .await
    }

    /// `POST /oauth/device`: start the device flow (RFC 8628).
    pub async fn device_authorization(
        &self,
        request: &DeviceRequest,
    ) -> Result<DeviceAuthorization, ClientError> {
        let builder = self.http.post(self.url(&["oauth", "device"])).form(request);
        oauth_answer(send(builder).await?).await
    }

    /// `POST /oauth/revoke`: end the session the token belongs to (RFC 7009).
    pub async fn revoke(&self, token: &str) -> Result<(), ClientError> {
        let builder = self
            .http
            .post(self.url(&["oauth", "revoke"]))
            .form(&RevokeRequest { token: token.to_string() });
        let response = send(builder).await?;
        if response.status().is_success() {
            return Ok(());
        }
        oauth_answer::<serde_json::Value>(response).await.map(|_| ())
    }

    /// `POST /api/auth/password`: sign in with an email and a password.
    pub async fn sign_in_password(
        &self,
        request: &PasswordSignIn,
    ) -> Result<TokenAnswer, ClientError> {
        let builder = self.http.post(self.url(&["api", "auth", "password"])).json(request);
        answer(send(builder).await?).await
    }

    /// `GET /.well-known/jwks.json`: the keys ID tokens are signed with.
    pub async fn jwks(&self) -> Result<Jwks, ClientError> {
        answer(send(self.http.get(self.url(&[".well-known", "jwks.json"]))).await?).await
    }

    // -----------------------------------------------------------------------------------------
    // The account

    /// `GET /api/me`.
    pub async fn me(&self) -> Result<Me, ClientError> {
        answer(send(self.request(Method::GET, &["api", "me"])).await?).await
    }

    /// `POST /api/id-token`.
    pub async fn id_token(&self) -> Result<IdToken, ClientError> {
        answer(send(self.request(Method::POST, &["api", "id-token"])).await?).await
    }

    /// `GET /api/sessions`.
    pub async fn sessions(&self) -> Result<SessionList, ClientError> {
        answer(send(self.request(Method::GET, &["api", "sessions"])).await?).await
    }

    /// `DELETE /api/sessions/{id}`: sign one of the account's sessions out.
    pub async fn revoke_session(&self, id: &str) -> Result<(), ClientError> {
        empty(send(self.request(Method::DELETE, &["api", "sessions", id])).await?).await
    }

    /// `POST /api/accounts`.
    pub async fn create_account(&self, account: &NewAccount) -> Result<Account, ClientError> {
        answer(send(self.request(Method::POST, &["api", "accounts"]).json(account)).await?).await
    }

    // -----------------------------------------------------------------------------------------
    // Organizations and groups

    /// `POST /api/orgs`.
    pub async fn create_org(&self, org: &NewOrg) -> Result<Org, ClientError> {
        answer(send(self.request(Method::POST, &["api", "orgs"]).json(org)).await?).await
    }

    /// `GET /api/orgs/{org}`.
    pub async fn org(&self, org: &str) -> Result<OrgInfo, ClientError> {
        answer(send(self.request(Method::GET, &["api", "orgs", org])).await?).await
    }

    /// `POST /api/orgs/{org}/members`.
    pub async fn add_org_member(
        &self,
        org: &str,
        member: &OrgMemberAdd,
    ) -> Result<OrgMember, ClientError> {
        let builder = self.request(Method::POST, &["api", "orgs", org, "members"]).json(member);
        answer(send(builder).await?).await
    }

    /// `GET /api/orgs/{org}/groups`.
    pub async fn groups(&self, org: &str) -> Result<GroupList, ClientError> {
        answer(send(self.request(Method::GET, &["api", "orgs", org, "groups"])).await?).await
    }

    /// `GET /api/orgs/{org}/groups/{name}` (its `etag` filled from the `ETag` header).
    pub async fn group(&self, org: &str, name: &str) -> Result<Group, ClientError> {
        let response =
            send(self.request(Method::GET, &["api", "orgs", org, "groups", name])).await?;
        let etag = etag_of(response.headers());
        let mut group: Group = answer(response).await?;
        if let Some(etag) = etag {
            group.etag = etag;
        }
        Ok(group)
    }

    /// `POST /api/orgs/{org}/groups`.
    pub async fn create_group(&self, org: &str, group: &NewGroup) -> Result<Group, ClientError> {
        let builder = self.request(Method::POST, &["api", "orgs", org, "groups"]).json(group);
        answer(send(builder).await?).await
    }

    /// `PUT /api/orgs/{org}/groups/{name}` with `If-Match: etag`. A stale etag is
    /// `PreconditionFailed`: read the group again and re-apply the change once.
    pub async fn set_group(
        &self,
        org: &str,
        name: &str,
        set: &GroupSet,
        etag: &str,
    ) -> Result<Group, ClientError> {
        let builder = self
            .request(Method::PUT, &["api", "orgs", org, "groups", name])
            .header(IF_MATCH, quote_etag(etag))
            .json(set);
        answer(send(builder).await?).await
    }

    /// `DELETE /api/orgs/{org}/groups/{name}`: the team servers opened to it close to its
    /// members.
    pub async fn delete_group(&self, org: &str, name: &str) -> Result<(), ClientError> {
        empty(send(self.request(Method::DELETE, &["api", "orgs", org, "groups", name])).await?)
            .await
    }

    // -----------------------------------------------------------------------------------------
    // Team servers

    /// `GET /api/team-servers`: the caller's.
    pub async fn team_servers(&self) -> Result<TeamServerList, ClientError> {
        answer(send(self.request(Method::GET, &["api", "team-servers"])).await?).await
    }

    /// `POST /api/team-servers`.
    pub async fn create_team_server(&self, new: &NewTeamServer) -> Result<TeamServer, ClientError> {
        answer(send(self.request(Method::POST, &["api", "team-servers"]).json(new)).await?).await
    }

    /// `GET /api/team-servers/{slug}`.
    pub async fn team_server(&self, slug: &str) -> Result<TeamServer, ClientError> {
        answer(send(self.request(Method::GET, &["api", "team-servers", slug])).await?).await
    }

    /// `DELETE /api/team-servers/{slug}` (the owner).
    pub async fn delete_team_server(&self, slug: &str) -> Result<(), ClientError> {
        empty(send(self.request(Method::DELETE, &["api", "team-servers", slug])).await?).await
    }

    /// `POST /api/team-servers/{slug}/join`.
    pub async fn join(&self, slug: &str, join: &Join) -> Result<JoinAnswer, ClientError> {
        let builder = self.request(Method::POST, &["api", "team-servers", slug, "join"]).json(join);
        answer(send(builder).await?).await
    }

    /// `POST /api/team-servers/{slug}/leave`.
    pub async fn leave(&self, slug: &str) -> Result<LeaveAnswer, ClientError> {
        answer(send(self.request(Method::POST, &["api", "team-servers", slug, "leave"])).await?)
            .await
    }

    /// `GET /api/team-servers/{slug}/members`.
    pub async fn members(&self, slug: &str) -> Result<MemberList, ClientError> {
        answer(send(self.request(Method::GET, &["api", "team-servers", slug, "members"])).await?)
            .await
    }

    /// `POST /api/team-servers/{slug}/members`.
    pub async fn add_member(&self, slug: &str, add: &MemberAdd) -> Result<Member, ClientError> {
        let builder =
            self.request(Method::POST, &["api", "team-servers", slug, "members"]).json(add);
        answer(send(builder).await?).await
    }

    /// `DELETE /api/team-servers/{slug}/members/{email}`.
    pub async fn remove_member(&self, slug: &str, email: &str) -> Result<(), ClientError> {
        let builder =
            self.request(Method::DELETE, &["api", "team-servers", slug, "members", email]);
        empty(send(builder).await?).await
    }

    /// `GET /api/team-servers/{slug}/requests`.
    pub async fn requests(&self, slug: &str) -> Result<RequestList, ClientError> {
        answer(send(self.request(Method::GET, &["api", "team-servers", slug, "requests"])).await?)
            .await
    }

    /// `POST /api/team-servers/{slug}/requests/{email}/approve`.
    pub async fn approve(&self, slug: &str, email: &str) -> Result<Member, ClientError> {
        let segments = ["api", "team-servers", slug, "requests", email, "approve"];
        answer(send(self.request(Method::POST, &segments)).await?).await
    }

    /// `POST /api/team-servers/{slug}/requests/{email}/deny`.
    pub async fn deny(&self, slug: &str, email: &str) -> Result<(), ClientError> {
        let segments = ["api", "team-servers", slug, "requests", email, "deny"];
        empty(send(self.request(Method::POST, &segments)).await?).await
    }

    // -----------------------------------------------------------------------------------------
    // The store (see `store`'s table of routes)

    /// `GET /api/team-servers/{slug}/store` (members): every item at its latest version.
    pub async fn store(&self, slug: &str) -> Result<Store, ClientError> {
        answer(send(self.request(Method::GET, &["api", "team-servers", slug, "store"])).await?)
            .await
    }

    /// `GET …/store/items/{name}` (members): the item and the versions kept, newest first.
    pub async fn store_item(&self, slug: &str, name: &str) -> Result<ItemVersions, ClientError> {
        let segments = ["api", "team-servers", slug, "store", "items", name];
        answer(send(self.request(Method::GET, &segments)).await?).await
    }

    /// `POST …/store/items/{name}/versions` (admins): publish files whose blobs are uploaded.
    /// Refusals to branch on: `VersionTaken`, `VersionBehind`, `MissingBlobs`, `Conflict` (the
    /// item is another kind), `NotAdmin`.
    pub async fn publish(
        &self,
        slug: &str,
        name: &str,
        publish: &Publish,
    ) -> Result<Published, ClientError> {
        let segments = ["api", "team-servers", slug, "store", "items", name, "versions"];
        answer(send(self.request(Method::POST, &segments).json(publish)).await?).await
    }

    /// `PATCH …/store/items/{name}` (admins): change the store card only.
    pub async fn update_card(
        &self,
        slug: &str,
        name: &str,
        card: &CardUpdate,
    ) -> Result<StoreItem, ClientError> {
        let segments = ["api", "team-servers", slug, "store", "items", name];
        answer(send(self.request(Method::PATCH, &segments).json(card)).await?).await
    }

    /// `DELETE …/store/items/{name}` (admins): unpublish the whole item. Its name stays its
    /// own: publishing it again continues after its last version.
    pub async fn unpublish(&self, slug: &str, name: &str) -> Result<(), ClientError> {
        let segments = ["api", "team-servers", slug, "store", "items", name];
        empty(send(self.request(Method::DELETE, &segments)).await?).await
    }

    /// `DELETE …/store/items/{name}/versions/{version}` (admins): withdraw one version, never
    /// the latest (`Conflict`).
    pub async fn withdraw(&self, slug: &str, name: &str, version: &str) -> Result<(), ClientError> {
        let segments = ["api", "team-servers", slug, "store", "items", name, "versions", version];
        empty(send(self.request(Method::DELETE, &segments)).await?).await
    }

    /// `GET …/store/items/{name}/versions/{version}` (members): one version's signed manifest;
    /// `None` takes the latest.
    pub async fn manifest(
        &self,
        slug: &str,
        name: &str,
        version: Option<&str>,
    ) -> Result<VersionManifest, ClientError> {
        let version = version.unwrap_or(LATEST);
        let segments = ["api", "team-servers", slug, "store", "items", name, "versions", version];
        answer(send(self.request(Method::GET, &segments)).await?).await
    }

    /// `POST …/store/manifests` (members): many manifests in one call.
    pub async fn manifests(
        &self,
        slug: &str,
        request: &ManifestRequest,
    ) -> Result<Manifests, ClientError> {
        let segments = ["api", "team-servers", slug, "store", "manifests"];
        answer(send(self.request(Method::POST, &segments).json(request)).await?).await
    }

    /// `POST …/blobs/missing` (admins): which of these blobs the store lacks.
    pub async fn missing_blobs(
        &self,
        slug: &str,
        sha256: &[String],
    ) -> Result<MissingBlobs, ClientError> {
        let segments = ["api", "team-servers", slug, "blobs", "missing"];
        let body = BlobList { sha256: sha256.to_vec() };
        answer(send(self.request(Method::POST, &segments).json(&body)).await?).await
    }

    /// `PUT /api/team-servers/{slug}/blobs/{sha256}` (admins).
    pub async fn put_blob(
        &self,
        slug: &str,
        sha256: &str,
        bytes: Vec<u8>,
    ) -> Result<BlobStored, ClientError> {
        let builder = self
            .request(Method::PUT, &["api", "team-servers", slug, "blobs", sha256])
            .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
            .body(bytes);
        answer(send(builder).await?).await
    }

    /// `GET /api/team-servers/{slug}/blobs/{sha256}` (members), following the hub's redirect to
    /// the object store once (without the bearer token).
    pub async fn get_blob(&self, slug: &str, sha256: &str) -> Result<Vec<u8>, ClientError> {
        let response =
            send(self.request(Method::GET, &["api", "team-servers", slug, "blobs", sha256]))
                .await?;
        let response = if response.status().is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| decode_error(&response, "a redirect without a Location"))?;
            let location = self.base.join(&location).map_err(|_| ClientError::Decode {
                url: response.url().to_string(),
                status: response.status().as_u16(),
                detail: format!("a redirect to {location:?}"),
            })?;
            send(self.http.get(location)).await?
        } else {
            response
        };
        if !response.status().is_success() {
            return Err(hub_error(response).await);
        }
        let url = response.url().to_string();
        let bytes =
            response.bytes().await.map_err(|source| ClientError::Transport { url, source })?;
        Ok(bytes.to_vec())
    }

    /// `GET …/store/keys` (members): the store's key chain, oldest first.
    pub async fn store_keys(&self, slug: &str) -> Result<StoreKeys, ClientError> {
        let segments = ["api", "team-servers", slug, "store", "keys"];
        answer(send(self.request(Method::GET, &segments)).await?).await
    }

    /// `POST …/store/keys/rotate` (the owner): a new signing key, signed by the old one.
    pub async fn rotate_store_key(&self, slug: &str) -> Result<StoreKeys, ClientError> {
        let segments = ["api", "team-servers", slug, "store", "keys", "rotate"];
        answer(send(self.request(Method::POST, &segments)).await?).await
    }

    // -----------------------------------------------------------------------------------------
    // Courses

    /// `PUT …/courses/{course}/subscription` (members; the course is published).
    pub async fn subscribe(&self, slug: &str, course: &str) -> Result<Subscription, ClientError> {
        let segments = ["api", "team-servers", slug, "courses", course, "subscription"];
        answer(send(self.request(Method::PUT, &segments)).await?).await
    }

    /// `DELETE …/courses/{course}/subscription`.
    pub async fn unsubscribe(&self, slug: &str, course: &str) -> Result<(), ClientError> {
        let segments = ["api", "team-servers", slug, "courses", course, "subscription"];
        empty(send(self.request(Method::DELETE, &segments)).await?).await
    }

    /// `GET /api/subscriptions`: the account's course subscriptions.
    pub async fn subscriptions(&self) -> Result<Subscriptions, ClientError> {
        answer(send(self.request(Method::GET, &["api", "subscriptions"])).await?).await
    }

    /// `GET …/courses/{course}/progress` (members).
    pub async fn course_progress(
        &self,
        slug: &str,
        course: &str,
    ) -> Result<CourseProgress, ClientError> {
        let segments = ["api", "team-servers", slug, "courses", course, "progress"];
        answer(send(self.request(Method::GET, &segments)).await?).await
    }

    /// `PUT …/courses/{course}/progress/{lesson}`: mark a lesson done or not.
    pub async fn set_lesson(
        &self,
        slug: &str,
        course: &str,
        lesson: &str,
        done: bool,
    ) -> Result<CourseProgress, ClientError> {
        let segments = ["api", "team-servers", slug, "courses", course, "progress", lesson];
        let body = LessonProgress { done };
        answer(send(self.request(Method::PUT, &segments).json(&body)).await?).await
    }

    /// `POST /api/team-servers/{slug}/runs`: a runner's report of one run.
    pub async fn report_run(&self, slug: &str, report: &RunReport) -> Result<(), ClientError> {
        let builder =
            self.request(Method::POST, &["api", "team-servers", slug, "runs"]).json(report);
        empty(send(builder).await?).await
    }

    /// `GET /api/team-servers/{slug}/runs` (owners and admins).
    pub async fn runs(&self, slug: &str, query: &RunQuery) -> Result<RunPage, ClientError> {
        let builder =
            self.request(Method::GET, &["api", "team-servers", slug, "runs"]).query(query);
        answer(send(builder).await?).await
    }

    /// `GET /api/team-servers/{slug}/audit` (the owner).
    pub async fn audit(
        &self,
        slug: &str,
        before: Option<&str>,
        limit: Option<u32>,
    ) -> Result<AuditPage, ClientError> {
        let mut builder = self.request(Method::GET, &["api", "team-servers", slug, "audit"]);
        if let Some(before) = before {
            builder = builder.query(&[("before", before)]);
        }
        if let Some(limit) = limit {
            builder = builder.query(&[("limit", limit)]);
        }
        answer(send(builder).await?).await
    }

    // -----------------------------------------------------------------------------------------
    // Updates

    /// `GET /api/updates?since=<cursor>`: `None` when nothing changed (304).
    pub async fn updates(&self, since: Option<&str>) -> Result<Option<Updates>, ClientError> {
        let mut builder = self.request(Method::GET, &["api", "updates"]);
        if let Some(since) = since {
            builder = builder.query(&[("since", since)]);
        }
        let response = send(builder).await?;
        if response.status() == StatusCode::NOT_MODIFIED {
            return Ok(None);
        }
        answer(response).await.map(Some)
    }
}

fn quote_etag(etag: &str) -> String {
    if etag.starts_with('"') {
        etag.to_string()
    } else {
        format!("\"{etag}\"")
    }
}

fn etag_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(ETAG)
        .and_then(|v: &HeaderValue| v.to_str().ok())
        .map(|v| v.trim_start_matches("W/").trim_matches('"').to_string())
}

fn retry_after(headers: &HeaderMap) -> Option<u64> {
    headers.get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()
}

async fn send(builder: RequestBuilder) -> Result<Response, ClientError> {
    let (client, request) = builder.build_split();
    let request = request.map_err(|source| ClientError::Transport {
        url: source.url().map(ToString::to_string).unwrap_or_default(),
        source,
    })?;
    let url = request.url().to_string();
    client.execute(request).await.map_err(|source| ClientError::Transport { url, source })
}

fn decode_error(response: &Response, detail: &str) -> ClientError {
    ClientError::Decode {
        url: response.url().to_string(),
        status: response.status().as_u16(),
        detail: detail.to_string(),
    }
}

async fn hub_error(response: Response) -> ClientError {
    let status = response.status().as_u16();
    let url = response.url().to_string();
    let retry_after = retry_after(response.headers());
    let text = match response.text().await {
        Ok(text) => text,
        Err(source) => return ClientError::Transport { url, source },
    };
    match serde_json::from_str::<ErrorBody>(&text) {
        Ok(body) => ClientError::Hub { status, error: body.error, retry_after },
        Err(_) => ClientError::Decode { url, status, detail: cut(&text) },
    }
}

fn cut(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

async fn answer<T: DeserializeOwned>(response: Response) -> Result<T, ClientError> {
    if !response.status().is_success() {
        return Err(hub_error(response).await);
    }
    let status = response.status().as_u16();
    let url = response.url().to_string();
    let text = response
        .text()
        .await
        .map_err(|source| ClientError::Transport { url: url.clone(), source })?;
    serde_json::from_str(&text).map_err(|error| ClientError::Decode {
        url,
        status,
        detail: format!("{error}: {}", cut(&text)),
    })
}

async fn empty(response: Response) -> Result<(), ClientError> {
    if response.status().is_success() {
        Ok(())
    } else {
        Err(hub_error(response).await)
    }
}

async fn oauth_answer<T: DeserializeOwned>(response: Response) -> Result<T, ClientError> {
    if response.status().is_success() {
        return answer(response).await;
    }
    let status = response.status().as_u16();
    let url = response.url().to_string();
    let retry_after = retry_after(response.headers());
    let text = response
        .text()
        .await
        .map_err(|source| ClientError::Transport { url: url.clone(), source })?;
    if let Ok(error) = serde_json::from_str::<OAuthErrorBody>(&text) {
        return Err(ClientError::OAuth { status, error, retry_after });
    }
    match serde_json::from_str::<ErrorBody>(&text) {
        Ok(body) => Err(ClientError::Hub { status, error: body.error, retry_after }),
        Err(_) => Err(ClientError::Decode { url, status, detail: cut(&text) }),
    }
}
