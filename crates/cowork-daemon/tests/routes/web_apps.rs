//! A web app's origin (`"web": { "index" }`): its folder served unmodified with the types, ranges,
//! validators and isolation headers a WASM site needs — and nothing else: no `..` (plain or
//! encoded), no dotfile, no symlink leading out, no other Host, no cross-site subresource.

use super::*;

const PAGE: &str = "<!doctype html><title>Pad</title><script type=module src=app.mjs></script>\n";
/// A module's header: WebAssembly's magic number and version.
const WASM: &[u8] = b"\0asm\x01\0\0\0";

/// A workspace with one web app, `pad`, serving `web/`; beside `web/` the app's manifest and a
/// secret, and in `web/` a dotfile and symlinks (one out of the folder, one to the dotfile).
fn pad_workspace() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    let app = workspace.path().join(".cowork/apps/pad");
    let web = app.join("web");
    std::fs::create_dir_all(web.join("fonts")).unwrap();
    let manifest = r#"{"name": "pad", "version": "1.0.0", "web": {"index": "web/index.html"},
        "fileRouting": {"**/*.pad": "web/index.html"}}"#;
    std::fs::write(app.join("cowork.json"), manifest).unwrap();
    std::fs::write(app.join("secret.txt"), "beside the site").unwrap();
    std::fs::write(web.join("index.html"), PAGE).unwrap();
    std::fs::write(web.join("app.mjs"), "export {}\n").unwrap();
    std::fs::write(web.join("pad_bg.wasm"), WASM).unwrap();
    std::fs::write(web.join("fonts/mono.woff2"), b"wOF2").unwrap();
    std::fs::write(web.join(".env"), "TOKEN=1").unwrap();
    std::fs::write(web.join("big.bin"), vec![7u8; 4 << 20]).unwrap();
    std::os::unix::fs::symlink(app.join("secret.txt"), web.join("out.txt")).unwrap();
    std::os::unix::fs::symlink(web.join(".env"), web.join("env.txt")).unwrap();
    workspace
}

/// The Host of `app`'s origin in `workspace`, as the workbench summary gives it.
async fn origin_of(daemon: &Daemon, workspace: &std::path::Path, app: &str) -> String {
    let query = format!("/api/workbench?workspace={}", workspace.display());
    let loopback = format!("127.0.0.1:{}", daemon.state.port);
    let (status, summary) = daemon.ask(get(&query, &[("host", &loopback), OWNER])).await;
    assert_eq!(status, StatusCode::OK, "{summary}");
    let apps = summary["apps"].as_array().unwrap();
    let url = apps.iter().find(|a| a["name"] == app).unwrap()["webUrl"].as_str().unwrap();
    assert!(
        url.ends_with(".app.localhost:{}/".replace("{}", &daemon.state.port.to_string()).as_str()),
        "{url}"
    );
    url.strip_prefix("http://").unwrap().split('/').next().unwrap().to_owned()
}

/// The raw answer to `request`: status, headers, body bytes.
async fn fetch(
    daemon: &Daemon,
    request: Request<Body>,
) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let response = app(daemon.state.clone()).oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 16 << 20).await.unwrap();
    (parts.status, parts.headers, bytes.to_vec())
}

/// `path` on the app origin `host`, with these headers too.
fn on(host: &str, path: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::get(path).header("host", host);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::empty()).unwrap()
}

#[tokio::test]
async fn the_site_is_served_unmodified_with_its_types_and_isolation_headers() {
    let daemon = daemon();
    let workspace = pad_workspace();
    let host = origin_of(&daemon, workspace.path(), "pad").await;

    for path in ["/", "/index.html"] {
        let (status, headers, body) = fetch(&daemon, on(&host, path, &[])).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(body, PAGE.as_bytes(), "{path}: byte for byte, no SDK injected");
        assert_eq!(headers["content-type"], "text/html; charset=utf-8");
        assert_eq!(headers["cross-origin-opener-policy"], "same-origin");
        assert_eq!(headers["cross-origin-embedder-policy"], "require-corp");
        assert_eq!(headers["cross-origin-resource-policy"], "same-origin");
        assert_eq!(headers["accept-ranges"], "bytes");
        assert!(headers.get("access-control-allow-origin").is_none(), "no other origin reads it");
    }
    for (path, kind, bytes) in [
        ("/pad_bg.wasm", "application/wasm", WASM),
        ("/app.mjs", "text/javascript; charset=utf-8", b"export {}\n".as_slice()),
        ("/fonts/mono.woff2", "font/woff2", b"wOF2".as_slice()),
        ("/fonts/", "", b"".as_slice()),
    ] {
        let (status, headers, body) = fetch(&daemon, on(&host, path, &[])).await;
        if kind.is_empty() {
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}: a folder without index.html");
            continue;
        }
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers["content-type"], kind, "{path}");
        assert_eq!(body, bytes, "{path}");
    }
    let (status, headers, body) = fetch(
        &daemon,
        Request::head("/pad_bg.wasm").header("host", &host).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!((status, body.len()), (StatusCode::OK, 0), "HEAD: headers only");
    assert_eq!(headers["content-length"], WASM.len().to_string());

    let (status, _, _) = fetch(
        &daemon,
        Request::post("/index.html").header("host", &host).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "the site is read-only");
}

#[tokio::test]
async fn nothing_outside_the_folder_or_hidden_in_it_is_served() {
    let daemon = daemon();
    let workspace = pad_workspace();
    let host = origin_of(&daemon, workspace.path(), "pad").await;
    for path in [
        "/../cowork.json",
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/cowork.json",
        "/fonts/..%2f..%2fsecret.txt",
        "/fonts%2f..%2f..%2fsecret.txt",
        "/..%5csecret.txt",
        "/.env",
        "/%2eenv",
        "/./index.html",
        "/out.txt",
        "/env.txt",
        "/index.html%00",
        "/%zz",
        "/frame.html",
        "/assets/index.js",
    ] {
        let (status, _, body) = fetch(&daemon, on(&host, path, &[])).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {}", String::from_utf8_lossy(&body));
        let text = String::from_utf8_lossy(&body);
        assert!(!text.contains("beside the site") && !text.contains("TOKEN"), "{path}: {text}");
    }
}

#[tokio::test]
async fn ranges_and_etags_as_a_browser_uses_them() {
    let daemon = daemon();
    let workspace = pad_workspace();
    let host = origin_of(&daemon, workspace.path(), "pad").await;

    let (status, headers, body) =
        fetch(&daemon, on(&host, "/pad_bg.wasm", &[("range", "bytes=1-3")])).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(body, b"asm");
    assert_eq!(headers["content-range"], "bytes 1-3/8");
    let (status, _, body) =
        fetch(&daemon, on(&host, "/pad_bg.wasm", &[("range", "bytes=-4")])).await;
    assert_eq!((status, body.as_slice()), (StatusCode::PARTIAL_CONTENT, &WASM[4..]));
    let (status, headers, body) =
        fetch(&daemon, on(&host, "/pad_bg.wasm", &[("range", "bytes=8-")])).await;
    assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(headers["content-range"], "bytes */8");
    assert!(body.is_empty());

    let (_, headers, _) = fetch(&daemon, on(&host, "/pad_bg.wasm", &[])).await;
    let tag = headers["etag"].to_str().unwrap().to_owned();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "a strong validator: {tag}");
    let (status, _, body) =
        fetch(&daemon, on(&host, "/pad_bg.wasm", &[("if-none-match", &tag)])).await;
    assert_eq!((status, body.len()), (StatusCode::NOT_MODIFIED, 0));
    let listed = format!("\"other\", W/{tag}");
    let (status, _, _) =
        fetch(&daemon, on(&host, "/pad_bg.wasm", &[("if-none-match", &listed)])).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED, "a list, weakly compared");
    let (status, _, _) =
        fetch(&daemon, on(&host, "/pad_bg.wasm", &[("if-none-match", "\"old\"")])).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, body) = fetch(
        &daemon,
        on(&host, "/pad_bg.wasm", &[("range", "bytes=0-0"), ("if-range", "\"old\"")]),
    )
    .await;
    assert_eq!((status, body.len()), (StatusCode::OK, 8), "If-Range of another version: all of it");

    // A rewrite changes the validator, so the browser's copy is not reused.
    std::fs::write(workspace.path().join(".cowork/apps/pad/web/pad_bg.wasm"), b"\0asm\x01\0\0\0\0")
        .unwrap();
    let (status, _, body) =
        fetch(&daemon, on(&host, "/pad_bg.wasm", &[("if-none-match", &tag)])).await;
    assert_eq!((status, body.len()), (StatusCode::OK, 9));
}

#[tokio::test]
async fn another_host_a_cross_site_load_or_another_workspace_gets_nothing() {
    let daemon = daemon();
    let workspace = pad_workspace();
    let host = origin_of(&daemon, workspace.path(), "pad").await;
    let label = host.split('.').next().unwrap();

    let hostile = format!("{label}.app.localhost.attacker.example:{PORT}");
    let (status, _, _) = fetch(&daemon, on(&hostile, "/index.html", &[])).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a rebinding Host");
    let (status, _, _) = fetch(&daemon, on(&format!("{label}.app.localhost:1"), "/", &[])).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "another port");

    let cross = [
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-mode", "no-cors"),
        ("sec-fetch-dest", "script"),
    ];
    let (status, _, body) = fetch(&daemon, on(&host, "/app.mjs", &cross)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a page elsewhere loading its script");
    assert!(String::from_utf8_lossy(&body).contains("cross-site"));
    let framed = [
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-mode", "navigate"),
        ("sec-fetch-dest", "iframe"),
    ];
    let (status, _, _) = fetch(&daemon, on(&host, "/", &framed)).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the workbench (on 127.0.0.1, another site) frames the page"
    );

    // The same app in another workspace has another origin, and each origin serves its own site.
    let other = pad_workspace();
    let other_host = origin_of(&daemon, other.path(), "pad").await;
    assert_ne!(other_host, host);
    std::fs::write(other.path().join(".cowork/apps/pad/web/index.html"), "other").unwrap();
    let (_, _, body) = fetch(&daemon, on(&host, "/", &[])).await;
    assert_eq!(body, PAGE.as_bytes());
}

/// A client that reads a large file slowly holds one chunk, not the daemon: another request is
/// answered meanwhile, and the slow one still gets every byte.
#[tokio::test]
async fn a_slow_client_does_not_hold_up_the_others() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let daemon = daemon_on(port);
    let workspace = pad_workspace();
    let host = origin_of(&daemon, workspace.path(), "pad").await;
    tokio::spawn(std::future::IntoFuture::into_future(axum::serve(
        listener,
        app(daemon.state.clone()),
    )));

    let ask =
        |path: &str| format!("GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n");
    let mut slow = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    slow.write_all(ask("/big.bin").as_bytes()).await.unwrap();
    let mut first = [0u8; 1024];
    let got = slow.read(&mut first).await.unwrap();
    // The slow client now stops reading with megabytes still to come.
    let quick = async {
        let mut quick = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        quick.write_all(ask("/app.mjs").as_bytes()).await.unwrap();
        let mut answer = String::new();
        quick.read_to_string(&mut answer).await.unwrap();
        answer
    };
    let answer = tokio::time::timeout(std::time::Duration::from_secs(30), quick)
        .await
        .expect("answered while the slow client waits");
    assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("export {}\n"), "{answer}");

    let mut rest = Vec::new();
    slow.read_to_end(&mut rest).await.unwrap();
    let whole = [&first[..got], &rest].concat();
    let body_at = whole.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    assert_eq!(whole.len() - body_at, 4 << 20, "every byte in the end");
}

/// With `download`, `index` is relative to the build: a copy in the app's `web/` is served, the
/// app folder never is (its manifest and routines are not the site); a `web` folder that is a
/// symlink leading out of the app serves nothing.
#[tokio::test]
async fn a_build_copied_into_web_wins_and_the_app_folder_is_never_the_site() {
    let daemon = daemon();
    let workspace = tempfile::tempdir().unwrap();
    let apps = workspace.path().join(".cowork/apps");
    let download = r#""download": {"url": "https://example.com/site.zip", "sha256": "0000000000000000000000000000000000000000000000000000000000000000"}"#;
    for (name, web) in [("copied", "copied"), ("fetched", "none"), ("linked", "link")] {
        let app = apps.join(name);
        std::fs::create_dir_all(&app).unwrap();
        let manifest = format!(
            r#"{{"name": "{name}", "version": "1.0.0", "web": {{"index": "index.html", {download}}}}}"#
        );
        std::fs::write(app.join("cowork.json"), manifest).unwrap();
        std::fs::write(app.join("index.html"), "the app folder's own page").unwrap();
        match web {
            "copied" => {
                std::fs::create_dir(app.join("web")).unwrap();
                std::fs::write(app.join("web/index.html"), PAGE).unwrap();
            }
            "link" => {
                let elsewhere = workspace.path().join("elsewhere");
                std::fs::create_dir(&elsewhere).unwrap();
                std::fs::write(elsewhere.join("index.html"), "outside").unwrap();
                std::os::unix::fs::symlink(&elsewhere, app.join("web")).unwrap();
            }
            _ => {}
        }
    }
    let copied = origin_of(&daemon, workspace.path(), "copied").await;
    let (status, _, body) = fetch(&daemon, on(&copied, "/", &[])).await;
    assert_eq!((status, body.as_slice()), (StatusCode::OK, PAGE.as_bytes()), "web/ wins");
    for (app, path) in [
        ("copied", "/cowork.json"),
        ("copied", "/../index.html"),
        ("fetched", "/"),
        ("fetched", "/cowork.json"),
        ("linked", "/"),
        ("linked", "/index.html"),
    ] {
        let host = origin_of(&daemon, workspace.path(), app).await;
        let (status, _, body) = fetch(&daemon, on(&host, path, &[])).await;
        assert_eq!(
            status,
            StatusCode::NOT_FOUND,
            "{app} {path}: {}",
            String::from_utf8_lossy(&body)
        );
    }
}

/// `POST /api/web-apps/file` for `path` of `workspace`: the status and the answer.
async fn open_routed(
    daemon: &Daemon,
    workspace: &std::path::Path,
    path: &str,
) -> (StatusCode, Value) {
    let body = json!({ "workspace": workspace, "path": path }).to_string();
    daemon.ask(post("/api/web-apps/file", &body)).await
}

/// A request on the origin `host` with a method, headers and a body.
fn send(
    method: &str,
    host: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Request<Body> {
    let mut request = Request::builder().method(method).uri(path).header("host", host);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::from(body.to_owned())).unwrap()
}

#[tokio::test]
async fn a_routed_file_reaches_its_page_and_saves_back_through_its_token_only() {
    let daemon = daemon();
    let workspace = pad_workspace();
    std::fs::create_dir_all(workspace.path().join("notes")).unwrap();
    std::fs::write(workspace.path().join("notes/todo.pad"), "milk").unwrap();
    let host = origin_of(&daemon, workspace.path(), "pad").await;

    let (status, opened) = open_routed(&daemon, workspace.path(), "notes/todo.pad").await;
    assert_eq!(status, StatusCode::OK, "{opened}");
    assert_eq!(opened["app"], "pad");
    let src = opened["src"].as_str().unwrap();
    let (page, token) = src.split_once("?cowork-file=").unwrap();
    assert_eq!(page, format!("http://{host}/"));

    // The page with the token gets one line after <head> — here none, so first; without it, the
    // file as it is; on disk, nothing changed.
    let (status, _, body) = fetch(&daemon, on(&host, &format!("/?cowork-file={token}"), &[])).await;
    assert_eq!(status, StatusCode::OK);
    let line = format!("<script src=\"/.cowork/file.js?token={token}\"></script>");
    assert_eq!(String::from_utf8(body).unwrap(), format!("{line}{PAGE}"));
    let (_, _, body) = fetch(&daemon, on(&host, "/?cowork-file=cwf_guessed", &[])).await;
    assert_eq!(body, PAGE.as_bytes(), "an unknown token: the page as it ships");
    let on_disk = std::fs::read_to_string(workspace.path().join(".cowork/apps/pad/web/index.html"));
    assert_eq!(on_disk.unwrap(), PAGE);

    let same_origin = [("sec-fetch-site", "same-origin")];
    let script = format!("/.cowork/file.js?token={token}");
    let (status, headers, body) = fetch(&daemon, on(&host, &script, &same_origin)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "text/javascript; charset=utf-8");
    let body = String::from_utf8(body).unwrap();
    assert!(body.contains("\"name\":\"todo.pad\"") && body.contains("launchQueue"), "{body}");

    let file = format!("/.cowork/file?token={token}");
    let (status, _, body) = fetch(&daemon, on(&host, &file, &same_origin)).await;
    assert_eq!((status, body.as_slice()), (StatusCode::OK, b"milk".as_slice()));
    let (status, _, _) =
        fetch(&daemon, send("PUT", &host, &file, &same_origin, "milk, eggs")).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let saved = std::fs::read_to_string(workspace.path().join("notes/todo.pad")).unwrap();
    assert_eq!(saved, "milk, eggs");
    let left: Vec<_> = std::fs::read_dir(workspace.path().join("notes")).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary file left beside it");

    // The tab closes: its token ends.
    let body = json!({ "token": token }).to_string();
    let answer = daemon.ask(post("/api/web-apps/file/end", &body)).await;
    assert_eq!(answer, (StatusCode::OK, json!({ "ended": true })));
    let (status, _, _) = fetch(&daemon, on(&host, &file, &same_origin)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "an ended token reads nothing");
}

#[tokio::test]
async fn a_routed_files_token_works_for_no_other_origin_file_or_caller() {
    let daemon = daemon();
    let workspace = pad_workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.pad"), "outside").unwrap();
    std::fs::write(workspace.path().join("todo.pad"), "milk").unwrap();
    std::fs::write(workspace.path().join("plain.txt"), "no route").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.pad"), workspace.path().join("out.pad"))
        .unwrap();
    let host = origin_of(&daemon, workspace.path(), "pad").await;

    // Only a path routed to a web app's index, inside the workspace, gets a token.
    for (path, status) in [
        ("plain.txt", StatusCode::NOT_FOUND),
        ("out.pad", StatusCode::NOT_FOUND),
        ("missing.pad", StatusCode::NOT_FOUND),
        ("../secret.pad", StatusCode::BAD_REQUEST),
        ("/etc/passwd", StatusCode::BAD_REQUEST),
    ] {
        let (got, answer) = open_routed(&daemon, workspace.path(), path).await;
        assert_eq!(got, status, "{path}: {answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().starts_with("failed to open"),
            "{answer}"
        );
    }
    let (_, opened) = open_routed(&daemon, workspace.path(), "todo.pad").await;
    let token = opened["src"].as_str().unwrap().split_once("?cowork-file=").unwrap().1.to_owned();
    let file = format!("/.cowork/file?token={token}");

    // Another origin (the same app in another workspace), another caller, no token: refused.
    let other = pad_workspace();
    let other_host = origin_of(&daemon, other.path(), "pad").await;
    let refusals = [
        ("GET", other_host.as_str(), file.clone(), vec![("sec-fetch-site", "same-origin")]),
        ("PUT", other_host.as_str(), file.clone(), vec![]),
        ("PUT", host.as_str(), file.clone(), vec![("sec-fetch-site", "same-site")]),
        ("PUT", host.as_str(), file.clone(), vec![("sec-fetch-site", "cross-site")]),
        ("PUT", host.as_str(), "/.cowork/file".to_owned(), vec![]),
        ("PUT", host.as_str(), "/.cowork/file?token=cwf_guessed".to_owned(), vec![]),
        ("PUT", host.as_str(), format!("/.cowork/file?token={token}&path=../x"), vec![]),
    ];
    for (method, on_host, path, headers) in refusals {
        let (status, _, body) = fetch(&daemon, send(method, on_host, &path, &headers, "x")).await;
        let body = String::from_utf8_lossy(&body);
        let expected =
            if path.contains("&path=") { StatusCode::NO_CONTENT } else { StatusCode::FORBIDDEN };
        assert_eq!(status, expected, "{method} {path} on {on_host} {headers:?}: {body}");
        if expected == StatusCode::FORBIDDEN {
            assert!(body.contains("\"Forbidden\""), "{body}");
        }
    }
    // The path a page adds is ignored: the token's file was written, nothing else.
    assert_eq!(std::fs::read_to_string(workspace.path().join("todo.pad")).unwrap(), "x");

    // The file replaced by a symlink leading out since: nothing written through it.
    std::fs::remove_file(workspace.path().join("todo.pad")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.pad"),
        workspace.path().join("todo.pad"),
    )
    .unwrap();
    let (status, _, body) = fetch(&daemon, send("PUT", &host, &file, &[], "overwritten")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{}", String::from_utf8_lossy(&body));
    assert_eq!(std::fs::read_to_string(outside.path().join("secret.pad")).unwrap(), "outside");
}

/// A workspace with the web app `dl` whose build is downloaded from `url`, pinned to `sha256`.
fn download_workspace(url: &str, sha256: &str) -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    let app = workspace.path().join(".cowork/apps/dl");
    std::fs::create_dir_all(&app).unwrap();
    let manifest = json!({"name": "dl", "version": "1.0.0",
        "web": {"index": "index.html", "download": {"url": url, "sha256": sha256}}});
    std::fs::write(app.join("cowork.json"), manifest.to_string()).unwrap();
    workspace
}

#[tokio::test]
async fn a_cached_download_is_ready_and_served_and_a_web_copy_wins() {
    // (Fetching, checking and unpacking are web_download.rs's unit tests: a manifest's
    // `download.url` is https only, and these tests have no certificate.)
    let daemon = daemon();
    let sha = "ab".repeat(32);
    let workspace = download_workspace("https://example.invalid/site.zip", &sha);
    let host = origin_of(&daemon, workspace.path(), "dl").await;
    let cached = daemon.state.engine.root().dir().join("web-builds").join(&sha);
    std::fs::create_dir_all(&cached).unwrap();
    std::fs::write(cached.join("index.html"), PAGE).unwrap();

    let body = json!({ "workspace": workspace.path(), "app": "dl" }).to_string();
    let (status, answer) = daemon.ask(post("/api/web-apps/build", &body)).await;
    assert_eq!((status, answer), (StatusCode::OK, json!({"state": "ready"})));
    let (status, _, page) = fetch(&daemon, on(&host, "/", &[])).await;
    assert_eq!((status, page.as_slice()), (StatusCode::OK, PAGE.as_bytes()), "from the cache");

    let web = workspace.path().join(".cowork/apps/dl/web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("index.html"), "copied").unwrap();
    let (_, _, page) = fetch(&daemon, on(&host, "/", &[])).await;
    assert_eq!(page, b"copied", "a build copied into web/ wins");

    let body = json!({ "workspace": workspace.path(), "app": "nope" }).to_string();
    let (status, answer) = daemon.ask(post("/api/web-apps/build", &body)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");
}
