//! Where a site app's cookies and storage live, on this machine under the Cowork root.
//!
//! WebKitGTK gives each data directory a network process of its own (about 12 MB, and a web
//! context), so site apps on sites of their own share one directory per workspace,
//! `sites/<workspace key>/_shared/`: their cookies and storage stay apart by site there, as in one
//! browser profile (the reference's site apps run on the browser's accounts). An app has a
//! directory of its own, `sites/<workspace key>/<app>/`, when another site app of the workspace is
//! on its site as it first opens, so that two apps on one site can hold two accounts. Where an app
//! first went it stays (a marker `<app>.shared` beside the directories records the shared one), so
//! nobody is signed out by an app installed later, or by this change: an app that has a directory
//! of its own from before keeps it.

use cowork_core::paths::{workspace_key, Root};
use std::path::{Path, PathBuf};
use tauri::Url;

/// The shared directory's name: app names start with a letter or a digit, so no app has it.
const SHARED: &str = "_shared";

/// The data directory of the site app `app` (on `url`) of `workspace`, made if need be; `others`
/// are the addresses of the workspace's other site apps.
pub fn data_directory<'a>(
    root: &Root,
    workspace: &Path,
    app: &str,
    url: &Url,
    others: impl IntoIterator<Item = &'a Url>,
) -> std::io::Result<PathBuf> {
    let sites = root.dir().join("sites").join(workspace_key(workspace));
    let own = sites.join(app);
    let marker = sites.join(format!("{app}.shared"));
    if own.is_dir() {
        return Ok(own);
    }
    let site = site_of(url);
    let alone = || site.is_some() && others.into_iter().all(|other| site_of(other) != site);
    let recorded = marker.exists();
    if recorded || alone() {
        let shared = sites.join(SHARED);
        std::fs::create_dir_all(&shared)?;
        if !recorded {
            std::fs::write(&marker, "")?;
        }
        return Ok(shared);
    }
    std::fs::create_dir_all(&own)?;
    Ok(own)
}

/// Whether `directory` (from [`data_directory`]) is the shared one.
pub fn is_shared(directory: &Path) -> bool {
    directory.file_name().is_some_and(|name| name == SHARED)
}

/// The site cookies can be shared across: the host for an address or `localhost` (any
/// `*.localhost`), else its last two labels. Two labels overshoot on public suffixes such as
/// `co.uk` (two unrelated sites taken for one), which only costs them a directory each; `None`
/// without a host.
fn site_of(url: &Url) -> Option<String> {
    let host = url.host_str()?;
    // An IP address has no domain: its own site.
    let Some(domain) = url.domain() else { return Some(host.to_string()) };
    let domain = domain.trim_end_matches('.').to_ascii_lowercase();
    if domain == "localhost" || domain.ends_with(".localhost") {
        return Some("localhost".into());
    }
    let labels: Vec<&str> = domain.rsplitn(3, '.').collect();
    Some(match labels.as_slice() {
        [top, second, ..] => format!("{second}.{top}"),
        _ => domain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url;

    #[test]
    fn sites_are_hosts_cut_to_their_last_two_labels() {
        let site = |text: &str| site_of(&url(text)).unwrap();
        assert_eq!(site("https://mail.google.com/mail/"), "google.com");
        assert_eq!(site("https://calendar.google.com/"), site("https://google.com/"));
        assert_eq!(site("https://web.whatsapp.com/"), "whatsapp.com");
        assert_eq!(site("https://Chat.Example.COM./"), "example.com");
        assert_eq!(site("http://127.0.0.1:8080/a/"), site("http://127.0.0.1:9090/b/"));
        assert_eq!(site("http://[::1]:8080/"), "[::1]");
        assert_eq!(site("http://app.localhost:7/"), site("http://localhost:8/"));
        assert_ne!(site("http://localhost/"), site("http://127.0.0.1/"));
    }

    #[test]
    fn apps_on_sites_of_their_own_share_one_directory_and_two_on_one_site_keep_theirs() {
        let home = tempfile::tempdir().unwrap();
        let root = Root::new(home.path());
        let workspace = Path::new("/w/one");
        let (gmail, calendar, slack, slack_two) = (
            url("https://mail.google.com/"),
            url("https://calendar.google.com/"),
            url("https://team.slack.com/"),
            url("https://other-team.slack.com/"),
        );
        let directory = |app: &str, url: &Url, others: &[&Url]| {
            data_directory(&root, workspace, app, url, others.iter().copied()).unwrap()
        };
        let shared = directory("slack", &slack, &[&gmail, &calendar]);
        assert!(shared.ends_with("_shared") && shared.is_dir(), "{}", shared.display());
        assert!(is_shared(&shared));
        assert!(shared.starts_with(home.path().join("sites")));
        // Gmail and Calendar are both on google.com: each its own, so each its own account.
        let mail = directory("gmail", &gmail, &[&calendar, &slack]);
        let cal = directory("calendar", &calendar, &[&gmail, &slack]);
        assert!(mail.ends_with("gmail") && cal.ends_with("calendar") && mail.is_dir());
        assert!(!is_shared(&mail) && !is_shared(&cal));
        // A second Slack installed later has its own; the first stays where its sign-in is.
        assert!(directory("slack-two", &slack_two, &[&slack]).ends_with("slack-two"));
        assert_eq!(directory("slack", &slack, &[&slack_two, &gmail]), shared);
        // So does an app with a directory of its own from before, alone on its site now.
        assert_eq!(directory("gmail", &gmail, &[&slack]), mail);
        // A storage that cannot be made is an error, not a window without one.
        let blocked = tempfile::tempdir().unwrap();
        std::fs::write(blocked.path().join("sites"), "a file where the folder goes").unwrap();
        let error = data_directory(&Root::new(blocked.path()), workspace, "slack", &slack, [])
            .expect_err("sites/ is a file");
        assert!(
            matches!(
                error.kind(),
                std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::NotADirectory
            ),
            "{error:?}"
        );
        // Another workspace has a shared directory of its own.
        let elsewhere = data_directory(&root, Path::new("/w/two"), "slack", &slack, []).unwrap();
        assert!(elsewhere.ends_with("_shared"));
        assert_ne!(elsewhere, shared);
        // macOS: a data store per directory, the same on every run.
        let store = super::super::window::store_identifier;
        assert_ne!(store(&mail), store(&shared));
        assert_eq!(
            store(Path::new("")),
            [
                0xcb, 0xf2, 0x9c, 0xe4, 0x84, 0x22, 0x23, 0x25, 0x6c, 0x62, 0x27, 0x2e, 0x07, 0xbb,
                0x01, 0x42
            ]
        );
    }
}
