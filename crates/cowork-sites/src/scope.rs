//! Which pages belong to a site app: its `web.scope` (docs/reference/cowork-json.md), an address
//! prefix on one origin. The desktop app's window follows a navigation only inside it, its
//! injected script acts only on a page inside it, and an install of a page inside it is the app
//! already there ([`crate::installed_at`]).

use url::Url;

/// A site app's scope, parsed once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// `scheme://host[:port]`, as the URL standard serializes it (lowercase host, default port left out).
    origin: String,
    /// The path every page in scope starts with (`/` at least).
    path: String,
}

impl Scope {
    /// Parses `web.scope` (the registry has already defaulted it to `web.url` up to its last `/`).
    /// `None` for anything that is not an http(s) address.
    pub fn parse(scope: &str) -> Option<Scope> {
        let url = Url::parse(scope).ok()?;
        if !matches!(url.scheme(), "http" | "https")
            || url.host_str().is_none()
            || !url.username().is_empty()
            || url.password().is_some()
        {
            return None;
        }
        Some(Scope { origin: url.origin().ascii_serialization(), path: url.path().to_string() })
    }

    /// The origin, for the capability's `remote.urls` and the injected script.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The path prefix, for the injected script.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Whether `url` is a page of the app: the same origin (scheme, host, port) and a path that
    /// starts with the scope's. A prefix of the path as written, as the Web App Manifest defines it
    /// (a scope `/app` takes `/apples` too; installs write scopes that end in `/`).
    pub fn contains(&self, url: &Url) -> bool {
        url.origin().ascii_serialization() == self.origin
            && url.path().starts_with(&self.path)
            && url.username().is_empty()
            && url.password().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn a_page_is_in_scope_on_the_same_origin_under_the_scopes_path() {
        let scope = Scope::parse("https://web.example.com/app/").unwrap();
        assert!(scope.contains(&url("https://web.example.com/app/")));
        assert!(scope.contains(&url("https://WEB.example.com:443/app/inbox?x=1#y")));
        assert!(!scope.contains(&url("https://web.example.com/")));
        assert!(!scope.contains(&url("https://web.example.com/other/app/")));
        assert!(
            !scope.contains(&url("http://web.example.com/app/")),
            "another scheme is another origin"
        );
        assert!(
            !scope.contains(&url("https://web.example.com:8443/app/")),
            "another port is another origin"
        );
        assert!(!scope.contains(&url("https://evil.example/app/")));
        assert!(!scope.contains(&url("https://web.example.com.evil.example/app/")));
        assert!(!scope.contains(&url("https://user:pw@web.example.com/app/")));
        assert!(!scope.contains(&url("about:blank")));
        assert!(!scope.contains(&url("data:text/html,hi")));
    }

    #[test]
    fn a_loopback_scope_keeps_its_port() {
        let scope = Scope::parse("http://127.0.0.1:8123/").unwrap();
        assert_eq!(scope.origin(), "http://127.0.0.1:8123");
        assert_eq!(scope.path(), "/");
        assert!(scope.contains(&url("http://127.0.0.1:8123/inbox.html")));
        assert!(!scope.contains(&url("http://127.0.0.1:8124/inbox.html")));
        assert!(
            !scope.contains(&url("http://localhost:8123/inbox.html")),
            "localhost is another origin"
        );
    }

    #[test]
    fn only_http_and_https_scopes_parse() {
        assert_eq!(Scope::parse("file:///etc/"), None);
        assert_eq!(Scope::parse("javascript:alert(1)"), None);
        assert_eq!(Scope::parse("not a url"), None);
        assert_eq!(Scope::parse("https://a:b@example.com/"), None);
        assert_eq!(Scope::parse("https://example.com").unwrap().path(), "/");
    }
}
