//! The manifest's types: what a validated `cowork.json` holds, its defaults and limits, and what
//! can be asked of it. No checking happens here; [`super::validate`] builds these.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::serde_helpers::whole_seconds;
use crate::schema::Problem;

/// The manifest's file name inside an app folder.
pub const MANIFEST_FILE: &str = "cowork.json";

/// Largest icon image, in bytes (256 KB).
pub const ICON_LIMIT: u64 = 256 * 1024;

/// Largest banner or screenshot image, in bytes (1 MB).
pub const PICTURE_LIMIT: u64 = 1024 * 1024;

/// Largest routine `input` schema, serialized, in bytes (8 KB).
pub const INPUT_LIMIT: usize = 8 * 1024;

/// How long a routine run may take when the manifest does not say, in seconds.
pub const DEFAULT_TIMEOUT_S: u32 = 30;

/// Seconds between footer refreshes when `statusBar.interval` is absent.
pub const DEFAULT_INTERVAL_S: u32 = 60;

fn default_timeout() -> u32 {
    DEFAULT_TIMEOUT_S
}

fn default_interval() -> u32 {
    DEFAULT_INTERVAL_S
}

/// What a package is: something people open, or a package of routines that apps use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Something people open (the default).
    #[default]
    App,
    /// A package of routines with no UI that apps use and agents call as tools.
    Capability,
}

/// How much harm a routine can do, derived from its tool keys (never stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// `readOnly`: it changes nothing.
    Low,
    /// A write that can be undone and reaches no one else.
    Medium,
    /// `destructive` or `reachesOthers`.
    High,
}

/// Where the app shows when its icon is clicked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Display {
    /// In a pane of the left side bar (the default for a JSX app).
    #[default]
    Sidebar,
    /// In an editor tab (always for a web app, the default for a site app).
    Tab,
    /// In a resizable in-workbench dialog.
    Modal,
    /// In a pane of the right side bar, beside Chat.
    Right,
}

/// Where an app can run (`requires`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Requirement {
    /// Cowork in a browser tab too.
    Web,
    /// The Cowork Studio desktop app only.
    Desktop,
}

/// What an app's panes may capture (`capture`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capture {
    /// Video of the screen.
    Screen,
    /// The sound the computer plays.
    SystemAudio,
    /// The microphone.
    Mic,
    /// A still picture (`capture.shot`).
    Screenshot,
}

/// The validated manifest. Every key is typed; defaults are filled in (`title` = `name`, `display`
/// as the app's kind of UI demands, `kind` = app, routine `timeout` = 30 s, `statusBar.interval` =
/// 60 s, a site app's `web.scope`).
///
/// Deserializing one directly does NO validation; go through [`validate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Store id and activity-bar id.
    pub name: String,
    /// Semver `X.Y.Z`.
    pub version: String,
    /// Display name; `name` when absent.
    #[serde(default)]
    pub title: String,
    /// One or two sentences for the store card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A codicon id, `$(id)`, or an image file in the app folder (see [`Manifest::icon_file`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// The tile's hex color.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// The UI, a `.jsx`/`.tsx` in the app folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// A web app (`index`) or a site app (`url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<Web>,
    /// Where the app shows (the effective value, after defaults and rules).
    #[serde(default)]
    pub display: Display,
    /// What a sidebar app opens in the editor the first time its icon is clicked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<Open>,
    /// The routines, in manifest order. Serialized as a list with their ids.
    #[serde(default, deserialize_with = "routines_from_map")]
    pub routines: Vec<Routine>,
    /// The file routes, in manifest order. Serialized as a list.
    #[serde(default, deserialize_with = "routes_from_map")]
    pub file_routing: Vec<FileRoute>,
    /// A capability's connection to its service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<Credential>,
    /// What the app's panes may capture.
    #[serde(default)]
    pub capture: Vec<Capture>,
    /// `app` or `capability`.
    #[serde(default)]
    pub kind: Kind,
    /// Whether the manifest says `kind` (a package declaring neither `kind` nor `uses` predates
    /// capabilities and keeps its old access).
    #[serde(default, skip_deserializing)]
    pub kind_declared: bool,
    /// Capability name → the lowest version it works with.
    #[serde(default)]
    pub uses: BTreeMap<String, String>,
    /// Whether the manifest says `uses`.
    #[serde(default, skip_deserializing)]
    pub declares_uses: bool,
    /// Where the app can run; empty = anywhere.
    #[serde(default)]
    pub requires: Vec<Requirement>,
    /// Store search and filters.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The store listing's wide picture, a file in the app folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banner: Option<String>,
    /// The footer item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_bar: Option<StatusBar>,
    /// The store listing's screenshots; `None` leaves them to the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshots: Option<Vec<String>>,
}

/// A web app (`index`) or a site app (`url`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Web {
    /// A web app's page, e.g. `web/index.html`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// `drop:<css selector>` for an app that opens files only by a drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    /// Where a web app's build comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<Download>,
    /// A site app's address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A site app's pages: the declared scope, or `url` up to its last `/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// A pinned web-app build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Download {
    /// The build's zip (https).
    pub url: String,
    /// The zip's SHA-256, checked before unpacking.
    pub sha256: String,
}

/// What a sidebar app opens in the editor: an app file, or a routine returning `{path}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Open {
    /// A file in the app folder.
    File(String),
    /// A routine that returns `{ "path": … }`.
    Routine {
        /// The routine id.
        routine: String,
        /// What the routine gets.
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        args: Map<String, Value>,
    },
}

/// One routine the app declares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Routine {
    /// The routine id (one namespace per workspace).
    #[serde(default, skip_deserializing)]
    pub id: String,
    /// The `.ts`/`.js`/`.mjs` file, relative to the app folder.
    pub file: String,
    /// How long one run may take, 1–300 s.
    #[serde(default = "default_timeout", rename = "timeout", deserialize_with = "whole_seconds")]
    pub timeout_s: u32,
    /// It changes nothing.
    #[serde(default)]
    pub read_only: bool,
    /// What it changes cannot be undone.
    #[serde(default)]
    pub destructive: bool,
    /// It reaches people beyond the account.
    #[serde(default)]
    pub reaches_others: bool,
    /// One line an agent reads to pick it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments as a JSON Schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
}

impl Routine {
    pub(super) fn at(id: String, file: String) -> Routine {
        Routine {
            id,
            file,
            timeout_s: DEFAULT_TIMEOUT_S,
            read_only: false,
            destructive: false,
            reaches_others: false,
            description: None,
            input: None,
        }
    }

    /// The routine's risk: `destructive` or `reachesOthers` → high, `readOnly` → low, else medium.
    pub fn risk(&self) -> Risk {
        if self.destructive || self.reaches_others {
            Risk::High
        } else if self.read_only {
            Risk::Low
        } else {
            Risk::Medium
        }
    }
}

/// `routines` as written: `{ id: "file.ts" }` or `{ id: { "file": …, … } }`.
fn routines_from_map<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Routine>, D::Error> {
    Map::<String, Value>::deserialize(deserializer)?
        .into_iter()
        .map(|(id, value)| match value {
            Value::String(file) => Ok(Routine::at(id, file)),
            other => {
                Routine::deserialize(other).map(|r| Routine { id, ..r }).map_err(D::Error::custom)
            }
        })
        .collect()
}

/// `fileRouting` as written: `{ glob: file }`.
fn routes_from_map<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<FileRoute>, D::Error> {
    Ok(Map::<String, Value>::deserialize(deserializer)?
        .into_iter()
        .filter_map(|(glob, file)| {
            file.as_str().map(|file| FileRoute { glob, file: file.to_owned() })
        })
        .collect())
}

/// One `fileRouting` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRoute {
    /// The workspace-relative glob as written (a folder route ends with `/`).
    pub glob: String,
    /// The app file that renders matches, relative to the app folder.
    pub file: String,
}

impl FileRoute {
    /// Whether this route opens folders (its glob ends with `/`) rather than files.
    pub fn is_folder_route(&self) -> bool {
        self.glob.ends_with('/')
    }

    /// Whether a match opens in the app's web app (the value is an `.html`).
    pub fn opens_web_app(&self) -> bool {
        is_html(&self.file)
    }
}

/// A capability's connection to its service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    /// A sign-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuth>,
    /// A pasted key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<KeyCredential>,
}

/// The OAuth presets `credential.oauth.provider` names (the schema's enum); each is also the name
/// of its shared sign-in.
pub const SIGN_IN_PROVIDERS: [&str; 2] = ["google", "microsoft"];

/// An OAuth preset and the scopes the routines need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuth {
    /// `google` or `microsoft`.
    pub provider: String,
    /// The access the routines need.
    pub scopes: Vec<String>,
    /// Sign in through the person's own client, under the capability's own name.
    #[serde(default)]
    pub own_client: bool,
}

/// The fields a person pastes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyCredential {
    /// Lowercase letters and `_`, e.g. `token`.
    pub fields: Vec<String>,
    /// Where to get them (https).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// One line on how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The footer item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusBar {
    /// One of this app's routines.
    pub routine: String,
    /// What the routine gets when the item refreshes.
    #[serde(default)]
    pub args: Map<String, Value>,
    /// Seconds between refreshes, 15–3600.
    #[serde(default = "default_interval", rename = "interval", deserialize_with = "whole_seconds")]
    pub interval_s: u32,
}

impl Manifest {
    /// Whether this is a web app (`web.index`).
    pub fn is_web_app(&self) -> bool {
        self.web.as_ref().is_some_and(|w| w.index.is_some())
    }

    /// Whether this is a site app (`web.url`).
    pub fn is_site_app(&self) -> bool {
        self.web.as_ref().is_some_and(|w| w.url.is_some())
    }

    /// The icon's image file, when `icon` names one rather than a codicon.
    pub fn icon_file(&self) -> Option<&str> {
        self.icon.as_deref().filter(|icon| icon.contains('.'))
    }

    /// The routine declared under `id`.
    pub fn routine(&self, id: &str) -> Option<&Routine> {
        self.routines.iter().find(|r| r.id == id)
    }
}

/// A manifest that passed validation, with the problems of the keys it dropped.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validated {
    /// What is left once the bad keys are dropped.
    pub manifest: Manifest,
    /// One line per dropped or reset key, in the order found.
    pub problems: Vec<Problem>,
}

/// Whether `file` is a page, which a file route opens in the app's web app.
fn is_html(file: &str) -> bool {
    let lower = file.to_ascii_lowercase();
    lower.ends_with(".html") || lower.ends_with(".htm")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_follows_the_tool_keys() {
        let mut r = Routine::at("x".into(), "x.ts".into());
        assert_eq!(r.risk(), Risk::Medium);
        r.read_only = true;
        assert_eq!(r.risk(), Risk::Low);
        r.read_only = false;
        r.reaches_others = true;
        assert_eq!(r.risk(), Risk::High);
        r.reaches_others = false;
        r.destructive = true;
        assert_eq!(r.risk(), Risk::High);
    }
}
