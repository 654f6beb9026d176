//! The bridge between a site app's page and Cowork: what the injected script reports
//! ([`site_report`]: the page's notifications, its badge, a link clicked outside its scope), the
//! app's unread count as the daemon is told it, and the way back from a banner (its click, and
//! on Linux a service worker's banner the engine shows at the shell's word). The window's own
//! life (opening, closing, hibernating) is the parent module's.

use super::{label, open, unread, Running, SiteApps, PREFIX};
use crate::ipc::CommandError;
use crate::session::{self, Session};
use crate::shell;
use cowork_sites::Scope;
use cowork_wire::daemon::notifications::{Delivery, NotificationsShown, SiteReport};
use serde::Deserialize;
use serde_json::json;
use std::path::Path;
use std::time::Instant;
use tauri::{AppHandle, Manager, Url, Webview};

/// How many of a page's notifications a banner click can still find.
const RECENT: usize = 50;

impl SiteApps {
    /// `app`'s latest notification titled `title`, by the page's id for it (a banner click fires
    /// its `click`); unknown ones are `None`.
    pub fn page_notification(&self, app: &str, title: &str) -> Option<PageNotification> {
        let running = self.running();
        let recent = &running.get(&label(app))?.recent;
        recent.iter().rev().find(|each| each.title == title).cloned()
    }
}

/// A site app stopped (its window closed, or it was asleep when its workspace was left): its
/// count goes. At Quit the counts go with the daemon's memory anyway.
pub(super) fn stopped(app: &AppHandle, running: Running) {
    if running.posted.is_none_or(|(_, count)| count == 0) || session::quitting(app) {
        return;
    }
    let report = SiteReport {
        workspace: running.site.workspace,
        app: running.site.app,
        notification: serde_json::Value::Null,
        count: json!(0),
        unread_source: None,
    };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(error) = app.state::<Session>().link.daemon.site_badge(&report).await {
            tracing::warn!("failed to clear a closed site app's count: {error}");
        }
    });
}

/// The page's title changed (its `(N)` may be the unread count).
pub(super) fn title_changed(app: &AppHandle, label: &str, title: &str) {
    let pending = match app.state::<SiteApps>().running().get_mut(label) {
        Some(running) => running.unread.on_title(title, Instant::now()),
        None => return,
    };
    post_unread(app, label);
    if pending {
        let (app, label) = (app.clone(), label.to_string());
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(unread::HOLD + std::time::Duration::from_millis(50)).await;
            if let Some(running) = app.state::<SiteApps>().running().get_mut(&label) {
                running.unread.settle(Instant::now());
            }
            post_unread(&app, &label);
        });
    }
}

/// Tells the daemon the site's count when it (or its source) changed since last told.
pub(super) fn post_unread(app: &AppHandle, label: &str) {
    let sites = app.state::<SiteApps>();
    let report = {
        let mut running = sites.running();
        let Some(running) = running.get_mut(label) else { return };
        let now = (running.unread.source(), running.unread.count());
        if running.posted == Some(now) {
            return;
        }
        // The first report of a site that never counted anything says nothing.
        if running.posted.is_none() && now.1 == 0 {
            return;
        }
        running.posted = Some(now);
        // `unreadSource` is for Manage Workspace; the daemon ignores it until it keeps it.
        SiteReport {
            workspace: running.site.workspace.clone(),
            app: running.site.app.clone(),
            notification: serde_json::Value::Null,
            count: json!(now.1),
            unread_source: Some(now.0.as_str().to_string()),
        }
    };
    tracing::info!(count = %report.count, source = ?report.unread_source, app = %report.app, "a site app's unread count");
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(error) = app.state::<Session>().link.daemon.site_badge(&report).await {
            tracing::warn!("failed to report a site app's unread count: {error}");
        }
    });
}

/// What the injected script reports.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Report {
    /// `new Notification(title, {body, tag, requireInteraction})` (the page keeps it by `id` for a
    /// click) or a registration's `showNotification` (`worker`: the page keeps it by `id` for the
    /// engine to show).
    Notify {
        id: u64,
        #[serde(default)]
        worker: bool,
        title: String,
        #[serde(default)]
        body: String,
        #[serde(default)]
        tag: String,
        #[serde(default)]
        urgent: bool,
    },
    /// `setAppBadge(n)` (`count`), `setAppBadge()` (`null`), `clearAppBadge()` (0).
    Badge { count: Option<u64> },
    /// The person clicked a link to `url`, outside the scope; the script cancelled it: the shell
    /// asks about the browser (what the page leaving its scope would have led to anyway).
    Outside { url: String },
}

/// A notification a site app's page raised lately, as the page knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageNotification {
    /// The page's id for it.
    pub id: u64,
    /// Raised through a service worker registration: the engine shows its banner when it gets one.
    pub worker: bool,
    /// As the page gave them (the hub may have cut them).
    pub title: String,
    pub body: String,
}

/// Who may report: a site app's window (`site-<app>`, open) on a page inside that app's scope.
/// Returns the app's label.
fn check_reporter(sites: &SiteApps, label: &str, url: &Url) -> Result<String, CommandError> {
    if !label.starts_with(PREFIX) {
        return Err(CommandError::new(
            "Forbidden",
            format!("only a site app's window may report, not the window \"{label}\""),
        ));
    }
    let running = sites.running();
    let site = &running
        .get(label)
        .ok_or_else(|| {
            CommandError::new(
                "Forbidden",
                format!("the window \"{label}\" is not an open site app"),
            )
        })?
        .site;
    if !site.scope.contains(url) {
        return Err(CommandError::new(
            "Forbidden",
            format!("{url} is outside {}'s scope", site.app),
        ));
    }
    Ok(label.to_string())
}

/// The one command a site app's page may call (through the injected script): its notifications
/// and its badge, as the app's.
#[tauri::command]
pub async fn site_report(
    app: AppHandle,
    webview: Webview,
    report: Report,
) -> Result<(), CommandError> {
    let url = webview.url().map_err(|error| {
        CommandError::new(
            "Forbidden",
            format!("failed to read the calling page's address: {error}"),
        )
    })?;
    let label = check_reporter(&app.state::<SiteApps>(), webview.label(), &url)?;
    match report {
        Report::Badge { count } => {
            if let Some(running) = app.state::<SiteApps>().running().get_mut(&label) {
                running.unread.on_badge(count);
            }
            post_unread(&app, &label);
            Ok(())
        }
        Report::Notify { id, worker, title, body, tag, urgent } => {
            let page = PageNotification { id, worker, title, body };
            notify(&app, &label, page, tag, urgent).await
        }
        Report::Outside { url } => {
            let sites = app.state::<SiteApps>();
            let running = sites.running();
            let Some(running) = running.get(&label) else { return Ok(()) };
            let url = outside_link(&running.site.scope, &url)?;
            if let Some(navigation) = &running.navigation {
                navigation.ask(&url);
            }
            Ok(())
        }
    }
}

/// The link a page reports as clicked outside its scope, if it is one the shell may offer to open:
/// http, https or mailto, and really outside the scope.
fn outside_link(scope: &Scope, url: &str) -> Result<Url, CommandError> {
    let url = Url::parse(url)
        .map_err(|_| CommandError::new("BadRequest", format!("not a link: {url}")))?;
    if !matches!(url.scheme(), "http" | "https" | "mailto") {
        return Err(CommandError::new(
            "BadRequest",
            format!("Cowork opens only http, https and mailto links, not {}:", url.scheme()),
        ));
    }
    if scope.contains(&url) {
        return Err(CommandError::new("BadRequest", format!("{url} is inside the app's scope")));
    }
    Ok(url)
}

async fn notify(
    app: &AppHandle,
    label: &str,
    page: PageNotification,
    tag: String,
    urgent: bool,
) -> Result<(), CommandError> {
    let (title, body) = (page.title.clone(), page.body.clone());
    let sites = app.state::<SiteApps>();
    let (workspace, name) = {
        let mut running = sites.running();
        let Some(running) = running.get_mut(label) else { return Ok(()) };
        // Before the daemon hears of it: its banner may come back before the answer does.
        running.recent.push_back(page);
        if running.recent.len() > RECENT {
            running.recent.pop_front();
        }
        (running.site.workspace.clone(), running.site.app.clone())
    };
    let mut notification = json!({ "title": title, "urgent": urgent });
    if !body.is_empty() {
        notification["body"] = json!(body);
    }
    if !tag.is_empty() {
        notification["tag"] = json!(tag);
    }
    let report = SiteReport {
        workspace,
        app: name.clone(),
        notification,
        count: serde_json::Value::Null,
        unread_source: None,
    };
    let answer = app
        .state::<Session>()
        .link
        .daemon
        .site_notify(&report)
        .await
        .map_err(|error| CommandError::new("Failed", error))?;
    let delivery = answer.delivery;
    tracing::info!(app = %name, %title, ?delivery, "a site app's notification");
    if matches!(delivery, Delivery::Delivered | Delivery::Replaced) {
        let focused = app
            .get_webview_window(label)
            .is_some_and(|window| window.is_focused().unwrap_or(false));
        if let Some(running) = app.state::<SiteApps>().running().get_mut(label) {
            running.unread.on_notification(focused);
        }
        post_unread(app, label);
    }
    Ok(())
}

/// Asks `app`'s page to show its service worker notification `id` through the engine; false when
/// the window is not open (asleep, or closed since).
pub fn ask_page_to_show(app: &AppHandle, name: &str, id: u64) -> bool {
    let Some(window) = app.get_webview_window(&label(name)) else { return false };
    window
        .eval(format!("window.__coworkSiteShow && window.__coworkSiteShow({id})"))
        .inspect_err(|error| {
            tracing::warn!("failed to ask {name}'s page to show a notification: {error}")
        })
        .is_ok()
}

/// Whether `app`'s window is visible and focused (its banners then stay in the bell).
pub fn focused(app: &AppHandle, name: &str) -> bool {
    app.get_webview_window(&label(name)).is_some_and(|window| {
        window.is_visible().unwrap_or(false) && window.is_focused().unwrap_or(false)
    })
}

/// A click on a site app's banner: its window comes up (opened again if it was closed) and the
/// page's notification `page` gets its `click`.
pub async fn clicked(app: &AppHandle, workspace: &Path, name: &str, page: Option<u64>) {
    if let Err(error) = shell::switch_workspace(app, workspace).await {
        tracing::warn!("{error}");
        return;
    }
    let was_open = app.get_webview_window(&label(name)).is_some();
    if let Err(error) = open(app, name).await {
        tracing::warn!("{error}");
        return;
    }
    if let (true, Some(id), Some(window)) = (was_open, page, app.get_webview_window(&label(name))) {
        if let Err(error) =
            window.eval(format!("window.__coworkSiteClick && window.__coworkSiteClick({id})"))
        {
            tracing::warn!("failed to pass the click to {name}'s page: {error}");
        }
    }
    let shown = NotificationsShown { workspace: workspace.to_path_buf(), app: name.to_string() };
    if let Err(error) = app.state::<Session>().link.daemon.notifications_shown(&shown).await {
        tracing::warn!("failed to mark {name}'s notifications as seen: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::super::sites_with;
    use super::*;
    use crate::url;
    use serde_json::json;

    #[test]
    fn only_an_open_site_window_on_a_page_in_its_scope_may_report() {
        let sites = sites_with("inbox", "http://127.0.0.1:8123/inbox/");
        assert_eq!(
            check_reporter(&sites, "site-inbox", &url("http://127.0.0.1:8123/inbox/x.html")),
            Ok("site-inbox".into())
        );
        for (label, page) in [
            ("main", "http://127.0.0.1:8123/inbox/"),
            ("site-other", "http://127.0.0.1:8123/inbox/"),
            ("popup-inbox-1", "http://127.0.0.1:8123/inbox/"),
            ("site-inbox", "http://127.0.0.1:8123/elsewhere/"),
            ("site-inbox", "http://127.0.0.1:9999/inbox/"),
            ("site-inbox", "https://evil.example/inbox/"),
        ] {
            assert_eq!(
                check_reporter(&sites, label, &url(page)).unwrap_err().name,
                "Forbidden",
                "{label} on {page}"
            );
        }
    }

    #[test]
    fn reports_parse_strictly() {
        let notify: Report = serde_json::from_value(json!({"kind": "notify", "id": 3, "title": "Ana", "body": "Lunch?", "tag": "", "urgent": false})).unwrap();
        assert_eq!(
            notify,
            Report::Notify {
                id: 3,
                worker: false,
                title: "Ana".into(),
                body: "Lunch?".into(),
                tag: String::new(),
                urgent: false
            }
        );
        assert_eq!(
            serde_json::from_value::<Report>(json!({"kind": "badge", "count": null})).unwrap(),
            Report::Badge { count: None }
        );
        assert!(serde_json::from_value::<Report>(json!({"kind": "badge", "count": -1})).is_err());
        assert!(serde_json::from_value::<Report>(json!({"kind": "open", "url": "x"})).is_err());
        assert!(
            serde_json::from_value::<Report>(json!({"kind": "badge", "count": 1, "app": "other"}))
                .is_err(),
            "a page cannot name another app"
        );
    }

    #[test]
    fn only_a_real_link_outside_the_scope_is_asked_about() {
        let scope = Scope::parse("https://chat.example/app/").unwrap();
        assert_eq!(
            outside_link(&scope, "https://docs.example/x").unwrap().as_str(),
            "https://docs.example/x"
        );
        assert!(outside_link(&scope, "mailto:a@example.com").is_ok());
        assert_eq!(
            outside_link(&scope, "https://chat.example/app/settings").unwrap_err().name,
            "BadRequest"
        );
        assert_eq!(outside_link(&scope, "file:///etc/passwd").unwrap_err().name, "BadRequest");
        assert_eq!(outside_link(&scope, "javascript:alert(1)").unwrap_err().name, "BadRequest");
        assert_eq!(outside_link(&scope, "not a link").unwrap_err().name, "BadRequest");
        let parsed: Report =
            serde_json::from_value(json!({"kind": "outside", "url": "https://docs.example/"}))
                .unwrap();
        assert_eq!(parsed, Report::Outside { url: "https://docs.example/".into() });
    }

    #[test]
    fn a_banner_click_finds_the_latest_page_notification_with_its_title() {
        let sites = sites_with("inbox", "http://127.0.0.1:8123/");
        let recent = |title: &str, id, worker| PageNotification {
            id,
            worker,
            title: title.into(),
            body: String::new(),
        };
        sites.running().get_mut("site-inbox").unwrap().recent.extend([
            recent("Ana", 1, false),
            recent("Bo", 2, false),
            recent("Ana", 3, false),
            recent("Sw", 4, true),
        ]);
        assert_eq!(sites.page_notification("inbox", "Ana"), Some(recent("Ana", 3, false)));
        assert_eq!(
            sites.page_notification("inbox", "Sw"),
            Some(recent("Sw", 4, true)),
            "a service worker's, for the engine to show"
        );
        assert_eq!(sites.page_notification("inbox", "Zed"), None);
        assert_eq!(sites.page_notification("other", "Ana"), None);
    }
}
