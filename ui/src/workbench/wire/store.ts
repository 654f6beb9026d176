// Generated from cowork-wire's Rust types (crates/cowork-wire/src/store/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test --workspace --lib -- store::typescript

export type InstalledApps = { apps: Array<InstalledApp>, 
/**
 * How many installed apps were edited (the Manage Workspace icon's count).
 */
edited: number, 
/**
 * Team servers whose store did not answer (their apps show no "update available").
 */
unreachable: Array<Unreachable>, };

export type InstalledApp = { 
/**
 * `.cowork/apps/gmail`.
 */
dir: string, 
/**
 * The manifest's `name`.
 */
name: string, 
/**
 * `local`, or `<team-server>@<version>` (as `cowork app list` says it, without the pin).
 */
source: string, 
/**
 * The team server it follows; `None` for a local app.
 */
teamServer: string | null, 
/**
 * The installed version (a local app: its manifest's).
 */
version: string, 
/**
 * Pinned: auto-update leaves it.
 */
pinned: boolean, 
/**
 * The store's latest version, when the store answered.
 */
latest: string | null, 
/**
 * The store has a newer version than this copy.
 */
updateAvailable: boolean, 
/**
 * Files changed, missing or added since the install (the clean check); empty when clean
 * or local.
 */
edited: Array<string>, 
/**
 * The install verified (`--allow-unverified` installs are not).
 */
verified: boolean, };

export type Unreachable = { teamServer: string, message: string, };

export type InstallRequest = { workspace?: string, 
/**
 * `<team-server>/<app>[@X.Y.Z]` (a version pins).
 */
item: string, 
/**
 * Install content that does not verify: only when the person explicitly asks.
 */
allowUnverified?: boolean, };

export type InstallAnswer = { dir: string, name: string, teamServer: string, version: string, pinned: boolean, verified: boolean, files: number, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, };

export type UpdateChoice = "replace" | "keep-both" | "ai-merge" | "skip";

export type UpdateRequest = { workspace?: string, 
/**
 * The app: its folder (`.cowork/apps/gmail`) or its name.
 */
app: string, choice?: UpdateChoice, allowUnverified?: boolean, };

export type UpdateOutcome = { "outcome": "upToDate", version: string, } | { "outcome": "updated", from: string, to: string, blobs: number, } | { "outcome": "keptBoth", copy: string, version: string, blobs: number, } | { "outcome": "merged", from: string, to: string, blobs: number, } | { "outcome": "mergeFailed", why: string, copy: string, version: string, blobs: number, } | { "outcome": "skipped", version: string, } | { "outcome": "edited", version: string, changed: Array<string>, } | { "outcome": "pinned", version: string, latest: string, } | { "outcome": "dismissed", version: string, };

export type UpdateAnswer = { dir: string, teamServer: string, } & ({ "outcome": "upToDate", version: string, } | { "outcome": "updated", from: string, to: string, blobs: number, } | { "outcome": "keptBoth", copy: string, version: string, blobs: number, } | { "outcome": "merged", from: string, to: string, blobs: number, } | { "outcome": "mergeFailed", why: string, copy: string, version: string, blobs: number, } | { "outcome": "skipped", version: string, } | { "outcome": "edited", version: string, changed: Array<string>, } | { "outcome": "pinned", version: string, latest: string, } | { "outcome": "dismissed", version: string, });

export type PinRequest = { workspace?: string, app: string, pinned: boolean, };

export type PinAnswer = { dir: string, version: string, pinned: boolean, };

export type AppRequest = { workspace?: string, app: string, };

export type RemoveAnswer = { dir: string, deleted: Array<string>, 
/**
 * Kept: the person changed them.
 */
edited: Array<string>, 
/**
 * Kept: the person added them.
 */
added: Array<string>, 
/**
 * The folder is gone (nothing of the person's was in it).
 */
folderRemoved: boolean, };

export type StoreCards = { teamServer: string, cards: Array<StoreCard>, };

export type StoreCard = { 
/**
 * The folder and version installed in this workspace, if any.
 */
installed: InstalledCopy | null, 
/**
 * Unique in the store, never renamed.
 */
name: string, kind: ItemKind, subtype?: TemplateSubtype | null, 
/**
 * The latest version (never withdrawn).
 */
version: string, title: string | null, description: string | null, tags: Array<string>, 
/**
 * A codicon id (`mail`), or the SHA-256 of an image blob of this store.
 */
icon: string | null, 
/**
 * The SHA-256 of the listing's wide picture.
 */
banner: string | null, 
/**
 * SHA-256s of the listing's screenshots, in order (at most 5).
 */
screenshots: Array<string>, 
/**
 * Where it runs; empty when the publisher did not say.
 */
requires: Array<Host>, 
/**
 * How many versions the store keeps of it (at most [`KEEP_VERSIONS`]).
 */
versions: number, createdAt: number, 
/**
 * Its latest publish or card change.
 */
updatedAt: number, };

export type InstalledCopy = { dir: string, version: string, pinned: boolean, };

export type Templates = { templates: Array<TemplateCard>, unreachable: Array<Unreachable>, };

export type TemplateCard = { 
/**
 * `cowork` (built in) or a team server's slug.
 */
store: string, 
/**
 * Unique in the store, never renamed.
 */
name: string, kind: ItemKind, subtype?: TemplateSubtype | null, 
/**
 * The latest version (never withdrawn).
 */
version: string, title: string | null, description: string | null, tags: Array<string>, 
/**
 * A codicon id (`mail`), or the SHA-256 of an image blob of this store.
 */
icon: string | null, 
/**
 * The SHA-256 of the listing's wide picture.
 */
banner: string | null, 
/**
 * SHA-256s of the listing's screenshots, in order (at most 5).
 */
screenshots: Array<string>, 
/**
 * Where it runs; empty when the publisher did not say.
 */
requires: Array<Host>, 
/**
 * How many versions the store keeps of it (at most [`KEEP_VERSIONS`]).
 */
versions: number, createdAt: number, 
/**
 * Its latest publish or card change.
 */
updatedAt: number, };

export type ScaffoldRequest = { workspace?: string, 
/**
 * `<store>/<template>`: `cowork/app-sidebar-workbench`.
 */
template: string, 
/**
 * The component's name: its folder, and the word the template's own name becomes.
 */
name: string, };

export type ScaffoldAnswer = { 
/**
 * `.cowork/apps/clients`, or `.` for a workspace template.
 */
dir: string, subtype: TemplateSubtype, 
/**
 * Relative to `dir`.
 */
files: Array<string>, };

export type LessonDoneRequest = { teamServer: string, course: string, 
/**
 * The lesson's id (its folder name), not its place.
 */
lesson: string, done: boolean, };

export type CourseView = { teamServer: string, course: string, version: string, title: string, level: string | null, 
/**
 * Markdown.
 */
description: string, lessons: Array<LessonView>, };

export type LessonView = { 
/**
 * What progress is kept by (not its place).
 */
id: string, title: string, minutes: number | null, 
/**
 * A YouTube, Vimeo or Loom link.
 */
video: string | null, 
/**
 * Markdown.
 */
body: string, };

export type StoreItem = { 
/**
 * Unique in the store, never renamed.
 */
name: string, kind: ItemKind, subtype?: TemplateSubtype | null, 
/**
 * The latest version (never withdrawn).
 */
version: string, title: string | null, description: string | null, tags: Array<string>, 
/**
 * A codicon id (`mail`), or the SHA-256 of an image blob of this store.
 */
icon: string | null, 
/**
 * The SHA-256 of the listing's wide picture.
 */
banner: string | null, 
/**
 * SHA-256s of the listing's screenshots, in order (at most 5).
 */
screenshots: Array<string>, 
/**
 * Where it runs; empty when the publisher did not say.
 */
requires: Array<Host>, 
/**
 * How many versions the store keeps of it (at most [`KEEP_VERSIONS`]).
 */
versions: number, createdAt: number, 
/**
 * Its latest publish or card change.
 */
updatedAt: number, };

export type StoreVersion = { version: string, publishedAt: number, 
/**
 * The publishing admin's email.
 */
publishedBy: string, 
/**
 * How many files, and their bytes together.
 */
files: number, size: number, 
/**
 * Set once an admin withdrew it: no new install should take it; copies already installed
 * (even pinned to it) keep working, and `app versions` notes it.
 */
withdrawnAt: number | null, };

export type ItemVersions = { item: StoreItem, versions: Array<StoreVersion>, };

export type ItemKind = "app" | "workspace" | "workspace-component" | "template" | "course";

export type TemplateSubtype = "app" | "routine" | "skill" | "workspace";

export type Host = "desktop" | "web";

export type Subscriptions = { subscriptions: Array<Subscription>, };

export type Subscription = { teamServer: string, course: string, subscribedAt: number, 
/**
 * The course's latest version; `None` while it is unpublished.
 */
version: string | null, title: string | null, 
/**
 * Lessons this account has marked done.
 */
lessonsDone: number, };

export type CourseProgress = { teamServer: string, course: string, subscribed: boolean, lessons: Array<LessonDone>, };

export type LessonDone = { 
/**
 * The lesson's id (its folder name, page 11), not its place: reordering keeps progress.
 */
lesson: string, doneAt: number, };
