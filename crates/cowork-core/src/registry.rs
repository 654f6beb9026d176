//! A workspace's registry: which apps it has, which routine id and which file route belongs to
//! which app, which app the window opens on — everything the daemon, the CLI and the IDE ask about
//! a workspace, built from the app folders' `cowork.json` files and `.cowork/workspace.json`.
//!
//! [`load`] never fails: a broken manifest, a collision or a stale setting is a [`Problem`] in the
//! result, so one bad app never hides the others. The rules, in folder-name order:
//! * two folders with one `name` (a Keep-both copy beside yours): the name belongs to the first
//!   folder that is switched on, else the first; the other is listed and registers nothing (no
//!   routines, no routes, no rail tile), with a problem unless it is switched off while the owner
//!   is on (a Keep-both copy as installed);
//! * routine ids are one namespace: the first ENABLED app declaring an id wins (if only switched-off
//!   apps declare it, the first registers it, disabled); the others get a problem naming the winner;
//! * a file route two switched-on apps claim goes to `openWith[glob]`, else the first of them.
//!
//! ```no_run
//! let registry = cowork_core::registry::load(std::path::Path::new("/work/ws"));
//! if let Some(routine) = registry.routine("gmail-send") {
//!     println!("{} runs {} ({:?} risk)", routine.app_name, routine.file.display(), routine.risk);
//! }
//! for problem in registry.all_problems() {
//!     eprintln!("{problem}");
//! }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::GlobMatcher;
use serde::{Deserialize, Serialize};

use crate::discovery::{self, AppFolder};
use crate::manifest::{self, compile_glob, Manifest, MANIFEST_FILE};
use crate::workspace_json::{self, normalize_entry, WorkspaceConfig, WORKSPACE_FILE};

pub use crate::manifest::{Kind, Risk};
pub use crate::schema::Problem;

/// The name of the app the window opens on when `startup.home` does not say.
pub const DEFAULT_HOME: &str = "home";

/// Everything a workspace registers.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Registry {
    /// The workspace root, as given to [`load`].
    pub root: PathBuf,
    /// `.cowork/workspace.json`, typed.
    pub config: WorkspaceConfig,
    /// The apps, valid manifests only, in folder-name order.
    pub apps: Vec<App>,
    /// Folders with a `cowork.json` that is not an app (bad name or version, not JSON).
    pub broken: Vec<BrokenApp>,
    /// Routine id → the routine that owns it.
    pub routines: BTreeMap<String, RoutineEntry>,
    /// The workspace's own problems: `.cowork/workspace.json` and reading `.cowork/apps/`.
    pub problems: Vec<Problem>,
    /// Folders under `.cowork/apps/` that were skipped, and why (notes, not errors).
    pub notes: Vec<Problem>,
    /// Every file route of the switched-on apps that own their name, in folder order.
    pub routes: Vec<Route>,
    /// Globs that more than one switched-on app claims, and who got them.
    pub route_conflicts: Vec<RouteConflict>,
    /// The folder (`.cowork/apps/home`) of the app the window opens on.
    pub home_dir: Option<String>,
    #[serde(skip)]
    matchers: Vec<GlobMatcher>,
}

/// One app folder with a valid manifest.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct App {
    /// Workspace-relative, e.g. `.cowork/apps/gmail`.
    pub dir: String,
    /// The folder's name, e.g. `gmail`.
    pub folder: String,
    /// Absolute.
    pub path: PathBuf,
    /// The manifest, bad keys dropped.
    pub manifest: Manifest,
    /// The manifest's problems, and the collisions this app lost.
    pub problems: Vec<Problem>,
    /// Not switched off in `disabled.apps`.
    pub enabled: bool,
    /// Whether this folder owns its manifest `name` (a second folder with the name registers nothing).
    pub owns_name: bool,
    /// For a Keep-both copy: the folder it sits beside and its version.
    pub keep_both_of: Option<(String, String)>,
    /// Files of this app switched off one by one in `disabled.apps`, relative to the app folder.
    pub disabled_files: Vec<String>,
}

/// What switches a registered routine off (see [`Registry::switched_off`]).
#[derive(Debug, Clone)]
pub enum SwitchedOff<'a> {
    /// Its app's folder is in `disabled.apps`.
    App(&'a App),
    /// Its id is in `disabled.routines`.
    Routine,
    /// Its file (`.cowork/apps/gmail/send.ts`, as listed) is in `disabled.apps`.
    File(String),
}

/// A folder whose `cowork.json` is not an app.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrokenApp {
    /// Workspace-relative, e.g. `.cowork/apps/gmail`.
    pub dir: String,
    /// Why it is not an app.
    pub problems: Vec<Problem>,
}

/// A registered routine.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutineEntry {
    /// The routine id.
    pub id: String,
    /// The app folder that declares it.
    pub app_dir: String,
    /// The app's manifest `name`.
    pub app_name: String,
    /// The app's version.
    pub app_version: String,
    /// The app's title.
    pub app_title: String,
    /// Whether the app is an app or a capability.
    pub kind: Kind,
    /// Whether the manifest says `kind`.
    pub kind_declared: bool,
    /// Whether the manifest says `uses`.
    pub declares_uses: bool,
    /// The routine's file, absolute.
    pub file: PathBuf,
    /// The routine's file, relative to the app folder.
    pub rel_file: String,
    /// How long one run may take, 1–300 s (30 by default).
    pub timeout_s: u32,
    /// It changes nothing.
    pub read_only: bool,
    /// What it changes cannot be undone.
    pub destructive: bool,
    /// It reaches people beyond the account.
    pub reaches_others: bool,
    /// One line an agent reads.
    pub description: Option<String>,
    /// Its arguments as a JSON Schema.
    pub input: Option<serde_json::Value>,
    /// Derived from the tool keys.
    pub risk: Risk,
    /// Listed in `disabled.routines`, or its app or its file is switched off: it refuses to run.
    pub disabled: bool,
}

/// Which app file opens a workspace path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Route {
    /// The glob as the manifest writes it.
    pub glob: String,
    /// The app folder.
    pub app_dir: String,
    /// The app's manifest `name`.
    pub app_name: String,
    /// The file that renders the match, relative to the app folder.
    pub file: String,
    /// The same file, absolute.
    pub path: PathBuf,
    /// A folder route (the glob ends with `/`).
    pub folder: bool,
    /// The match opens in the app's web app (the file is its `web.index`).
    pub web: bool,
}

/// A glob that several switched-on apps claim: the UI asks once and stores the answer in
/// `openWith`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RouteConflict {
    /// The glob.
    pub glob: String,
    /// The app names claiming it, in folder order.
    pub claimants: Vec<String>,
    /// The app name that gets it now.
    pub chosen: String,
    /// Whether `openWith` chose (otherwise: the first claimant, until the person answers).
    pub remembered: bool,
}

impl Registry {
    /// The routine registered under `id`.
    pub fn routine(&self, id: &str) -> Option<&RoutineEntry> {
        self.routines.get(id)
    }

    /// The app in folder `dir` (`.cowork/apps/gmail`; `./` and a trailing `/` allowed).
    pub fn app(&self, dir: &str) -> Option<&App> {
        let dir = normalize_entry(dir);
        self.apps.iter().find(|app| app.dir == dir)
    }

    /// The app that owns the manifest name `name`.
    pub fn app_by_name(&self, name: &str) -> Option<&App> {
        self.apps.iter().find(|app| app.owns_name && app.manifest.name == name)
    }

    /// The app a person means by `spec`: its folder (`.cowork/apps/gmail`), the folder's name
    /// (`gmail`), or its manifest name (the folder that owns it), tried in that order.
    pub fn resolve_app(&self, spec: &str) -> Option<&App> {
        self.app(spec)
            .or_else(|| self.apps.iter().find(|app| app.folder == spec))
            .or_else(|| self.app_by_name(spec))
    }

    /// The app file that opens the workspace-relative `rel` path (a folder when `is_dir`): the first
    /// matching route in folder order, or — when several apps claim its glob — the one `openWith`
    /// names, else the first switched-on claimant. `None`: the default editor opens it.
    pub fn route(&self, rel: &str, is_dir: bool) -> Option<Route> {
        let rel = normalize_entry(rel);
        let first = self
            .routes
            .iter()
            .zip(&self.matchers)
            .find(|(route, matcher)| route.folder == is_dir && matcher.is_match(&rel))
            .map(|(route, _)| route)?;
        let chosen =
            self.route_conflicts.iter().find(|c| c.glob == first.glob).map(|c| c.chosen.as_str());
        match chosen {
            Some(name) => {
                self.routes.iter().find(|r| r.glob == first.glob && r.app_name == name).cloned()
            }
            None => Some(first.clone()),
        }
    }

    /// The app the window opens on: `startup.home`, else the app named `home` — never a switched-off
    /// app.
    pub fn home(&self) -> Option<&App> {
        self.app(self.home_dir.as_deref()?)
    }

    /// Why the registered routine `id` refuses to run as switched off, or `None` when it is on (or
    /// not registered).
    pub fn switched_off(&self, id: &str) -> Option<SwitchedOff<'_>> {
        let entry = self.routine(id).filter(|entry| entry.disabled)?;
        let app = self.app(&entry.app_dir)?;
        Some(if !app.enabled {
            SwitchedOff::App(app)
        } else if self.config.disabled.routines.iter().any(|r| r == id) {
            SwitchedOff::Routine
        } else {
            SwitchedOff::File(format!("{}/{}", app.dir, normalize_entry(&entry.rel_file)))
        })
    }

    /// Why no routine `id` is registered although a manifest here declares it — the problem that
    /// dropped its entry, or the folder declaring it that is not an app — or `None` when no
    /// manifest declares it.
    pub fn why_not_registered(&self, id: &str) -> Option<String> {
        let key = format!("routines.{id}");
        let dropped = self.apps.iter().flat_map(|app| &app.problems).find(|p| {
            p.key.as_deref().is_some_and(|k| k == key || k.starts_with(&format!("{key}.")))
        });
        if let Some(problem) = dropped {
            return Some(problem.to_string());
        }
        self.broken.iter().find_map(|broken| {
            let text =
                std::fs::read_to_string(self.root.join(&broken.dir).join(MANIFEST_FILE)).ok()?;
            let value: serde_json::Value = serde_json::from_str(&text).ok()?;
            value["routines"].get(id)?;
            let why = broken.problems.first().map(|p| format!(": {p}")).unwrap_or_default();
            Some(format!("{} declares it but is not an app{why}", broken.dir))
        })
    }

    /// Every problem: the workspace's, then each app's, then each broken folder's.
    pub fn all_problems(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .chain(self.apps.iter().flat_map(|app| &app.problems))
            .chain(self.broken.iter().flat_map(|broken| &broken.problems))
    }
}

/// Loads the registry of the workspace at `workspace_root`. Never fails: problems are data.
pub fn load(workspace_root: &Path) -> Registry {
    let (config, mut problems) = workspace_json::read(workspace_root);
    let found = discovery::discover(workspace_root);
    problems.extend(found.problems);
    let mut apps = Vec::new();
    let mut broken = Vec::new();
    for folder in found.folders {
        let label = format!("{}/{MANIFEST_FILE}", folder.dir);
        match manifest::load(&folder.path, &label) {
            Ok(checked) => apps.push(app_of(folder, checked, &config)),
            Err(problems) => broken.push(BrokenApp { dir: folder.dir, problems }),
        }
    }
    assign_names(&mut apps);
    report_missing_parts(&mut apps);
    let routines = register_routines(&mut apps, &config);
    let (routes, matchers, route_conflicts) = register_routes(&apps, &config, &mut problems);
    let home_dir = choose_home(&apps, &config, &mut problems);
    Registry {
        root: workspace_root.to_owned(),
        config,
        apps,
        broken,
        routines,
        problems,
        notes: found.notes,
        routes,
        route_conflicts,
        home_dir,
        matchers,
    }
}

fn app_of(folder: AppFolder, checked: manifest::Validated, config: &WorkspaceConfig) -> App {
    App {
        enabled: !config.is_app_disabled(&folder.dir),
        disabled_files: config.disabled_files(&folder.dir),
        dir: folder.dir,
        folder: folder.folder,
        path: folder.path,
        manifest: checked.manifest,
        problems: checked.problems,
        owns_name: false,
        keep_both_of: folder.keep_both_of,
    }
}

/// What an app points at but cannot have: a widget file that is not there, or a capability it
/// `uses` that is missing, switched off, not a capability or too old (Manage Workspace lists them;
/// a routine call it would have answered fails naming it).
fn report_missing_parts(apps: &mut [App]) {
    let owners: Vec<(String, bool, Kind, String)> = apps
        .iter()
        .filter(|a| a.owns_name)
        .map(|a| (a.manifest.name.clone(), a.enabled, a.manifest.kind, a.manifest.version.clone()))
        .collect();
    for app in apps.iter_mut().filter(|a| a.owns_name) {
        let label = format!("{}/{MANIFEST_FILE}", app.dir);
        let mut found = Vec::new();
        let widgets = app.manifest.entry.iter().map(|e| ("entry".to_string(), e.clone())).chain(
            app.manifest
                .file_routing
                .iter()
                .filter(|r| !r.file.to_ascii_lowercase().ends_with(".html"))
                .map(|r| (format!("fileRouting.{}", r.glob), r.file.clone())),
        );
        for (key, file) in widgets {
            if !app.path.join(&file).is_file() {
                found.push(Problem::new(
                    &label,
                    Some(key.clone()),
                    format!(
                        "\"{key}\": \"{file}\" is not in the app folder — the widget cannot open"
                    ),
                ));
            }
        }
        for (name, wanted) in &app.manifest.uses {
            let key = format!("uses.{name}");
            let why = match owners.iter().find(|(n, ..)| n == name) {
                None => Some(format!("there is no \"{name}\" in this workspace")),
                Some((_, false, ..)) => Some(format!("{name} is switched off")),
                Some((_, _, Kind::App, _)) => Some(format!("{name} is an app, not a capability")),
                Some((_, _, _, version)) if !manifest::satisfies(wanted, version) => Some(format!(
                    "{name} here is {version}, not {wanted} or a later version of the same major"
                )),
                Some(_) => None,
            };
            if let Some(why) = why {
                found.push(Problem::new(
                    &label,
                    Some(key.clone()),
                    format!("\"{key}\": {why} — the routines it would answer fail with NotFound"),
                ));
            }
        }
        app.problems.extend(found);
    }
}

/// The first of `candidates` (indices into `apps`, in folder order) that is switched on, else the
/// first.
fn first_enabled(apps: &[App], candidates: &[usize]) -> Option<usize> {
    candidates.iter().copied().find(|&i| apps[i].enabled).or_else(|| candidates.first().copied())
}

/// Gives each manifest name to one folder and reports the others.
fn assign_names(apps: &mut [App]) {
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, app) in apps.iter().enumerate() {
        by_name.entry(app.manifest.name.clone()).or_default().push(i);
    }
    for (name, claimants) in by_name {
        let Some(owner) = first_enabled(apps, &claimants) else {
            continue;
        };
        apps[owner].owns_name = true;
        let owner_dir = apps[owner].dir.clone();
        // A switched-off folder losing the name to a switched-on one is the expected state of a
        // Keep-both copy (page 02 installs it switched off): listed, registering nothing, no problem.
        let expected = |app: &App| !app.enabled && apps[owner].enabled;
        let losers: Vec<usize> =
            claimants.iter().copied().filter(|&i| i != owner && !expected(&apps[i])).collect();
        for i in losers {
            let file = format!("{}/{MANIFEST_FILE}", apps[i].dir);
            let message = format!(
                "\"name\": \"{name}\" belongs to {owner_dir} — this folder registers nothing"
            );
            apps[i].problems.push(Problem::new(file, Some("name".to_owned()), message));
        }
    }
}

fn register_routines(apps: &mut [App], config: &WorkspaceConfig) -> BTreeMap<String, RoutineEntry> {
    let mut claimants: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, app) in apps.iter().enumerate().filter(|(_, app)| app.owns_name) {
        for routine in &app.manifest.routines {
            claimants.entry(routine.id.clone()).or_default().push(i);
        }
    }
    let mut routines = BTreeMap::new();
    for (id, claimants) in claimants {
        let Some(winner) = first_enabled(apps, &claimants) else {
            continue;
        };
        let winner_dir = apps[winner].dir.clone();
        for &i in claimants.iter().filter(|&&i| i != winner) {
            let file = format!("{}/{MANIFEST_FILE}", apps[i].dir);
            let message =
                format!("\"routines.{id}\" is already registered by {winner_dir} — ignored here");
            apps[i].problems.push(Problem::new(file, Some(format!("routines.{id}")), message));
        }
        let app = &apps[winner];
        let routine = app.manifest.routine(&id).expect("the claimant declares the routine");
        let disabled = !app.enabled
            || config.disabled.routines.contains(&id)
            || app.disabled_files.iter().any(|file| *file == normalize_entry(&routine.file));
        routines.insert(
            id.clone(),
            RoutineEntry {
                id,
                app_dir: app.dir.clone(),
                app_name: app.manifest.name.clone(),
                app_version: app.manifest.version.clone(),
                app_title: app.manifest.title.clone(),
                kind: app.manifest.kind,
                kind_declared: app.manifest.kind_declared,
                declares_uses: app.manifest.declares_uses,
                file: app.path.join(&routine.file),
                rel_file: routine.file.clone(),
                timeout_s: routine.timeout_s,
                read_only: routine.read_only,
                destructive: routine.destructive,
                reaches_others: routine.reaches_others,
                description: routine.description.clone(),
                input: routine.input.clone(),
                risk: routine.risk(),
                disabled,
            },
        );
    }
    routines
}

type Routes = (Vec<Route>, Vec<GlobMatcher>, Vec<RouteConflict>);

fn register_routes(apps: &[App], config: &WorkspaceConfig, problems: &mut Vec<Problem>) -> Routes {
    let mut routes = Vec::new();
    let mut matchers = Vec::new();
    for app in apps.iter().filter(|app| app.enabled && app.owns_name) {
        for route in &app.manifest.file_routing {
            if app.disabled_files.contains(&normalize_entry(&route.file)) {
                continue;
            }
            // The manifest checked every glob; one that fails here is skipped, not guessed at.
            let Ok(matcher) = compile_glob(&route.glob) else {
                continue;
            };
            routes.push(Route {
                glob: route.glob.clone(),
                app_dir: app.dir.clone(),
                app_name: app.manifest.name.clone(),
                file: route.file.clone(),
                path: app.path.join(&route.file),
                folder: route.is_folder_route(),
                web: route.opens_web_app(),
            });
            matchers.push(matcher);
        }
    }
    let mut claims: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for route in &routes {
        let names = claims.entry(route.glob.as_str()).or_default();
        if !names.contains(&route.app_name.as_str()) {
            names.push(&route.app_name);
        }
    }
    let mut conflicts = Vec::new();
    for (glob, claimants) in claims.into_iter().filter(|(_, names)| names.len() > 1) {
        let wanted = config.open_with.get(glob);
        let remembered = wanted.is_some_and(|name| claimants.contains(&name.as_str()));
        if let Some(name) = wanted.filter(|_| !remembered) {
            let message =
                format!("\"openWith.{glob}\": \"{name}\" does not claim this glob — ignored");
            problems.push(Problem::new(WORKSPACE_FILE, Some(format!("openWith.{glob}")), message));
        }
        // A conflict has at least two claimants, so the first is always there.
        let chosen = match wanted.filter(|_| remembered) {
            Some(name) => name.clone(),
            None => claimants[0].to_owned(),
        };
        conflicts.push(RouteConflict {
            glob: glob.to_owned(),
            claimants: claimants.iter().map(|n| n.to_string()).collect(),
            chosen,
            remembered,
        });
    }
    (routes, matchers, conflicts)
}

fn choose_home(
    apps: &[App],
    config: &WorkspaceConfig,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    let owner = |name: &str| apps.iter().find(|app| app.owns_name && app.manifest.name == name);
    if let Some(name) = &config.startup.home {
        let why = match owner(name) {
            Some(app) if app.enabled => return Some(app.dir.clone()),
            Some(_) => "is switched off",
            None => "is not an app of this workspace",
        };
        let message = format!("\"startup.home\": \"{name}\" {why} — ignored");
        problems.push(Problem::new(WORKSPACE_FILE, Some("startup.home".to_owned()), message));
    }
    owner(DEFAULT_HOME).filter(|app| app.enabled).map(|app| app.dir.clone())
}
