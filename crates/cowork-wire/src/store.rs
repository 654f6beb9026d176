//! The store in the workbench (issue 42, "The UI"): what the daemon's `/api/store/…` routes take
//! and answer — Manage Workspace's apps with their source, version, pin, "update available" and
//! edits; installs, the four update choices, pins and removals; a team server's store as cards;
//! templates to scaffold from; the Academy's courses, lessons and progress.
//!
//! Every route is the owner's (the workbench's token, Host and Origin checked). A request names
//! its workspace with `workspace` (the folder; the daemon's default one when left out). The
//! shapes a team server's store already has on the wire (`StoreItem`, `StoreVersion`,
//! `Subscription`, `CourseProgress`) are the hub's, reused as they are.
//!
//! | route | body or query → answer |
//! | --- | --- |
//! | `GET /api/store/apps?workspace=` | → [`InstalledApps`] |
//! | `POST /api/store/install` | [`InstallRequest`] → [`InstallAnswer`] |
//! | `POST /api/store/update` | [`UpdateRequest`] → [`UpdateAnswer`] |
//! | `POST /api/store/pin` | [`PinRequest`] → [`PinAnswer`] |
//! | `POST /api/store/remove` | [`AppRequest`] → [`RemoveAnswer`] |
//! | `GET /api/store/items?teamServer=&workspace=` | → [`StoreCards`] |
//! | `GET /api/store/versions?teamServer=&name=` | → `ItemVersions` (the hub's) |
//! | `GET /api/store/templates` | → [`Templates`] |
//! | `POST /api/store/templates/scaffold` | [`ScaffoldRequest`] → [`ScaffoldAnswer`] |
//! | `GET /api/store/courses` | → `Subscriptions` (the hub's) |
//! | `GET /api/store/course?teamServer=&course=&workspace=` | → [`CourseView`] |
//! | `GET /api/store/progress?teamServer=&course=` | → `CourseProgress` (the hub's) |
//! | `POST /api/store/progress` | [`LessonDoneRequest`] → `CourseProgress` |
//! | `POST /api/store/subscription` | [`SubscriptionRequest`] → `Subscriptions` (the hub's) |
//! | `GET /api/store/workspace-courses?workspace=` | → [`WorkspaceCourses`] |
//!
//! A refusal is the daemon's error body, named as the store library names it (`BadRequest`,
//! `NotFound`, `Edited`, `AlreadyExists`, `NotInstalled`, `Unverified`, `TamperedBlob`, …).

use crate::hub::{StoreItem, TemplateSubtype};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[cfg(all(test, feature = "typescript"))]
mod typescript;

/// One app of the workspace as Manage Workspace lists it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct InstalledApp {
    /// `.cowork/apps/gmail`.
    pub dir: String,
    /// The manifest's `name`.
    pub name: String,
    /// `local`, or `<team-server>@<version>` (as `cowork app list` says it, without the pin).
    pub source: String,
    /// The team server it follows; `None` for a local app.
    pub team_server: Option<String>,
    /// The installed version (a local app: its manifest's).
    pub version: String,
    /// Pinned: auto-update leaves it.
    pub pinned: bool,
    /// The store's latest version, when the store answered.
    pub latest: Option<String>,
    /// The store has a newer version than this copy.
    pub update_available: bool,
    /// Files changed, missing or added since the install (the clean check); empty when clean
    /// or local.
    pub edited: Vec<String>,
    /// The install verified (`--allow-unverified` installs are not).
    pub verified: bool,
}

/// `GET /api/store/apps`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct InstalledApps {
    /// The workspace's apps installed from a team server's store.
    pub apps: Vec<InstalledApp>,
    /// How many installed apps were edited (the Manage Workspace icon's count).
    pub edited: u64,
    /// Team servers whose store did not answer (their apps show no "update available").
    pub unreachable: Vec<Unreachable>,
}

/// A store that did not answer, and why.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Unreachable {
    /// The team server's slug.
    pub team_server: String,
    /// What failed, in words.
    pub message: String,
}

/// `POST /api/store/install`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct InstallRequest {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(optional, type = "string"))]
    pub workspace: Option<PathBuf>,
    /// `<team-server>/<app>[@X.Y.Z]` (a version pins).
    pub item: String,
    /// Install content that does not verify: only when the person explicitly asks.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<bool>", optional))]
    pub allow_unverified: bool,
}

/// What an install did.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct InstallAnswer {
    /// The folder it was installed to (`.cowork/apps/<name>`).
    pub dir: String,
    /// The app's name.
    pub name: String,
    /// The team server it came from.
    pub team_server: String,
    /// The version installed.
    pub version: String,
    /// Pinned: automatic updates leave it at this version.
    pub pinned: bool,
    /// It verified against the team server's key.
    pub verified: bool,
    /// How many files it has.
    pub files: u64,
    /// Blobs downloaded (the others were cached).
    pub blobs: u64,
}

/// The four choices for an edited app (page 02), as `cowork app update` takes them.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum UpdateChoice {
    /// The store wins (files the person added are never touched).
    Replace,
    /// The new version whole beside the app, switched off.
    KeepBoth,
    /// Claude merges; both are kept when it cannot.
    AiMerge,
    /// Dismiss that version.
    Skip,
}

/// `POST /api/store/update`: take the latest now (unpins); an edited app needs a choice.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct UpdateRequest {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(optional, type = "string"))]
    pub workspace: Option<PathBuf>,
    /// The app: its folder (`.cowork/apps/gmail`) or its name.
    pub app: String,
    /// What to do with an edited app; none = leave it (`edited`).
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub choice: Option<UpdateChoice>,
    /// Update with content that does not verify: only when the person explicitly asks.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<bool>", optional))]
    pub allow_unverified: bool,
}

/// What an update did: the store library's outcome (`cowork_store::update` returns it), as
/// `cowork app update --json` and `POST /api/store/update` say it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase", tag = "outcome")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum UpdateOutcome {
    /// The installed version is the latest.
    UpToDate {
        /// The installed version.
        version: String,
    },
    /// The new version is in place.
    Updated {
        /// The version that was installed.
        from: String,
        /// The version installed now.
        to: String,
        /// Blobs downloaded (the others were cached).
        blobs: u64,
        /// Bytes downloaded.
        bytes: u64,
    },
    /// The new version sits beside the app (`copy`), switched off.
    KeptBoth {
        /// The copy's folder.
        copy: String,
        /// The copy's version.
        version: String,
        /// Blobs downloaded (the others were cached).
        blobs: u64,
        /// Bytes downloaded.
        bytes: u64,
    },
    /// Claude merged the person's changes into the new version.
    Merged {
        /// The version that was installed.
        from: String,
        /// The version installed now, with the person's changes.
        to: String,
        /// Blobs downloaded (the others were cached).
        blobs: u64,
        /// Bytes downloaded.
        bytes: u64,
    },
    /// Claude could not merge: both were kept.
    MergeFailed {
        /// Why the merge failed.
        why: String,
        /// The new version's folder, beside the app.
        copy: String,
        /// The new version.
        version: String,
        /// Blobs downloaded (the others were cached).
        blobs: u64,
        /// Bytes downloaded.
        bytes: u64,
    },
    /// The version was dismissed.
    Skipped {
        /// The version dismissed.
        version: String,
    },
    /// Left alone: the app was edited.
    Edited {
        /// The latest version, not taken.
        version: String,
        /// The installed files changed, then those gone, relative to the app folder.
        changed: Vec<String>,
    },
    /// Pinned: left at its version.
    Pinned {
        /// The version it stays at.
        version: String,
        /// The store's latest.
        latest: String,
    },
    /// The person dismissed this version already.
    Dismissed {
        /// The version dismissed earlier.
        version: String,
    },
}

impl UpdateOutcome {
    /// The blobs and bytes this update downloaded.
    pub fn downloaded(&self) -> (u64, u64) {
        match self {
            UpdateOutcome::Updated { blobs, bytes, .. }
            | UpdateOutcome::KeptBoth { blobs, bytes, .. }
            | UpdateOutcome::Merged { blobs, bytes, .. }
            | UpdateOutcome::MergeFailed { blobs, bytes, .. } => (*blobs, *bytes),
            _ => (0, 0),
        }
    }

    /// Whether files changed on disk.
    pub fn changed_files(&self) -> bool {
        matches!(
            self,
            UpdateOutcome::Updated { .. }
                | UpdateOutcome::KeptBoth { .. }
                | UpdateOutcome::Merged { .. }
                | UpdateOutcome::MergeFailed { .. }
        )
    }
}

/// `POST /api/store/update`'s answer.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct UpdateAnswer {
    /// The app's folder.
    pub dir: String,
    /// The team server it came from.
    pub team_server: String,
    /// What the update did.
    #[serde(flatten)]
    pub outcome: UpdateOutcome,
}

/// `POST /api/store/pin`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PinRequest {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(optional, type = "string"))]
    pub workspace: Option<PathBuf>,
    /// The app: its folder or its name.
    pub app: String,
    /// Pin (`true`) or unpin.
    pub pinned: bool,
}

/// The pin as it now is.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PinAnswer {
    /// The app's folder.
    pub dir: String,
    /// The version it is at.
    pub version: String,
    /// Whether it is pinned now.
    pub pinned: bool,
}

/// `POST /api/store/remove`: one app of the workspace.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AppRequest {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(optional, type = "string"))]
    pub workspace: Option<PathBuf>,
    /// The app: its folder or its name.
    pub app: String,
}

/// What a removal did: files still as installed are deleted, edited and added ones kept.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RemoveAnswer {
    /// The app's folder.
    pub dir: String,
    /// Deleted: still as installed.
    pub deleted: Vec<String>,
    /// Kept: the person changed them.
    pub edited: Vec<String>,
    /// Kept: the person added them.
    pub added: Vec<String>,
    /// The folder is gone (nothing of the person's was in it).
    pub folder_removed: bool,
}

/// One card of a team server's store, and this workspace's copy of it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StoreCard {
    /// The item, as the store lists it.
    #[serde(flatten)]
    pub item: StoreItem,
    /// The folder and version installed in this workspace, if any.
    pub installed: Option<InstalledCopy>,
}

/// An installed copy of a store item.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct InstalledCopy {
    /// The app's folder.
    pub dir: String,
    /// The version installed.
    pub version: String,
    /// Pinned at that version.
    pub pinned: bool,
}

/// `GET /api/store/items`: a team server's store as cards.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StoreCards {
    /// The team server's slug.
    pub team_server: String,
    /// Its store's items, with this workspace's copies.
    pub cards: Vec<StoreCard>,
}

/// A template the Create menu offers.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TemplateCard {
    /// `cowork` (built in) or a team server's slug.
    pub store: String,
    /// The template, as its store lists it.
    #[serde(flatten)]
    pub item: StoreItem,
}

/// `GET /api/store/templates`: the built-in store's, then each team server's.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Templates {
    /// The templates, built-in first.
    pub templates: Vec<TemplateCard>,
    /// Team servers whose store did not answer.
    pub unreachable: Vec<Unreachable>,
}

/// `POST /api/store/templates/scaffold` (`cowork template install`): writes nothing if any
/// target path exists.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ScaffoldRequest {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(optional, type = "string"))]
    pub workspace: Option<PathBuf>,
    /// `<store>/<template>`: `cowork/app-sidebar-workbench`.
    pub template: String,
    /// The component's name: its folder, and the word the template's own name becomes.
    pub name: String,
}

/// What a scaffold wrote.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ScaffoldAnswer {
    /// `.cowork/apps/clients`, or `.` for a workspace template.
    pub dir: String,
    /// What kind of template it was.
    pub subtype: TemplateSubtype,
    /// Relative to `dir`.
    pub files: Vec<String>,
    /// The capabilities its manifest `uses` that could not be installed with it, each with why
    /// (`tasks: … was not found`): the scaffold is written, and they show as missing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<String>>", optional))]
    pub missing: Vec<String>,
}

/// `POST /api/store/progress`: a lesson marked done (or not).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LessonDoneRequest {
    /// The team server the course is on.
    pub team_server: String,
    /// The course's name.
    pub course: String,
    /// The lesson's id (its folder name), not its place.
    pub lesson: String,
    /// Done (`true`) or not.
    pub done: bool,
}

/// A subscribed course as the Academy shows it: its latest version, lessons in order.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CourseView {
    /// The team server the course is on.
    pub team_server: String,
    /// The course's name.
    pub course: String,
    /// Its latest version.
    pub version: String,
    /// Its title.
    pub title: String,
    /// Its level, as the author put it (`beginner`…).
    pub level: Option<String>,
    /// Markdown.
    pub description: String,
    /// The lessons, in order.
    pub lessons: Vec<LessonView>,
}

/// One lesson: the video on top, then its text.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LessonView {
    /// What progress is kept by (not its place).
    pub id: String,
    /// The lesson's title.
    pub title: String,
    /// How long it takes, in minutes.
    pub minutes: Option<u64>,
    /// A YouTube, Vimeo or Loom link.
    pub video: Option<String>,
    /// Markdown.
    pub body: String,
}

/// `GET /api/store/workspace-courses`: the workspace's own courses and lessons as files (page 11),
/// as Manage Workspace › Components lists them — what `publish --type course` would publish.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct WorkspaceCourses {
    /// Each folder of `.cowork/courses/`, by name.
    pub courses: Vec<WorkspaceCourse>,
    /// Each folder of `.cowork/lessons/` that no course lists, by id.
    pub lessons: Vec<WorkspaceLesson>,
}

/// One course folder of the workspace.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct WorkspaceCourse {
    /// The folder's name: the course's store name.
    pub name: String,
    /// `.cowork/courses/<name>/course.md`.
    pub path: String,
    /// Its title (empty when `course.md` gives none).
    pub title: String,
    /// Beginner, Intermediate or Advanced, when it says.
    pub level: Option<String>,
    /// The lessons that read, in the order of its `lessons:` line.
    pub lessons: Vec<WorkspaceLesson>,
    /// Its problems, each with its file; empty when it publishes as it is.
    pub problems: Vec<CourseProblem>,
}

/// One lesson of the workspace.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct WorkspaceLesson {
    /// Its id (its folder's name).
    pub id: String,
    /// Its `lesson.md`, workspace-relative.
    pub path: String,
    /// Its title.
    pub title: String,
    /// How long it takes, in minutes.
    pub minutes: Option<u64>,
    /// A YouTube, Vimeo or Loom link.
    pub video: Option<String>,
}

/// A problem of a course, named with its file.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CourseProblem {
    /// Workspace-relative.
    pub file: String,
    /// What is wrong, in words.
    pub message: String,
}

/// `POST /api/store/subscription`: subscribe to a team server's course (the Academy then lists
/// it), or unsubscribe.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SubscriptionRequest {
    /// The team server the course is on.
    pub team_server: String,
    /// The course's name.
    pub course: String,
    /// Subscribed (`true`) or not.
    pub subscribed: bool,
}
