//! The moments the shell's features follow, and what each registered to do then (managed state).
//!
//! A feature registers in its `init`, as a Tauri plugin registers its hooks: the module that
//! reaches a moment (a switch of workspace, Quit, an event of the daemon) calls the hooks without
//! knowing whose they are, so no feature imports the one that calls it back. Hooks run in the
//! order they were registered, which is the order `main` calls the features' `init`s.

use cowork_wire::daemon::desktop::{Active, ShellRequest};
use cowork_wire::daemon::events::Event;
use parking_lot::Mutex;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use tauri::{AppHandle, Manager, Window, WindowEvent};

/// What an asynchronous hook returns.
pub type Task = Pin<Box<dyn Future<Output = ()> + Send>>;

type Plain = Arc<dyn Fn(&AppHandle) + Send + Sync>;
type Leaving = Arc<dyn Fn(&AppHandle, &Path) + Send + Sync>;
type Entered = Arc<dyn Fn(&AppHandle, &Active) + Send + Sync>;
type Later = Arc<dyn Fn(AppHandle) -> Task + Send + Sync>;
type OnEvent = Arc<dyn Fn(AppHandle, Arc<Event>) -> Option<Task> + Send + Sync>;
type OnRequest = Arc<dyn Fn(&AppHandle, &ShellRequest) + Send + Sync>;
type OnWindowEvent = Arc<dyn Fn(&Window, &WindowEvent) + Send + Sync>;

/// The registered hooks.
#[derive(Default)]
pub struct Hooks {
    leaving: Mutex<Vec<Leaving>>,
    entered: Mutex<Vec<Entered>>,
    quitting: Mutex<Vec<Plain>>,
    before_exit: Mutex<Vec<Later>>,
    status_changed: Mutex<Vec<Plain>>,
    connected: Mutex<Vec<Later>>,
    events: Mutex<Vec<OnEvent>>,
    requests: Mutex<Vec<OnRequest>>,
    window_events: Mutex<Vec<OnWindowEvent>>,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    worker_banners: OnceLock<fn(&AppHandle) -> bool>,
}

fn hooks(app: &AppHandle) -> tauri::State<'_, Hooks> {
    app.state::<Hooks>()
}

/// A copy of a list, so no lock is held while the hooks run (one may register another).
fn listed<T: Clone>(list: &Mutex<Vec<T>>) -> Vec<T> {
    list.lock().clone()
}

impl Hooks {
    /// The active workspace is being left for another (`left`): what runs only for the active
    /// workspace stops (a recording, its site apps' windows).
    pub fn on_leaving(&self, hook: impl Fn(&AppHandle, &Path) + Send + Sync + 'static) {
        self.leaving.lock().push(Arc::new(hook));
    }

    /// Another workspace is active and the window shows it: `activated` is the daemon's answer
    /// to `POST /api/desktop/active` (its canonical path and its counts).
    pub fn on_entered(&self, hook: impl Fn(&AppHandle, &Active) + Send + Sync + 'static) {
        self.entered.lock().push(Arc::new(hook));
    }

    /// Quit has started: windows that hold a connection to the daemon close.
    pub fn on_quitting(&self, hook: impl Fn(&AppHandle) + Send + Sync + 'static) {
        self.quitting.lock().push(Arc::new(hook));
    }

    /// The last step of Quit before the daemon stops: what must be final first (a recording's
    /// file), awaited in turn.
    pub fn before_exit<F>(&self, hook: impl Fn(AppHandle) -> F + Send + Sync + 'static)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.before_exit.lock().push(Arc::new(move |app| Box::pin(hook(app))));
    }

    /// What the tray shows changed: the counts, the recent workspaces, Do Not Disturb, the site
    /// apps asleep.
    pub fn on_status_changed(&self, hook: impl Fn(&AppHandle) + Send + Sync + 'static) {
        self.status_changed.lock().push(Arc::new(hook));
    }

    /// The active workspace's event stream is (again) up: what it may have missed is read again.
    pub fn on_connected<F>(&self, hook: impl Fn(AppHandle) -> F + Send + Sync + 'static)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.connected.lock().push(Arc::new(move |app| Box::pin(hook(app))));
    }

    /// The events of the active workspace's stream `hook` takes: it answers the work to await
    /// (before the next event is read) for an event it follows, `None` for the others.
    pub fn on_event<F>(
        &self,
        hook: impl Fn(AppHandle, Arc<Event>) -> Option<F> + Send + Sync + 'static,
    ) where
        F: Future<Output = ()> + Send + 'static,
    {
        self.events
            .lock()
            .push(Arc::new(move |app, event| hook(app, event).map(|work| Box::pin(work) as Task)));
    }

    /// A request of the desktop channel (each hook takes the kinds it follows).
    pub fn on_request(&self, hook: impl Fn(&AppHandle, &ShellRequest) + Send + Sync + 'static) {
        self.requests.lock().push(Arc::new(hook));
    }

    /// An event of any window (each hook tells its windows by their labels).
    pub fn on_window_event(&self, hook: impl Fn(&Window, &WindowEvent) + Send + Sync + 'static) {
        self.window_events.lock().push(Arc::new(hook));
    }

    /// Linux: whether a site's service worker may show notifications through WebKit, asked as
    /// a site app's window opens (the notifications feature answers; unanswered: no).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub fn answer_worker_banners(&self, answer: fn(&AppHandle) -> bool) {
        if self.worker_banners.set(answer).is_err() {
            tracing::warn!("a second answer to whether site workers may show banners was ignored");
        }
    }
}

/// Runs the `leaving` hooks.
pub fn leaving(app: &AppHandle, left: &Path) {
    for hook in listed(&hooks(app).leaving) {
        hook(app, left);
    }
}

/// Runs the `entered` hooks.
pub fn entered(app: &AppHandle, activated: &Active) {
    for hook in listed(&hooks(app).entered) {
        hook(app, activated);
    }
}

/// Runs the `quitting` hooks.
pub fn quitting(app: &AppHandle) {
    for hook in listed(&hooks(app).quitting) {
        hook(app);
    }
}

/// Runs the `before_exit` hooks, one after the other.
pub async fn before_exit(app: &AppHandle) {
    for hook in listed(&hooks(app).before_exit) {
        hook(app.clone()).await;
    }
}

/// Runs the `status_changed` hooks.
pub fn status_changed(app: &AppHandle) {
    for hook in listed(&hooks(app).status_changed) {
        hook(app);
    }
}

/// Runs the `connected` hooks, one after the other.
pub async fn connected(app: &AppHandle) {
    for hook in listed(&hooks(app).connected) {
        hook(app.clone()).await;
    }
}

/// Runs the hooks of an event of the active workspace's stream, one after the other.
pub async fn event(app: &AppHandle, event: Event) {
    let event = Arc::new(event);
    for hook in listed(&hooks(app).events) {
        if let Some(work) = hook(app.clone(), event.clone()) {
            work.await;
        }
    }
}

/// Runs the hooks of a request of the desktop channel.
pub fn request(app: &AppHandle, request: &ShellRequest) {
    for hook in listed(&hooks(app).requests) {
        hook(app, request);
    }
}

/// Runs the window event hooks: the app's one window event handler.
pub fn window_event(window: &Window, event: &WindowEvent) {
    for hook in listed(&window.app_handle().state::<Hooks>().window_events) {
        hook(window, event);
    }
}

/// Whether a site's service worker may show notifications through WebKit.
#[cfg(target_os = "linux")]
pub fn worker_banners(app: &AppHandle) -> bool {
    hooks(app).worker_banners.get().is_some_and(|answer| answer(app))
}
