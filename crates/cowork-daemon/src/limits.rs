//! Serving connections so that no program on this computer can make the daemon stop answering: a
//! connection must send its request head within [`HEADER_READ_TIMEOUT`] (a slow-loris trickle or an
//! idle socket is closed, and so is a keep-alive connection left idle that long), and at most
//! [`connection_cap`] connections are served at once, well below the file limit, so a flood of
//! sockets waits in the listen queue instead of taking the descriptors routines and files need.

use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long a connection may take to send a request's head, counted from when it is accepted or
/// has finished its previous request: a browser sends one at once, and reconnects when an idle
/// connection was closed.
pub(crate) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

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

/// Serves `router` on `listener` until `shutdown` completes, then waits for the connections in
/// flight to finish their requests (idle ones close at once), as `axum::serve` does. Each request
/// carries the peer address (`ConnectInfo`), which `guard::Window` reads.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(connection_cap()));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    tokio::pin!(shutdown);
    loop {
        // A slot before the accept: at the cap, new connections wait in the kernel's queue.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
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
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request| {
            request.extensions_mut().insert(ConnectInfo(peer));
            tower::ServiceExt::oneshot(router.clone(), request)
        });
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            // A client that goes away or times out is no error of ours.
            if let Err(error) = connection.await {
                tracing::debug!(%error, %peer, "a connection ended");
            }
            drop(slot);
        });
    }
    graceful.shutdown().await;
}
