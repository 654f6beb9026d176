//! `install`: from a web address to `.cowork/apps/<name>/` (`cowork.json`, `icon.png`) and the
//! receipt of what was written.
//!
//! The page is fetched (redirects checked hop by hop), then its web app manifest; the manifest's
//! name, icon, theme color, start page and scope win, the page's title, icons and theme color fill
//! in when there is no manifest (or it cannot be read, which is a note, not a failure). A site
//! that turns scripts away (a bot check answering 401, 403, 429 or 503) is installed from its
//! address alone, named by `--title`. A rule the site breaks anywhere is a refusal and nothing is
//! written.

use crate::error::InstallError;
use crate::fetch::{self, Fetcher};
use crate::icon::{self, Candidate};
use crate::options::{Display, InstallOptions};
use crate::receipt::{self, Receipt};
use crate::resolver::Pinned;
use crate::rules::{shown, Guard, Step};
use crate::web_manifest::{self, WebManifest};
use crate::{color, name, page};
use cowork_core::discovery::APPS_DIR;
use cowork_core::fs_atomic;
use cowork_core::manifest::{self, MANIFEST_FILE};
use cowork_core::paths::Root;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use url::Url;

/// The stored icon's file name in the app folder.
pub const ICON_FILE: &str = "icon.png";
/// Icons downloaded before giving up on one (each may be a broken link or not a PNG).
const ICON_ATTEMPTS: usize = 3;
/// The longest title the manifest schema allows.
const TITLE_MAX: usize = 200;
/// Answers a site gives a script it will not serve (a bot check): the install goes on from the
/// address alone.
const TURNED_AWAY: [u16; 4] = [401, 403, 429, 503];

/// What the install is doing, for a progress line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// Fetching the page at this address.
    Fetching(String),
    /// Fetching and reading the page's web app manifest.
    ReadingManifest,
    /// Fetching the icon.
    FetchingIcon,
}

/// An installed site app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The manifest `name`, also the folder's name.
    pub name: String,
    /// The title.
    pub title: String,
    /// The app folder, workspace-relative (`.cowork/apps/<name>`).
    pub dir: String,
    /// The `web.url`.
    pub url: String,
    /// Whether an `icon.png` was stored.
    pub icon: bool,
    /// What the install fell back on, one sentence each (no manifest, no usable icon…).
    pub notes: Vec<String>,
}

/// Installs the site at `address` as a site app of `workspace` (a canonical path), its receipt
/// under `root`. `progress` hears each network step before it starts.
pub async fn install(
    root: &Root,
    workspace: &Path,
    address: &str,
    options: &InstallOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Installed, InstallError> {
    let start = parse_address(address)?;
    refuse_installed(workspace, &start, options)?;
    let pinned = Pinned::default();
    let guard = Guard::start(&start, options.resolver.clone(), pinned.clone()).await?;
    let fetcher = Fetcher::new(pinned, options);

    progress(Progress::Fetching(shown(&start)));
    let mut notes = Vec::new();
    let (page, page_url) = match fetcher.get(&guard, start.clone(), Step::Start, fetch::PAGE).await
    {
        Ok(fetched) => (page::parse(&String::from_utf8_lossy(&fetched.bytes)), fetched.url),
        // Some sites answer scripts with a bot check (the reference names chatgpt.com and
        // claude.ai): the app is then installed from its address alone, as the reference says.
        Err(InstallError::Status { status, .. }) if TURNED_AWAY.contains(&status) => {
            let name_it = if options.title.is_none() { " (name it with --title)" } else { "" };
            notes.push(format!("the site turned the install away (it answered {status}): installed from its address alone, with no icon{name_it}"));
            return write_install(
                root,
                workspace,
                &start,
                options,
                None,
                Chosen::address_only(&start, options),
                notes,
            );
        }
        Err(other) => return Err(other),
    };
    let base = page
        .base
        .as_deref()
        .and_then(|b| page_url.join(b).ok())
        .unwrap_or_else(|| page_url.clone());

    let site = match page.manifest.as_deref().and_then(|href| base.join(href).ok()) {
        Some(manifest_url) => {
            progress(Progress::ReadingManifest);
            read_manifest(&fetcher, &guard, manifest_url, &mut notes).await?
        }
        None => {
            notes.push(
                "the site has no web app manifest: the page's title and icon are used".to_owned(),
            );
            None
        }
    };
    let (url, scope) = start_and_scope(site.as_ref(), &page_url);
    refuse_installed(workspace, &url, options)?;
    if url != page_url {
        guard.check(&url, &Step::StartUrl(shown(&url))).await?;
    }

    let manifest = site.as_ref().map(|(m, _)| m);
    let host = page_url.host_str().unwrap_or_default().trim_start_matches("www.").to_owned();
    let flag_title = options.title.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let manifest_name = manifest.and_then(|m| m.name.as_deref());
    let short_name = manifest.and_then(|m| m.short_name.as_deref());
    let title = cut(
        flag_title.or(manifest_name).or(short_name).or(page.title.as_deref()).unwrap_or(&host),
        TITLE_MAX,
    );
    let base_name = name::base(&[
        flag_title.unwrap_or_default(),
        short_name.unwrap_or_default(),
        manifest_name.unwrap_or_default(),
        page.title.as_deref().unwrap_or_default(),
        &host,
    ]);
    let theme = manifest.and_then(|m| m.theme_color.as_deref()).or(page.theme_color.as_deref());
    let tile_color = theme.and_then(color::to_hex);

    let mut candidates: Vec<Candidate> = site
        .as_ref()
        .map(|(m, at)| m.icons.iter().filter_map(|i| Candidate::from_manifest(i, at)).collect())
        .unwrap_or_default();
    if candidates.is_empty() {
        candidates = page.icons.iter().filter_map(|i| Candidate::from_page(i, &base)).collect();
    }
    let icon = fetch_icon(&fetcher, &guard, icon::ranked(candidates), progress, &mut notes).await?;
    let app = Chosen { name: base_name, title, color: tile_color, url, scope, icon };
    write_install(root, workspace, &start, options, manifest.and_then(|m| m.id.clone()), app, notes)
}

/// What a page offers to install, as the in-app browser's menu shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// The page's address after redirects.
    pub url: String,
    /// Whether the page links a usable web app manifest.
    pub manifest: bool,
    /// The manifest's `name`, else its `short_name` (only with a manifest).
    pub name: Option<String>,
}

/// Reads the page at `address` and its web app manifest under the same address rules as
/// [`install`] (every hop checked, nothing written): what the browser's install item offers.
pub async fn probe(address: &str, options: &InstallOptions) -> Result<Offer, InstallError> {
    let start = parse_address(address)?;
    let pinned = Pinned::default();
    let guard = Guard::start(&start, options.resolver.clone(), pinned.clone()).await?;
    let fetcher = Fetcher::new(pinned, options);
    let fetched = fetcher.get(&guard, start, Step::Start, fetch::PAGE).await?;
    let page = page::parse(&String::from_utf8_lossy(&fetched.bytes));
    let base = page
        .base
        .as_deref()
        .and_then(|b| fetched.url.join(b).ok())
        .unwrap_or_else(|| fetched.url.clone());
    let mut notes = Vec::new();
    let site = match page.manifest.as_deref().and_then(|href| base.join(href).ok()) {
        Some(manifest_url) => read_manifest(&fetcher, &guard, manifest_url, &mut notes).await?,
        None => None,
    };
    let name = site
        .as_ref()
        .and_then(|(m, _)| m.name.clone().or_else(|| m.short_name.clone()))
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty());
    Ok(Offer { url: fetched.url.to_string(), manifest: site.is_some(), name })
}

/// Claims the folder, writes the app and its receipt; on any failure nothing stays behind.
fn write_install(
    root: &Root,
    workspace: &Path,
    start: &Url,
    options: &InstallOptions,
    manifest_id: Option<String>,
    app: Chosen,
    notes: Vec<String>,
) -> Result<Installed, InstallError> {
    let (folder, dir_path) = claim_folder(workspace, &app.name)?;
    let files = match write_app(&dir_path, &folder, &app, options.display) {
        Ok(files) => files,
        Err(error) => {
            // The folder was created by this install a moment ago: nothing in it is anyone else's.
            let _ = std::fs::remove_dir_all(&dir_path);
            return Err(error);
        }
    };
    let dir = format!("{APPS_DIR}/{folder}");
    let receipt = Receipt {
        dir: dir.clone(),
        url: app.url.to_string(),
        requested: shown(start),
        manifest_id,
        installed_at: now(),
        files,
    };
    let receipt_path = receipt::path(root, workspace, &folder);
    if let Err(source) = receipt.write(&receipt_path) {
        // Without its receipt the app could not be removed as installed: take it back.
        let _ = std::fs::remove_dir_all(&dir_path);
        return Err(InstallError::Write { path: receipt_path, source });
    }
    Ok(Installed {
        name: folder,
        title: app.title,
        dir,
        url: app.url.to_string(),
        icon: app.icon.is_some(),
        notes,
    })
}

/// What the install decided the app is.
struct Chosen {
    /// The name to start from (`-2`, `-3`… when taken).
    name: String,
    title: String,
    color: Option<String>,
    url: Url,
    scope: String,
    /// The PNG to store as `icon.png`.
    icon: Option<Vec<u8>>,
}

impl Chosen {
    /// An app made from the address alone: `--title` (else the host), no icon, no color.
    fn address_only(start: &Url, options: &InstallOptions) -> Chosen {
        let host = start.host_str().unwrap_or_default().trim_start_matches("www.").to_owned();
        let title = cut(
            options.title.as_deref().map(str::trim).filter(|t| !t.is_empty()).unwrap_or(&host),
            TITLE_MAX,
        );
        let (url, scope) = start_and_scope(None, start);
        Chosen { name: name::base(&[&title, &host]), title, color: None, url, scope, icon: None }
    }
}

/// The address as given, parsed; a bare `example.com` is not guessed at.
/// A page of a site app already here is that app: a second app of the same site (another account,
/// its own session) is made only when the person names it (`--title`).
fn refuse_installed(
    workspace: &Path,
    url: &Url,
    options: &InstallOptions,
) -> Result<(), InstallError> {
    if options.title.is_some() {
        return Ok(());
    }
    let registry = cowork_core::registry::load(workspace);
    let Some(app) = crate::installed_at(&registry, url) else { return Ok(()) };
    Err(InstallError::Installed {
        url: shown(url),
        app: app.manifest.name.clone(),
        dir: app.dir.clone(),
    })
}

fn parse_address(address: &str) -> Result<Url, InstallError> {
    Url::parse(address.trim()).map_err(|e| {
        // Do not echo a password the person typed.
        let input =
            if address.contains('@') { "the address".to_owned() } else { address.to_owned() };
        InstallError::BadUrl { input, reason: e.to_string() }
    })
}

/// Fetches and reads the manifest. A refusal fails the install; any other failure is a note and
/// the page's own title and icon are used.
async fn read_manifest(
    fetcher: &Fetcher,
    guard: &Guard,
    manifest_url: Url,
    notes: &mut Vec<String>,
) -> Result<Option<(WebManifest, Url)>, InstallError> {
    let step = Step::Manifest(shown(&manifest_url));
    match fetcher.get(guard, manifest_url, step, fetch::MANIFEST).await {
        Ok(fetched) => match web_manifest::parse(&fetched.bytes) {
            Ok(parsed) => Ok(Some((parsed, fetched.url))),
            Err(why) => {
                notes.push(format!("its web app manifest {} is not usable ({why}): the page's title and icon are used", shown(&fetched.url)));
                Ok(None)
            }
        },
        Err(InstallError::Refused(refusal)) => Err(refusal.into()),
        Err(other) => {
            notes.push(format!(
                "{}: the page's title and icon are used",
                crate::error::with_causes(&other)
            ));
            Ok(None)
        }
    }
}

/// `web.url` and `web.scope`: the manifest's `start_url` when it is on the page's origin (as
/// browsers require), else the page; its `scope` when it is a start of that url on its origin
/// (the rule `cowork app list` checks), else the url up to its last `/`.
fn start_and_scope(site: Option<&(WebManifest, Url)>, page_url: &Url) -> (Url, String) {
    let resolve =
        |value: Option<&String>| site.and_then(|(_, at)| value.and_then(|v| at.join(v).ok()));
    let url = resolve(site.and_then(|(m, _)| m.start_url.as_ref()))
        .filter(|u| u.origin() == page_url.origin())
        .unwrap_or_else(|| page_url.clone());
    let default_scope = url.join("./").map(String::from).unwrap_or_else(|_| url.to_string());
    let scope = resolve(site.and_then(|(m, _)| m.scope.as_ref()))
        .filter(|s| {
            s.origin() == url.origin() && url.as_str().starts_with(s.as_str().trim_end_matches('/'))
        })
        .map(String::from)
        .unwrap_or(default_scope);
    (url, scope)
}

/// Downloads the best icon that turns out to be a usable PNG. A refusal fails the install; an icon
/// that cannot be used is skipped for the next, and none at all is a note.
async fn fetch_icon(
    fetcher: &Fetcher,
    guard: &Guard,
    candidates: Vec<Candidate>,
    progress: &mut dyn FnMut(Progress),
    notes: &mut Vec<String>,
) -> Result<Option<Vec<u8>>, InstallError> {
    if candidates.is_empty() {
        notes.push("the site offers no PNG icon: the app gets a letter tile".to_owned());
        return Ok(None);
    }
    progress(Progress::FetchingIcon);
    let mut last_problem = String::new();
    for candidate in candidates.into_iter().take(ICON_ATTEMPTS) {
        let step = Step::Icon(shown(&candidate.url));
        match fetcher.get(guard, candidate.url.clone(), step, fetch::ICON).await {
            Ok(fetched) => match icon::prepare(&fetched.bytes) {
                Ok(bytes) => return Ok(Some(bytes)),
                Err(why) => last_problem = format!("{}: {why}", shown(&candidate.url)),
            },
            Err(InstallError::Refused(refusal)) => return Err(refusal.into()),
            Err(other) => last_problem = crate::error::with_causes(&other),
        }
    }
    notes.push(format!("no usable icon ({last_problem}): the app gets a letter tile"));
    Ok(None)
}

/// Creates the app folder under the first free name: not a folder in `.cowork/apps/` (creating it
/// is the claim, so two installs at once cannot take the same one) and not another app's `name`.
fn claim_folder(workspace: &Path, base: &str) -> Result<(String, PathBuf), InstallError> {
    let apps = workspace.join(APPS_DIR);
    std::fs::create_dir_all(&apps)
        .map_err(|source| InstallError::Write { path: apps.clone(), source })?;
    let registry = cowork_core::registry::load(workspace);
    let names: HashSet<&str> = registry.apps.iter().map(|a| a.manifest.name.as_str()).collect();
    let mut candidates = name::candidates(base).filter(|c| !names.contains(c.as_str()));
    loop {
        let candidate =
            candidates.next().expect("the candidate names never run out: they count up");
        let path = apps.join(&candidate);
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok((candidate, path)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(InstallError::Write { path, source }),
        }
    }
}

/// Writes `icon.png` and `cowork.json` (last, so a watching daemon never sees an app without its
/// icon), after checking the manifest as `cowork app list` will. Returns each file's sha256.
fn write_app(
    dir: &Path,
    folder: &str,
    app: &Chosen,
    display: Display,
) -> Result<BTreeMap<String, String>, InstallError> {
    let mut files = BTreeMap::new();
    let mut object = Map::new();
    object.insert("name".into(), json!(folder));
    object.insert("version".into(), json!("1.0.0"));
    object.insert("title".into(), json!(app.title));
    if let Some(bytes) = &app.icon {
        let path = dir.join(ICON_FILE);
        fs_atomic::write(&path, bytes, false)
            .map_err(|source| InstallError::Write { path, source })?;
        files.insert(ICON_FILE.to_owned(), receipt::sha256(bytes));
        object.insert("icon".into(), json!(ICON_FILE));
    }
    if let Some(tile_color) = &app.color {
        object.insert("color".into(), json!(tile_color));
    }
    let display = match display {
        Display::Tab => None,
        Display::Sidebar => Some("sidebar"),
        Display::Right => Some("right"),
    };
    if let Some(display) = display {
        object.insert("display".into(), json!(display));
    }
    object.insert("web".into(), json!({ "url": app.url.as_str(), "scope": app.scope }));
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&Value::Object(object)).expect("a manifest serializes")
    );
    let label = format!("{APPS_DIR}/{folder}/{MANIFEST_FILE}");
    let problems = match manifest::validate(&text, dir, &label) {
        Ok(checked) => checked.problems,
        Err(problems) => problems,
    };
    if !problems.is_empty() {
        return Err(InstallError::InvalidManifest {
            problems: problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
        });
    }
    let path = dir.join(MANIFEST_FILE);
    fs_atomic::write(&path, text.as_bytes(), false)
        .map_err(|source| InstallError::Write { path, source })?;
    files.insert(MANIFEST_FILE.to_owned(), receipt::sha256(text.as_bytes()));
    Ok(files)
}

/// `text` cut to `max` characters.
fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect::<String>().trim_end().to_owned()
}

fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .expect("the current time formats as RFC 3339")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(start_url: Option<&str>, scope: Option<&str>) -> (WebManifest, Url) {
        let manifest = WebManifest {
            start_url: start_url.map(Into::into),
            scope: scope.map(Into::into),
            ..WebManifest::default()
        };
        (manifest, Url::parse("https://cdn.site.test/static/manifest.json").unwrap())
    }

    #[test]
    fn start_url_and_scope_follow_the_manifest_on_the_pages_origin() {
        let page = Url::parse("https://site.test/inbox/today").unwrap();
        let (url, scope) = start_and_scope(None, &page);
        assert_eq!(
            (url.as_str(), scope.as_str()),
            ("https://site.test/inbox/today", "https://site.test/inbox/")
        );

        let (url, scope) = start_and_scope(
            Some(&site(Some("https://site.test/app/?pwa=1"), Some("https://site.test/app/"))),
            &page,
        );
        assert_eq!(
            (url.as_str(), scope.as_str()),
            ("https://site.test/app/?pwa=1", "https://site.test/app/")
        );

        // A start_url on another origin is ignored (browsers do the same); relative ones resolve
        // against the manifest, which here is on a CDN: also another origin.
        let (url, _) = start_and_scope(Some(&site(Some("https://evil.test/"), None)), &page);
        assert_eq!(url, page);
        let (url, _) = start_and_scope(Some(&site(Some("/app/"), None)), &page);
        assert_eq!(url, page);

        // A scope the start page is not inside is replaced by the default.
        let (url, scope) = start_and_scope(
            Some(&site(Some("https://site.test/app/x"), Some("https://site.test/other/"))),
            &page,
        );
        assert_eq!(
            (url.as_str(), scope.as_str()),
            ("https://site.test/app/x", "https://site.test/app/")
        );
    }

    mod over_https {
        //! The whole install against a TLS site on loopback that the test resolver calls public.
        use super::super::*;
        use crate::resolver::StaticResolver;
        use crate::rules::{Refusal, Rule};
        use crate::test_site::{Answer, TlsSite, AUTHORITY};

        /// Installs `start` with public.test and cdn.test public, intranet.test private, localhost
        /// loopback — every connection going to the loopback site.
        async fn install_from(start: &str) -> (tempfile::TempDir, Result<Installed, InstallError>) {
            let ws = tempfile::tempdir().unwrap();
            let resolver = StaticResolver::default()
                .with("public.test", &["93.184.216.34"])
                .with("cdn.test", &["93.184.216.35"])
                .with("intranet.test", &["10.0.0.7"])
                .with("localhost", &["127.0.0.1"])
                .connecting_to("127.0.0.1");
            let options = InstallOptions {
                resolver: std::sync::Arc::new(resolver),
                test_authority: Some(reqwest::Certificate::from_pem(AUTHORITY.as_bytes()).unwrap()),
                ..InstallOptions::default()
            };
            let root = Root::new(ws.path().join("root"));
            let result = install(&root, ws.path(), start, &options, &mut |_| {}).await;
            (ws, result)
        }

        fn refusal(result: Result<Installed, InstallError>) -> Refusal {
            match result {
                Err(InstallError::Refused(refusal)) => refusal,
                other => panic!("not a refusal: {other:?}"),
            }
        }

        fn page(head: &str) -> Answer {
            Answer::Page("text/html", format!("<html><head>{head}</head></html>").into_bytes())
        }

        #[tokio::test]
        async fn a_public_site_installs_with_its_manifest_and_icon_on_another_public_host() {
            let mut icon = Vec::new();
            image::DynamicImage::new_rgba8(192, 192)
                .write_to(&mut std::io::Cursor::new(&mut icon), image::ImageFormat::Png)
                .unwrap();
            let site = TlsSite::start().await;
            // On a CDN, the manifest names its start page in full: a relative one would be the CDN's.
            let manifest = format!(
                r#"{{ "name": "Public Chat", "start_url": "{}", "icons": [ {{ "src": "/icon.png", "sizes": "192x192", "type": "image/png" }} ] }}"#,
                site.url("public.test", "/app/")
            );
            site.answer(
                "public.test/",
                page(&format!(
                    r#"<title>Ignored</title><link rel="manifest" href="{}">"#,
                    site.url("cdn.test", "/m.json")
                )),
            );
            site.answer(
                "cdn.test/m.json",
                Answer::Page("application/manifest+json", manifest.into_bytes()),
            );
            site.answer("cdn.test/icon.png", Answer::Page("image/png", icon.clone()));
            let (ws, result) = install_from(&site.url("public.test", "/")).await;
            let installed = result.unwrap();
            assert_eq!(
                (installed.name.as_str(), installed.title.as_str()),
                ("public-chat", "Public Chat")
            );
            assert_eq!(installed.url, site.url("public.test", "/app/"));
            assert_eq!(
                std::fs::read(ws.path().join(".cowork/apps/public-chat/icon.png")).unwrap(),
                icon
            );
            assert_eq!(site.asked(), ["public.test/", "cdn.test/m.json", "cdn.test/icon.png"]);
        }

        #[tokio::test]
        async fn probe_reads_the_page_and_its_manifest_writes_nothing_and_keeps_the_rules() {
            let site = TlsSite::start().await;
            site.answer(
                "public.test/",
                page(&format!(
                    r#"<title>Page</title><link rel="manifest" href="{}">"#,
                    site.url("cdn.test", "/m.json")
                )),
            );
            site.answer(
                "cdn.test/m.json",
                Answer::Page(
                    "application/manifest+json",
                    br#"{ "short_name": "Chat", "name": "Public Chat" }"#.to_vec(),
                ),
            );
            site.answer("public.test/plain", page("<title>Plain</title>"));
            site.answer(
                "public.test/private",
                page(&format!(
                    r#"<link rel="manifest" href="{}">"#,
                    site.url("intranet.test", "/m.json")
                )),
            );
            let resolver = StaticResolver::default()
                .with("public.test", &["93.184.216.34"])
                .with("cdn.test", &["93.184.216.35"])
                .with("intranet.test", &["10.0.0.7"])
                .connecting_to("127.0.0.1");
            let options = InstallOptions {
                resolver: std::sync::Arc::new(resolver),
                test_authority: Some(reqwest::Certificate::from_pem(AUTHORITY.as_bytes()).unwrap()),
                ..InstallOptions::default()
            };
            let offer = probe(&site.url("public.test", "/"), &options).await.unwrap();
            assert_eq!(
                offer,
                Offer {
                    url: site.url("public.test", "/"),
                    manifest: true,
                    name: Some("Public Chat".to_owned())
                }
            );
            let offer = probe(&site.url("public.test", "/plain"), &options).await.unwrap();
            assert_eq!((offer.manifest, offer.name), (false, None));
            assert_eq!(
                refusal(
                    probe(&site.url("public.test", "/private"), &options)
                        .await
                        .map(|_| unreachable!())
                )
                .rule,
                Rule::PublicStaysPublic
            );
            assert_eq!(
                site.asked(),
                ["public.test/", "cdn.test/m.json", "public.test/plain", "public.test/private"],
                "the private manifest is never contacted"
            );
        }

        #[tokio::test]
        async fn a_public_site_that_redirects_to_a_private_address_is_refused_before_it_is_reached()
        {
            let site = TlsSite::start().await;
            let to = site.url("intranet.test", "/admin");
            site.answer("public.test/", Answer::Redirect(to.clone()));
            site.answer("intranet.test/admin", page("<title>Router</title>"));
            let (ws, result) = install_from(&site.url("public.test", "/")).await;
            let refused = refusal(result);
            assert_eq!(
                (refused.rule, refused.step.clone()),
                (Rule::PublicStaysPublic, Step::Redirect(to.clone()))
            );
            assert_eq!(
                refused.to_string(),
                format!("refused to install {}: its redirect to {to} is at 10.0.0.7 (a private network address (RFC 1918)) — rule: a public site may not lead to localhost or a private network", site.url("public.test", "/"))
            );
            assert_eq!(site.asked(), ["public.test/"], "the private address is never contacted");
            assert!(!ws.path().join(".cowork").exists(), "nothing is written");
        }

        #[tokio::test]
        async fn a_public_sites_manifest_or_icon_on_a_private_address_is_refused() {
            let site = TlsSite::start().await;
            let manifest = site.url("intranet.test", "/m.json");
            let icon = format!("https://localhost:{}/icon.png", site.port);
            site.answer(
                "public.test/manifest",
                page(&format!(r#"<link rel="manifest" href="{manifest}">"#)),
            );
            site.answer(
                "public.test/icon",
                page(&format!(r#"<link rel="icon" href="{icon}" type="image/png">"#)),
            );
            let refused = refusal(install_from(&site.url("public.test", "/manifest")).await.1);
            assert_eq!(
                (refused.step, refused.problem.as_str()),
                (Step::Manifest(manifest), "is at 10.0.0.7 (a private network address (RFC 1918))")
            );
            let refused = refusal(install_from(&site.url("public.test", "/icon")).await.1);
            assert_eq!(
                (refused.step, refused.problem.as_str()),
                (Step::Icon(icon), "is on localhost")
            );
            assert_eq!(site.asked(), ["public.test/manifest", "public.test/icon"]);
        }
    }

    #[test]
    fn titles_are_cut_to_200_characters() {
        assert_eq!(cut(&"é".repeat(300), TITLE_MAX).chars().count(), 200);
        assert_eq!(cut("Short ", TITLE_MAX), "Short");
    }
}
