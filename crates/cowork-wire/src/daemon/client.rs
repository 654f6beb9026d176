//! [`Daemon`]: one async method per daemon route the CLI and the desktop shell call, each
//! answering its wire type or a [`ClientError`] that names what the daemon refused; the
//! server-sent-event routes as typed streams ([`Subscription`]). Nobody reads a daemon answer as
//! a `Value`.
//!
//! Finding the daemon of a Cowork root (its pidfile, whether that process is alive and answers
//! as the root's) is the daemon crate's `discovery`: it hands out a [`Daemon`] once it trusts one.

use super::account::{AccountInfo, SignIn, SignInStarted};
use super::agents::{DoorInfo, OpenDoor};
use super::capture::{CaptureAnswer, SessionEvent};
use super::consent::{Answered, ConsentAnswer, ConsentEvent};
use super::desktop::{Active, ActiveWorkspace, ShellRequest, ShowWorkspace, Shown};
use super::events::Event;
use super::notifications::{Counted, Delivered, NotificationsShown, SiteReport};
use super::runs::{RunAnswer, RunBody};
use super::session::Issued;
use super::status::{Health, Status, Stopping};
use super::workbench::{AppSwitch, OpenApp, Opened, WorkbenchInfo};
use super::{Changed, CtxError, Empty, ErrorBody, ErrorName, Taken};
use futures_util::Stream;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// How long a read may take. A change (POST) waits for its answer as long as the daemon takes — a
/// routine run up to its own timeout, 300 s at most — and a stream is held open.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A route's query when it takes none.
const NO_QUERY: &[(&str, &str)] = &[];

/// A daemon call that did not give its answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The daemon did not answer: nothing listens on the port, or the connection broke.
    #[error("failed to reach the Cowork daemon on port {port}: {source}")]
    Unreachable {
        /// The port the daemon was looked for on.
        port: u16,
        /// What the connection said.
        #[source]
        source: reqwest::Error,
    },
    /// The daemon refused: the HTTP status and its named error (`NotFound`, `Busy`…; a body
    /// that was not the daemon's is `BadRequest` or `Unavailable` by status, with its text).
    #[error("the Cowork daemon answered {status}: {}", error.message)]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The daemon's named error.
        error: CtxError,
    },
    /// The daemon answered something that is not its wire format: another version, or another
    /// program on the port.
    #[error("the Cowork daemon on port {port} answered in a shape this CLI does not read (is it another version?): {detail}")]
    Answer {
        /// The port that answered.
        port: u16,
        /// What could not be read.
        detail: String,
    },
}

impl ClientError {
    /// The daemon's error name, when it refused.
    pub fn name(&self) -> Option<&ErrorName> {
        match self {
            ClientError::Refused { error, .. } => Some(&error.name),
            _ => None,
        }
    }

    /// The HTTP status, when the daemon refused.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Refused { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The daemon's hint, when it gave one.
    pub fn hint(&self) -> Option<&str> {
        match self {
            ClientError::Refused { error, .. } => error.hint.as_deref(),
            _ => None,
        }
    }
}

/// A typed client of one daemon on `127.0.0.1:<port>`, with the owner token. Cheap to clone (the
/// connection pool is shared).
#[derive(Debug, Clone)]
pub struct Daemon {
    port: u16,
    token: String,
    http: reqwest::Client,
}

/// The address of the workbench on `workspace` at a daemon on `port`, with `fragment` (`code=…`,
/// or `token=…` for a webview its own process opens), which browsers never send to a server.
pub fn workbench_url(port: u16, workspace: &Path, fragment: &str) -> String {
    let encoded: String = workspace
        .display()
        .to_string()
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_./".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("http://127.0.0.1:{port}/?workspace={encoded}#{fragment}")
}

impl Daemon {
    /// A client of the daemon on `port` carrying the owner `token`. The daemon is on loopback:
    /// no proxy is ever asked.
    pub fn new(port: u16, token: impl Into<String>) -> Result<Daemon, ClientError> {
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .map_err(|source| ClientError::Unreachable { port, source })?;
        Ok(Daemon { port, token: token.into(), http })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The address of the workbench on `workspace`, carrying the owner token in its fragment: only
    /// for a webview this process opens itself (the desktop shell), never to print or to hand to
    /// another program (see [`Daemon::workbench_link`]).
    pub fn workbench_url(&self, workspace: &Path) -> String {
        workbench_url(self.port, workspace, &format!("token={}", self.token))
    }

    /// The address of the workbench on `workspace` to print or open in a browser: it carries a
    /// one-time code the page exchanges for its session, nothing reusable.
    pub async fn workbench_link(&self, workspace: &Path) -> Result<String, ClientError> {
        let issued = self.session_code().await?;
        Ok(workbench_url(self.port, workspace, &format!("code={}", issued.code)))
    }

    // -----------------------------------------------------------------------------------------
    // The daemon itself

    /// `GET /api/health`: who answers on this port, and whether a desktop shell is attached.
    pub async fn health(&self) -> Result<Health, ClientError> {
        self.health_within(REQUEST_TIMEOUT).await
    }

    /// `GET /api/health`, answered within `within` (a daemon that takes longer counts as not
    /// answering).
    pub async fn health_within(&self, within: Duration) -> Result<Health, ClientError> {
        self.get("/api/health", NO_QUERY, Some(within)).await
    }

    /// `GET /api/status` (`cowork status`).
    pub async fn status(&self) -> Result<Status, ClientError> {
        self.get("/api/status", NO_QUERY, Some(REQUEST_TIMEOUT)).await
    }

    /// `POST /api/stop`: the daemon stops once its running routines have finished.
    pub async fn stop(&self) -> Result<Stopping, ClientError> {
        self.post("/api/stop", &Empty {}).await
    }

    /// `POST /api/session/code`: a one-time code a workbench page trades for its session.
    pub async fn session_code(&self) -> Result<Issued, ClientError> {
        self.post("/api/session/code", &Empty {}).await
    }

    // -----------------------------------------------------------------------------------------
    // Routines and workspaces

    /// `POST /api/routines/run`: runs a routine in the daemon and waits for its answer (no
    /// timeout of the client's: the run has its own).
    pub async fn run(&self, body: &RunBody) -> Result<RunAnswer, ClientError> {
        self.post("/api/routines/run", body).await
    }

    /// `GET /api/workbench`: everything the workbench draws of `workspace` (none: the daemon's
    /// default workspace).
    pub async fn workbench(&self, workspace: Option<&Path>) -> Result<WorkbenchInfo, ClientError> {
        self.get("/api/workbench", &[("workspace", workspace)], Some(REQUEST_TIMEOUT)).await
    }

    /// `POST /api/apps/enable` or `POST /api/apps/mute`, whichever `switch` sets.
    pub async fn switch_app(&self, switch: &AppSwitch) -> Result<Changed, ClientError> {
        let path = if switch.muted.is_some() { "/api/apps/mute" } else { "/api/apps/enable" };
        self.post(path, switch).await
    }

    /// `POST /api/open` (`cowork app open`): the open workbench shows an app or a widget file.
    pub async fn open(&self, open: &OpenApp) -> Result<Opened, ClientError> {
        self.post("/api/open", open).await
    }

    // -----------------------------------------------------------------------------------------
    // The account

    /// `POST /api/account/changed`: this machine signed in or out, or a team server changed: the
    /// daemon polls the hub now and tells every window.
    pub async fn account_changed(&self) -> Result<AccountInfo, ClientError> {
        self.post("/api/account/changed", &Empty {}).await
    }

    /// `POST /api/account/sign-in`: the daemon starts a browser sign-in (only from a window on
    /// this computer); the answer is the address to open.
    pub async fn sign_in(&self, sign_in: &SignIn) -> Result<SignInStarted, ClientError> {
        self.post("/api/account/sign-in", sign_in).await
    }

    // -----------------------------------------------------------------------------------------
    // The agents' door

    /// `GET /api/agents/door`: the door's own listener, when one is open.
    pub async fn door(&self) -> Result<Option<DoorInfo>, ClientError> {
        self.get("/api/agents/door", NO_QUERY, Some(REQUEST_TIMEOUT)).await
    }

    /// `POST /api/agents/door`: opens the door on a listener of its own (replacing an open one).
    pub async fn open_door(&self, open: &OpenDoor) -> Result<DoorInfo, ClientError> {
        self.post("/api/agents/door", open).await
    }

    /// `POST /api/agents/door/off`: closes the door's own listener and forgets it.
    pub async fn close_door(&self) -> Result<Changed, ClientError> {
        self.post("/api/agents/door/off", &Empty {}).await
    }

    // -----------------------------------------------------------------------------------------
    // The desktop shell

    /// `GET /api/desktop/requests`: the shell's channel, held for its life (409, `Busy`, while
    /// another shell holds it); it ends when the daemon stops.
    pub async fn shell_requests(&self) -> Result<Subscription<ShellRequest>, ClientError> {
        self.subscribe("/api/desktop/requests", NO_QUERY).await
    }

    /// `POST /api/desktop/show`: brings the attached shell's window up (409 when none is).
    pub async fn show(&self, show: &ShowWorkspace) -> Result<Shown, ClientError> {
        self.post("/api/desktop/show", show).await
    }

    /// `POST /api/desktop/active`: the workspace the shell shows; answers its badge counts.
    pub async fn set_active(&self, active: &ActiveWorkspace) -> Result<Active, ClientError> {
        self.post("/api/desktop/active", active).await
    }

    /// `POST /api/browser`: an agent's browser action (`cowork mcp-browser`), through consent
    /// and the shell; waits as long as the action and its consent dialog take.
    pub async fn browser(
        &self,
        request: &crate::browser::DriveRequest,
    ) -> Result<crate::browser::ActionResult, ClientError> {
        self.post("/api/browser", request).await
    }

    /// `POST /api/desktop/browser/answer` (the shell): its answer to a browser action or a
    /// consent question.
    pub async fn browser_answer(
        &self,
        answer: &crate::browser::ShellAnswer,
    ) -> Result<Taken, ClientError> {
        self.post("/api/desktop/browser/answer", answer).await
    }

    /// `GET /api/events`: every workspace's events, or only `workspace`'s.
    pub async fn events(
        &self,
        workspace: Option<&Path>,
    ) -> Result<Subscription<Event>, ClientError> {
        self.subscribe("/api/events", &[("workspace", workspace)]).await
    }

    /// `POST /api/notifications/shown`: the person saw an app's notifications.
    pub async fn notifications_shown(
        &self,
        shown: &NotificationsShown,
    ) -> Result<Empty, ClientError> {
        self.post("/api/notifications/shown", shown).await
    }

    /// `POST /api/desktop/notify`: a site app's page raised a notification.
    pub async fn site_notify(&self, report: &SiteReport) -> Result<Delivered, ClientError> {
        self.post("/api/desktop/notify", report).await
    }

    /// `POST /api/desktop/badge`: a site app's unread count.
    pub async fn site_badge(&self, report: &SiteReport) -> Result<Counted, ClientError> {
        self.post("/api/desktop/badge", report).await
    }

    /// `GET /api/consent/requests`: the questions routines and widgets ask, and each one's close
    /// (answered in any window, or withdrawn), while held.
    pub async fn consent_requests(&self) -> Result<Subscription<ConsentEvent>, ClientError> {
        self.subscribe("/api/consent/requests", NO_QUERY).await
    }

    /// `POST /api/consent/answer`: the person's answer (404 when the question is no longer asked).
    pub async fn answer_consent(&self, answer: &ConsentAnswer) -> Result<Answered, ClientError> {
        self.post("/api/consent/answer", answer).await
    }

    /// `POST /api/desktop/capture/answer`: the outcome of a capture request.
    pub async fn capture_answer(&self, answer: &CaptureAnswer) -> Result<Taken, ClientError> {
        self.post("/api/desktop/capture/answer", answer).await
    }

    /// `POST /api/desktop/capture/event`: a recording's live audio, or its end.
    pub async fn capture_event(&self, event: &SessionEvent) -> Result<Taken, ClientError> {
        self.post("/api/desktop/capture/event", event).await
    }

    // -----------------------------------------------------------------------------------------
    // Requests

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &(impl Serialize + ?Sized),
        timeout: Option<Duration>,
    ) -> Result<T, ClientError> {
        let mut request = self.http.get(self.url(path)).query(query);
        if let Some(timeout) = timeout {
            request = request.timeout(timeout);
        }
        self.send(request).await
    }

    async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &(impl Serialize + ?Sized),
    ) -> Result<T, ClientError> {
        self.send(self.http.post(self.url(path)).json(body)).await
    }

    async fn send<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<T, ClientError> {
        let response = self.answered(request).await?;
        let port = self.port;
        let text =
            response.text().await.map_err(|source| ClientError::Unreachable { port, source })?;
        serde_json::from_str(&text).map_err(|error| ClientError::Answer {
            port,
            detail: format!("{error}: {}", cut(&text)),
        })
    }

    /// The response to `request` with the owner token, when its status is a success; else the
    /// daemon's refusal.
    async fn answered(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ClientError> {
        let port = self.port;
        let response = request
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|source| ClientError::Unreachable { port, source })?;
        if response.status().is_success() {
            return Ok(response);
        }
        let status = response.status().as_u16();
        let text =
            response.text().await.map_err(|source| ClientError::Unreachable { port, source })?;
        let error = match serde_json::from_str::<ErrorBody>(&text) {
            Ok(body) => body.error,
            // Not the daemon's body (a proxy's page, a dying daemon): named by the status.
            Err(_) => {
                let name =
                    if status >= 500 { ErrorName::Unavailable } else { ErrorName::BadRequest };
                let message =
                    if text.trim().is_empty() { "no message".to_string() } else { cut(&text) };
                CtxError::new(name, message)
            }
        };
        Err(ClientError::Refused { status, error })
    }

    async fn subscribe<T: DeserializeOwned + Send + 'static>(
        &self,
        path: &str,
        query: &(impl Serialize + ?Sized),
    ) -> Result<Subscription<T>, ClientError> {
        let request =
            self.http.get(self.url(path)).query(query).header("accept", "text/event-stream");
        let response = self.answered(request).await?;
        Ok(Subscription::new(response))
    }
}

/// At most 200 characters of a body, for a message.
fn cut(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(200) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// A server-sent-event route of the daemon as a stream of its typed events, one per `data:`
/// line. It ends when the daemon closes the stream (it stops, or another holder took it over).
/// An event this version does not read (a newer daemon's) is passed over: it is not for this
/// client.
pub struct Subscription<T> {
    events: Pin<Box<dyn Stream<Item = T> + Send>>,
}

impl<T: DeserializeOwned + Send + 'static> Subscription<T> {
    fn new(response: reqwest::Response) -> Self {
        let lines = SseLines { response, buffer: Vec::new() };
        let events = futures_util::stream::unfold(lines, |mut lines| async move {
            loop {
                let data = lines.next_data().await?;
                if let Ok(event) = serde_json::from_slice::<T>(&data) {
                    return Some((event, lines));
                }
            }
        });
        Subscription { events: Box::pin(events) }
    }

    /// The next event; `None` once the daemon closed the stream.
    pub async fn next(&mut self) -> Option<T> {
        futures_util::StreamExt::next(&mut self.events).await
    }
}

impl<T> Stream for Subscription<T> {
    type Item = T;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.events.as_mut().poll_next(cx)
    }
}

/// The `data:` lines of a server-sent-event response.
struct SseLines {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

impl SseLines {
    /// The next `data:` line's payload; `None` once the response ended or broke.
    async fn next_data(&mut self) -> Option<Vec<u8>> {
        loop {
            while let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                // Keep-alive comments (`:`) and blank separators carry nothing.
                if let Some(data) = line.strip_prefix(b"data:") {
                    return Some(data.trim_ascii().to_vec());
                }
            }
            let chunk = self.response.chunk().await.ok()??;
            self.buffer.extend_from_slice(&chunk);
        }
    }
}
