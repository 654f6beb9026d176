//! Declares the app's own commands, so the capability in `capabilities/main.json` can allow them
//! (`allow-open-external`, …): without this manifest Tauri has no permission to grant a remote page.
//! `site_report` is granted at run time, per site app's window (`site_apps::grant`), never to `main`.

use tauri_build::{AppManifest, Attributes};

fn main() {
    tauri_build::try_build(Attributes::new().app_manifest(AppManifest::new().commands(&[
        "open_external",
        "open_folder",
        "switch_workspace",
        "open_site_app",
        "open_browser",
        "browser_status",
        "site_hibernation",
        "set_site_hibernation",
        "sign_in",
        "set_theme",
        "site_report",
    ])))
    .expect("failed to generate the Tauri context (tauri.conf.json, capabilities/, ../icons/)");
}
