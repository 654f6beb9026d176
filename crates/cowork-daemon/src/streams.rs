//! Widgets' streams (`cowork.stream.open`, docs/reference/sdk.md): one long-lived process on a
//! pseudo-terminal per stream, at most [`MAX_PER_VIEW`] per pane, each opened with a consent
//! ticket (`consent.request`) or a value approved ahead for its argv.
//!
//! `POST /api/streams` (behind the pane gate, like `/api/sdk/*`) starts it and IS the stream: the
//! answer's body carries the process's output as frames until it ends, then one end frame with
//! its exit code. Input, resizes, closing and acknowledging output are SDK calls (`stream.write`,
//! `stream.resize`, `stream.close`, `stream.ack`) naming the stream by the id the answer's
//! `x-cowork-stream` header gives; a stream answers only the pane that opened it.
//!
//! The process dies with its whole tree when the pane closes (`pane.close`), when the answer's
//! connection goes (the workbench dropped the view, switched workspace or quit), and when the
//! daemon stops. Backpressure, twice: at most [`BUFFER_CHUNKS`] chunks wait per stream, and at
//! most [`WINDOW`] bytes of output go out beyond what the client acknowledged (`stream.ack`);
//! while either is full the terminal is not read, so a flood (`yes`) blocks its own writer, never
//! the daemon. The window is what bounds the client: a browser's `fetch` (WebKitGTK's at least)
//! takes a body in as fast as the connection brings it, read by the page or not — without it a
//! flood grew the desktop app's web process by ~45 MB/s until the window stopped answering.
//!
//! A frame is one byte of kind (`0` output, `1` end), four bytes of length (big-endian), then
//! that many bytes: the output as the process wrote it, or the end as JSON `{"code":n|null}`.

use crate::error::{ApiError, Body};
use crate::pane_tokens::Pane;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header;
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Extension, Json, Router};
use cowork_engine::terminal::{self, Master, Size, Terminal};
use cowork_engine::{CtxError, ErrorName, Workspace};
use cowork_wire::daemon::panes::{SdkAnswer, SdkError};
use cowork_wire::daemon::{Answer, Flag};
use cowork_wire::streams::{StreamAck, StreamClose, StreamOpen, StreamResize, StreamWrite, WINDOW};
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

/// The most streams open at once in one view (pane).
pub const MAX_PER_VIEW: usize = 2;
/// The largest read from a terminal, and so the largest output frame's payload.
const CHUNK: usize = 64 * 1024;
/// How many output chunks wait for the client per stream (1 MiB at most).
const BUFFER_CHUNKS: usize = 16;
/// The most input one `stream.write` carries.
const MAX_WRITE: usize = 64 * 1024;
/// How long a `stream.write` waits for a process that reads none of its input.
const WRITE_WAIT: Duration = Duration::from_secs(5);
/// How long output written just before the process exited is still collected.
const DRAIN_WAIT: Duration = Duration::from_millis(100);
/// The header naming the stream in `POST /api/streams`'s answer.
pub const STREAM_HEADER: &str = "x-cowork-stream";

/// One open stream, as the SDK calls reach it.
struct Open {
    /// The pane (view) that opened it.
    pane: String,
    /// The terminal's daemon end; `None` while it starts.
    master: Option<Arc<Master>>,
    /// Ends it (kills its tree).
    kill: Arc<Notify>,
    /// What was sent and acknowledged of its output.
    credit: Arc<Credit>,
}

/// A stream's output sent and acknowledged, in bytes of frames' payloads.
#[derive(Default)]
struct Credit {
    sent: AtomicU64,
    acked: AtomicU64,
    /// Wakes the pump when an acknowledgement comes.
    acked_more: Notify,
}

impl Credit {
    /// Takes an acknowledgement of `bytes`; never past what was sent (a client cannot buy room
    /// ahead).
    fn ack(&self, bytes: u64) {
        let sent = self.sent.load(Ordering::Acquire);
        let _ = self.acked.fetch_update(Ordering::AcqRel, Ordering::Acquire, |acked| {
            Some(acked.saturating_add(bytes).min(sent))
        });
        self.acked_more.notify_one();
    }

    /// Whether more than a [`WINDOW`] is out unacknowledged.
    fn full(&self) -> bool {
        let sent = self.sent.load(Ordering::Acquire);
        sent - self.acked.load(Ordering::Acquire).min(sent) > WINDOW
    }

    /// Until the client has acknowledged enough to be within the window. `notify_one` keeps a
    /// permit when nobody waits, so an acknowledgement between the check and the wait is not lost.
    async fn room(&self) {
        while self.full() {
            self.acked_more.notified().await;
        }
    }
}

/// Every open stream by id. A table of the process rather than of `AppState`: streams are owned
/// by their answers' tasks, and ids are random, so daemons sharing a process (tests) never meet.
static STREAMS: LazyLock<Mutex<HashMap<String, Open>>> = LazyLock::new(Mutex::default);

/// Removes its stream from the table when its task ends, however it ends.
struct Registered(String);

impl Drop for Registered {
    fn drop(&mut self) {
        STREAMS.lock().remove(&self.0);
    }
}

/// The route, behind the pane gate.
pub fn router(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/api/streams", post(open))
        .layer(from_fn_with_state(state.clone(), crate::guard::pane_only))
}

fn refused(error: CtxError) -> Response {
    Json(SdkAnswer::Failed { ok: Flag, error: SdkError::Call(error) }).into_response()
}

/// `POST /api/streams`: checks, starts and streams one process (see the module's comment). A
/// refusal is an SDK answer (`{ok: false, error}`, JSON); a started stream is
/// `application/octet-stream` frames.
pub async fn open(
    State(state): State<AppState>,
    Extension(pane): Extension<Arc<Pane>>,
    Body(params): Body<StreamOpen>,
) -> Result<Response, ApiError> {
    let ws = state.engine.workspace(&pane.workspace)?;
    let app = pane.app.as_str();
    let argv = params.argv.clone();
    let started = start(&state, &ws, &pane, params).await;
    ws.audit_stream(app, &argv, started.as_ref().err());
    let (id, terminal, kill, credit) = match started {
        Ok(started) => started,
        Err(error) => return Ok(refused(error)),
    };
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::convert::Infallible>>(BUFFER_CHUNKS);
    tokio::spawn(pump(id.clone(), terminal, kill, credit, tx, state.stopping.clone()));
    let body = axum::body::Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx));
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (header::CACHE_CONTROL, "no-store".to_string()),
            (header::HeaderName::from_static(STREAM_HEADER), id),
        ],
        body,
    )
        .into_response())
}

/// A view's slot, its consent and its process: the stream's id, its terminal, its kill switch and
/// its credit.
async fn start(
    state: &AppState,
    ws: &Workspace,
    pane: &Pane,
    params: StreamOpen,
) -> Result<(String, Terminal, Arc<Notify>, Arc<Credit>), CtxError> {
    if params.argv.first().is_none_or(|p| p.is_empty()) {
        return Err(CtxError::new(
            ErrorName::BadRequest,
            "stream.open: `argv` names the program first, like [\"bash\", \"-l\"]",
        ));
    }
    let id = hex::encode(rand::random::<[u8; 12]>());
    let kill = Arc::new(Notify::new());
    let credit = Arc::new(Credit::default());
    {
        let mut streams = STREAMS.lock();
        if streams.values().filter(|s| s.pane == pane.id).count() >= MAX_PER_VIEW {
            return Err(CtxError::new(ErrorName::TooManyStreams, format!("failed to open a stream for {}: this view has {MAX_PER_VIEW} open already (close one with its close())", terminal::shown(&params.argv))));
        }
        let open = Open {
            pane: pane.id.clone(),
            master: None,
            kill: kill.clone(),
            credit: credit.clone(),
        };
        streams.insert(id.clone(), open);
    }
    let registered = Registered(id.clone());
    consented(state, ws, &pane.app, &params)?;
    let size = Size {
        cols: params.cols.unwrap_or(80).clamp(1, 1000),
        rows: params.rows.unwrap_or(24).clamp(1, 1000),
    };
    let terminal = ws.open_terminal(&params.argv, size).await?;
    if let Some(open) = STREAMS.lock().get_mut(&id) {
        open.master = Some(terminal.master.clone());
    }
    // The pump's own guard takes over.
    std::mem::forget(registered);
    Ok((id, terminal, kill, credit))
}

/// Whether `params.consent` is a ticket granted for exactly this argv, or the argv (its words as
/// a shell reads them, [`terminal::shown`]) was approved ahead for `app`: `Denied` otherwise,
/// saying how to get one.
fn consented(
    state: &AppState,
    ws: &Workspace,
    app: &str,
    params: &StreamOpen,
) -> Result<(), CtxError> {
    let value = terminal::shown(&params.argv);
    let approvals = cowork_core::consent::Approvals::new(state.engine.root(), ws.root());
    if approvals.is_allowed(app, &value) {
        return Ok(());
    }
    let Some(ticket) = params.consent.as_deref().filter(|t| !t.is_empty()) else {
        let line = cowork_core::consent::allow_command(app, &value, ws.root());
        return Err(CtxError::new(ErrorName::Denied, format!("failed to open a stream for \"{value}\": it has no consent")).with_hint(format!("pass the ticket of cowork.consent.request({{ value: \"{value}\", … }}) as `consent`, or approve it ahead: {line}")));
    };
    match state.engine.consent().redeem(ticket) {
        Some(granted) if granted == value => Ok(()),
        Some(granted) => Err(CtxError::new(
            ErrorName::Denied,
            format!("failed to open a stream for \"{value}\": its consent ticket was granted for \"{granted}\", and a ticket opens only the argv it was asked for"),
        )),
        None => Err(CtxError::new(
            ErrorName::Denied,
            format!("failed to open a stream for \"{value}\": the consent ticket is unknown, used already or expired (a ticket opens one stream, within 10 minutes)"),
        ).with_hint("ask cowork.consent.request again for a new ticket")),
    }
}

fn frame(kind: u8, payload: &[u8]) -> Bytes {
    let mut framed = Vec::with_capacity(5 + payload.len());
    framed.push(kind);
    framed.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    framed.extend_from_slice(payload);
    framed.into()
}

/// Why a stream's loop stopped.
enum Stop {
    /// The process exited (or closed its terminal).
    Ended,
    /// Closed, its client gone, or the daemon stopping: the tree is killed.
    Killed,
}

/// Moves the terminal's output to the client until the process ends or the stream is killed,
/// then kills what is left of the tree and sends the end frame.
async fn pump(
    id: String,
    terminal: Terminal,
    kill: Arc<Notify>,
    credit: Arc<Credit>,
    tx: mpsc::Sender<Result<Bytes, std::convert::Infallible>>,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    let _registered = Registered(id);
    let master = terminal.master.clone();
    let mut buf = vec![0u8; CHUNK];
    let stopped = async move {
        // No sender left (a daemon without a stop switch) is never stopping.
        if stopping.wait_for(|stopping| *stopping).await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(stopped);
    let stop = loop {
        // While the client is a window behind, the terminal is not read.
        tokio::select! {
            () = credit.room() => {}
            () = kill.notified() => break Stop::Killed,
            () = &mut stopped => break Stop::Killed,
            () = tx.closed() => break Stop::Killed,
        }
        let read = tokio::select! {
            read = master.read(&mut buf) => read,
            () = terminal.exited() => break Stop::Ended,
            () = kill.notified() => break Stop::Killed,
            () = &mut stopped => break Stop::Killed,
            () = tx.closed() => break Stop::Killed,
        };
        let mut n = match read {
            Ok(0) | Err(_) => break Stop::Ended,
            Ok(n) => n,
        };
        // A terminal hands out a few KiB a read: what else is there already goes in the same
        // frame, so a flood travels in large frames.
        while n < CHUNK {
            match master.try_read(&mut buf[n..]) {
                Some(more) => n += more,
                None => break,
            }
        }
        // While the client is behind this waits, and the terminal is not read meanwhile.
        credit.sent.fetch_add(n as u64, Ordering::AcqRel);
        tokio::select! {
            sent = tx.send(Ok(frame(0, &buf[..n]))) => if sent.is_err() { break Stop::Killed },
            () = kill.notified() => break Stop::Killed,
            () = &mut stopped => break Stop::Killed,
        }
    };
    if let Stop::Ended = stop {
        // What the process wrote just before it exited is still in the terminal.
        while let Ok(Ok(n)) = tokio::time::timeout(DRAIN_WAIT, master.read(&mut buf)).await {
            if n == 0 || tx.send(Ok(frame(0, &buf[..n]))).await.is_err() {
                break;
            }
        }
    }
    let code = terminal.end().await;
    let end = serde_json::json!({ "code": code }).to_string();
    // A client that still reads gets it; one that is gone (or stalled a minute) does not.
    let _ =
        tokio::time::timeout(Duration::from_secs(60), tx.send(Ok(frame(1, end.as_bytes())))).await;
}

/// Ends every stream `pane` opened (the pane closed).
pub fn close_pane(pane: &str) {
    for open in STREAMS.lock().values().filter(|s| s.pane == pane) {
        open.kill.notify_one();
    }
}

fn not_found(id: &str) -> CtxError {
    CtxError::new(
        ErrorName::NotFound,
        format!("no open stream \"{id}\" in this view (it ended, or another view opened it)"),
    )
}

/// A started stream, as its SDK calls reach it.
struct Found {
    master: Arc<Master>,
    kill: Arc<Notify>,
    credit: Arc<Credit>,
}

/// The stream `id` of `pane`, once started.
fn find(pane: &Pane, id: &str) -> Result<Found, CtxError> {
    let streams = STREAMS.lock();
    let open = streams.get(id).filter(|s| s.pane == pane.id).ok_or_else(|| not_found(id))?;
    let master = open.master.clone().ok_or_else(|| not_found(id))?;
    Ok(Found { master, kill: open.kill.clone(), credit: open.credit.clone() })
}

/// `stream.write` / `stream.resize` / `stream.close` / `stream.ack` of a pane's stream.
pub async fn call(pane: &Pane, method: &str, params: Value) -> Result<Value, CtxError> {
    let read = |error: serde_json::Error| {
        CtxError::new(ErrorName::BadRequest, format!("{method}: the params do not fit: {error}"))
    };
    match method {
        "stream.write" => {
            let StreamWrite { id, data } = serde_json::from_value(params).map_err(read)?;
            if data.len() > MAX_WRITE {
                return Err(CtxError::new(
                    ErrorName::TooLarge,
                    format!(
                        "stream.write takes at most {} KiB at a time ({} bytes given): write it in parts",
                        MAX_WRITE / 1024,
                        data.len()
                    ),
                ));
            }
            let master = find(pane, &id)?.master;
            match tokio::time::timeout(WRITE_WAIT, master.write_all(data.as_bytes())).await {
                Ok(Ok(())) => Ok(Value::Null),
                Ok(Err(error)) => Err(CtxError::new(
                    ErrorName::NotFound,
                    format!("failed to write to stream \"{id}\": {error} (its process ended)"),
                )),
                Err(_) => Err(CtxError::new(
                    ErrorName::Busy,
                    format!("failed to write to stream \"{id}\": its process read none of its input for {} s", WRITE_WAIT.as_secs()),
                )),
            }
        }
        "stream.resize" => {
            let StreamResize { id, cols, rows } = serde_json::from_value(params).map_err(read)?;
            let master = find(pane, &id)?.master;
            let size = Size { cols: cols.clamp(1, 1000), rows: rows.clamp(1, 1000) };
            master.resize(size).map_err(|error| {
                CtxError::new(
                    ErrorName::NotFound,
                    format!("failed to resize stream \"{id}\": {error}"),
                )
            })?;
            Ok(Value::Null)
        }
        "stream.close" => {
            let StreamClose { id } = serde_json::from_value(params).map_err(read)?;
            find(pane, &id)?.kill.notify_one();
            Ok(Value::Null)
        }
        "stream.ack" => {
            let StreamAck { id, bytes } = serde_json::from_value(params).map_err(read)?;
            find(pane, &id)?.credit.ack(bytes);
            Ok(Value::Null)
        }
        other => Err(CtxError::new(ErrorName::NotFound, format!("no SDK method \"{other}\""))),
    }
}

/// An SDK answer of [`call`].
pub async fn answer(pane: &Pane, method: &str, params: Value) -> Json<SdkAnswer> {
    Json(match call(pane, method, params).await {
        Ok(result) => Answer::Done { ok: Flag, result },
        Err(error) => Answer::Failed { ok: Flag, error: SdkError::Call(error) },
    })
}
