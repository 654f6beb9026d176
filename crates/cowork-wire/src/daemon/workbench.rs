//! What the workbench page asks the daemon (owner token): the workspace's apps for the rail
//! (`GET /api/workbench`), the explorer's folders and files (`/api/files`, `/api/file`), file
//! routes (`/api/route`), switches that write `workspace.json` (`/api/apps/enable|mute`,
//! `/api/rail`, `/api/open-with`), footer items (`/api/statusbar`) and `cowork app open`
//! (`POST /api/open`).

use super::notifications::{Badges, Notification};
use super::runs::RunFailure;
use super::Flag;
use cowork_core::manifest::{Capture, Display, Open, StatusBar};
use cowork_core::registry::{BrokenApp, Kind, Problem, Risk, RouteConflict};
use cowork_core::workspace_json::{Rail, Startup};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// `GET /api/workbench`: everything the rail, the footer, the bell and Manage Workspace draw.
/// Problems are `{file, key, message}` everywhere (an app's, a folder's that is not an app, the
/// workspace's own).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WorkbenchInfo {
    /// The workspace folder and its name.
    pub workspace: WorkspaceName,
    /// The apps the workspace has, in rail order.
    pub apps: Vec<App>,
    /// App folders whose manifest would not load.
    #[cfg_attr(feature = "typescript", ts(type = "{ dir: string; problems: Problem[] }[]"))]
    pub broken: Vec<BrokenApp>,
    /// The workspace's own problems (`workspace.json`, folders that are not apps).
    #[cfg_attr(feature = "typescript", ts(type = "Problem[]"))]
    pub problems: Vec<Problem>,
    /// The rail's layout (`workspace.json#rail`).
    #[cfg_attr(feature = "typescript", ts(type = "{ folders: RailFolder[] }"))]
    pub rail: Rail,
    #[cfg_attr(
        feature = "typescript",
        ts(type = "{ home?: string; left?: boolean; right?: boolean }")
    )]
    /// What opens when the workbench starts (`workspace.json#startup`).
    pub startup: Startup,
    /// The home app's name.
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub home: Option<String>,
    /// The apps whose notifications the person muted.
    pub muted: Vec<String>,
    /// The apps' badge counts.
    #[cfg_attr(feature = "typescript", ts(type = "Badges"))]
    pub badges: Badges,
    /// The notifications not yet seen, for the bell.
    #[cfg_attr(feature = "typescript", ts(type = "DaemonNotification[]"))]
    pub notifications: Vec<Notification>,
    /// File routes two apps claim (`openWith` globs), which `POST /api/open-with` settles.
    #[cfg_attr(feature = "typescript", ts(type = "RouteConflict[]"))]
    pub route_conflicts: Vec<RouteConflict>,
}

/// The workspace the workbench shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct WorkspaceName {
    /// The workspace folder.
    pub path: PathBuf,
    /// Its name, as the title bar shows it.
    pub name: String,
}

/// An app as the rail and Manage Workspace draw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct App {
    /// The folder under `.cowork/apps/`; what the on/off and mute switches name.
    pub dir: String,
    /// The manifest's `name`.
    pub name: String,
    /// Its title (its `name` when the manifest has none).
    pub title: String,
    /// A codicon id, `$(id)`, or an image file in the app folder.
    pub icon: Option<String>,
    /// The address of its image icon, when `icon` is a file (with the key `/api/icon` asks for).
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub icon_url: Option<String>,
    /// The tile's hex color.
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub color: Option<String>,
    /// Where the app shows when its icon is clicked.
    #[cfg_attr(feature = "typescript", ts(type = "Display"))]
    pub display: Display,
    /// The UI, a `.jsx`/`.tsx` in the app folder.
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub entry: Option<String>,
    /// `sidebar` only: an app file, or a routine returning `{path}`, opened once per session.
    #[cfg_attr(
        feature = "typescript",
        ts(optional, type = "string | { routine: string; args?: unknown }")
    )]
    pub open: Option<Open>,
    /// An app or a capability.
    #[cfg_attr(feature = "typescript", ts(type = "\"app\" | \"capability\""))]
    pub kind: Kind,
    /// The app's on/off switch.
    pub enabled: bool,
    /// False when an earlier folder claimed the same name.
    pub owns_name: bool,
    /// Declares neither `kind` nor `uses`: keeps its old access to every secret.
    pub unrestricted: bool,
    /// The manifest's problems, then its widgets' that would not run.
    #[cfg_attr(feature = "typescript", ts(type = "Problem[]"))]
    pub problems: Vec<Problem>,
    #[cfg_attr(
        feature = "typescript",
        ts(optional, type = "{ routine: string; args?: unknown; interval?: number }")
    )]
    /// Its footer item: the routine that draws it.
    pub status_bar: Option<StatusBar>,
    /// Its routines.
    pub routines: Vec<Routine>,
    /// A web site installed as an app: it draws only in the desktop app.
    pub site: bool,
    /// A site app's count source, once the desktop app reported one.
    #[cfg_attr(
        feature = "typescript",
        ts(optional, type = "\"badge\" | \"title\" | \"notifications\" | null")
    )]
    pub unread_source: Option<String>,
    /// What its panes may capture (`capture`), each still asked for in Cowork's dialog; left out
    /// when nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(
        feature = "typescript",
        ts(optional, type = "(\"screen\" | \"system-audio\" | \"mic\" | \"screenshot\")[]")
    )]
    pub capture: Vec<Capture>,
    /// The frame page of its panes, on the app's own origin: the workbench starts loading it while
    /// the daemon opens a pane (`POST /api/panes` answers the same address).
    pub frame_url: String,
    /// A web app's page (`web.index`), served unmodified on the app's own origin, which the
    /// workbench draws in an editor tab; left out for any other app.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub web_url: Option<String>,
}

/// A routine as Manage Workspace lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Routine {
    /// The routine's id (`<app>/<routine>`).
    pub id: String,
    /// How much harm it can do, from its tool keys.
    #[cfg_attr(feature = "typescript", ts(type = "Risk"))]
    pub risk: Risk,
    /// Its `risk.readOnly`: it only reads.
    pub read_only: bool,
    /// Its `risk.destructive`: it deletes or overwrites.
    pub destructive: bool,
    /// Its `risk.reachesOthers`: it sends something to other people.
    pub reaches_others: bool,
    /// What it does, from its manifest.
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub description: Option<String>,
    /// Listed in `disabled.routines`, or its app or its file is switched off: it refuses to run.
    pub disabled: bool,
}

/// `?workspace=&path=`: a workspace-relative path (`""` is the workspace's root).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathQuery {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The workspace-relative path.
    #[serde(default)]
    pub path: String,
}

/// One entry of an explorer folder (`GET /api/files` answers a folder's, folders first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FileEntry {
    /// The file's or folder's name.
    pub name: String,
    /// Workspace-relative.
    pub path: PathBuf,
    /// A folder.
    pub dir: bool,
}

/// `GET /api/file`: a workspace file's text, or why the viewer shows none. A binary or big file is
/// an ordinary thing to click in the Explorer, so it is an answer (`notText`), not an HTTP error
/// the page's console would list as a failed request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FileText {
    /// Workspace-relative.
    pub path: PathBuf,
    /// The file's text; none when `notText` says why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub text: Option<String>,
    /// Its size in bytes.
    pub size: u64,
    /// Why the viewer shows no text for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub not_text: Option<NotText>,
}

/// Why the text viewer shows no text for a file, in words it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NotText {
    /// `Binary` (not UTF-8 text, or a NUL byte in it) or `TooLarge` (over 1 MiB).
    #[cfg_attr(feature = "typescript", ts(type = "\"Binary\" | \"TooLarge\""))]
    pub name: String,
    /// What the viewer says instead: "logo.png is not a text file".
    pub message: String,
}

/// `GET /api/route`: the app that opens a path, and with which of its files (or null).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "Route"))]
pub struct FileRoute {
    /// The app that opens the path.
    pub app: String,
    /// The app's file it opens it with.
    pub file: String,
    /// The `openWith` glob that matched.
    pub glob: String,
    /// The glob is a folder route (ends with `/`).
    pub folder: bool,
}

/// `POST /api/apps/enable` (`enabled`) and `POST /api/apps/mute` (`muted`): one switch of an app
/// folder in `workspace.json`; exactly one of the two is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppSwitch {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The app's folder or name.
    pub app: String,
    /// The app's on/off switch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// The app's Notifications switch (`true` = muted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub muted: Option<bool>,
}

/// `POST /api/rail`: the rail's folders, written to `workspace.json#rail.folders` when they fit
/// the schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RailFolders {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// Checked against the schema by the daemon, so a wrong shape is `InvalidWorkspaceJson`.
    pub folders: Value,
}

/// `POST /api/open-with`: the person's answer to "which app opens this file type".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenWith {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The file type: an `openWith` glob.
    pub glob: String,
    /// The app that opens it from now on.
    pub app: String,
}

/// `GET /api/statusbar?workspace=&app=`: a refresh of an app's footer item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppQuery {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The app whose footer item to refresh.
    pub app: String,
}

/// `POST /api/statusbar/click`: an app's footer routine with the click's `args` (or its
/// manifest's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusBarClick {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The app whose footer item was clicked.
    pub app: String,
    /// The click's args; none = the manifest's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
}

/// An app's footer item, as its `statusBar` routine returns it (reference page 12, "Footer item").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StatusBarItem {
    /// What the footer shows.
    pub text: String,
    /// A codicon; `sync~spin` spins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub icon: Option<String>,
    /// Shown on hover.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub tooltip: Option<String>,
    /// Colours the item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub tone: Option<StatusBarTone>,
    /// A click runs the same routine with `args` (after a modal when `confirm` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub click: Option<StatusBarAction>,
    /// Instead of `click`: the person picks one action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub menu: Option<Vec<StatusBarAction>>,
    /// Free-form (at most [`STATUS_BAR_DATA_MAX`] bytes as JSON) for the app's widgets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "unknown"))]
    pub data: Option<Value>,
}

/// The most a footer item's `data` may hold, as JSON: the reference's 16 KB.
pub const STATUS_BAR_DATA_MAX: usize = 16 * 1024;

/// How a footer item is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum StatusBarTone {
    /// A warning's colour.
    Warning,
    /// An error's colour.
    Error,
}

/// What a click on a footer item (or one entry of its menu) runs: the same routine with `args`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StatusBarAction {
    /// The menu entry's words (a `click` has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub label: Option<String>,
    /// The routine's input for this action.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(type = "Record<string, unknown>"))]
    pub args: serde_json::Map<String, Value>,
    /// Asked in a modal before it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub confirm: Option<String>,
}

/// A footer item as its routine returned it (null hides it), or why the routine failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum StatusBarAnswer {
    /// The routine drew the item (null hides it).
    Drawn {
        /// Always `true`.
        #[cfg_attr(feature = "typescript", ts(type = "true"))]
        ok: Flag<true>,
        /// The item the routine returned; none hides it.
        item: Option<Box<StatusBarItem>>,
    },
    /// The routine failed.
    Failed {
        /// Always `false`.
        #[cfg_attr(feature = "typescript", ts(type = "false"))]
        ok: Flag<false>,
        /// Why it failed.
        error: RunFailure,
    },
}

/// `GET /api/icon?workspace=&app=&file=&key=`: an app's image icon; `key` is the one
/// `/api/workbench` put in the app's `iconUrl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IconQuery {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The app whose icon it is.
    pub app: String,
    /// The key `/api/workbench` put in the app's `iconUrl`.
    #[serde(default)]
    pub key: String,
}

/// `POST /api/open` (`cowork app open`): the open workbench shows an app, or one of its widget
/// files `as` a tab, dialog or side-bar pane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenApp {
    /// The workspace folder.
    pub workspace: PathBuf,
    /// The app to open.
    pub app: String,
    /// A widget file of the app; none = the app itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Where the widget file opens: `tab`, `dialog` or `sidemenu`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#as: Option<String>,
}

/// `POST /api/open`'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opened {
    /// Always `true`: with no workbench open the call fails (`Unavailable`).
    pub opened: bool,
}
