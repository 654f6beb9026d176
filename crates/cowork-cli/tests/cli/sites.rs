//! `cowork app install <url>` and `cowork app remove`, against web sites this test serves on
//! 127.0.0.1 (a thread answering from a table of paths). Nothing here reaches another host: the
//! refusals are decided before any connection.
//!
//! The rule "a public site may not lead to localhost or a private network" needs a start page
//! that is public AND https, which a loopback test site cannot be without a certificate the
//! binary would have to be told to trust. cowork-sites tests it end to end instead (its `install`
//! tests `over_https`: a TLS site on loopback that the test resolver calls public, redirecting to a
//! private address, or pointing its manifest or icon at one).

use crate::support::*;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

/// What the test site answers for a path.
#[derive(Clone)]
enum Answer {
    Page(&'static str, Vec<u8>),
    Redirect(String),
    Refuse(u16),
}

fn html(text: &str) -> Answer {
    Answer::Page("text/html; charset=utf-8", text.as_bytes().to_vec())
}

fn json_file(text: &str) -> Answer {
    Answer::Page("application/manifest+json", text.as_bytes().to_vec())
}

fn png_file(bytes: &[u8]) -> Answer {
    Answer::Page("image/png", bytes.to_vec())
}

/// A square PNG of one color.
fn png(side: u32, rgba: [u8; 4]) -> Vec<u8> {
    let image = image::RgbaImage::from_pixel(side, side, image::Rgba(rgba));
    let mut out = Vec::new();
    image::DynamicImage::ImageRgba8(image)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// A site on 127.0.0.1: answers from its table (404 otherwise) and records every path asked for.
struct Site {
    port: u16,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Site {
    fn serve(routes: Vec<(&str, Answer)>) -> Site {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let routes: Vec<(String, Answer)> =
            routes.into_iter().map(|(p, a)| (p.to_owned(), a)).collect();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        // Lives until the test process ends: one request per connection, then close.
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream);
                let mut request = String::new();
                if reader.read_line(&mut request).is_err() {
                    continue;
                }
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                    header.clear();
                }
                let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
                log.lock().push(path.clone());
                let (head, body) = match routes.iter().find(|(p, _)| *p == path).map(|(_, a)| a) {
                    Some(Answer::Page(mime, body)) => {
                        (format!("200 OK\r\nContent-Type: {mime}"), body.clone())
                    }
                    Some(Answer::Redirect(to)) => {
                        (format!("302 Found\r\nLocation: {to}"), Vec::new())
                    }
                    Some(Answer::Refuse(status)) => (
                        format!("{status} Refused\r\nContent-Type: text/html"),
                        b"<title>Just a moment...</title>".to_vec(),
                    ),
                    None => (
                        "404 Not Found\r\nContent-Type: text/plain".to_owned(),
                        b"not found".to_vec(),
                    ),
                };
                let mut stream = reader.into_inner();
                let _ = write!(
                    stream,
                    "HTTP/1.1 {head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(&body);
            }
        });
        Site { port, asked }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().clone()
    }
}

const ACME_PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8">
<title>Acme Chat — Inbox</title>
<link rel="manifest" href="/app.webmanifest">
<link rel="icon" href="/favicon.png" type="image/png">
<script>document.write('<link rel="manifest" href="/not-this.json">')</script>
</head><body>Inbox</body></html>"#;

const ACME_MANIFEST: &str = r##"{ "id": "/inbox/", "name": "Acme Chat", "short_name": "Acme", "start_url": "/inbox/?source=pwa",
  "scope": "/inbox/", "theme_color": "#25D366", "display": "standalone",
  "icons": [ { "src": "/icons/48.png", "sizes": "48x48", "type": "image/png" },
             { "src": "/icons/256.png", "sizes": "256x256", "type": "image/png" },
             { "src": "/icons/512.png", "sizes": "512x512", "type": "image/png" },
             { "src": "/icons/mask.png", "sizes": "256x256", "type": "image/png", "purpose": "maskable" },
             { "src": "/icons/logo.svg", "sizes": "any", "type": "image/svg+xml" } ] }"##;

/// A site with a web app manifest and several icons; the 256 px one is the one to take.
fn acme() -> (Site, Vec<u8>) {
    let icon = png(256, [0x25, 0xd3, 0x66, 0xff]);
    let site = Site::serve(vec![
        ("/", html(ACME_PAGE)),
        ("/app.webmanifest", json_file(ACME_MANIFEST)),
        ("/icons/48.png", png_file(&png(48, [1, 1, 1, 255]))),
        ("/icons/256.png", png_file(&icon)),
        ("/icons/512.png", png_file(&png(512, [2, 2, 2, 255]))),
        ("/icons/mask.png", png_file(&png(256, [3, 3, 3, 255]))),
        ("/favicon.png", png_file(&png(32, [4, 4, 4, 255]))),
    ]);
    (site, icon)
}

fn workspace() -> Env {
    let env = Env::new(runtimes()[0]);
    std::fs::create_dir_all(env.file(".cowork")).unwrap();
    env
}

fn manifest(env: &Env, app: &str) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(env.file(&format!(".cowork/apps/{app}/cowork.json"))).unwrap(),
    )
    .unwrap()
}

fn receipt(env: &Env, app: &str) -> PathBuf {
    cowork_core::paths::Root::new(env.home.path())
        .workspace_dir(&env.ws_path())
        .join("sites")
        .join(format!("{app}.json"))
}

/// `cowork app list --json`: the apps' names and every problem line.
fn listed(env: &Env) -> (Vec<String>, Vec<String>) {
    let list = env.json(&["app", "list"]);
    let names = list["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["manifest"]["name"].as_str().unwrap().to_owned())
        .collect();
    let problems: Vec<String> = ["problems", "broken", "widgetProblems"]
        .iter()
        .flat_map(|k| list[*k].as_array().unwrap().iter().map(|p| p.to_string()))
        .collect();
    let app_problems = list["apps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["problems"].as_array().unwrap().iter().map(|p| p.to_string()));
    (names, problems.into_iter().chain(app_problems).collect())
}

#[test]
fn installs_a_site_from_its_web_app_manifest() {
    let env = workspace();
    let (site, icon) = acme();
    let out = env.run(&["app", "install", &site.url("/")]);
    assert_eq!(
        stderr(&out),
        format!("Fetching {}\nReading its manifest…\nFetching its icon…\n", site.url("/"))
    );
    assert_eq!(stdout(&out), "Installed Acme Chat as .cowork/apps/acme/ (open it with: cowork app open .cowork/apps/acme/cowork.json)\n");
    assert!(out.status.success());

    // The manifest's name, start page, scope, theme color and its best icon: 256 px, any purpose.
    assert_eq!(
        manifest(&env, "acme"),
        json!({ "name": "acme", "version": "1.0.0", "title": "Acme Chat", "icon": "icon.png", "color": "#25D366",
                "web": { "url": site.url("/inbox/?source=pwa"), "scope": site.url("/inbox/") } })
    );
    assert_eq!(std::fs::read(env.file(".cowork/apps/acme/icon.png")).unwrap(), icon);
    assert_eq!(site.asked(), ["/", "/app.webmanifest", "/icons/256.png"]);
    assert_eq!(listed(&env), (vec!["acme".to_owned()], vec![]));

    // The receipt is outside the app folder, with the hash of each file written.
    let written: Value =
        serde_json::from_slice(&std::fs::read(receipt(&env, "acme")).unwrap()).unwrap();
    assert_eq!(written["url"], json!(site.url("/inbox/?source=pwa")));
    assert_eq!(written["manifestId"], "/inbox/");
    let files: Vec<&String> = written["files"].as_object().unwrap().keys().collect();
    assert_eq!(files, ["cowork.json", "icon.png"]);
    assert_eq!(
        std::fs::read_dir(env.file(".cowork/apps/acme")).unwrap().count(),
        2,
        "nothing but the app's two files in its folder"
    );
}

#[test]
fn installing_an_installed_site_again_is_refused_unless_a_title_names_a_second_app() {
    let env = workspace();
    let (site, _) = acme();
    assert!(env.run(&["app", "install", &site.url("/")]).status.success());
    // Its start page, and the address that leads there: both are the app already here.
    for address in [site.url("/inbox/?source=pwa"), site.url("/")] {
        let out = env.run(&["app", "install", &address, "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(line["error"]["name"], "AlreadyExists", "{line}");
        assert!(
            line["error"]["message"]
                .as_str()
                .unwrap()
                .ends_with("it is the site app acme here already"),
            "{line}"
        );
        assert!(
            line["error"]["hint"]
                .as_str()
                .unwrap()
                .starts_with("open it (`cowork app open .cowork/apps/acme/cowork.json`)"),
            "{line}"
        );
    }
    assert_eq!(listed(&env), (vec!["acme".to_owned()], vec![]), "no second app");
    // Named, a second app of the same site is what the person asked for.
    let out = env.run(&["app", "install", &site.url("/"), "--title", "Acme work"]);
    assert!(out.status.success(), "{}", transcript(&out));
    assert_eq!(listed(&env).0.len(), 2);
}

#[test]
fn a_site_without_a_manifest_installs_from_its_title_and_icon() {
    let env = workspace();
    let favicon = png(32, [9, 9, 9, 255]);
    let touch = png(180, [8, 8, 8, 255]);
    let site = Site::serve(vec![
        (
            "/",
            html(
                r##"<html><head><title>  Plain &amp; Simple Notes </title><meta name="theme-color" content="rgb(17, 34, 51)">
            <link rel="icon" href="/favicon.png" sizes="32x32"><link rel="apple-touch-icon" href="/touch.png"></head></html>"##,
            ),
        ),
        ("/favicon.png", png_file(&favicon)),
        ("/touch.png", png_file(&touch)),
    ]);
    let out = env.run(&["app", "install", &site.url("/")]);
    assert_eq!(stderr(&out), format!("Fetching {}\nFetching its icon…\nnote: the site has no web app manifest: the page's title and icon are used\n", site.url("/")));
    assert_eq!(stdout(&out), "Installed Plain & Simple Notes as .cowork/apps/plain-simple-notes/ (open it with: cowork app open .cowork/apps/plain-simple-notes/cowork.json)\n");
    assert_eq!(
        manifest(&env, "plain-simple-notes"),
        json!({ "name": "plain-simple-notes", "version": "1.0.0", "title": "Plain & Simple Notes", "icon": "icon.png", "color": "#112233",
                "web": { "url": site.url("/"), "scope": site.url("/") } })
    );
    assert_eq!(
        std::fs::read(env.file(".cowork/apps/plain-simple-notes/icon.png")).unwrap(),
        touch,
        "the touch icon (180 px) beats a 32 px favicon"
    );
    assert_eq!(listed(&env).1, Vec::<String>::new());
}

#[test]
fn title_and_display_flags_win_and_the_name_follows_the_title() {
    let env = workspace();
    let (site, _) = acme();
    let other = tempfile::tempdir().unwrap();
    // Run from elsewhere: the open command then names the manifest by its full path.
    let out = env
        .cmd(&[
            "app",
            "install",
            &site.url("/"),
            "--title",
            "Team Chat",
            "--display",
            "right",
            "--workspace",
            &env.ws_path().to_string_lossy(),
        ])
        .current_dir(other.path())
        .output()
        .unwrap();
    let full = env.ws_path().join(".cowork/apps/team-chat/cowork.json");
    assert_eq!(
        stdout(&out),
        format!(
            "Installed Team Chat as .cowork/apps/team-chat/ (open it with: cowork app open {})\n",
            full.display()
        )
    );
    let written = manifest(&env, "team-chat");
    assert_eq!(
        (written["title"].as_str(), written["display"].as_str()),
        (Some("Team Chat"), Some("right"))
    );
    assert_eq!(listed(&env), (vec!["team-chat".to_owned()], vec![]));
}

#[test]
fn the_hibernate_flag_lets_the_app_hibernate_on_this_machine() {
    let env = workspace();
    let (site, _) = acme();
    let settings = cowork_core::paths::Root::new(env.home.path())
        .workspace_dir(&env.ws_path())
        .join("site-apps.json");
    let refused = env.run(&["app", "install", &site.url("/"), "--hibernate", "0"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("0 is not in 1..=1440"), "{}", stderr(&refused));
    assert!(!env.file(".cowork/apps/acme").exists(), "nothing installed");

    // Without minutes: the default, 10.
    let out = env.run(&["app", "install", &site.url("/"), "--hibernate"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("\nIt hibernates after 10 min out of sight.\n"),
        "{}",
        stdout(&out)
    );
    let written: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    assert_eq!(written, json!({ "acme": { "hibernateAfter": 600 } }));
    // Not in the app's folder: the setting is this machine's.
    assert_eq!(std::fs::read_dir(env.file(".cowork/apps/acme")).unwrap().count(), 2);
}

#[test]
fn names_count_up_past_folders_and_names_already_taken() {
    let env = workspace();
    env.app("acme", r#"{ "name": "acme", "version": "1.0.0" }"#, &[]);
    // A folder called otherwise whose manifest name is `acme-2`.
    env.app("mine", r#"{ "name": "acme-2", "version": "1.0.0" }"#, &[]);
    let (site, _) = acme();
    let out = env.run(&["app", "install", &site.url("/")]);
    assert!(
        stdout(&out).starts_with("Installed Acme Chat as .cowork/apps/acme-3/"),
        "{}",
        transcript(&out)
    );
    assert_eq!(manifest(&env, "acme-3")["name"], "acme-3");
    // A second app of the same site, asked for by its title.
    let again = env.run(&["app", "install", &site.url("/"), "--title", "Acme"]);
    assert!(
        stdout(&again).starts_with("Installed Acme as .cowork/apps/acme-4/"),
        "{}",
        transcript(&again)
    );
    assert_eq!(
        listed(&env),
        (
            vec!["acme".to_owned(), "acme-3".to_owned(), "acme-4".to_owned(), "acme-2".to_owned()],
            vec![]
        )
    );
}

#[test]
fn a_site_that_turns_scripts_away_installs_from_its_address_named_by_title() {
    let env = workspace();
    let site = Site::serve(vec![("/", Answer::Refuse(403))]);
    let out =
        env.run(&["app", "install", &site.url("/"), "--title", "ChatGPT", "--display", "right"]);
    assert_eq!(
        stderr(&out),
        format!("Fetching {}\nnote: the site turned the install away (it answered 403): installed from its address alone, with no icon\n", site.url("/"))
    );
    assert_eq!(stdout(&out), "Installed ChatGPT as .cowork/apps/chatgpt/ (open it with: cowork app open .cowork/apps/chatgpt/cowork.json)\n");
    assert_eq!(
        manifest(&env, "chatgpt"),
        json!({ "name": "chatgpt", "version": "1.0.0", "title": "ChatGPT", "display": "right", "web": { "url": site.url("/"), "scope": site.url("/") } })
    );
    assert_eq!(listed(&env), (vec!["chatgpt".to_owned()], vec![]));

    // A page that is not there is an error, not an app (a second one: it is in chatgpt's scope).
    let missing = env.run(&["app", "install", &site.url("/nope"), "--title", "Nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).ends_with(&format!("error: failed to fetch {}: the site answered 404\nhint: check the address: the site does not serve it\n", site.url("/nope"))),
        "{}",
        transcript(&missing)
    );
}

#[test]
fn http_on_a_name_other_than_localhost_is_refused_naming_the_rule() {
    let env = workspace();
    let out = env.run(&["app", "install", "http://intranet.example/"]);
    insta::assert_snapshot!("install_http_refused", transcript(&out));
    assert!(!env.file(".cowork/apps").exists(), "nothing is written");
}

#[test]
fn an_address_with_a_user_or_password_is_refused_and_never_echoed() {
    let env = workspace();
    let out = env.run(&["app", "install", "https://ana:hunter2@chat.example/"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: refused to install https://***@chat.example/: the address has a user or password in it — rule: no user or password in an address\n\
         hint: leave the user and password out of the address: sign in inside the app once it is installed\n"
    );
    let not_an_address = env.run(&["app", "install", "chat.example"]);
    assert_eq!(not_an_address.status.code(), Some(2));
    assert_eq!(stderr(&not_an_address), "error: failed to read \"chat.example\" as a web address: relative URL without a base\nhint: give the site's full address: https://chat.example\n");
    let no_team_server = env.run(&["app", "install", "/notes"]);
    assert_eq!(no_team_server.status.code(), Some(2));
    assert!(stderr(&no_team_server).ends_with("\nhint: a team server's app is <team-server>/notes (`cowork team-server list` shows yours); a site app's address starts with https://\n"), "{}", stderr(&no_team_server));
}

#[test]
fn every_redirect_is_checked_before_it_is_followed() {
    let env = workspace();
    let site = Site::serve(vec![
        ("/plain", Answer::Redirect("http://intranet.example/admin".to_owned())),
        ("/login", Answer::Redirect("https://ana:hunter2@chat.example/".to_owned())),
        ("/loop", Answer::Redirect("/loop".to_owned())),
    ]);
    let out = env.run(&["app", "install", &site.url("/plain")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "error: refused to install {}: its redirect to http://intranet.example/admin is http — rule: https only (http only on localhost, 127.0.0.1 and [::1])\nhint: the site sends Cowork to an address that is not https: it cannot be installed as it is\n",
            site.url("/plain")
        )),
        "{}",
        transcript(&out)
    );
    let out = env.run(&["app", "install", &site.url("/login")]);
    assert!(stderr(&out).contains("its redirect to https://***@chat.example/ has a user or password in it — rule: no user or password in an address"), "{}", transcript(&out));
    let out = env.run(&["app", "install", &site.url("/loop")]);
    assert!(
        stderr(&out).contains(&format!(
            "error: failed to fetch {}: it redirects more than 5 times",
            site.url("/loop")
        )),
        "{}",
        transcript(&out)
    );
    assert_eq!(
        site.asked().iter().filter(|p| *p == "/loop").count(),
        6,
        "the first request and five redirects"
    );
    assert!(!env.file(".cowork/apps").exists(), "nothing is written");
}

#[test]
fn remove_deletes_exactly_what_the_install_wrote() {
    let env = workspace();
    let (site, _) = acme();
    assert!(env.run(&["app", "install", &site.url("/")]).status.success());
    let out = env.run(&["app", "remove", "acme"]);
    assert_eq!(
        transcript(&out),
        "exit: 0\n--- stdout\nRemoved .cowork/apps/acme/ (cowork.json, icon.png).\n--- stderr\n"
    );
    assert!(!env.file(".cowork/apps/acme").exists());
    assert!(!receipt(&env, "acme").exists());
    assert_eq!(listed(&env), (vec![], vec![]));

    let again = env.run(&["app", "remove", "acme"]);
    assert_eq!(again.status.code(), Some(3));
    assert!(stderr(&again).starts_with("error: no app \"acme\" in "), "{}", transcript(&again));
}

#[test]
fn remove_keeps_a_cowork_json_that_no_longer_points_at_the_site() {
    let env = workspace();
    let (site, _) = acme();
    assert!(env.run(&["app", "install", &site.url("/")]).status.success());
    let path = env.file(".cowork/apps/acme/cowork.json");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace(&site.url("/inbox/?source=pwa"), "https://chat.example/")
        .replace(&site.url("/inbox/"), "https://chat.example/");
    std::fs::write(&path, &edited).unwrap();

    let out = env.run(&["app", "remove", ".cowork/apps/acme"]);
    assert_eq!(
        stdout(&out),
        format!(
            "Kept .cowork/apps/acme/cowork.json: it no longer points at {} (it points at https://chat.example/).\n\
             Kept .cowork/apps/acme/icon.png: the kept cowork.json uses it.\n\
             What is kept is yours now: delete it yourself when you no longer want it.\n",
            site.url("/inbox/?source=pwa")
        )
    );
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    assert_eq!(listed(&env), (vec!["acme".to_owned()], vec![]), "the app stays, whole");
    // It is a local app now: remove no longer claims it.
    let again = env.run(&["app", "remove", "acme"]);
    assert_eq!(
        transcript(&again),
        "exit: 1\n--- stdout\n--- stderr\nerror: .cowork/apps/acme was not installed from a web address on this computer\nhint: a local app is yours: delete its folder (.cowork/apps/acme) yourself\n"
    );
}

#[test]
fn remove_keeps_each_file_the_person_changed_and_a_folder_with_their_files() {
    let env = workspace();
    let (site, _) = acme();
    assert!(env.run(&["app", "install", &site.url("/")]).status.success());
    // A new title (same site) and a README of their own.
    let path = env.file(".cowork/apps/acme/cowork.json");
    std::fs::write(
        &path,
        std::fs::read_to_string(&path).unwrap().replace("\"Acme Chat\"", "\"Acme (work)\""),
    )
    .unwrap();
    std::fs::write(env.file(".cowork/apps/acme/README.md"), "mine\n").unwrap();
    let out = env.run(&["app", "remove", "acme"]);
    assert_eq!(
        stdout(&out),
        "Kept .cowork/apps/acme/cowork.json: it changed since the install.\n\
         Kept .cowork/apps/acme/icon.png: the kept cowork.json uses it.\n\
         Kept the folder .cowork/apps/acme/: it holds files the install did not write.\n\
         What is kept is yours now: delete it yourself when you no longer want it.\n"
    );

    // An icon the person replaced stays; the untouched cowork.json goes.
    let env = workspace();
    assert!(env.run(&["app", "install", &site.url("/")]).status.success());
    let mine = png(64, [7, 7, 7, 255]);
    std::fs::write(env.file(".cowork/apps/acme/icon.png"), &mine).unwrap();
    let out = env.run(&["app", "remove", "acme", "--json"]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap(),
        serde_json::json!({
            "dir": ".cowork/apps/acme", "deleted": ["cowork.json"], "missing": [], "folderRemoved": false,
            "kept": [{ "file": "icon.png", "why": "it changed since the install" }]
        }),
        "--json: what the text says, as one line"
    );
    assert_eq!(std::fs::read(env.file(".cowork/apps/acme/icon.png")).unwrap(), mine);
    assert!(!env.file(".cowork/apps/acme/cowork.json").exists());
}

#[test]
fn install_help_names_its_flags() {
    let env = workspace();
    insta::assert_snapshot!("install_help", transcript(&env.run(&["app", "install", "--help"])));
}
