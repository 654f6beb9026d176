//! `GET /api/runtime` and `POST /api/runtime/install`: the workbench's side of Bun on first need.
//! The page asks whether a runtime runs routines here; when none does it offers to install Bun
//! ([`crate::bun::install`]) and draws the download's progress by asking again while it runs.

use crate::bun::{self, Progress};
use axum::Json;
use cowork_wire::daemon::runtime::{BunInstall, FoundRuntime, RuntimeInfo};
use parking_lot::Mutex;

/// The one Bun install of this process: there is one file to write, so there is one install, and
/// every page (and a second click) sees the same one.
static INSTALL: Mutex<BunInstall> = Mutex::new(BunInstall::Idle);

/// `GET /api/runtime`.
pub async fn show() -> Json<RuntimeInfo> {
    Json(info().await)
}

/// `POST /api/runtime/install`: starts installing Bun unless it is being installed already.
pub async fn install() -> Json<RuntimeInfo> {
    let start = {
        let mut install = INSTALL.lock();
        let idle = !matches!(*install, BunInstall::Running { .. });
        if idle {
            *install = BunInstall::Running { done: 0, total: None };
        }
        idle
    };
    if start {
        tokio::spawn(async {
            let target = cowork_engine::runtime::installed_bun();
            let outcome = bun::install(&target, |Progress { done, total }| {
                *INSTALL.lock() = BunInstall::Running { done, total };
            })
            .await;
            *INSTALL.lock() = match outcome {
                Ok(_) => BunInstall::Done { version: bun::VERSION.into() },
                Err(error) => {
                    tracing::warn!("{error}");
                    BunInstall::Failed { message: error.to_string(), hint: error.hint().into() }
                }
            };
        });
    }
    Json(info().await)
}

async fn info() -> RuntimeInfo {
    // Finding a runtime runs `--version`: off the async threads.
    let runtime = tokio::task::spawn_blocking(|| cowork_engine::runtime::find().ok())
        .await
        .ok()
        .flatten()
        .map(|r| FoundRuntime { kind: r.kind.to_string(), version: r.version });
    RuntimeInfo { runtime, install: INSTALL.lock().clone() }
}
