//! The consent question of `ctx.command.run` / `ctx.consent.request`, as a native dialog.
//!
//! While the shell follows `GET /api/consent/requests`, a routine that needs the person's yes
//! waits for it instead of being refused. Questions are asked one at a time, over the window
//! (brought up first: a question nobody sees is a routine that hangs until its deadline). A
//! browser tab on the same daemon is asked too, and the first answer counts: the stream says when a
//! question closed (answered there, or withdrawn by its asker), so a question still queued here is
//! not asked, and one whose dialog is up has its dialog closed (on Linux, where GTK lists it; the
//! dialog plugin hands out no handle to close it by) and is not answered again.

use crate::dialogs;
use crate::main_window;
use crate::session::{self, Session};
use crate::{shell, workspaces};
use cowork_wire::daemon::client::Subscription;
use cowork_wire::daemon::consent::{ConsentAnswer, ConsentEvent, ConsentRequest};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::{MessageDialogButtons, MessageDialogResult};

const ALLOW: &str = "Allow";
const ALWAYS: &str = "Always allow";
const DENY: &str = "Deny";

/// The dialog's title and text for a question; a question from a workspace other than `active`
/// (a browser tab on it, an agent's run) names that workspace.
pub fn question(request: &ConsentRequest, active: &Path) -> (String, String) {
    let given = |text: &str| !text.is_empty();
    fn field(value: &Option<String>) -> Option<&str> {
        value.as_deref().filter(|s| !s.is_empty())
    }
    let app = [request.app_title.as_str(), request.app.as_str()]
        .into_iter()
        .find(|s| given(s))
        .unwrap_or("An app");
    let elsewhere = Some(request.workspace.as_str())
        .filter(|s| given(s))
        .map(Path::new)
        .filter(|workspace| *workspace != active)
        .map(|workspace| format!(" in the workspace {}", workspaces::display_name(workspace)))
        .unwrap_or_default();
    let routine =
        field(&request.routine).map(|r| format!(" (routine {r}{elsewhere})")).unwrap_or(elsewhere);
    let value = Some(request.value.as_str()).filter(|s| given(s));
    match field(&request.command) {
        Some(command) => {
            // "Always" approves the label for this app: a label that is not the command itself is
            // shown, since it is what a later run of another command under it is matched by.
            let label = value
                .filter(|value| *value != command)
                .map(|value| format!(" under the label \"{value}\""))
                .unwrap_or_default();
            (format!("Allow {app} to run a command?"), format!("{app}{routine} wants to run:\n\n{command}\n\n\"{ALWAYS}\" remembers the answer{label} for {app} in this workspace."))
        }
        None => {
            let what =
                field(&request.title).or(value).unwrap_or("something that needs your permission");
            let description =
                field(&request.description).map(|d| format!("\n\n{d}")).unwrap_or_default();
            (format!("Allow {app}?"), format!("{app}{routine} asks: {what}{description}\n\n\"{ALWAYS}\" remembers the answer for this workspace."))
        }
    }
}

/// What a button means: `(granted, remember)`.
pub fn answer(result: &MessageDialogResult) -> (bool, bool) {
    match result {
        MessageDialogResult::Custom(label) if label == ALLOW => (true, false),
        MessageDialogResult::Custom(label) if label == ALWAYS => (true, true),
        MessageDialogResult::Yes => (true, false),
        MessageDialogResult::No => (true, true),
        // Deny, Escape, or the dialog closed.
        _ => (false, false),
    }
}

/// Follows the questions for the shell's life.
pub fn init(app: &tauri::App) {
    shell::keep(app.handle(), tauri::async_runtime::spawn(follow(app.handle().clone())));
}

async fn follow(app: AppHandle) {
    loop {
        match app.state::<Session>().link.daemon.consent_requests().await {
            Ok(events) => ask_each(&app, events).await,
            Err(error) => tracing::warn!("failed to follow consent questions: {error}"),
        }
        if session::quitting(&app) {
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The questions received and not yet done with, and the one whose dialog is up.
#[derive(Default)]
struct Questions {
    /// Whether each has closed elsewhere (answered in a browser tab, or withdrawn).
    closed: HashMap<String, bool>,
    /// The id and title of the question whose dialog is up.
    shown: Option<(String, String)>,
}

/// Asks the stream's questions in turn while its closes keep coming in: a question closed before
/// its turn is not asked, and one closed while its dialog is up has its dialog closed (on Linux)
/// and is not answered from here.
async fn ask_each(app: &AppHandle, mut events: Subscription<ConsentEvent>) {
    let questions = Mutex::new(Questions::default());
    let (queue, mut queued) = tokio::sync::mpsc::unbounded_channel();
    let read = async {
        let queue = queue;
        while let Some(event) = events.next().await {
            match event {
                ConsentEvent::Asked(request) => {
                    questions.lock().closed.insert(request.id.clone(), false);
                    let _ = queue.send(request);
                }
                ConsentEvent::Closed(close) => {
                    let mut questions = questions.lock();
                    if let Some(closed) = questions.closed.get_mut(&close.id) {
                        *closed = true;
                    }
                    match &questions.shown {
                        Some((id, title)) if *id == close.id => close_dialog(app, title.clone()),
                        _ => {}
                    }
                }
            }
        }
    };
    let asking = async {
        while let Some(request) = queued.recv().await {
            ask(app, &request, &questions).await;
            questions.lock().closed.remove(&request.id);
        }
    };
    tokio::join!(read, asking);
}

async fn ask(app: &AppHandle, request: &ConsentRequest, questions: &Mutex<Questions>) {
    let id = &request.id;
    let closed = || questions.lock().closed.get(id).copied().unwrap_or(true);
    let (title, message) = question(request, &session::active(app));
    {
        // Marked shown before the check, so a close from now on reaches the dialog.
        let mut questions = questions.lock();
        if questions.closed.get(id).copied().unwrap_or(true) {
            return;
        }
        questions.shown = Some((id.clone(), title.clone()));
    }
    main_window::show(app);
    let result = dialogs::ask(
        app,
        &title,
        &message,
        MessageDialogButtons::YesNoCancelCustom(ALLOW.into(), ALWAYS.into(), DENY.into()),
    )
    .await;
    questions.lock().shown = None;
    if closed() {
        // Answered in another window (or withdrawn) while this dialog was up: that answer counts.
        return;
    }
    let (granted, remember) = answer(&result);
    let reply = ConsentAnswer { id: id.clone(), granted, remember };
    if let Err(error) = app.state::<Session>().link.daemon.answer_consent(&reply).await {
        // The run ended (or timed out) while the dialog was open: nothing waits for the answer.
        tracing::warn!("failed to answer the consent question {id}: {error}");
    }
}

/// Closes the consent dialog titled `title`, as if dismissed: its question was answered elsewhere.
/// The dialog plugin returns no handle to a message dialog, so it is found among GTK's windows.
#[cfg(target_os = "linux")]
fn close_dialog(app: &AppHandle, title: String) {
    use gtk::prelude::*;
    let closed = app.run_on_main_thread(move || {
        let dialogs = gtk::Window::list_toplevels()
            .into_iter()
            .filter_map(|window| window.downcast::<gtk::MessageDialog>().ok())
            .filter(|dialog| dialog.title().is_some_and(|shown| shown == title.as_str()));
        for dialog in dialogs {
            dialog.response(gtk::ResponseType::DeleteEvent);
        }
    });
    if let Err(error) = closed {
        tracing::warn!("failed to close a consent dialog answered elsewhere: {error}");
    }
}

/// Elsewhere the dialog stays up until clicked; its answer is not sent (see [`ask`]).
#[cfg(not(target_os = "linux"))]
fn close_dialog(_app: &AppHandle, _title: String) {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A question as the daemon streams it.
    fn asked(request: serde_json::Value) -> ConsentRequest {
        serde_json::from_value(request).unwrap()
    }

    #[test]
    fn a_command_question_names_the_app_and_the_command() {
        let request = asked(
            json!({"id": "c1", "workspace": "/w", "app": "notes", "appTitle": "Notes", "routine": "notes-sync", "value": "git pull", "command": "git pull"}),
        );
        let (title, message) = question(&request, Path::new("/w"));
        assert_eq!(title, "Allow Notes to run a command?");
        assert!(
            message.starts_with("Notes (routine notes-sync) wants to run:\n\ngit pull\n\n"),
            "{message}"
        );
        let (_, message) = question(&request, Path::new("/other"));
        assert!(
            message.starts_with("Notes (routine notes-sync in the workspace w) wants to run:"),
            "{message}"
        );
    }

    #[test]
    fn a_command_question_shows_the_label_it_is_remembered_under() {
        let request = asked(
            json!({"id": "c3", "workspace": "/w", "app": "files", "appTitle": "Files", "value": "list files", "command": "id > pwned.txt"}),
        );
        let (_, message) = question(&request, Path::new("/w"));
        assert!(message.contains("id > pwned.txt"), "{message}");
        assert!(
            message.ends_with(
                "remembers the answer under the label \"list files\" for Files in this workspace."
            ),
            "{message}"
        );
    }

    #[test]
    fn a_request_question_uses_its_title_and_description() {
        let request = asked(
            json!({"id": "c2", "workspace": "/w", "app": "mail", "appTitle": "Mail", "routine": "mail-send", "value": "send", "title": "Send 3 emails", "description": "To the team"}),
        );
        let (title, message) = question(&request, Path::new("/w"));
        assert_eq!(title, "Allow Mail?");
        assert!(
            message.starts_with("Mail (routine mail-send) asks: Send 3 emails\n\nTo the team"),
            "{message}"
        );
    }

    #[test]
    fn buttons_map_to_granted_and_remember() {
        assert_eq!(answer(&MessageDialogResult::Custom(ALLOW.into())), (true, false));
        assert_eq!(answer(&MessageDialogResult::Custom(ALWAYS.into())), (true, true));
        assert_eq!(answer(&MessageDialogResult::Custom(DENY.into())), (false, false));
        assert_eq!(answer(&MessageDialogResult::Cancel), (false, false));
    }
}
