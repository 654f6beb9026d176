//! A workspace file routed to a web app (page 12 "Web apps": `fileRouting` to its `index`), handed
//! to the page the web's standard ways and saved back.
//!
//! The site's files stay as they ship, and WebKitGTK has no File System Access API, so Cowork
//! brings the objects the page asks for. How: the workbench asks `POST /api/web-apps/file` (owner)
//! for the routed path; the daemon checks that the path routes to a switched-on web app's `index`,
//! resolves it inside the workspace and answers the app's page address with `?cowork-file=<token>`.
//! Served with that token, and only then, the page's `index` gets ONE added line right after
//! `<head>`: `<script src="/.cowork/file.js?token=…">` — the bytes on disk are not touched, and the
//! page served without the token is byte for byte the file. That script (`web_file.js`) takes the
//! token out of the address before the page's own scripts run and provides `launchQueue`,
//! `showOpenFilePicker` (the routed file first), `<input type=file>` (the first pick is the routed
//! file), `"open": "drop:<selector>"` (a real drop with a `DataTransfer`), and saving through the
//! routed `FileSystemFileHandle.createWritable`, `showSaveFilePicker` under the file's own name, or
//! an `<a download>` of that name.
//!
//! The token is the whole grant: it names ONE resolved file of one workspace and the ONE origin
//! (app label) it was given to. The page's requests, `GET`/`PUT /.cowork/file?token=…`, carry no
//! path, so a hostile page cannot widen it; another origin's request is refused (the Host must be
//! the token's origin, and a browser's cross-origin request is refused by its `Sec-Fetch-Site`).
//! A write goes to a temporary file beside the target and is renamed over it (atomic: a crash
//! leaves the old file or the new one), after the path is resolved again and found still inside
//! the workspace.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::body::Body as HttpBody;
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cowork_engine::ErrorName;
use futures_util::StreamExt;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;
use std::time::Instant;

/// The most routed-file tokens held at once (the least recently used goes first): a workbench
/// opening files in a loop cannot grow the table.
const MAX_ROUTED: usize = 256;
/// The largest file a page may save back: a document, a database, an image — not a disk image.
pub(crate) const MAX_SAVE: u64 = 1 << 30;
/// The query key of the page address that carries a routed file's token.
const QUERY_KEY: &str = "cowork-file";

/// One routed file handed to one web app's origin.
#[derive(Debug, Clone)]
struct Routed {
    /// The origin's label (`<app>-<hash>`): the only Host its requests are taken from.
    label: String,
    /// The workspace, resolved: a save must still land inside it.
    workspace: PathBuf,
    /// The file, resolved.
    file: PathBuf,
    /// `"drop:<selector>"`'s selector, when the app opens files only by a drop.
    drop: Option<String>,
    used: Instant,
}

/// Tokens → routed files. Process-wide rather than in `AppState`: a token is 192 random bits and
/// carries its origin and workspace, so daemons sharing a process (tests) cannot mix them up.
static ROUTED: LazyLock<Mutex<HashMap<String, Routed>>> = LazyLock::new(Default::default);

fn routed(token: &str, label: &str) -> Option<Routed> {
    let mut table = ROUTED.lock();
    let entry = table.get_mut(token).filter(|r| r.label == label)?;
    entry.used = Instant::now();
    Some(entry.clone())
}

fn remember(routed: Routed) -> String {
    let token = format!("cwf_{}", hex::encode(rand::random::<[u8; 24]>()));
    let mut table = ROUTED.lock();
    if table.len() >= MAX_ROUTED {
        let oldest = table.iter().min_by_key(|(_, r)| r.used).map(|(t, _)| t.clone());
        oldest.map(|t| table.remove(&t));
    }
    table.insert(token.clone(), routed);
    token
}

/// `POST /api/web-apps/file`'s body: a workspace path to open in the web app it routes to.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenWebFile {
    pub workspace: String,
    /// Workspace-relative, as the Explorer and `fileRouting` name it.
    pub path: String,
}

/// The answer: the app, and the address of its page holding the file.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenedWebFile {
    pub app: String,
    pub src: String,
}

/// `POST /api/web-apps/file` (owner): a token for ONE routed file and the page address carrying it.
pub async fn open(
    State(state): State<AppState>,
    Body(body): Body<OpenWebFile>,
) -> Result<Json<OpenedWebFile>, ApiError> {
    let ws = state.engine.workspace(Path::new(&body.workspace))?;
    let rel = Path::new(&body.path);
    if body.path.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!(
                "failed to open \"{}\" in a web app: not a path inside the workspace",
                body.path
            ),
        )
        .with_hint("give the file's path relative to the workspace, e.g. docs/letter.docx"));
    }
    let registry = ws.registry();
    let route = registry.route(&body.path, false);
    let app = route.as_ref().and_then(|route| {
        let app = registry.app_by_name(&route.app_name).filter(|a| a.enabled)?;
        let web = app.manifest.web.as_ref()?;
        (web.index.as_deref() == Some(route.file.as_str())).then_some((app, web))
    });
    let Some((app, web)) = app else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "failed to open \"{}\" in a web app: no switched-on web app routes it to its index",
                body.path
            ),
        )
        .with_hint(
            "route it in the app's cowork.json: \"fileRouting\": { \"<glob>\": \"<web.index>\" }",
        ));
    };
    let root = ws
        .root()
        .canonicalize()
        .map_err(|e| ApiError::internal("failed to resolve the workspace", &e))?;
    let file = inside(&root, &ws.root().join(rel)).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "failed to open \"{}\" in {}: no such file inside the workspace",
                body.path, app.manifest.name
            ),
        )
        .with_hint("a symlink leading out of the workspace is not followed")
    })?;
    let label = crate::assets::frame_label(ws.root(), &app.manifest.name);
    let drop = web.open.as_deref().and_then(|o| o.strip_prefix("drop:")).map(str::to_owned);
    let token = remember(Routed { label, workspace: root, file, drop, used: Instant::now() });
    let page = crate::assets::origin_url(ws.root(), &app.manifest.name, state.port);
    Ok(Json(OpenedWebFile {
        app: app.manifest.name.clone(),
        src: format!("{page}?{QUERY_KEY}={token}"),
    }))
}

/// `POST /api/web-apps/file/end`'s body: the token of a tab that closed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EndWebFile {
    pub token: String,
}

/// `POST /api/web-apps/file/end` (owner): the tab showing a routed file closed, so its page's
/// token ends (a page still open with it is refused from then on). An unknown token is no error:
/// it ended already (`ended: false`).
pub async fn end(Body(body): Body<EndWebFile>) -> Json<serde_json::Value> {
    let ended = ROUTED.lock().remove(&body.token).is_some();
    Json(serde_json::json!({ "ended": ended }))
}

/// `path` resolved, when it is a file inside the resolved `root`.
fn inside(root: &Path, path: &Path) -> Option<PathBuf> {
    let resolved = path.canonicalize().ok()?;
    (resolved.starts_with(root) && resolved.is_file()).then_some(resolved)
}

/// The token a query carries under `key`.
fn query_token<'a>(query: Option<&'a str>, key: &str) -> Option<&'a str> {
    query?.split('&').find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
}

/// The `index` page as served for a routed file: the file's bytes with the script line after
/// `<head>` (or at the start when the page has none), or `None` when the request carries no
/// token good for this origin (the page is then served as it ships).
pub(crate) fn page_with_file(label: &str, query: Option<&str>, page: &[u8]) -> Option<Response> {
    let token = query_token(query, QUERY_KEY)?;
    routed(token, label)?;
    let line = format!("<script src=\"/.cowork/file.js?token={token}\"></script>");
    let at = head_end(page).unwrap_or(0);
    let mut body = Vec::with_capacity(page.len() + line.len());
    body.extend_from_slice(&page[..at]);
    body.extend_from_slice(line.as_bytes());
    body.extend_from_slice(&page[at..]);
    Some(answer(StatusCode::OK, "text/html; charset=utf-8", HttpBody::from(body)))
}

/// Where the `<head …>` tag ends, so the added script runs before any of the page's own.
fn head_end(page: &[u8]) -> Option<usize> {
    let lower = page.to_ascii_lowercase();
    let start = lower.windows(5).position(|w| w == b"<head")?;
    // `<header>` is not `<head>`.
    if !matches!(lower.get(start + 5), Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')) {
        return None;
    }
    Some(start + lower[start..].iter().position(|&b| b == b'>')? + 1)
}

/// A response of this origin's own: never cached (a token's), never embeddable elsewhere.
fn answer(status: StatusCode, content_type: &str, body: HttpBody) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CACHE_CONTROL, "no-store")
        .header("x-content-type-options", "nosniff")
        .header("cross-origin-opener-policy", "same-origin")
        .header("cross-origin-embedder-policy", "require-corp")
        .header("cross-origin-resource-policy", "same-origin")
        .body(body)
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn refused(status: StatusCode, name: ErrorName, message: String, hint: &str) -> Response {
    ApiError::named(status, name, message).with_hint(hint).into_response()
}

/// `/.cowork/…` on a web app's origin `label` (never a site's file: dotfiles are not served):
/// `file.js` the script, `file` the routed file (`GET` reads it, `PUT` saves it back).
pub(crate) async fn serve(label: &str, request: Request) -> Response {
    let fetch_site = request.headers().get("sec-fetch-site").and_then(|h| h.to_str().ok());
    // A browser names where a request comes from; only the page's own origin may use its token.
    if fetch_site.is_some_and(|site| site != "same-origin") {
        return refused(
            StatusCode::FORBIDDEN,
            ErrorName::Forbidden,
            format!(
                "failed to reach the routed file: a {} request (only the web app's own page may)",
                fetch_site.unwrap_or_default()
            ),
            "open the file from the workbench; its page reads and saves it",
        );
    }
    let token = query_token(request.uri().query(), "token").unwrap_or_default().to_owned();
    let Some(routed) = routed(&token, label) else {
        return refused(
            StatusCode::FORBIDDEN,
            ErrorName::Forbidden,
            "failed to reach the routed file: the token is unknown, ended, or not this origin's"
                .into(),
            "open the file again from the workbench",
        );
    };
    let name = routed.file.file_name().and_then(|n| n.to_str()).unwrap_or("file").to_owned();
    match (request.method().clone(), request.uri().path()) {
        (Method::GET, "/.cowork/file.js") => {
            let last_modified = std::fs::metadata(&routed.file)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as u64);
            let config = serde_json::json!({
                "token": token,
                "name": name,
                "type": mime_guess_of(&name),
                "lastModified": last_modified,
                "drop": routed.drop,
            });
            let script = format!("(function (routed) {{\n{}\n}})({config});\n", SCRIPT);
            answer(StatusCode::OK, "text/javascript; charset=utf-8", HttpBody::from(script))
        }
        (Method::GET, "/.cowork/file") => match tokio::fs::read(&routed.file).await {
            Ok(bytes) => answer(StatusCode::OK, "application/octet-stream", HttpBody::from(bytes)),
            Err(error) => refused(
                StatusCode::NOT_FOUND,
                ErrorName::NotFound,
                format!("failed to read {}: {error}", routed.file.display()),
                "the file was moved or deleted; open it again from the Explorer",
            ),
        },
        (Method::PUT, "/.cowork/file") => match save(&routed, request.into_body()).await {
            Ok(()) => answer(StatusCode::NO_CONTENT, "text/plain", HttpBody::empty()),
            Err(error) => error.into_response(),
        },
        (method, path) => refused(
            StatusCode::NOT_FOUND,
            ErrorName::NotFound,
            format!("failed to answer {method} {path}: a routed file has file.js (GET) and file (GET, PUT)"),
            "this is Cowork's own address on the web app's origin",
        ),
    }
}

/// The type a `File` of this name has in a browser (what `<input type=file>` would give).
fn mime_guess_of(name: &str) -> &'static str {
    match crate::content_type::of(Path::new(name)) {
        "application/octet-stream" => "",
        known => known.split(';').next().unwrap_or(known),
    }
}

/// Writes `body` over the routed file: to a temporary file beside it, then renamed over it.
async fn save(routed: &Routed, body: HttpBody) -> Result<(), ApiError> {
    let target = &routed.file;
    let display = target.display().to_string();
    // Resolved again now: a file replaced by a symlink leading out, or a folder moved out of the
    // workspace since the token was given, is not written through.
    let still = inside(&routed.workspace, target).filter(|resolved| resolved == target);
    let Some(folder) = still.as_ref().and_then(|t| t.parent()) else {
        return Err(ApiError::named(
            StatusCode::FORBIDDEN,
            ErrorName::Forbidden,
            format!("failed to save {display}: it is no longer that file inside the workspace"),
        )
        .with_hint("open the file again from the Explorer"));
    };
    let permissions = std::fs::metadata(target).map(|m| m.permissions()).ok();
    let temp = folder.join(format!(".cowork-save-{}", hex::encode(rand::random::<[u8; 8]>())));
    let written = write_new(&temp, body).await;
    let renamed = written.and_then(|()| {
        if let Some(permissions) = permissions {
            let _ = std::fs::set_permissions(&temp, permissions);
        }
        std::fs::rename(&temp, target)
            .map_err(|e| ApiError::internal(&format!("failed to save {display}"), &e))
    });
    if renamed.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    renamed
}

/// `body` into the new file `temp`, flushed to disk, at most [`MAX_SAVE`] bytes.
async fn write_new(temp: &Path, body: HttpBody) -> Result<(), ApiError> {
    let failed = |e: &dyn std::fmt::Display| ApiError::internal("failed to save a routed file", e);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(temp)
        .map_err(|e| failed(&e))?;
    let mut stream = body.into_data_stream();
    let mut written: u64 = 0;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("failed to save a routed file: the upload broke off ({e})"),
            )
        })?;
        written += chunk.len() as u64;
        if written > MAX_SAVE {
            return Err(ApiError::named(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorName::TooLarge,
                format!("failed to save a routed file: more than {} MB", MAX_SAVE >> 20),
            )
            .with_hint("the file on disk is unchanged"));
        }
        file.write_all(&chunk).map_err(|e| failed(&e))?;
    }
    file.sync_all().map_err(|e| failed(&e))
}

/// The script added to a page served with a routed file (see the module's comment).
const SCRIPT: &str = include_str!("web_file.js");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_goes_right_after_head() {
        assert_eq!(head_end(b"<!doctype html><HEAD lang=x><title>"), Some(28));
        assert_eq!(head_end(b"<html><header>x</header>"), None, "<header> is not <head>");
        assert_eq!(head_end(b"<p>no head"), None);
    }

    #[test]
    fn the_token_is_read_from_its_own_key_only() {
        assert_eq!(query_token(Some("a=1&cowork-file=cwf_x"), QUERY_KEY), Some("cwf_x"));
        assert_eq!(query_token(Some("xcowork-file=cwf_x"), QUERY_KEY), None);
        assert_eq!(query_token(None, QUERY_KEY), None);
    }
}
