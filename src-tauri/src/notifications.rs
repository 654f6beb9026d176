//! OS banners for the active workspace's notifications (docs/reference/sdk.md, `notify`).
//!
//! The daemon's hub has already applied the rules (title required, lengths cut, 6 per app per
//! minute, muted apps dropped, only the active workspace delivered) and sent every delivered
//! notification to the bell; this module only decides whether the person also gets a banner:
//! not while the window is visible and focused (the bell shows it), not under Do Not Disturb.
//! A tagged notification that `replaced` one not yet seen replaces its banner in place. A click
//! opens the app's pane: what to open is looked up by the banner's id, since a click reaches only
//! the process that sent the banner and carries nothing but that id.

#[cfg(target_os = "linux")]
mod engine;
#[cfg(target_os = "linux")]
mod freedesktop;

use crate::hooks::Hooks;
use crate::main_window::MAIN;
use crate::session::{self, Preferences};
use crate::shell;
use crate::site_apps::{bridge, SiteApps};
use cowork_wire::daemon::events::Event;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::PathBuf;
use tauri::{AppHandle, Manager};

/// A `notification` event of `GET /api/events`.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub workspace: PathBuf,
    pub app: String,
    /// The app's title as the rail names it (its name when it has none).
    pub app_title: String,
    pub title: String,
    pub body: Option<String>,
    pub tag: Option<String>,
    pub urgent: bool,
    /// The hub replaced a not-yet-seen notification of this app with the same tag.
    pub replaced: bool,
}

impl Notice {
    /// Reads a `notification` event; `None` for any other.
    pub fn from_event(event: &Event) -> Option<Notice> {
        let Event::Notification { workspace, notification, replaced } = event else {
            return None;
        };
        let app = notification.app.clone();
        Some(Notice {
            workspace: PathBuf::from(workspace),
            app_title: Some(notification.app_title.clone())
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| app.clone()),
            app,
            title: notification.title.clone(),
            body: notification.body.clone(),
            tag: notification.tag.clone(),
            urgent: notification.urgent,
            replaced: *replaced,
        })
    }

    /// A banner's heading and text. The heading is the app that sent it (as the rail names it),
    /// never the notification's own free text, so one app cannot pass as another — as the
    /// workbench's browser banners do; the text is the notification's title, then its body.
    pub fn banner(&self) -> (&str, String) {
        let text = match &self.body {
            Some(body) => format!("{}\n{body}", self.title),
            None => self.title.clone(),
        };
        (&self.app_title, text)
    }
}

/// What the person is doing when a notification arrives.
#[derive(Debug, Clone, Copy, Default)]
pub struct Situation {
    /// The notification's workspace is the one the window shows.
    pub active: bool,
    /// The main window is visible and has the keyboard focus.
    pub window_focused: bool,
    pub do_not_disturb: bool,
}

/// Whether a notification gets a banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A banner; `replaces` names the banner (by id) it replaces in place.
    Show { replaces: Option<u32> },
    /// No banner (the bell has it anyway), and why.
    Skip(&'static str),
}

/// The banner decision; `held` is the banner still on screen for this app and tag, if any.
pub fn decide(notice: &Notice, situation: Situation, held: Option<u32>) -> Decision {
    if !situation.active {
        Decision::Skip("not the active workspace")
    } else if situation.window_focused {
        Decision::Skip("the window is focused: the bell shows it")
    } else if situation.do_not_disturb {
        Decision::Skip("Do Not Disturb")
    } else {
        Decision::Show { replaces: held.filter(|_| notice.replaced) }
    }
}

/// What a click on a banner opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub workspace: PathBuf,
    pub app: String,
    /// A site app's notification: its window comes up instead of a pane, and the page's own
    /// notification (by the page's id, when it has one) gets the click.
    pub site: Option<Option<u64>>,
}

/// The banners still on screen: what each opens, and which one each (app, tag) holds.
#[derive(Debug, Default)]
pub struct Banners {
    targets: HashMap<u32, Target>,
    tagged: HashMap<(String, String), u32>,
}

impl Banners {
    /// The banner on screen for `app`'s `tag`.
    pub fn held(&self, app: &str, tag: Option<&str>) -> Option<u32> {
        self.tagged.get(&(app.to_string(), tag?.to_string())).copied()
    }

    /// Banner `id` is on screen for `notice`; `site`: see [`Target::site`].
    pub fn shown(&mut self, id: u32, notice: &Notice, site: Option<Option<u64>>) {
        self.targets.insert(
            id,
            Target { workspace: notice.workspace.clone(), app: notice.app.clone(), site },
        );
        if let Some(tag) = &notice.tag {
            self.tagged.insert((notice.app.clone(), tag.clone()), id);
        }
    }

    /// Banner `id` left the screen.
    pub fn closed(&mut self, id: u32) {
        self.targets.remove(&id);
        self.tagged.retain(|_, held| *held != id);
    }

    /// What banner `id` opens.
    pub fn target(&self, id: u32) -> Option<Target> {
        self.targets.get(&id).cloned()
    }
}

/// The shell's banners (managed state).
pub struct Notifier {
    banners: Mutex<Banners>,
    #[cfg(target_os = "linux")]
    bus: Option<freedesktop::Bus>,
    /// The banners WebKit sends for site apps' service workers, once a site app has opened.
    #[cfg(target_os = "linux")]
    engine: std::sync::OnceLock<Option<engine::Engine>>,
    /// The next id a plugin notification carries (ours to choose; small and positive).
    #[cfg(not(target_os = "linux"))]
    next_id: std::sync::atomic::AtomicU32,
}

impl Notifier {
    fn banners(&self) -> parking_lot::MutexGuard<'_, Banners> {
        self.banners.lock()
    }
}

/// Sets up banners and their clicks; runs in `setup`, before any banner is shown, so no click is
/// missed. Without a session bus (or notification service) banners are off and the bell still
/// collects everything. Then follows the active workspace's `notification` events.
pub fn init(app: &tauri::App) {
    setup(app);
    let hooks = app.state::<Hooks>();
    hooks.on_event(|app, event| {
        matches!(*event, Event::Notification { .. })
            .then(|| async move { on_event(&app, &event).await })
    });
    #[cfg(target_os = "linux")]
    hooks.answer_worker_banners(follow_engine_banners);
}

fn setup(app: &tauri::App) {
    #[cfg(target_os = "linux")]
    {
        let handle = app.handle().clone();
        let on_signal = move |signal| match signal {
            freedesktop::Signal::Clicked(id) => clicked(&handle, id),
            freedesktop::Signal::Closed(id) => handle.state::<Notifier>().banners().closed(id),
        };
        let bus = tauri::async_runtime::block_on(freedesktop::Bus::connect(on_signal))
            .inspect_err(|error| tracing::warn!("failed to reach the session bus, so no banners are shown (the bell still has every notification): {error}"))
            .ok();
        app.manage(Notifier { banners: Mutex::default(), bus, engine: Default::default() });
    }
    #[cfg(not(target_os = "linux"))]
    {
        use tauri_plugin_notification::NotificationExt;
        let handle = app.handle().clone();
        // A click arrives as the action `tap`, carrying the id we gave the notification.
        let registered = app.notification().on_action(move |performed| {
            if let Some(notification) = performed.notification() {
                clicked(&handle, notification.id().unsigned_abs());
            }
        });
        if let Err(error) = registered {
            tracing::warn!("failed to follow clicks on banners: {error}");
        }
        app.manage(Notifier {
            banners: Mutex::default(),
            next_id: std::sync::atomic::AtomicU32::new(1),
        });
    }
}

/// Linux: from now on, WebKit's banners for site apps' service workers are the apps' own (see
/// [`engine`]); runs before a site app's page loads, so none goes out unseen. False without a
/// notification server, or when the shell cannot follow WebKit's banners.
#[cfg(target_os = "linux")]
fn follow_engine_banners(app: &AppHandle) -> bool {
    let notifier = app.state::<Notifier>();
    let Some(bus) = &notifier.bus else { return false };
    notifier
        .engine
        .get_or_init(|| {
            engine::Engine::install(app, bus.markup())
                .inspect_err(|error| tracing::warn!("failed to follow the banners of site apps' service workers (their banners are the shell's, and a click does not reach the worker): {error}"))
                .ok()
        })
        .is_some()
}

/// Handles one event of the active workspace's stream: a banner, or nothing.
pub async fn on_event(app: &AppHandle, event: &Event) {
    let Some(notice) = Notice::from_event(event) else { return };
    let window = app.get_webview_window(MAIN);
    // A site app's banner opens its window and clicks the page's notification.
    let sites = app.state::<SiteApps>();
    let page =
        sites.is_running(&notice.app).then(|| sites.page_notification(&notice.app, &notice.title));
    let site =
        page.as_ref().map(|page| page.as_ref().filter(|page| !page.worker).map(|page| page.id));
    let situation = Situation {
        active: session::active(app) == notice.workspace,
        // The main window, or the site app's own window, in front of the person.
        window_focused: window
            .as_ref()
            .is_some_and(|w| w.is_visible().unwrap_or(false) && w.is_focused().unwrap_or(false))
            || (site.is_some() && bridge::focused(app, &notice.app)),
        do_not_disturb: app.state::<Preferences>().do_not_disturb(),
    };
    let notifier = app.state::<Notifier>();
    let held = notifier.banners().held(&notice.app, notice.tag.as_deref());
    let decision = decide(&notice, situation, held);
    tracing::info!(app = %notice.app, title = %notice.title, ?decision, "notification");
    let Decision::Show { replaces } = decision else { return };
    if notice.urgent {
        if let Some(window) = &window {
            let _ = window.request_user_attention(Some(tauri::UserAttentionType::Critical));
        }
    }
    #[cfg(target_os = "linux")]
    if let Some(Some(page @ bridge::PageNotification { worker: true, .. })) = page {
        if show_through_engine(app, &notice, site, page) {
            return;
        }
    }
    show_banner(app, &notice, replaces, site).await;
}

/// Shows the shell's banner for `notice` and remembers what a click on it opens.
async fn show_banner(
    app: &AppHandle,
    notice: &Notice,
    replaces: Option<u32>,
    site: Option<Option<u64>>,
) {
    let notifier = app.state::<Notifier>();
    match show(app, &notifier, notice, replaces).await {
        Ok(id) => notifier.banners().shown(id, notice, site),
        Err(error) => tracing::warn!("failed to show a banner for {}: {error}", notice.app),
    }
}

/// Linux: a site app's service worker notification: its page shows it through the engine, whose
/// banner becomes the app's (see [`engine`]). False when that cannot be asked. When WebKit has
/// not sent it after [`engine::PATIENCE`], the shell shows the banner itself.
#[cfg(target_os = "linux")]
fn show_through_engine(
    app: &AppHandle,
    notice: &Notice,
    site: Option<Option<u64>>,
    page: bridge::PageNotification,
) -> bool {
    let notifier = app.state::<Notifier>();
    let Some(Some(engine)) =
        notifier.engine.get().filter(|engine| engine.as_ref().is_some_and(engine::Engine::works))
    else {
        return false;
    };
    let ticket = engine.expect(notice.clone(), site, page.title, page.body);
    if !bridge::ask_page_to_show(app, &notice.app, page.id) {
        engine.withdraw(ticket);
        return false;
    }
    let (app, notice) = (app.clone(), notice.clone());
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(engine::PATIENCE).await;
        let notifier = app.state::<Notifier>();
        if !notifier
            .engine
            .get()
            .and_then(Option::as_ref)
            .is_some_and(|engine| engine.give_up(ticket))
        {
            return;
        }
        tracing::warn!(app = %notice.app, "WebKit did not send a service worker's notification in time: the shell shows it, and every one after it (a click on them does not reach the worker)");
        show_banner(&app, &notice, None, site).await;
    });
    true
}

#[cfg(target_os = "linux")]
async fn show(
    _app: &AppHandle,
    notifier: &Notifier,
    notice: &Notice,
    replaces: Option<u32>,
) -> Result<u32, String> {
    let bus = notifier.bus.as_ref().ok_or("no session bus")?;
    let (heading, text) = notice.banner();
    let message = freedesktop::Message {
        summary: heading,
        body: &text,
        urgent: notice.urgent,
        replaces: replaces.unwrap_or(0),
    };
    bus.notify(&message).await.map_err(|error| error.to_string())
}

#[cfg(not(target_os = "linux"))]
async fn show(
    app: &AppHandle,
    notifier: &Notifier,
    notice: &Notice,
    replaces: Option<u32>,
) -> Result<u32, String> {
    use tauri_plugin_notification::NotificationExt;
    // The plugin cannot replace a banner on macOS or Windows: a tag's replacement is a new banner
    // under the old id, so a click on either opens the same app.
    let id = replaces
        .unwrap_or_else(|| notifier.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let (heading, text) = notice.banner();
    let builder = app.notification().builder().id(id as i32).title(heading).body(text);
    builder.show().map_err(|error| error.to_string())?;
    Ok(id)
}

/// A click on banner `id`: the window comes up on that app's pane.
fn clicked(app: &AppHandle, id: u32) {
    let Some(target) = app.state::<Notifier>().banners().target(id) else { return };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        match target.site {
            Some(page) => bridge::clicked(&app, &target.workspace, &target.app, page).await,
            None => shell::open_app(&app, &target.workspace, &target.app).await,
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn notice(tag: Option<&str>, replaced: bool) -> Notice {
        Notice {
            workspace: "/w".into(),
            app: "notes".into(),
            app_title: "Notes".into(),
            title: "Saved".into(),
            body: None,
            tag: tag.map(str::to_string),
            urgent: false,
            replaced,
        }
    }

    const AWAY: Situation =
        Situation { active: true, window_focused: false, do_not_disturb: false };

    #[test]
    fn reads_a_notification_event() {
        let event = json!({"type": "notification", "workspace": "/w", "replaced": true,
            "notification": {"app": "notes", "appTitle": "Notes", "title": "Notes: saved", "body": "b", "tag": "t", "urgent": true, "at": "now"}});
        let read = Notice::from_event(&serde_json::from_value(event).unwrap()).unwrap();
        assert_eq!(
            read,
            Notice {
                workspace: "/w".into(),
                app: "notes".into(),
                app_title: "Notes".into(),
                title: "Notes: saved".into(),
                body: Some("b".into()),
                tag: Some("t".into()),
                urgent: true,
                replaced: true
            }
        );
        let badge =
            json!({"type": "badge", "workspace": "/w", "app": "notes", "count": 1, "total": 1});
        assert_eq!(Notice::from_event(&serde_json::from_value(badge).unwrap()), None);
    }

    #[test]
    fn a_banner_is_headed_by_the_app_that_sent_it() {
        let mut notice = notice(None, false);
        notice.title = "Bank: confirm your password".into();
        assert_eq!(notice.banner(), ("Notes", "Bank: confirm your password".to_string()));
        notice.body = Some("now".into());
        assert_eq!(notice.banner().1, "Bank: confirm your password\nnow");
        let event = json!({"type": "notification", "workspace": "/w", "replaced": false,
            "notification": {"app": "notes", "appTitle": "", "title": "t", "urgent": false, "at": "now"}});
        let read = Notice::from_event(&serde_json::from_value(event).unwrap()).unwrap();
        assert_eq!(read.banner().0, "notes", "no title: its name");
    }

    #[test]
    fn a_banner_only_while_the_window_is_not_focused_and_not_silenced() {
        assert_eq!(decide(&notice(None, false), AWAY, None), Decision::Show { replaces: None });
        assert!(matches!(
            decide(&notice(None, false), Situation { window_focused: true, ..AWAY }, None),
            Decision::Skip(_)
        ));
        assert!(matches!(
            decide(&notice(None, false), Situation { do_not_disturb: true, ..AWAY }, None),
            Decision::Skip(_)
        ));
        assert!(matches!(
            decide(&notice(None, false), Situation { active: false, ..AWAY }, None),
            Decision::Skip(_)
        ));
    }

    #[test]
    fn a_replaced_notification_replaces_the_banner_still_held() {
        assert_eq!(
            decide(&notice(Some("t"), true), AWAY, Some(7)),
            Decision::Show { replaces: Some(7) }
        );
        // Not replaced by the hub (the earlier one was seen): a new banner.
        assert_eq!(
            decide(&notice(Some("t"), false), AWAY, Some(7)),
            Decision::Show { replaces: None }
        );
        // Replaced, but its banner is gone: a new banner.
        assert_eq!(decide(&notice(Some("t"), true), AWAY, None), Decision::Show { replaces: None });
    }

    #[test]
    fn banners_remember_what_they_open_until_closed() {
        let mut banners = Banners::default();
        banners.shown(3, &notice(Some("t"), false), None);
        banners.shown(4, &notice(None, false), Some(Some(9)));
        assert_eq!(banners.held("notes", Some("t")), Some(3));
        assert_eq!(banners.held("notes", None), None);
        assert_eq!(
            banners.target(4),
            Some(Target { workspace: "/w".into(), app: "notes".into(), site: Some(Some(9)) })
        );
        banners.closed(3);
        assert_eq!(banners.held("notes", Some("t")), None);
        assert_eq!(banners.target(3), None);
    }
}
