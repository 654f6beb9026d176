//! Serving connections so that no program on this computer — nor anybody reaching a webhook or
//! the agents' door through a tunnel — can make the daemon stop answering:
//!
//! * a connection must send its request head within [`HEADER_READ_TIMEOUT`] (a slow-loris trickle
//!   or an idle socket is closed, and so is a keep-alive connection left idle that long), and the
//!   whole body within [`BODY_READ_TIMEOUT`] after it (`Timeout`, 408: a stalled body no longer
//!   holds a connection for ever);
//! * at most [`connection_cap`] connections are served at once, well below the file limit, and
//!   at the cap the peer holding the most gives up its oldest connection that is only waiting
//!   (`connections`): a peer is the user owning a loopback client's socket, or a remote client's
//!   address (`peer`), so a flood of stalled sockets crowds out its sender, never `/api/health`
//!   or the owner's calls.

mod bodies;
mod connections;
mod peer;

use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use bodies::{AnswerBody, TimedBody};
use connections::{Connection, Connections};
use hyper::body::{Body as _, Incoming};
use hyper_util::rt::{TokioIo, TokioTimer};
use peer::Peer;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::net::TcpListener;

/// How long a connection may take to send a request's head, counted from when it is accepted or
/// has finished its previous request: a browser sends one at once, and reconnects when an idle
/// connection was closed.
pub(crate) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request's body may take to arrive whole, counted from its head. The daemon's bodies
/// are JSON of at most a few megabytes (axum's 2 MB default), which even a slow link through a
/// tunnel sends well within it.
pub(crate) const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections are served at once: three quarters of the soft file limit, the rest left
/// for what the daemon opens itself (workspaces' files, watchers, routines' pipes, the log).
pub(crate) fn connection_cap() -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we pass and reads nothing else.
    #[allow(unsafe_code)]
    let known = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) } == 0;
    let soft = if known && limit.rlim_cur != libc::RLIM_INFINITY {
        usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
    } else {
        // Unknown or unlimited: the usual Linux default, which is safe either way.
        1024
    };
    (soft / 4 * 3).clamp(16, 16_384)
}

/// The connections of every listener of this process (the daemon's and the agents' door): the
/// file limit they share is the process's.
fn connections() -> &'static Connections {
    static CONNECTIONS: OnceLock<Connections> = OnceLock::new();
    CONNECTIONS.get_or_init(|| Connections::new(connection_cap()))
}

/// Serves `router` on `listener` until `shutdown` completes, then waits for the connections in
/// flight to finish their requests (idle ones close at once), as `axum::serve` does. Each request
/// carries the peer address (`ConnectInfo`), which `guard::Window` reads.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()>,
) {
    let connections = connections();
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    tokio::pin!(shutdown);
    loop {
        let (stream, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors (EMFILE) or the like: wait for some to close rather than
                    // spin on the same error.
                    tracing::warn!(%error, "failed to accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Small writes go out at once: a stream's keystroke echo would otherwise wait for the
        // peer's delayed ACK (Nagle), some 40 ms each on loopback.
        let _ = stream.set_nodelay(true);
        // The accepted socket's own address: a listener on 0.0.0.0 has none of its own.
        let local = stream.local_addr().or_else(|_| listener.local_addr());
        let peer = local.map_or(Peer::Address(remote.ip()), |local| Peer::of(remote, local));
        // At the cap with every connection being served, this one waits (accepted) for room.
        let connection = loop {
            if let Some(connection) = connections.admit(peer) {
                break Some(connection);
            }
            tokio::select! {
                () = connections.room() => {}
                () = &mut shutdown => break None,
            }
        };
        let Some(connection) = connection else { break };
        let service = {
            let (router, connection) = (router.clone(), connection.clone());
            hyper::service::service_fn(move |request| {
                serve_request(router.clone(), connection.clone(), remote, request)
            })
        };
        let serving = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            tokio::select! {
                // A client that goes away or times out is no error of ours.
                ended = serving => if let Err(error) = ended {
                    tracing::debug!(%error, %remote, "a connection ended");
                },
                () = connection.closing() => {}
            }
            connections.leave(&connection);
        });
    }
    graceful.shutdown().await;
}

/// One request through the router: its peer address attached, its body on a deadline, and the
/// connection told where the request is.
async fn serve_request(
    router: Router,
    connection: Arc<Connection>,
    remote: SocketAddr,
    mut request: hyper::Request<Incoming>,
) -> Result<Response, std::convert::Infallible> {
    request.extensions_mut().insert(ConnectInfo(remote));
    connection.request_started(!request.body().is_end_stream());
    let timed_out = Arc::new(AtomicBool::new(false));
    let request = request.map(|body| {
        axum::body::Body::new(TimedBody::new(
            body,
            BODY_READ_TIMEOUT,
            connection.clone(),
            timed_out.clone(),
        ))
    });
    let mut response = tower::ServiceExt::oneshot(router, request).await?;
    if timed_out.load(Ordering::Acquire) {
        response = body_timed_out();
    }
    Ok(response.map(|body| axum::body::Body::new(AnswerBody::new(body, connection))))
}

/// The answer to a request whose body did not arrive within [`BODY_READ_TIMEOUT`], whatever its
/// handler made of the failed read; the connection closes after it.
fn body_timed_out() -> Response {
    let error = crate::error::ApiError::named(
        StatusCode::REQUEST_TIMEOUT,
        cowork_engine::ErrorName::Timeout,
        format!(
            "failed to read the request: its body did not arrive within {} s of its head",
            BODY_READ_TIMEOUT.as_secs()
        ),
    );
    let mut response = error.into_response();
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
