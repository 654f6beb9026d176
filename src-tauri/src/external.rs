//! Links leaving Cowork (`openExternal`, a link the window would navigate to): a native trust
//! prompt naming the site, unless the person trusted that site this session, then the browser.
//! Only http, https and mailto: a `file:` or custom-scheme link could start a program.

use crate::dialogs;
use crate::ipc::CommandError;
use parking_lot::Mutex;
use std::collections::HashSet;
use tauri::{AppHandle, Manager, Url};
use tauri_plugin_dialog::{MessageDialogButtons, MessageDialogResult};
use tauri_plugin_opener::OpenerExt;

/// Sites trusted this session (managed state); forgotten at Quit.
#[derive(Default)]
pub struct TrustedHosts(Mutex<HashSet<String>>);

impl TrustedHosts {
    fn contains(&self, site: &str) -> bool {
        self.0.lock().contains(site)
    }

    fn insert(&self, site: String) {
        self.0.lock().insert(site);
    }
}

/// Its part in the shell's life: the sites trusted this session.
pub fn init(app: &tauri::App) {
    app.manage(TrustedHosts::default());
}

/// Why a link was not opened.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LinkError {
    #[error("not a link: {0}")]
    NotALink(String),
    #[error("Cowork opens only http, https and mailto links, not {0}:")]
    Scheme(String),
    #[error("the person did not open {0}")]
    Cancelled(String),
    #[error("failed to open {url} in the browser: {message}")]
    Open { url: String, message: String },
}

/// How a refused link reaches the page: `BadRequest`, `Cancelled` or `Failed`.
impl From<LinkError> for CommandError {
    fn from(error: LinkError) -> Self {
        let name = match error {
            LinkError::NotALink(_) | LinkError::Scheme(_) => "BadRequest",
            LinkError::Cancelled(_) => "Cancelled",
            LinkError::Open { .. } => "Failed",
        };
        CommandError::new(name, error)
    }
}

/// The link, if Cowork may open it.
pub fn parse(url: &str) -> Result<Url, LinkError> {
    let link = Url::parse(url).map_err(|_| LinkError::NotALink(url.to_string()))?;
    match link.scheme() {
        "http" | "https" | "mailto" => Ok(link),
        other => Err(LinkError::Scheme(other.to_string())),
    }
}

/// What trust is granted to: the host (with its port), or the scheme for `mailto:`.
pub fn site(link: &Url) -> String {
    match (link.host_str(), link.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        _ => link.scheme().to_string(),
    }
}

/// Opens `url` in the browser after the trust prompt.
pub async fn open(app: &AppHandle, url: &str) -> Result<(), LinkError> {
    let link = parse(url)?;
    let site = site(&link);
    let trusted = app.state::<TrustedHosts>();
    if !trusted.contains(&site) {
        let trust = format!("Open and trust {site}");
        let question = format!("Open {site} in your browser?");
        let buttons =
            MessageDialogButtons::YesNoCancelCustom("Open".into(), trust.clone(), "Cancel".into());
        match dialogs::ask(app, &question, link.as_str(), buttons).await {
            MessageDialogResult::Custom(label) if label == "Open" => {}
            MessageDialogResult::Custom(label) if label == trust => trusted.insert(site),
            _ => return Err(LinkError::Cancelled(link.to_string())),
        }
    }
    app.opener()
        .open_url(link.as_str(), None::<&str>)
        .map_err(|error| LinkError::Open { url: link.to_string(), message: error.to_string() })
}

/// Opens `url` after the prompt, from a place that cannot wait (a navigation the window refused).
pub fn open_later(app: &AppHandle, url: &str) {
    let app = app.clone();
    let url = url.to_string();
    tauri::async_runtime::spawn(async move {
        match open(&app, &url).await {
            Ok(()) | Err(LinkError::Cancelled(_)) => {}
            Err(error) => tracing::warn!("{error}"),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_https_and_mailto_open() {
        assert!(parse("https://example.com/a?b").is_ok());
        assert!(parse("mailto:me@example.com").is_ok());
        assert_eq!(parse("file:///etc/passwd").unwrap_err(), LinkError::Scheme("file".into()));
        assert_eq!(
            parse("javascript:alert(1)").unwrap_err(),
            LinkError::Scheme("javascript".into())
        );
        assert_eq!(parse("not a url").unwrap_err(), LinkError::NotALink("not a url".into()));
    }

    #[test]
    fn trust_is_per_host_and_port() {
        assert_eq!(site(&parse("https://Example.com/x").unwrap()), "example.com");
        assert_eq!(site(&parse("http://localhost:3000/").unwrap()), "localhost:3000");
        assert_eq!(site(&parse("mailto:me@example.com").unwrap()), "mailto");
    }

    #[test]
    fn errors_reach_the_page_as_name_and_message() {
        let error = CommandError::from(LinkError::Scheme("file".into()));
        assert_eq!(
            serde_json::to_value(&error).unwrap(),
            serde_json::json!({"name": "BadRequest", "message": "Cowork opens only http, https and mailto links, not file:"})
        );
    }
}
