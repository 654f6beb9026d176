//! Automatic app updates (page 02, "Auto-update"): the daemon runs [`cowork_store::auto::pass`]
//! at start, every [`PASS_EVERY`], and whenever the account moves — a sign-in, or an updates poll
//! that brought news (a team server's store changed, which is how a push from anyone reaches this
//! machine; the CLI's own `push` tells a running daemon the same way, `POST /api/account/changed`).
//!
//! The pass updates an installed app only when it is clean, verified and not pinned, with audit
//! lines `cowork.app.update` of source `system`. An edited app is never overwritten: the person
//! gets one Cowork notification per app and version, naming it and the four choices. The
//! environment variable `COWORK_NO_AUTO_UPDATE=1` switches it all off (`cowork doctor` says so).

use crate::state::AppState;
use cowork_engine::Event;
use cowork_store::auto::{self, Looked};
use serde_json::json;
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// How often a pass runs when nothing else asks for one (the updates poll's own rhythm).
pub const PASS_EVERY: Duration = crate::account::POLL_EVERY;

/// How long a burst of account events is let land before the pass it asks for.
const SETTLE: Duration = Duration::from_millis(250);

/// The name Cowork's own notifications are posted as (no app of a workspace has it: names of
/// apps are their manifests', and `cowork` is the built-in store's, never an app's).
const POSTER: &str = "cowork";

/// Starts the automatic updates until the daemon stops (nothing when they are switched off).
pub fn spawn(state: AppState) {
    if auto::disabled() {
        tracing::info!("automatic app updates are off ({}=1)", auto::NO_AUTO_UPDATE_ENV);
        return;
    }
    let mut events = state.engine.subscribe();
    let mut stopping = state.stopping.clone();
    tokio::spawn(async move {
        // Edited apps already named to the person, with the version that waits: one notice each.
        let mut told: HashSet<(PathBuf, String, String)> = HashSet::new();
        loop {
            run_once(&state, &mut told).await;
            // Events that arrived during the pass are in the receiver: a sign-in or a poll's
            // news then starts the next pass at once (the pass saw the older state, maybe).
            // A deadline, not a sleep per event: a busy event stream must not postpone it.
            let due = tokio::time::Instant::now() + PASS_EVERY;
            loop {
                let next = tokio::select! {
                    () = tokio::time::sleep_until(due) => break,
                    next = events.recv() => next,
                    _ = stopping.wait_for(|s| *s) => return,
                };
                match next {
                    Ok(Event::Account { signed_in: true }) | Err(RecvError::Lagged(_)) => break,
                    Ok(_) => continue,
                    Err(RecvError::Closed) => return,
                }
            }
            // One account change announces itself more than once (the poll's news, then the
            // change itself): let the burst land, then take it as one reason for one pass.
            tokio::time::sleep(SETTLE).await;
            events = events.resubscribe();
        }
    });
}

/// One pass, its edited apps named in a notification of their workspace.
async fn run_once(state: &AppState, told: &mut HashSet<(PathBuf, String, String)>) {
    let root = state.engine.root().clone();
    let session = state.account.session().clone();
    // On a blocking thread: the pass hashes files and writes folders with std::fs (no worker of
    // the runtime stalls on a 2,000-file clean check), and its future need not be `Send`.
    let handle = tokio::runtime::Handle::current();
    let pass =
        tokio::task::spawn_blocking(move || handle.block_on(auto::pass(&root, &session, None)))
            .await;
    let pass = match pass {
        Ok(Ok(pass)) => pass,
        Err(error) => {
            tracing::warn!(%error, "the automatic update pass stopped");
            return;
        }
        Ok(Err(error)) => {
            tracing::info!(%error, "the automatic update pass failed; it is tried again later");
            return;
        }
    };
    for updated in &pass.updated {
        tracing::info!(app = %updated.dir, workspace = %updated.workspace.display(), "updated automatically");
    }
    for edited in &pass.edited {
        let version = match &edited.outcome {
            cowork_store::update::Outcome::Edited { version, .. } => version.clone(),
            _ => continue,
        };
        let key = (edited.workspace.clone(), edited.dir.clone(), version.clone());
        if told.insert(key) {
            notify_edited(state, edited, &version);
        }
    }
}

/// The Cowork notification of an edited app with a newer version waiting.
fn notify_edited(state: &AppState, edited: &Looked, version: &str) {
    let ws = match state.engine.workspace(&edited.workspace) {
        Ok(ws) => ws,
        Err(error) => {
            tracing::warn!(%error, app = %edited.dir, "failed to open the workspace to name an edited app");
            return;
        }
    };
    let notice = json!({
        "title": format!("{} v{version} is out, but you edited {}", edited.name, edited.dir),
        "body": edited_body(&edited.dir),
        "tag": format!("update {}", edited.dir),
    });
    if let Err(error) = ws.notify(POSTER, None, &notice) {
        tracing::warn!(%error, app = %edited.dir, "failed to post the notice of an edited app");
    }
}

/// The four choices, as commands.
fn edited_body(dir: &str) -> String {
    format!(
        "Automatic updates leave it alone until you choose: cowork app update {dir} \
         --replace | --keep-both | --ai-merge | --skip"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_names_the_four_choices() {
        let body = edited_body(".cowork/apps/gmail");
        for choice in ["--replace", "--keep-both", "--ai-merge", "--skip"] {
            assert!(body.contains(choice), "{body}");
        }
        assert!(body.contains("cowork app update .cowork/apps/gmail"));
        assert!(body.chars().count() <= cowork_engine::notifications::BODY_MAX);
    }
}
