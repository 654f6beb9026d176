//! Cowork's capture dialog: the desktop app's own native window (a page cannot draw over it), naming
//! the app, what it asks for and what it will get. Nothing starts without its Allow.

use cowork_wire::daemon::capture::{CaptureRequest, Order, Video};
use tauri_plugin_dialog::MessageDialogResult;

pub const ALLOW: &str = "Allow";
pub const DENY: &str = "Deny";

/// The dialog's title and text for `request`.
pub fn question(request: &CaptureRequest) -> (String, String) {
    let app = if request.app_title.is_empty() { &request.app } else { &request.app_title };
    match &request.order {
        Order::Shot { source, file, image } => {
            let what = match source {
                Video::Screen => "your screen",
                Video::Window => "the window in front",
            };
            let mut gets = Vec::new();
            if let Some(file) = file {
                gets.push(format!("saved as {}", relative(request, file)));
            }
            if *image {
                gets.push(format!("handed to {app}"));
            }
            (
                format!("Allow {app} to take a picture of {what}?"),
                format!("{app} asks for one picture of {what}, {}.", gets.join(" and ")),
            )
        }
        Order::Record { video, system_audio, mic, live, file } => {
            let mut parts = Vec::new();
            match video {
                Some(Video::Screen) => parts.push("your screen"),
                Some(Video::Window) => parts.push("the window in front"),
                None => {}
            }
            if *system_audio {
                parts.push("the sound your computer plays");
            }
            if *mic {
                parts.push("your microphone");
            }
            let what = join(&parts);
            let mut message = format!(
                "{app} asks to record {what}.\n\nThe recording is saved as {} when it stops; a Stop button stays on screen while it runs.",
                relative(request, file)
            );
            if *live {
                message.push_str(&format!("\n\n{app} also hears the sound live, as it is recorded: it hears what you hear."));
            }
            (format!("Allow {app} to record {what}?"), message)
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join(parts: &[&str]) -> String {
    match parts {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn relative(request: &CaptureRequest, file: &std::path::Path) -> String {
    file.strip_prefix(&request.workspace).unwrap_or(file).display().to_string()
}

/// Whether the person allowed it (Deny, Escape and closing the dialog are a no).
pub fn allowed(result: &MessageDialogResult) -> bool {
    matches!(result, MessageDialogResult::Custom(label) if label == ALLOW)
        || matches!(result, MessageDialogResult::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn request(order: Order) -> CaptureRequest {
        CaptureRequest {
            id: "c1".into(),
            workspace: "/w".into(),
            app: "meet".into(),
            app_title: "Meeting Notes".into(),
            order,
        }
    }

    #[test]
    fn the_dialog_names_the_app_what_it_records_and_what_it_gets() {
        let (title, message) = question(&request(Order::Record {
            video: Some(Video::Screen),
            system_audio: true,
            mic: true,
            live: true,
            file: PathBuf::from("/w/Recordings/a.webm"),
        }));
        assert_eq!(
            title,
            "Allow Meeting Notes to record your screen, the sound your computer plays and your microphone?"
        );
        assert!(message.contains("saved as Recordings/a.webm"), "{message}");
        assert!(message.ends_with("it hears what you hear."), "{message}");
        let (title, message) =
            question(&request(Order::Shot { source: Video::Window, file: None, image: true }));
        assert_eq!(title, "Allow Meeting Notes to take a picture of the window in front?");
        assert_eq!(
            message,
            "Meeting Notes asks for one picture of the window in front, handed to Meeting Notes."
        );
    }

    #[test]
    fn only_allow_starts_anything() {
        assert!(allowed(&MessageDialogResult::Custom(ALLOW.into())));
        assert!(!allowed(&MessageDialogResult::Custom(DENY.into())));
        assert!(!allowed(&MessageDialogResult::Cancel));
    }
}
