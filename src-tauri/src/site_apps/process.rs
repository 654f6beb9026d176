//! Which WebKit web process a site app's page runs in (Linux).
//!
//! Every WebKit process pays about 30 MB of its own before any page: the data of WebKit's, Mesa's
//! (libLLVM, about 14 MB) and flite's libraries relocated at its start, which no other process
//! shares (BENCHMARKS.md, "Site apps"). Chromium pays that once, in its zygote. So a person may
//! ask (`COWORK_SITE_PROCESSES=shared`) that the site apps sharing the workspace's storage
//! ([`super::storage`]: apps on sites of their own) share one web process too, as a browser
//! window's tabs did before site isolation: the first one's view is
//! the "related view" of the next (`webkit_web_view_new_with_related_view`), which WebKitGTK 4.1
//! keeps in its process (cross-site process swaps are off in 4.1's contexts, wry's included).
//!
//! It is not the default because of what it gives up: their storage and network process are
//! shared already (one cookie jar, apart by site), but sharing the web process puts their pages in
//! one address space, so a hostile or compromised page of one site could reach another's memory
//! (Chromium, the memory baseline, keeps each site in a renderer of its own), and a crash takes
//! them all (each window then shows WebKit's blank page until it is opened again).
//!
//! Where it does not happen even when asked:
//! - An app that hibernates keeps a process of its own: hibernation gives its process back.
//! - An app with a storage of its own (two apps on one site) is in another web context: its own.
//! - A service worker's notifications: WebKit hands a process the origins allowed to show them
//!   once, when it starts ([`super::window`]). A page joins a process only if its origin was
//!   among those; an app installed after the process started gets a process of its own.

use gtk::glib::WeakRef;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use webkit2gtk::WebView;

/// The variable that turns the sharing on: `shared`; anything else (or unset) gives each site app a
/// web process of its own.
pub const VARIABLE: &str = "COWORK_SITE_PROCESSES";

/// A web process site apps may join: one of its views, the storage it is on, and the origins
/// whose service workers it lets show notifications.
struct Shared {
    view: WeakRef<WebView>,
    data_directory: PathBuf,
    origins: BTreeSet<String>,
}

thread_local! {
    /// The processes site apps may join (the main thread's: views live there).
    static SHARED: RefCell<Vec<Shared>> = const { RefCell::new(Vec::new()) };
}

/// Whether site apps share processes at all (the variable above is `shared`).
pub fn sharing() -> bool {
    std::env::var(VARIABLE).is_ok_and(|value| value == "shared")
}

/// A view of a live process that a page on `origin` stored under `data_directory` may join, and
/// the origins that process lets show notifications; on the main thread.
pub fn to_join(data_directory: &Path, origin: &str) -> Option<(WebView, BTreeSet<String>)> {
    SHARED.with_borrow_mut(|shared| {
        shared.retain(|each| each.view.upgrade().is_some());
        shared
            .iter()
            .filter(|each| each.data_directory == data_directory && each.origins.contains(origin))
            .find_map(|each| Some((each.view.upgrade()?, each.origins.clone())))
    })
}

/// Offers `view`'s process (on `data_directory`, letting `origins` show notifications from their
/// workers) to the site apps that open next; on the main thread.
pub fn offer(view: &WebView, data_directory: &Path, origins: BTreeSet<String>) {
    let weak = WeakRef::new();
    weak.set(Some(view));
    SHARED.with_borrow_mut(|shared| {
        shared.push(Shared { view: weak, data_directory: data_directory.to_path_buf(), origins })
    });
}
