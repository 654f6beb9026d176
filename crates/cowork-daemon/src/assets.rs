//! The workbench page and the widget frame, served from the built `ui/dist`: from
//! `$COWORK_UI_DIR` when set, else from inside the binary when built with `embed-ui` (the installed
//! app, see build.rs), else from this repository's `ui/dist` (a development build).
//!
//! The workbench is served on the daemon's own origin (`http://127.0.0.1:<port>/`). Widget frames
//! are served ONLY on an app's own origin, `http://<app>-<hash>.app.localhost:<port>/frame.html`,
//! never on the workbench's: a sandboxed frame on the workbench's origin would still send that
//! origin's cookies. Browsers resolve `*.localhost` to loopback themselves: WebKitGTK and Chromium
//! (hence WebView2) without asking the system resolver (`ui/test/daemon.test.ts` runs frames in
//! Chromium where the resolver does not resolve `.localhost`); WKWebView is not measured yet.
//! Frame assets carry `Access-Control-Allow-Origin: *`, because a sandboxed frame's origin is
//! opaque and its module scripts are cross-origin requests. Nothing here is secret; the API stays
//! behind its own gates.

use crate::state::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

/// Where the built workbench is read from.
enum Source {
    /// A folder holding `ui/dist`'s files.
    Folder(PathBuf),
    /// The copy build.rs put in the binary.
    #[cfg(feature = "embed-ui")]
    Embedded,
}

#[cfg(feature = "embed-ui")]
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_ui.rs"));
}

fn source() -> Source {
    if let Some(dir) = std::env::var_os("COWORK_UI_DIR").filter(|d| !d.is_empty()) {
        return Source::Folder(PathBuf::from(dir));
    }
    #[cfg(feature = "embed-ui")]
    return Source::Embedded;
    #[cfg(not(feature = "embed-ui"))]
    Source::Folder(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/dist"))
}

impl Source {
    /// The file at `rel`, or `None` when there is none or `rel` is not [`plain`].
    async fn read(&self, rel: &str) -> Option<Cow<'static, [u8]>> {
        if !plain(rel) {
            return None;
        }
        match self {
            Source::Folder(dir) => tokio::fs::read(dir.join(rel)).await.ok().map(Cow::Owned),
            #[cfg(feature = "embed-ui")]
            Source::Embedded => {
                let at = embedded::FILES.binary_search_by(|(path, _)| path.cmp(&rel)).ok()?;
                Some(Cow::Borrowed(embedded::FILES[at].1))
            }
        }
    }

    /// Where it was looked for, for the page that says the workbench is not built.
    fn describe(&self) -> String {
        match self {
            Source::Folder(dir) => dir.display().to_string(),
            #[cfg(feature = "embed-ui")]
            Source::Embedded => "this binary (built with embed-ui)".into(),
        }
    }
}

/// A DNS label is at most 63 bytes: past it, browsers do not resolve the host at all (Chromium:
/// `ERR_NAME_NOT_RESOLVED`).
const DNS_LABEL_MAX: usize = 63;
/// The label's hash part: `-` and 8 hex digits.
const HASH_PART: usize = 9;

/// The label of an app's frame origin: `<app>-<8 hex of sha256(workspace, app)>`, so two
/// workspaces' apps of one name never share an origin (nor its storage). An app name may be 63
/// characters, so its part is cut to fit one DNS label; the hash still covers the whole name, so
/// two long names that share a beginning keep apart.
pub fn frame_label(workspace: &Path, app: &str) -> String {
    let hash = Sha256::digest(format!("{}\0{app}", workspace.display()).as_bytes());
    // Names are ASCII (the manifest's pattern), but cut on a character boundary all the same.
    let mut cut = app.len().min(DNS_LABEL_MAX - HASH_PART);
    while !app.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{}", &app[..cut], &hex::encode(hash)[..8])
}

/// The app label a Host names (`<label>.app.localhost:<port>`, one DNS label), if it names one.
pub fn app_label(host: &str, port: u16) -> Option<&str> {
    host.strip_suffix(&format!(".app.localhost:{port}"))
        .filter(|label| !label.is_empty() && !label.contains('.'))
}

/// The root of an app's own origin: a web app's page, where `web_apps` serves its `index`.
pub(crate) fn origin_url(workspace: &Path, app: &str, port: u16) -> String {
    format!("http://{}.app.localhost:{port}/", frame_label(workspace, app))
}

/// The frame URL of an app's panes.
pub fn frame_url(workspace: &Path, app: &str, port: u16) -> String {
    format!("{}frame.html", origin_url(workspace, app, port))
}

/// The widget frame's Content-Security-Policy: code and styles only from the daemon (the frame's
/// own origin, named in full because a sandboxed frame's `'self'` is opaque in WebKit), no network
/// at all (a widget reaches the world through its routines), images also inline. `'unsafe-eval'`:
/// the widget's transpiled body runs through `new Function`.
fn frame_policy(host: &str) -> String {
    let own = format!("http://{host}");
    format!(
        "default-src 'none'; script-src {own} 'unsafe-eval'; style-src {own} 'unsafe-inline'; \
         img-src {own} data: blob:; font-src {own} data:; connect-src 'none'; frame-src 'none'; \
         worker-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
    )
}

/// `/` and `/workbench/*` of the workbench, `/frame.html` and `/assets/*` (the frame's) of an app
/// origin; the workbench's origin also serves `/assets/*`, which holds nothing secret.
pub async fn serve(State(state): State<AppState>, request: Request) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let on_app_origin = app_label(&host, state.port).is_some();
    if !on_app_origin && !crate::guard::is_loopback_host(&host, state.port) {
        return (StatusCode::FORBIDDEN, "this daemon answers only on 127.0.0.1").into_response();
    }
    let path = request.uri().path();
    let rel = match (on_app_origin, path) {
        (false, "/" | "/index.html") => "index.html",
        (true, "/frame.html") => "frame.html",
        (false, p) if p.starts_with("/workbench/") => &p[1..],
        // The workbench draws its own icon; answer the browser's guess without an error.
        (_, "/favicon.ico") => return StatusCode::NO_CONTENT.into_response(),
        (_, p) if p.starts_with("/assets/") => &p[1..],
        _ => return (StatusCode::NOT_FOUND, "not found").into_response(),
    };
    let source = source();
    let body = match icon_set(rel) {
        Some(dir) => {
            match icon_module(&source, dir, request.uri().query().unwrap_or_default()).await {
                Ok(module) => Some(Cow::Owned(module.into_bytes())),
                Err(refusal) => return refusal,
            }
        }
        None => source.read(rel).await,
    };
    match body {
        Some(body) => {
            let mut response = Body::from(body).into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(crate::content_type::of(Path::new(rel))));
            headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
            // Built assets carry a content hash in their names: cache them for good, so every
            // pane after the first loads its modules from the browser's cache. Pages revalidate.
            let cache = if rel.ends_with(".html") { "no-cache" } else { "public, max-age=31536000, immutable" };
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
            if on_app_origin {
                headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
                if rel == "frame.html" {
                    if let Ok(policy) = HeaderValue::from_str(&frame_policy(&host)) {
                        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
                    }
                }
            } else {
                // The workbench is never framed by another page.
                headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
            }
            response
        }
        None if rel == "index.html" || rel == "frame.html" => (
            StatusCode::SERVICE_UNAVAILABLE,
            Html(format!("<h1>The workbench is not built</h1><p>Build it with <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code> (the README's run command does), or point COWORK_UI_DIR at a built copy. Looked in {}.</p>", source.describe())),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// The most icons one module holds: more than any widget names.
const ICONS_PER_MODULE: usize = 200;

/// The icon set of `assets/lucide-<version>/icons.js`, the module of the icons its query names.
fn icon_set(rel: &str) -> Option<&str> {
    let dir = rel.strip_prefix("assets/")?.strip_suffix("/icons.js")?;
    (dir.starts_with("lucide-") && !dir.contains('/')).then_some(dir)
}

/// `assets/lucide-<version>/icons.js?plus,trash-2`: the named icons' data, which the build keeps
/// as one JSON file each (ui/lucide-icons.ts), as one module. A frame's origin is opaque, so
/// nothing it loads is cached and it fetches six files at a time: its icons come in one request
/// instead of one each.
async fn icon_module(source: &Source, dir: &str, query: &str) -> Result<String, Response> {
    let names: Vec<&str> = query.split(',').collect();
    let is_name = |name: &&str| {
        !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    if names.len() > ICONS_PER_MODULE || !names.iter().all(is_name) {
        let message = format!(
            "name at most {ICONS_PER_MODULE} icons, as lucide names its files, with commas between"
        );
        return Err((StatusCode::BAD_REQUEST, message).into_response());
    }
    let mut module = String::from("export default {");
    for name in names {
        let Some(data) = source.read(&format!("assets/{dir}/{name}.json")).await else {
            return Err(
                (StatusCode::NOT_FOUND, format!("{dir} has no icon \"{name}\"")).into_response()
            );
        };
        // JSON is a JavaScript expression; the name is a plain word, so quoting it is enough.
        module.push_str(&format!("\"{name}\":{},", String::from_utf8_lossy(&data)));
    }
    module.push('}');
    Ok(module)
}

/// Whether `rel` is a plain relative path (no `..`, no dotfiles), so it stays in the UI folder.
fn plain(rel: &str) -> bool {
    Path::new(rel)
        .components()
        .all(|c| matches!(c, Component::Normal(n) if !n.to_string_lossy().starts_with('.')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_origins_differ_per_workspace_and_app() {
        let a = frame_label(Path::new("/w1"), "notes");
        assert!(a.starts_with("notes-") && a.len() == "notes-".len() + 8);
        assert_ne!(a, frame_label(Path::new("/w2"), "notes"));
        assert_ne!(a, frame_label(Path::new("/w1"), "tasks"));
    }

    #[test]
    fn a_long_app_name_still_makes_one_dns_label() {
        let long = "a".repeat(63);
        let label = frame_label(Path::new("/w1"), &long);
        assert_eq!(label.len(), 63, "{label}");
        assert!(label.starts_with(&"a".repeat(54)) && label.as_bytes()[54] == b'-', "{label}");
        let other = format!("{}b", "a".repeat(62));
        assert_ne!(label, frame_label(Path::new("/w1"), &other), "the hash covers the whole name");
        assert_eq!(
            frame_label(Path::new("/w1"), &"a".repeat(54)).len(),
            63,
            "54 characters fit uncut"
        );
    }

    #[test]
    fn only_an_icon_sets_module_is_made_up() {
        assert_eq!(icon_set("assets/lucide-1.81.0/icons.js"), Some("lucide-1.81.0"));
        assert_eq!(icon_set("assets/lucide-1.81.0/plus.json"), None);
        assert_eq!(icon_set("assets/other/icons.js"), None);
        assert_eq!(icon_set("assets/lucide-1/../../icons.js"), None);
    }

    #[test]
    fn paths_stay_in_the_ui_folder() {
        assert!(plain("assets/x.js"));
        assert!(!plain("../secrets.key"));
        assert!(!plain("assets/.vite/manifest.json"));
    }
}
