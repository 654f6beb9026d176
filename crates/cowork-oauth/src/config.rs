//! Providers: the `google` and `microsoft` presets and what `<root>/oauth.json` overrides.

use std::collections::BTreeMap;
use std::path::Path;

use reqwest::Url;
use serde::Deserialize;

use crate::OAuthError;

/// The Google client id this build signs in with.
///
/// A release build ships Cowork's registered client id by setting `COWORK_GOOGLE_CLIENT_ID` when
/// it is compiled; any other build gets a placeholder that [`Connections::start`] refuses with
/// [`OAuthError::BadConfig`] until `oauth.json` names a client (`providers.google.clientId`).
///
/// [`Connections::start`]: crate::Connections::start
pub const GOOGLE_CLIENT_ID: &str = match option_env!("COWORK_GOOGLE_CLIENT_ID") {
    Some(id) => id,
    None => "placeholder.google-client-id",
};

/// The secret that goes with [`GOOGLE_CLIENT_ID`] (`COWORK_GOOGLE_CLIENT_SECRET` at build time).
/// Google's token endpoint wants one even from a desktop client, whose secret it does not treat
/// as confidential; PKCE is what protects the code.
pub const GOOGLE_CLIENT_SECRET: Option<&str> = option_env!("COWORK_GOOGLE_CLIENT_SECRET");

/// The Microsoft (Entra ID) client id this build signs in with: `COWORK_MICROSOFT_CLIENT_ID` at
/// build time, else a placeholder refused like [`GOOGLE_CLIENT_ID`]'s. A public client: no secret.
pub const MICROSOFT_CLIENT_ID: &str = match option_env!("COWORK_MICROSOFT_CLIENT_ID") {
    Some(id) => id,
    None => "placeholder.microsoft-client-id",
};

/// Client ids starting with this are the placeholders above, never a registered client.
const PLACEHOLDER_PREFIX: &str = "placeholder.";

/// The provider names a capability's `credential.oauth.provider` may use.
pub const PRESETS: [&str; 2] = ["google", "microsoft"];

/// Everything needed to sign in to one connection and use its tokens.
///
/// Built by [`Config::provider`] (a shared sign-in, named after the provider) or
/// [`Config::own_client`] (an `ownClient` sign-in, named after the capability).
#[derive(Clone, PartialEq, Eq)]
pub struct Provider {
    /// The connection's name: `google` / `microsoft`, or the capability for `ownClient`. Error
    /// messages name it, so the person knows what to connect.
    pub connection: String,
    /// The issuer identifier. When set, an authorization response carrying `iss` (RFC 9207) must
    /// name it, which defeats mix-up attacks; `None` skips the check.
    pub issuer: Option<String>,
    /// Where the browser goes to sign in and consent.
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged for tokens.
    pub token_endpoint: String,
    /// RFC 7009 revocation, used by [`Connections::disconnect`](crate::Connections::disconnect);
    /// Microsoft has none.
    pub revocation_endpoint: Option<String>,
    /// OpenID userinfo, asked for the account's email when the id token has none.
    pub userinfo_endpoint: Option<String>,
    /// The OAuth client id.
    pub client_id: String,
    /// The client secret, for providers that want one even from a desktop client (Google).
    pub client_secret: Option<String>,
    /// Hosts (and their subdomains) the connection's bearer token may be sent to.
    pub api_hosts: Vec<String>,
    /// Scopes asked for on every sign-in besides the capabilities' (`openid email`, Microsoft's
    /// `offline_access`).
    pub extra_scopes: Vec<String>,
    /// Parameters added to the authorization URL (Google's `access_type=offline` and
    /// `prompt=consent`, without which it issues no refresh token).
    pub extra_params: Vec<(String, String)>,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("connection", &self.connection)
            .field("issuer", &self.issuer)
            .field("authorization_endpoint", &self.authorization_endpoint)
            .field("token_endpoint", &self.token_endpoint)
            .field("revocation_endpoint", &self.revocation_endpoint)
            .field("userinfo_endpoint", &self.userinfo_endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("api_hosts", &self.api_hosts)
            .field("extra_scopes", &self.extra_scopes)
            .field("extra_params", &self.extra_params)
            .finish()
    }
}

impl Provider {
    /// Whether `fetch` may send this connection's bearer token to `url`: https only, and the host
    /// equal to an API host or a subdomain of one (`www.googleapis.com` for `googleapis.com`,
    /// never `evilgoogleapis.com`).
    pub fn is_api_host(&self, url: &str) -> bool {
        let Ok(url) = Url::parse(url) else {
            return false;
        };
        // https only; plain http only to a loopback API host that oauth.json lists (a local test
        // service), the same rule as for the endpoints.
        let loopback = matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
        let Some(host) = url
            .host_str()
            .filter(|_| url.scheme() == "https" || (url.scheme() == "http" && loopback))
        else {
            return false;
        };
        self.api_hosts.iter().any(|api| {
            host == api || host.strip_suffix(api.as_str()).is_some_and(|sub| sub.ends_with('.'))
        })
    }

    /// Refuses a client id that is still a build's placeholder, naming the key to set.
    pub(crate) fn registered_client_id(&self) -> Result<&str, OAuthError> {
        if self.client_id.starts_with(PLACEHOLDER_PREFIX) {
            return Err(OAuthError::BadConfig {
                location: "oauth.json".into(),
                message: format!(
                    "this build has no registered client for {0}: set `providers.{0}.clientId` \
                     (a release build ships its own)",
                    self.connection
                ),
            });
        }
        Ok(&self.client_id)
    }
}

fn preset(name: &str) -> Option<Provider> {
    let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    match name {
        "google" => Some(Provider {
            connection: name.into(),
            issuer: Some("https://accounts.google.com".into()),
            authorization_endpoint: "https://accounts.google.com/o/oauth2/v2/auth".into(),
            token_endpoint: "https://oauth2.googleapis.com/token".into(),
            revocation_endpoint: Some("https://oauth2.googleapis.com/revoke".into()),
            userinfo_endpoint: Some("https://openidconnect.googleapis.com/v1/userinfo".into()),
            client_id: GOOGLE_CLIENT_ID.into(),
            client_secret: GOOGLE_CLIENT_SECRET.map(Into::into),
            api_hosts: strings(&["googleapis.com"]),
            extra_scopes: strings(&["openid", "email"]),
            extra_params: vec![
                ("access_type".into(), "offline".into()),
                ("prompt".into(), "consent".into()),
            ],
        }),
        "microsoft" => Some(Provider {
            connection: name.into(),
            // Tokens from the `common` endpoint name the person's own tenant as issuer.
            issuer: None,
            authorization_endpoint:
                "https://login.microsoftonline.com/common/oauth2/v2.0/authorize".into(),
            token_endpoint: "https://login.microsoftonline.com/common/oauth2/v2.0/token".into(),
            revocation_endpoint: None,
            userinfo_endpoint: Some("https://graph.microsoft.com/oidc/userinfo".into()),
            client_id: MICROSOFT_CLIENT_ID.into(),
            client_secret: None,
            api_hosts: strings(&["graph.microsoft.com"]),
            extra_scopes: strings(&["openid", "email", "offline_access"]),
            extra_params: Vec::new(),
        }),
        _ => None,
    }
}

/// One entry of `oauth.json`: every key optional, each replacing the preset's value.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Overrides {
    issuer: Option<String>,
    authorization_endpoint: Option<String>,
    token_endpoint: Option<String>,
    revocation_endpoint: Option<String>,
    userinfo_endpoint: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    api_hosts: Option<Vec<String>>,
    extra_scopes: Option<Vec<String>>,
    extra_params: Option<BTreeMap<String, String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct File {
    #[serde(default)]
    providers: BTreeMap<String, Overrides>,
    #[serde(default)]
    own_clients: BTreeMap<String, Overrides>,
}

/// The providers this Cowork root signs in with: the presets, as `<root>/oauth.json` overrides
/// them.
///
/// ```json
/// {
///   "providers": {
///     "google": {
///       "issuer": "http://127.0.0.1:4000",
///       "authorizationEndpoint": "http://127.0.0.1:4000/auth",
///       "tokenEndpoint": "http://127.0.0.1:4000/token",
///       "revocationEndpoint": "http://127.0.0.1:4000/token/revocation",
///       "userinfoEndpoint": "http://127.0.0.1:4000/me",
///       "clientId": "cowork-test",
///       "clientSecret": "…",
///       "apiHosts": ["googleapis.com"],
///       "extraScopes": ["openid", "email", "offline_access"],
///       "extraParams": {"prompt": "consent"}
///     }
///   },
///   "ownClients": {
///     "gcal-own": {"clientId": "my-own-client"}
///   }
/// }
/// ```
///
/// Every key is optional and replaces the preset's value (lists and `extraParams` as a whole).
/// Overriding the authorization or token endpoint without `issuer` drops the preset's issuer,
/// which belongs to the endpoints it replaced. `ownClients` are keyed by capability name and
/// apply over the (overridden) provider the capability declares. Endpoints must be https, or
/// http on a loopback address (a local test provider).
#[derive(Clone, Debug)]
pub struct Config {
    location: String,
    file: File,
}

impl Default for Config {
    /// The presets alone, as when there is no `oauth.json`.
    fn default() -> Self {
        Self { location: "built-in presets".into(), file: File::default() }
    }
}

impl Config {
    /// Reads `oauth.json` at `path`; a missing file means the presets alone.
    pub fn load(path: &Path) -> Result<Self, OAuthError> {
        let location = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::default())
            }
            Err(error) => {
                return Err(OAuthError::BadConfig {
                    location,
                    message: format!("failed to read it: {error}"),
                })
            }
        };
        let value = serde_json::from_str(&text).map_err(|error| OAuthError::BadConfig {
            location: location.clone(),
            message: format!("not JSON: {error}"),
        })?;
        Self::from_value(value, &location)
    }

    /// Takes an already parsed `oauth.json`; `location` names it in error messages.
    pub fn from_value(value: serde_json::Value, location: &str) -> Result<Self, OAuthError> {
        let file: File = serde_json::from_value(value).map_err(|error| OAuthError::BadConfig {
            location: location.into(),
            message: error.to_string(),
        })?;
        let config = Self { location: location.into(), file };
        // Resolve everything once, so a typo shows when the file is read, not at sign-in.
        for name in config.file.providers.keys() {
            config.provider(name)?;
        }
        for (capability, overrides) in &config.file.own_clients {
            // The provider is only known from the capability's manifest; any preset will do for
            // checking the entry's own values.
            overlay(
                config.provider(PRESETS[0])?,
                overrides,
                &config.key_location("ownClients", capability),
            )?;
        }
        Ok(config)
    }

    /// The shared sign-in for `name` (`google`, `microsoft`): the preset with the file's
    /// `providers.<name>` applied.
    pub fn provider(&self, name: &str) -> Result<Provider, OAuthError> {
        let location = self.key_location("providers", name);
        let base = preset(name).ok_or_else(|| OAuthError::BadConfig {
            location: location.clone(),
            message: format!("unknown provider `{name}` (known: {})", PRESETS.join(", ")),
        })?;
        match self.file.providers.get(name) {
            Some(overrides) => overlay(base, overrides, &location),
            None => Ok(base),
        }
    }

    /// The `ownClient` sign-in of `capability`, which declares `provider`: that provider as
    /// [`Config::provider`] gives it, with the file's `ownClients.<capability>` applied, under the
    /// capability's name. The entry must name its `clientId`.
    pub fn own_client(&self, capability: &str, provider: &str) -> Result<Provider, OAuthError> {
        let location = self.key_location("ownClients", capability);
        let overrides = self
            .file
            .own_clients
            .get(capability)
            .filter(|entry| entry.client_id.is_some())
            .ok_or_else(|| OAuthError::BadConfig {
                location: location.clone(),
                message: format!(
                    "{capability} signs in with its own client (`ownClient: true`): set \
                     `ownClients.{capability}.clientId` (and `clientSecret` if {provider} wants \
                     one) to the client you registered at {provider}"
                ),
            })?;
        let mut own = overlay(self.provider(provider)?, overrides, &location)?;
        own.connection = capability.into();
        Ok(own)
    }

    fn key_location(&self, section: &str, name: &str) -> String {
        format!("{} ({section}.{name})", self.location)
    }
}

/// Applies one entry over `base`, checking every value it sets.
fn overlay(
    mut base: Provider,
    overrides: &Overrides,
    location: &str,
) -> Result<Provider, OAuthError> {
    let bad = |message: String| OAuthError::BadConfig { location: location.into(), message };
    let endpoint = |key: &str, value: &Option<String>| -> Result<Option<String>, OAuthError> {
        value
            .as_deref()
            .map(|url| check_endpoint(url).map_err(|why| bad(format!("`{key}` {why}"))))
            .transpose()
    };
    if overrides.authorization_endpoint.is_some() || overrides.token_endpoint.is_some() {
        base.issuer = None;
    }
    if let Some(issuer) = &overrides.issuer {
        base.issuer = Some(issuer.clone());
    }
    if let Some(url) = endpoint("authorizationEndpoint", &overrides.authorization_endpoint)? {
        base.authorization_endpoint = url;
    }
    if let Some(url) = endpoint("tokenEndpoint", &overrides.token_endpoint)? {
        base.token_endpoint = url;
    }
    if let Some(url) = endpoint("revocationEndpoint", &overrides.revocation_endpoint)? {
        base.revocation_endpoint = Some(url);
    }
    if let Some(url) = endpoint("userinfoEndpoint", &overrides.userinfo_endpoint)? {
        base.userinfo_endpoint = Some(url);
    }
    if let Some(id) = &overrides.client_id {
        if id.trim().is_empty() {
            return Err(bad("`clientId` is empty".into()));
        }
        base.client_id = id.clone();
    }
    if let Some(secret) = &overrides.client_secret {
        base.client_secret = Some(secret.clone());
    }
    if let Some(hosts) = &overrides.api_hosts {
        if let Some(host) = hosts.iter().find(|host| !is_hostname(host)) {
            return Err(bad(format!(
                "`apiHosts` entry `{host}` is not a lowercase host name (write `googleapis.com`, \
                 no scheme, port or path)"
            )));
        }
        base.api_hosts = hosts.clone();
    }
    if let Some(scopes) = &overrides.extra_scopes {
        base.extra_scopes = scopes.clone();
    }
    if let Some(params) = &overrides.extra_params {
        base.extra_params = params.clone().into_iter().collect();
    }
    Ok(base)
}

/// https, or http to a loopback address (tokens never cross a network in the clear).
fn check_endpoint(url: &str) -> Result<String, String> {
    let parsed = Url::parse(url).map_err(|error| format!("`{url}` is not a URL: {error}"))?;
    let loopback = matches!(parsed.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
    match parsed.scheme() {
        "https" => Ok(url.to_owned()),
        "http" if loopback => Ok(url.to_owned()),
        _ => Err(format!("`{url}` must be https (http only on 127.0.0.1, localhost or [::1])")),
    }
}

fn is_hostname(host: &str) -> bool {
    !host.is_empty()
        && !host.starts_with(['.', '-'])
        && !host.ends_with(['.', '-'])
        && host
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn presets_need_no_file() {
        let google = Config::default().provider("google").unwrap();
        assert_eq!(google.connection, "google");
        assert_eq!(google.token_endpoint, "https://oauth2.googleapis.com/token");
        assert!(google.extra_params.contains(&("access_type".into(), "offline".into())));
        let microsoft = Config::default().provider("microsoft").unwrap();
        assert!(microsoft.extra_scopes.contains(&"offline_access".into()));
        assert_eq!(microsoft.revocation_endpoint, None);
    }

    #[test]
    fn placeholder_client_ids_are_refused_at_sign_in() {
        let mut google = Config::default().provider("google").unwrap();
        google.client_id = "placeholder.google-client-id".into();
        let error = google.registered_client_id().unwrap_err();
        assert!(error.to_string().contains("set `providers.google.clientId`"), "{error}");
        google.client_id = "123.apps.googleusercontent.com".into();
        assert_eq!(google.registered_client_id().unwrap(), "123.apps.googleusercontent.com");
    }

    #[test]
    fn file_overrides_each_key_and_drops_the_presets_issuer_with_its_endpoints() {
        let config = Config::from_value(
            json!({"providers": {"google": {
                "authorizationEndpoint": "http://127.0.0.1:9/auth",
                "tokenEndpoint": "http://127.0.0.1:9/token",
                "clientId": "local",
                "apiHosts": ["example.test"],
                "extraScopes": ["openid"],
                "extraParams": {"prompt": "consent"}
            }}}),
            "oauth.json",
        )
        .unwrap();
        let google = config.provider("google").unwrap();
        assert_eq!(google.issuer, None);
        assert_eq!(google.authorization_endpoint, "http://127.0.0.1:9/auth");
        assert_eq!(google.client_id, "local");
        assert_eq!(google.api_hosts, ["example.test"]);
        assert_eq!(google.extra_params, [("prompt".into(), "consent".into())]);
        // Untouched keys keep the preset's values.
        assert_eq!(
            google.revocation_endpoint.as_deref(),
            Some("https://oauth2.googleapis.com/revoke")
        );
    }

    #[test]
    fn own_clients_apply_over_their_provider_under_the_capability_name() {
        let config = Config::from_value(
            json!({
                "providers": {"google": {"tokenEndpoint": "http://localhost:9/token"}},
                "ownClients": {"gcal-own": {"clientId": "mine", "clientSecret": "s"}}
            }),
            "oauth.json",
        )
        .unwrap();
        let own = config.own_client("gcal-own", "google").unwrap();
        assert_eq!(own.connection, "gcal-own");
        assert_eq!(own.client_id, "mine");
        assert_eq!(own.token_endpoint, "http://localhost:9/token");
        assert!(!format!("{own:?}").contains("\"s\""), "Debug hides the secret");
        let error = config.own_client("other", "google").unwrap_err();
        assert!(error.to_string().contains("`ownClients.other.clientId`"), "{error}");
    }

    #[test]
    fn bad_files_name_the_key() {
        let cases = [
            (json!({"providers": {"yahoo": {}}}), "unknown provider `yahoo`"),
            (
                json!({"providers": {"google": {"tokenEndpoint": "http://example.com/token"}}}),
                "`tokenEndpoint` `http://example.com/token` must be https",
            ),
            (
                json!({"providers": {"google": {"apiHosts": ["https://googleapis.com"]}}}),
                "`apiHosts` entry `https://googleapis.com`",
            ),
            (json!({"providers": {"google": {"clientID": "x"}}}), "unknown field `clientID`"),
            (
                json!({"ownClients": {"x": {"clientId": " "}}}),
                "(ownClients.x): `clientId` is empty",
            ),
        ];
        for (value, expected) in cases {
            let error = Config::from_value(value, "oauth.json").unwrap_err();
            assert!(error.to_string().contains(expected), "{error}");
        }
    }

    #[test]
    fn a_missing_file_is_the_presets_and_a_broken_one_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oauth.json");
        assert!(Config::load(&path).unwrap().provider("google").is_ok());
        std::fs::write(&path, "{").unwrap();
        let error = Config::load(&path).unwrap_err();
        assert!(error.to_string().contains("not JSON"), "{error}");
    }

    #[test]
    fn api_hosts_are_https_and_whole_labels() {
        let google = Config::default().provider("google").unwrap();
        assert!(google.is_api_host("https://googleapis.com/x"));
        assert!(google.is_api_host("https://www.googleapis.com/calendar/v3"));
        assert!(google.is_api_host("https://WWW.GoogleApis.com/"));
        assert!(!google.is_api_host("http://www.googleapis.com/"));
        assert!(!google.is_api_host("https://evilgoogleapis.com/"));
        assert!(!google.is_api_host("https://googleapis.com.evil.test/"));
        assert!(!google.is_api_host("https://evil.test/?u=https://googleapis.com"));
        assert!(!google.is_api_host("not a url"));
        assert!(!google.is_api_host("http://127.0.0.1/"), "loopback only when oauth.json lists it");
    }
}
