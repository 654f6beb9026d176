//! Web apps (`"web": { "index" }`, page 12 "Web apps"): a prebuilt static site served
//! UNMODIFIED on the app's own origin, `http://<app>-<hash>.app.localhost:<port>/` (the label of
//! [`crate::assets::frame_label`]), which the workbench draws in an editor tab.
//!
//! Only the folder holding `index` is served. A request path is percent-decoded, then taken apart
//! into plain names (no `..`, no `.`, no dotfile, no backslash, no NUL); the file it names is then
//! RESOLVED (symlinks followed) and must still lie inside that folder, itself resolved, with no
//! dotfile on its way — so a symlink leading out, or to a dotfile, is refused like the path itself
//! would be. Refusals are 404s that do not say what is there.
//!
//! Headers: the type by extension (`.wasm` is `application/wasm`, or browsers refuse to stream-
//! compile it), `Range` (one range: 206, or 416 past the end), a strong `ETag` from the file's
//! length and modification time with `If-None-Match` (304) and `If-Range`, and `no-cache`: the
//! site is a folder of the workspace that may change under it, so the browser revalidates (a 304
//! costs no body). Cross-origin isolation is sent ALWAYS — the reference has no key for an app to
//! ask with — `Cross-Origin-Opener-Policy: same-origin`, `Cross-Origin-Embedder-Policy:
//! require-corp` and `Cross-Origin-Resource-Policy: same-origin`: a prebuilt site's own files are
//! all same-origin, so the embedder policy blocks none of them; in the workbench's frame the
//! opener policy is ignored (it applies to top-level pages). What it costs: a site that loads
//! another origin's image or script without CORS has that load blocked — a release build made to
//! work offline does not. The resource policy also keeps another app's origin (same site: all are
//! `*.app.localhost`) from embedding these files, as CORS (no `Access-Control-Allow-Origin` here)
//! keeps it from reading them.
//!
//! Gates: the Host must name the app's origin exactly (`<label>.app.localhost:<port>`, else the
//! request goes on to [`crate::assets::serve`], which refuses a foreign Host), and no cross-site
//! request but a navigation — the workbench
//! (on `127.0.0.1`, another site) frames the page, but a page elsewhere must not load its files.

use crate::state::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;
use tokio::io::{AsyncReadExt, AsyncSeekExt};

/// A web app served on one origin: its folder (resolved) and the page in it.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    /// The resolved folder that holds `index`: everything served lies inside it.
    pub folder: PathBuf,
    /// `index`'s file name, served for `/`.
    pub index: String,
}

/// The web app whose origin label is `label`, among the open workspaces' switched-on apps.
pub(crate) fn site_for(state: &AppState, label: &str) -> Option<Site> {
    state.engine.open_workspaces().iter().find_map(|ws| {
        let registry = ws.registry();
        let app = registry.apps.iter().find(|a| {
            a.enabled
                && a.owns_name
                && a.manifest.is_web_app()
                && crate::assets::frame_label(ws.root(), &a.manifest.name) == label
        })?;
        let web = app.manifest.web.as_ref()?;
        let index = web.index.as_deref()?;
        match &web.download {
            // With `download`, `index` is relative to the BUILD: a copy of it in the app's `web/`
            // wins (page 12), else the cached download (`web_download`, fetched when the tab
            // opens); the app folder itself is never the build.
            Some(download) => site_of(&app.path, &format!("web/{index}")).or_else(|| {
                let root = state.engine.root().dir();
                site_of(&crate::web_download::build_dir(root, &download.sha256), index)
            }),
            None => site_of(&app.path, index),
        }
    })
}

/// The site of an app folder whose page is `index` (relative to it): the folder that holds the
/// page, resolved and inside the app folder (a `web` symlink leading out serves nothing).
pub(crate) fn site_of(app: &Path, index: &str) -> Option<Site> {
    let page = app.join(index);
    let folder = page.parent()?.canonicalize().ok()?;
    let app = app.canonicalize().ok()?;
    if !folder.starts_with(&app) {
        return None;
    }
    let index = page.file_name()?.to_str()?.to_owned();
    Some(Site { folder, index })
}

/// A path's bytes with `%XX` decoded, or `None` for a bad escape or bytes that are not UTF-8.
fn percent_decoded(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = std::str::from_utf8(bytes.get(at + 1..at + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether `name` is one plain, visible file or folder name.
fn plain_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['\\', '\0'])
}

/// The file a request path names inside `site`, resolved, or `None` (refused or missing).
pub(crate) fn file_of(site: &Site, raw_path: &str) -> Option<PathBuf> {
    let decoded = percent_decoded(raw_path)?;
    let mut rel = decoded.strip_prefix('/')?.to_owned();
    if rel.is_empty() || rel.ends_with('/') {
        rel.push_str(&site.index);
    }
    if !rel.split('/').all(plain_name) {
        return None;
    }
    let resolved = site.folder.join(&rel).canonicalize().ok()?;
    let inside = resolved.strip_prefix(&site.folder).ok()?;
    let visible = inside.components().all(|c| c.as_os_str().to_str().is_some_and(plain_name));
    (visible && resolved.is_file()).then_some(resolved)
}

/// A strong validator: the length and modification time, which change when the file is
/// rewritten (hashing a large `.wasm` on every request would cost more than sending it).
fn etag(metadata: &std::fs::Metadata) -> String {
    let modified = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("\"{:x}-{modified:x}\"", metadata.len())
}

/// Whether an `If-None-Match` list names `tag` (weak comparison, as RFC 9110 says for it).
fn none_match(headers: &HeaderMap, tag: &str) -> bool {
    let Some(list) = headers.get(header::IF_NONE_MATCH).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    list.split(',').map(str::trim).any(|t| t == "*" || t.trim_start_matches("W/") == tag)
}

/// What a `Range` header asks of a file of `len` bytes.
#[derive(Debug, PartialEq, Eq)]
enum Wanted {
    /// The whole file (no range, several ranges, or one this server does not parse).
    Whole,
    /// Bytes `start..=end`.
    Part(u64, u64),
    /// A range starting past the end: 416.
    Unsatisfiable,
}

fn wanted(range: Option<&str>, len: u64) -> Wanted {
    let Some(spec) = range.and_then(|r| r.trim().strip_prefix("bytes=")) else {
        return Wanted::Whole;
    };
    // Several ranges would need a multipart answer; a server may send the whole file instead.
    let Some((first, last)) = spec.split_once('-').filter(|_| !spec.contains(',')) else {
        return Wanted::Whole;
    };
    let (first, last) = (first.trim(), last.trim());
    let parsed = match (first.parse::<u64>(), last.parse::<u64>()) {
        (Ok(start), Ok(end)) if start <= end => Some((start, end.min(len.saturating_sub(1)))),
        (Ok(start), Err(_)) if last.is_empty() => Some((start, len.saturating_sub(1))),
        (Err(_), Ok(suffix)) if first.is_empty() && suffix > 0 => {
            Some((len.saturating_sub(suffix), len.saturating_sub(1)))
        }
        _ => None,
    };
    match parsed {
        None => Wanted::Whole,
        Some((start, _)) if start >= len => Wanted::Unsatisfiable,
        Some((start, end)) => Wanted::Part(start, end),
    }
}

/// The bytes streamed to the client this many at a time: a slow reader holds one buffer, never
/// the file, and never a worker thread.
const CHUNK: usize = 64 * 1024;

/// `len` bytes of `file` from where it stands, as a body that reads as the client takes it.
fn body_of(file: tokio::fs::File, len: u64) -> Body {
    let stream = futures_util::stream::unfold((file, len), |(mut file, left)| async move {
        if left == 0 {
            return None;
        }
        let mut buffer = vec![0; CHUNK.min(left as usize)];
        match file.read(&mut buffer).await {
            Ok(0) => None,
            Ok(read) => {
                buffer.truncate(read);
                Some((Ok::<_, std::io::Error>(buffer), (file, left - read as u64)))
            }
            Err(error) => Some((Err(error), (file, 0))),
        }
    });
    Body::from_stream(stream)
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found").into_response()
}

/// Everything the router has no route for: a web app's origin gets its site and nothing of the
/// workbench's (a site's `/assets/` are its own); any other request the workbench's files
/// ([`crate::assets::serve`], which checks its Host).
pub(crate) async fn serve_or_assets(State(state): State<AppState>, request: Request) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok());
    let label = host.and_then(|host| crate::assets::app_label(host, state.port)).map(str::to_owned);
    match label.and_then(|label| Some((site_for(&state, &label)?, label))) {
        // Cowork's own addresses on the origin (a routed file): never a site's file, as no
        // dotfile is one.
        Some((_, label)) if request.uri().path().starts_with("/.cowork/") => {
            crate::web_files::serve(&label, request).await
        }
        Some((site, label)) => serve(&label, site, request).await,
        None => crate::assets::serve(State(state), request).await,
    }
}

/// Serves `request` from `site`, whose origin (`label`) the Host named.
async fn serve(label: &str, site: Site, request: Request) -> Response {
    let headers = request.headers();
    let fetch = |name: &str| headers.get(name).and_then(|h| h.to_str().ok()).unwrap_or_default();
    if fetch("sec-fetch-site") == "cross-site" && fetch("sec-fetch-mode") != "navigate" {
        return crate::guard::refuse(
            StatusCode::FORBIDDEN,
            "cross-site requests for a web app's files are refused (only opening its page is not)",
        );
    }
    let head = request.method() == Method::HEAD;
    if !head && request.method() != Method::GET {
        let mut refused =
            (StatusCode::METHOD_NOT_ALLOWED, "a web app's files are read-only").into_response();
        refused.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return refused;
    }
    let Some(path) = file_of(&site, request.uri().path()) else { return not_found() };
    let Ok(mut file) = tokio::fs::File::open(&path).await else { return not_found() };
    let Ok(metadata) = file.metadata().await else { return not_found() };
    // The page opened with a routed file's token gets the one line that hands it over.
    if !head && path == site.folder.join(&site.index) && request.uri().query().is_some() {
        let page = tokio::fs::read(&path).await.unwrap_or_default();
        if let Some(page) = crate::web_files::page_with_file(label, request.uri().query(), &page) {
            return page;
        }
    }
    let len = metadata.len();
    let tag = etag(&metadata);

    let mut builder = Response::builder()
        .header(header::CONTENT_TYPE, crate::content_type::of(&path))
        .header(header::ETAG, &tag)
        .header(header::CACHE_CONTROL, "no-cache")
        .header(header::ACCEPT_RANGES, "bytes")
        .header("x-content-type-options", "nosniff")
        .header("cross-origin-opener-policy", "same-origin")
        .header("cross-origin-embedder-policy", "require-corp")
        .header("cross-origin-resource-policy", "same-origin");
    if none_match(headers, &tag) {
        return builder
            .status(StatusCode::NOT_MODIFIED)
            .body(Body::empty())
            .unwrap_or_else(|_| not_found());
    }
    // `If-Range` with another validator: the file changed, so the part asked for is of an old
    // version — send the whole new one.
    let range = match headers.get(header::IF_RANGE).and_then(|h| h.to_str().ok()) {
        Some(validator) if validator.trim() != tag => None,
        _ => headers.get(header::RANGE).and_then(|h| h.to_str().ok()),
    };
    let (status, start, count) = match wanted(range, len) {
        Wanted::Whole => (StatusCode::OK, 0, len),
        Wanted::Part(start, end) => {
            builder = builder.header(header::CONTENT_RANGE, format!("bytes {start}-{end}/{len}"));
            (StatusCode::PARTIAL_CONTENT, start, end - start + 1)
        }
        Wanted::Unsatisfiable => {
            return builder
                .status(StatusCode::RANGE_NOT_SATISFIABLE)
                .header(header::CONTENT_RANGE, format!("bytes */{len}"))
                .body(Body::empty())
                .unwrap_or_else(|_| not_found());
        }
    };
    if start > 0 && file.seek(std::io::SeekFrom::Start(start)).await.is_err() {
        return not_found();
    }
    let body = if head { Body::empty() } else { body_of(file, count) };
    builder
        .status(status)
        .header(header::CONTENT_LENGTH, count)
        .body(body)
        .unwrap_or_else(|_| not_found())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_as_rfc_9110_reads_them() {
        assert_eq!(wanted(None, 10), Wanted::Whole);
        assert_eq!(wanted(Some("bytes=0-3"), 10), Wanted::Part(0, 3));
        assert_eq!(wanted(Some("bytes=4-"), 10), Wanted::Part(4, 9));
        assert_eq!(wanted(Some("bytes=-3"), 10), Wanted::Part(7, 9));
        assert_eq!(wanted(Some("bytes=-30"), 10), Wanted::Part(0, 9));
        assert_eq!(wanted(Some("bytes=5-100"), 10), Wanted::Part(5, 9));
        assert_eq!(wanted(Some("bytes=10-"), 10), Wanted::Unsatisfiable);
        assert_eq!(wanted(Some("bytes=0-1,4-5"), 10), Wanted::Whole, "several: the whole file");
        assert_eq!(wanted(Some("bytes=3-1"), 10), Wanted::Whole, "malformed: ignored");
        assert_eq!(wanted(Some("items=0-1"), 10), Wanted::Whole);
    }

    #[test]
    fn escapes_decode_and_bad_ones_refuse() {
        assert_eq!(percent_decoded("/a%20b").as_deref(), Some("/a b"));
        assert_eq!(percent_decoded("/%2e%2E/x").as_deref(), Some("/../x"));
        assert_eq!(percent_decoded("/%zz"), None);
        assert_eq!(percent_decoded("/%2"), None);
        assert_eq!(percent_decoded("/%ff"), None, "not UTF-8");
    }
}
