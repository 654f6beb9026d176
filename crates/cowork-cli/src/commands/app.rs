//! `cowork app list|enable|disable`: read and switch the workspace's apps. A switch goes through
//! the running daemon when there is one (`POST /api/apps/enable`), which writes
//! `.cowork/workspace.json` and reloads its registry before answering, so a routine run right after
//! sees it; without a daemon it edits the file itself (locked and atomic).
//! `cowork app install <url>|remove`: site apps, through cowork-sites (`--hibernate` writes the
//! app's setting on this machine: `cowork_sites::settings`).

use crate::cli::{AppCommand, SiteDisplay};
use crate::exit::{CommandResult, Exit, Failure};
use crate::{table, workspace};
use cowork_core::registry::{self, App, Kind};
use cowork_core::workspace_json;
use cowork_engine::secret_access;
use cowork_sites::{InstallError, Progress, RemoveError};
use cowork_wire::daemon::workbench::{AppSwitch, OpenApp};
use serde_json::json;
use std::io::IsTerminal;
use std::path::Path;

pub async fn run(command: AppCommand) -> CommandResult {
    match command {
        AppCommand::Serve { folder, port, no_open } => serve(folder, port, no_open).await,
        AppCommand::Open { file, mode } => open(&file, mode).await,
        AppCommand::List { json, workspace } => {
            list(&workspace::resolve(workspace.workspace.as_deref())?, json).await
        }
        AppCommand::Install {
            url,
            title,
            display,
            hibernate,
            allow_unverified,
            json,
            workspace,
        } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            // `<team-server>/<app>`: a store install; an address (`https://…`, or a bare host
            // the site install explains) a site app.
            if super::store::is_spec(&url) {
                return super::store::install(&ws, &url, allow_unverified, json).await;
            }
            let hibernate = hibernate.map(|minutes| std::time::Duration::from_secs(minutes * 60));
            install(&ws, &url, title, display, hibernate).await
        }
        AppCommand::Remove { app, json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            super::store::remove(&ws, &app, json).unwrap_or_else(|| remove(&ws, &app, json))
        }
        AppCommand::Versions { app, json, workspace } => {
            super::store::versions(&workspace::resolve(workspace.workspace.as_deref())?, &app, json)
                .await
        }
        AppCommand::Update { app, choice, allow_unverified, json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            super::store::update(&ws, app.as_deref(), choice.choice(), allow_unverified, json).await
        }
        AppCommand::Unpublish { app, yes, json } => super::store::unpublish(&app, yes, json).await,
        AppCommand::Enable { app, json, workspace } => {
            switch(&workspace::resolve(workspace.workspace.as_deref())?, &app, true, json).await
        }
        AppCommand::Disable { app, json, workspace } => {
            switch(&workspace::resolve(workspace.workspace.as_deref())?, &app, false, json).await
        }
        AppCommand::Build(_) => Err(super::absent::refused("app build")),
        AppCommand::Deploy(_) => Err(super::absent::refused("app deploy")),
    }
}

/// `cowork app serve`: the workbench of `folder` in a browser tab — through the running daemon,
/// or a daemon started here in the foreground on 51190.
pub async fn serve(
    folder: Option<std::path::PathBuf>,
    port: Option<u16>,
    no_open: bool,
) -> CommandResult {
    let ws = workspace::resolve(folder.as_deref())?;
    let root = cowork_core::paths::Root::from_env();
    if let Some(running) = cowork_daemon::discovery::discover(&root).await {
        let url = running.daemon.workbench_link(&ws).await.map_err(|e| {
            Failure::new(Exit::Failed, "failed to get a workbench link from the running daemon")
                .caused_by(&e)
        })?;
        outln!("Workbench (through the running daemon): {url}");
        if !no_open && !super::start::open_browser(&url) {
            outln!("(no browser to open here: open the address above)");
        }
        return Ok(Exit::Ok);
    }
    let options = cowork_daemon::StartOptions {
        port: Some(port.unwrap_or(SERVE_PORT)),
        workspace: Some(ws.clone()),
        ..Default::default()
    };
    super::start::serve(options, Some(ws), no_open).await
}

/// `cowork app open <file>`: finds the workspace and app the file belongs to, and asks the running
/// workbench to open it.
async fn open(file: &Path, mode: Option<crate::cli::OpenMode>) -> CommandResult {
    let path = file.canonicalize().map_err(|e| {
        Failure::new(Exit::NotFound, format!("failed to open {}: {e}", file.display()))
    })?;
    let app_dir = path
        .ancestors()
        .find(|p| p.parent().is_some_and(|apps| apps.ends_with(".cowork/apps")))
        .ok_or_else(|| {
            Failure::new(
                Exit::Usage,
                format!("{} is not inside an app folder (.cowork/apps/<name>/)", file.display()),
            )
            .hint("name a widget file or a cowork.json of an app")
        })?;
    let ws = app_dir
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .expect("an app folder sits in <workspace>/.cowork/apps");
    let registry = registry::load(ws);
    let dir = format!(".cowork/apps/{}", app_dir.file_name().unwrap_or_default().to_string_lossy());
    let app = registry.app(&dir).ok_or_else(|| {
        Failure::new(Exit::NotFound, format!("{dir} is not an app (see `cowork app list`)"))
    })?;
    let rel = path
        .strip_prefix(app_dir)
        .expect("the file is inside its app folder")
        .to_string_lossy()
        .into_owned();
    let widget = (rel != "cowork.json").then_some(rel);
    let root = cowork_core::paths::Root::from_env();
    let running = cowork_daemon::discovery::discover(&root).await.ok_or_else(|| {
        Failure::new(Exit::NoDaemon, "Cowork is not running")
            .hint(format!("`cowork app serve {}` opens the workbench", ws.display()))
    })?;
    let mode = mode.map(|m| match m {
        crate::cli::OpenMode::Tab => "tab",
        crate::cli::OpenMode::Dialog => "dialog",
        crate::cli::OpenMode::Sidemenu => "sidemenu",
    });
    let open = OpenApp {
        workspace: ws.to_path_buf(),
        app: app.manifest.name.clone(),
        file: widget.clone(),
        r#as: mode.map(String::from),
    };
    running.daemon.open(&open).await.map_err(|e| {
        Failure::new(Exit::Failed, &e)
            .hint(format!("`cowork app serve {}` opens the workbench", ws.display()))
    })?;
    outln!(
        "Opened {} in the workbench.",
        widget
            .as_deref()
            .map(|w| format!("{dir}/{w}"))
            .unwrap_or_else(|| app.manifest.name.clone())
    );
    Ok(Exit::Ok)
}

/// The port `cowork app serve` uses when it starts the daemon itself.
const SERVE_PORT: u16 = 51190;

fn kind_name(app: &App) -> &'static str {
    match app.manifest.kind {
        Kind::App => "app",
        Kind::Capability => "capability",
    }
}

/// Every widget of the switched-on apps that would not run: a syntax error, or an import outside
/// the allowlist — what its pane would show, found before anyone opens it.
fn widget_problems(registry: &registry::Registry) -> Vec<String> {
    let cache = cowork_transpile::Cache::new(
        cowork_core::paths::Root::from_env().cache_dir().join("transpile"),
    );
    registry
        .apps
        .iter()
        .flat_map(|app| {
            cowork_engine::widgets::problems(&cache, app)
                .into_iter()
                .map(move |error| format!("{}/{error}", app.dir))
        })
        .collect()
}

async fn list(ws: &Path, as_json: bool) -> CommandResult {
    let registry = registry::load(ws);
    let dirs: Vec<String> = registry.apps.iter().map(|a| a.dir.clone()).collect();
    let looked = super::store::look_up(ws, &dirs).await.unwrap_or_else(|why| {
        eprintln!("note: could not ask the team servers whether newer versions are out: {why}");
        Default::default()
    });
    // Folder → `local` or `<team-server>@<version> (pinned|auto)`, a newer version's, or that its
    // team server is gone (the app stays as installed).
    let source = |dir: &str| match (looked.newer.get(dir), looked.gone.contains_key(dir)) {
        (_, true) => format!("{}, team server gone", super::store::source(ws, dir)),
        (Some(latest), false) => format!("{}, v{latest} out", super::store::source(ws, dir)),
        (None, false) => super::store::source(ws, dir),
    };
    let widgets = widget_problems(&registry);
    // Courses are files of the workspace too: their rules are the store's (page 11).
    let courses = cowork_store::course::problems(ws);
    let unrestricted: Vec<&App> =
        // A folder whose name another owns registers nothing: it reaches no secret either.
        registry
            .apps
            .iter()
            .filter(|a| a.owns_name && secret_access::is_unrestricted(&a.manifest))
            .collect();
    if as_json {
        let names: Vec<&str> = unrestricted.iter().map(|a| a.manifest.name.as_str()).collect();
        let sources: serde_json::Map<String, serde_json::Value> = registry
            .apps
            .iter()
            .map(|a| (a.dir.clone(), super::store::source(ws, &a.dir).into()))
            .collect();
        outln!(
            "{}",
            json!({ "apps": registry.apps, "broken": registry.broken, "skipped": registry.notes, "problems": registry.problems.iter().chain(&courses).collect::<Vec<_>>(), "widgetProblems": widgets, "unrestricted": names, "sources": sources, "newer": looked.newer, "gone": looked.gone })
        );
        return Ok(Exit::Ok);
    }
    if registry.apps.is_empty() && registry.broken.is_empty() && registry.notes.is_empty() {
        outln!("No apps in {}.", ws.display());
        if let Some(hint) = workspace::no_apps_hint(ws) {
            outln!("hint: {hint}");
        }
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = registry
        .apps
        .iter()
        .map(|a| {
            let state = if !a.enabled {
                "off"
            } else if !a.owns_name {
                // Page 12: a second folder claiming a name is broken; it registers nothing.
                "broken (name taken)"
            } else {
                "on"
            };
            vec![
                a.manifest.name.clone(),
                a.manifest.version.clone(),
                kind_name(a).into(),
                source(&a.dir),
                state.into(),
                a.dir.clone(),
            ]
        })
        .collect();
    table::print(&["NAME", "VERSION", "KIND", "SOURCE", "STATE", "FOLDER"], &rows);
    if !unrestricted.is_empty() {
        let refused = if registry.config.allows_unrestricted() {
            ""
        } else {
            " — refused here: .cowork/workspace.json sets \"unrestrictedPackages\": false"
        };
        outln!("\nReaching every secret{refused}:");
        for app in unrestricted {
            outln!("  {}: {}", app.manifest.name, secret_access::UNRESTRICTED);
        }
    }
    let problems: Vec<String> = registry
        .all_problems()
        .map(|p| p.to_string())
        .chain(widgets)
        .chain(courses.iter().map(|p| p.to_string()))
        .collect();
    let broken: Vec<String> = registry.broken.iter().map(|b| b.dir.clone()).collect();
    if !broken.is_empty() {
        outln!("\nNot apps (fix the manifest to register them): {}", broken.join(", "));
    }
    // Folders under .cowork/apps/ that discovery passed over (a name it does not take): without
    // this line they were nowhere, and their routines "not found".
    if !registry.notes.is_empty() {
        outln!("\nSkipped folders:");
        for note in &registry.notes {
            outln!("  {note}");
        }
    }
    if !problems.is_empty() {
        outln!("\nProblems:");
        for problem in problems {
            outln!("  {problem}");
        }
    }
    Ok(Exit::Ok)
}

async fn switch(ws: &Path, spec: &str, enabled: bool, as_json: bool) -> CommandResult {
    let registry = registry::load(ws);
    let app = match registry.app(spec).or_else(|| registry.apps.iter().find(|a| a.folder == spec)) {
        Some(folder) => Some(folder),
        None => switched_by_name(&registry, spec, enabled)?,
    };
    let app = app.ok_or_else(|| {
        Failure::new(Exit::NotFound, format!("no app \"{spec}\" in {}", ws.display())).hint("name its folder (.cowork/apps/gmail), the folder's basename, or the manifest name; `cowork app list` shows them")
    })?;
    let switched =
        |changed: bool| json!({ "app": app.dir, "enabled": enabled, "changed": changed });
    if app.enabled == enabled {
        if as_json {
            outln!("{}", switched(false));
        } else {
            outln!("{} is already {}.", app.dir, if enabled { "on" } else { "off" });
        }
        return Ok(Exit::Ok);
    }
    // Through the daemon when one runs: its file watcher alone would see the change only after its
    // debounce, and a routine run right after would still find the app as it was.
    match cowork_daemon::discovery::discover(&cowork_core::paths::Root::from_env()).await {
        Some(running) => {
            let switch = AppSwitch {
                workspace: Some(ws.to_path_buf()),
                app: app.dir.clone(),
                enabled: Some(enabled),
                muted: None,
            };
            running.daemon.switch_app(&switch).await.map_err(super::daemon_failure)?;
        }
        None => {
            workspace_json::set_app_disabled(ws, &app.dir, !enabled)
                .map_err(|e| Failure::new(Exit::Failed, &e).caused_by(&e))?;
            // What the daemon does on its reload: the switched app's SKILL.md linked or unlinked.
            if let Err(error) = cowork_core::skills::link(&registry::load(ws)) {
                eprintln!("warning: could not update .claude/skills: {error}");
            }
        }
    }
    if as_json {
        outln!("{}", switched(true));
        return Ok(Exit::Ok);
    }
    outln!(
        "{} is now {}.",
        app.dir,
        if enabled {
            "on"
        } else {
            "off: no rail icon, no file routes, its routines refuse to run"
        }
    );
    Ok(Exit::Ok)
}

/// The app a switch by manifest name means. Two folders can hold one name (Keep both's copy
/// beside the original): off goes the folder that owns the name; on comes the switched-off
/// folder of that name when there is one, and when there are several they are named for the
/// person to pick.
fn switched_by_name<'r>(
    registry: &'r registry::Registry,
    name: &str,
    enabled: bool,
) -> Result<Option<&'r App>, Failure> {
    let off: Vec<&App> =
        registry.apps.iter().filter(|app| app.manifest.name == name && !app.enabled).collect();
    match off.as_slice() {
        [one] if enabled => Ok(Some(one)),
        [_, _, ..] if enabled => {
            let dirs: Vec<&str> = off.iter().map(|app| app.dir.as_str()).collect();
            Err(Failure::new(
                Exit::Usage,
                format!("several folders hold the app \"{name}\": {}", dirs.join(", ")),
            )
            .hint(format!("name the folder: cowork app enable {}", dirs[0])))
        }
        _ => Ok(registry.app_by_name(name)),
    }
}

/// `cowork app install <url>`: the site as a site app, with a progress line on stderr while it
/// fetches (rewritten in place on a terminal, one line per step otherwise).
async fn install(
    ws: &Path,
    url: &str,
    title: Option<String>,
    display: Option<SiteDisplay>,
    hibernate: Option<std::time::Duration>,
) -> CommandResult {
    let display = match display {
        None | Some(SiteDisplay::Tab) => cowork_sites::Display::Tab,
        Some(SiteDisplay::Sidebar) => cowork_sites::Display::Sidebar,
        Some(SiteDisplay::Right) => cowork_sites::Display::Right,
    };
    let options = cowork_sites::InstallOptions { title, display, ..Default::default() };
    let mut line = ProgressLine { terminal: std::io::stderr().is_terminal() };
    let mut show = |step: Progress| match step {
        Progress::Fetching(url) => line.show(&format!("Fetching {url}")),
        Progress::ReadingManifest => line.show("Reading its manifest…"),
        Progress::FetchingIcon => line.show("Fetching its icon…"),
    };
    let root = cowork_core::paths::Root::from_env();
    let result = cowork_sites::install(&root, ws, url, &options, &mut show).await;
    line.clear();
    let installed = result.map_err(|error| {
        let code =
            if matches!(error, InstallError::BadUrl { .. }) { Exit::Usage } else { Exit::Failed };
        let mut failure = Failure::new(code, &error).caused_by(&error);
        if matches!(error, InstallError::Installed { .. }) {
            failure =
                failure.named(cowork_core::error_name::ErrorName::Other("AlreadyExists".into()));
        }
        match error.hint() {
            Some(hint) => failure.hint(hint),
            None => failure,
        }
    })?;
    for note in &installed.notes {
        eprintln!("note: {note}");
    }
    if let Some(after) = hibernate {
        cowork_sites::settings::set_hibernation(&root, ws, &installed.name, Some(after)).map_err(
            |error| {
                Failure::new(Exit::Failed, &error)
                    .caused_by(&error)
                    .hint("the app is installed: switch its hibernation on in Manage Workspace")
            },
        )?;
    }
    let manifest = format!("{}/cowork.json", installed.dir);
    // The open command must work from where the person is: relative only inside the workspace.
    let in_workspace =
        std::env::current_dir().ok().and_then(|d| d.canonicalize().ok()).is_some_and(|d| d == ws);
    let open_path = if in_workspace { manifest } else { ws.join(&manifest).display().to_string() };
    outln!(
        "Installed {} as {}/ (open it with: cowork app open {open_path})",
        installed.title,
        installed.dir
    );
    if let Some(after) = hibernate {
        outln!("It hibernates after {} min out of sight.", after.as_secs() / 60);
    }
    Ok(Exit::Ok)
}

/// One line of progress on stderr: replaced in place on a terminal, else one line per step.
pub(super) struct ProgressLine {
    pub(super) terminal: bool,
}

impl ProgressLine {
    pub(super) fn show(&mut self, text: &str) {
        if self.terminal {
            eprint!("\r\x1b[2K{text}");
        } else {
            eprintln!("{text}");
        }
    }

    pub(super) fn clear(&mut self) {
        if self.terminal {
            eprint!("\r\x1b[2K");
        }
    }
}

/// `cowork app remove <app>`: what was deleted, and each kept file with why.
fn remove(ws: &Path, app: &str, as_json: bool) -> CommandResult {
    let removed =
        cowork_sites::remove(&cowork_core::paths::Root::from_env(), ws, app).map_err(|error| {
            let code = if matches!(error, RemoveError::NotFound { .. }) {
                Exit::NotFound
            } else {
                Exit::Failed
            };
            let failure = Failure::new(code, &error).caused_by(&error);
            match error.hint() {
                Some(hint) => failure.hint(hint),
                None => failure,
            }
        })?;
    if as_json {
        let kept = removed.kept.iter().map(|k| (k.file.as_str(), k.why.to_string())).collect();
        super::store::print_removed(
            &removed.dir,
            &removed.deleted,
            kept,
            &removed.missing,
            removed.folder_removed,
        );
        return Ok(Exit::Ok);
    }
    let dir = format!("{}/", removed.dir);
    if removed.deleted.is_empty() && removed.kept.is_empty() {
        outln!("{dir} was already gone: its install record is removed.");
        return Ok(Exit::Ok);
    }
    if removed.folder_removed {
        outln!("Removed {dir} ({}).", removed.deleted.join(", "));
    } else if !removed.deleted.is_empty() {
        outln!("Removed {} from {dir}.", removed.deleted.join(", "));
    }
    for file in &removed.missing {
        outln!("{dir}{file} was already gone.");
    }
    for kept in &removed.kept {
        outln!("Kept {dir}{}: {}.", kept.file, kept.why);
    }
    if removed.other_files {
        outln!("Kept the folder {dir}: it holds files the install did not write.");
    }
    if !removed.kept.is_empty() {
        outln!("What is kept is yours now: delete it yourself when you no longer want it.");
    }
    Ok(Exit::Ok)
}
