// Generated from cowork-wire's Rust types (crates/cowork-wire/src/store/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test --workspace --lib -- store::typescript

export type InstalledApps = { 
/**
 * The workspace's apps installed from a team server's store.
 */
apps: Array<InstalledApp>, 
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

export type Unreachable = { 
/**
 * The team server's slug.
 */
teamServer: string, 
/**
 * What failed, in words.
 */
message: string, };

export type InstallRequest = { 
/**
 * The workspace; none = the daemon's default workspace.
 */
workspace?: string, 
/**
 * `<team-server>/<app>[@X.Y.Z]` (a version pins).
 */
item: string, 
/**
 * Install content that does not verify: only when the person explicitly asks.
 */
allowUnverified?: boolean, };

export type InstallAnswer = { 
/**
 * The folder it was installed to (`.cowork/apps/<name>`).
 */
dir: string, 
/**
 * The app's name.
 */
name: string, 
/**
 * The team server it came from.
 */
teamServer: string, 
/**
 * The version installed.
 */
version: string, 
/**
 * Pinned: automatic updates leave it at this version.
 */
pinned: boolean, 
/**
 * It verified against the team server's key.
 */
verified: boolean, 
/**
 * How many files it has.
 */
files: number, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, };

export type UpdateChoice = "replace" | "keep-both" | "ai-merge" | "skip";

export type UpdateRequest = { 
/**
 * The workspace; none = the daemon's default workspace.
 */
workspace?: string, 
/**
 * The app: its folder (`.cowork/apps/gmail`) or its name.
 */
app: string, 
/**
 * What to do with an edited app; none = leave it (`edited`).
 */
choice?: UpdateChoice, 
/**
 * Update with content that does not verify: only when the person explicitly asks.
 */
allowUnverified?: boolean, };

export type UpdateOutcome = { "outcome": "upToDate", 
/**
 * The installed version.
 */
version: string, } | { "outcome": "updated", 
/**
 * The version that was installed.
 */
from: string, 
/**
 * The version installed now.
 */
to: string, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, 
/**
 * Bytes downloaded.
 */
bytes: number, } | { "outcome": "keptBoth", 
/**
 * The copy's folder.
 */
copy: string, 
/**
 * The copy's version.
 */
version: string, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, 
/**
 * Bytes downloaded.
 */
bytes: number, } | { "outcome": "merged", 
/**
 * The version that was installed.
 */
from: string, 
/**
 * The version installed now, with the person's changes.
 */
to: string, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, 
/**
 * Bytes downloaded.
 */
bytes: number, } | { "outcome": "mergeFailed", 
/**
 * Why the merge failed.
 */
why: string, 
/**
 * The new version's folder, beside the app.
 */
copy: string, 
/**
 * The new version.
 */
version: string, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, 
/**
 * Bytes downloaded.
 */
bytes: number, } | { "outcome": "skipped", 
/**
 * The version dismissed.
 */
version: string, } | { "outcome": "edited", 
/**
 * The latest version, not taken.
 */
version: string, 
/**
 * The installed files changed, then those gone, relative to the app folder.
 */
changed: Array<string>, } | { "outcome": "pinned", 
/**
 * The version it stays at.
 */
version: string, 
/**
 * The store's latest.
 */
latest: string, } | { "outcome": "dismissed", 
/**
 * The version dismissed earlier.
 */
version: string, };

export type UpdateAnswer = { 
/**
 * The app's folder.
 */
dir: string, 
/**
 * The team server it came from.
 */
teamServer: string, } & ({ "outcome": "upToDate", 
/**
 * The installed version.
 */
version: string, } | { "outcome": "updated", 
/**
 * The version that was installed.
 */
from: string, 
/**
 * The version installed now.
 */
to: string, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, 
/**
 * Bytes downloaded.
 */
bytes: number, } | { "outcome": "keptBoth", 
/**
 * The copy's folder.
 */
copy: string, 
/**
 * The copy's version.
 */
version: string, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, 
/**
 * Bytes downloaded.
 */
bytes: number, } | { "outcome": "merged", 
/**
 * The version that was installed.
 */
from: string, 
/**
 * The version installed now, with the person's changes.
 */
to: string, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, 
/**
 * Bytes downloaded.
 */
bytes: number, } | { "outcome": "mergeFailed", 
/**
 * Why the merge failed.
 */
why: string, 
/**
 * The new version's folder, beside the app.
 */
copy: string, 
/**
 * The new version.
 */
version: string, 
/**
 * Blobs downloaded (the others were cached).
 */
blobs: number, 
/**
 * Bytes downloaded.
 */
bytes: number, } | { "outcome": "skipped", 
/**
 * The version dismissed.
 */
version: string, } | { "outcome": "edited", 
/**
 * The latest version, not taken.
 */
version: string, 
/**
 * The installed files changed, then those gone, relative to the app folder.
 */
changed: Array<string>, } | { "outcome": "pinned", 
/**
 * The version it stays at.
 */
version: string, 
/**
 * The store's latest.
 */
latest: string, } | { "outcome": "dismissed", 
/**
 * The version dismissed earlier.
 */
version: string, });

export type PinRequest = { 
/**
 * The workspace; none = the daemon's default workspace.
 */
workspace?: string, 
/**
 * The app: its folder or its name.
 */
app: string, 
/**
 * Pin (`true`) or unpin.
 */
pinned: boolean, };

export type PinAnswer = { 
/**
 * The app's folder.
 */
dir: string, 
/**
 * The version it is at.
 */
version: string, 
/**
 * Whether it is pinned now.
 */
pinned: boolean, };

export type AppRequest = { 
/**
 * The workspace; none = the daemon's default workspace.
 */
workspace?: string, 
/**
 * The app: its folder or its name.
 */
app: string, };

export type RemoveAnswer = { 
/**
 * The app's folder.
 */
dir: string, 
/**
 * Deleted: still as installed.
 */
deleted: Array<string>, 
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

export type StoreCards = { 
/**
 * The team server's slug.
 */
teamServer: string, 
/**
 * Its store's items, with this workspace's copies.
 */
cards: Array<StoreCard>, };

export type StoreCard = { 
/**
 * The folder and version installed in this workspace, if any.
 */
installed: InstalledCopy | null, 
/**
 * Unique in the store, never renamed.
 */
name: string, 
/**
 * What the item is.
 */
kind: ItemKind, 
/**
 * What a template scaffolds; none for any other kind.
 */
subtype?: TemplateSubtype | null, 
/**
 * The latest version (never withdrawn).
 */
version: string, 
/**
 * The card's title; none = the item's name.
 */
title: string | null, 
/**
 * The card's text.
 */
description: string | null, 
/**
 * The card's tags.
 */
tags: Array<string>, 
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
versions: number, 
/**
 * When the item was first published.
 */
createdAt: number, 
/**
 * Its latest publish or card change.
 */
updatedAt: number, };

export type InstalledCopy = { 
/**
 * The app's folder.
 */
dir: string, 
/**
 * The version installed.
 */
version: string, 
/**
 * Pinned at that version.
 */
pinned: boolean, };

export type Templates = { 
/**
 * The templates, built-in first.
 */
templates: Array<TemplateCard>, 
/**
 * Team servers whose store did not answer.
 */
unreachable: Array<Unreachable>, };

export type TemplateCard = { 
/**
 * `cowork` (built in) or a team server's slug.
 */
store: string, 
/**
 * Unique in the store, never renamed.
 */
name: string, 
/**
 * What the item is.
 */
kind: ItemKind, 
/**
 * What a template scaffolds; none for any other kind.
 */
subtype?: TemplateSubtype | null, 
/**
 * The latest version (never withdrawn).
 */
version: string, 
/**
 * The card's title; none = the item's name.
 */
title: string | null, 
/**
 * The card's text.
 */
description: string | null, 
/**
 * The card's tags.
 */
tags: Array<string>, 
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
versions: number, 
/**
 * When the item was first published.
 */
createdAt: number, 
/**
 * Its latest publish or card change.
 */
updatedAt: number, };

export type ScaffoldRequest = { 
/**
 * The workspace; none = the daemon's default workspace.
 */
workspace?: string, 
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
dir: string, 
/**
 * What kind of template it was.
 */
subtype: TemplateSubtype, 
/**
 * Relative to `dir`.
 */
files: Array<string>, 
/**
 * The capabilities its manifest `uses` that could not be installed with it, each with why
 * (`tasks: … was not found`): the scaffold is written, and they show as missing.
 */
missing?: Array<string>, };

export type LessonDoneRequest = { 
/**
 * The team server the course is on.
 */
teamServer: string, 
/**
 * The course's name.
 */
course: string, 
/**
 * The lesson's id (its folder name), not its place.
 */
lesson: string, 
/**
 * Done (`true`) or not.
 */
done: boolean, };

export type CourseView = { 
/**
 * The team server the course is on.
 */
teamServer: string, 
/**
 * The course's name.
 */
course: string, 
/**
 * Its latest version.
 */
version: string, 
/**
 * Its title.
 */
title: string, 
/**
 * Its level, as the author put it (`beginner`…).
 */
level: string | null, 
/**
 * Markdown.
 */
description: string, 
/**
 * The lessons, in order.
 */
lessons: Array<LessonView>, };

export type LessonView = { 
/**
 * What progress is kept by (not its place).
 */
id: string, 
/**
 * The lesson's title.
 */
title: string, 
/**
 * How long it takes, in minutes.
 */
minutes: number | null, 
/**
 * A YouTube, Vimeo or Loom link.
 */
video: string | null, 
/**
 * Markdown.
 */
body: string, };

export type WorkspaceCourses = { 
/**
 * Each folder of `.cowork/courses/`, by name.
 */
courses: Array<WorkspaceCourse>, 
/**
 * Each folder of `.cowork/lessons/` that no course lists, by id.
 */
lessons: Array<WorkspaceLesson>, };

export type WorkspaceCourse = { 
/**
 * The folder's name: the course's store name.
 */
name: string, 
/**
 * `.cowork/courses/<name>/course.md`.
 */
path: string, 
/**
 * Its title (empty when `course.md` gives none).
 */
title: string, 
/**
 * Beginner, Intermediate or Advanced, when it says.
 */
level: string | null, 
/**
 * The lessons that read, in the order of its `lessons:` line.
 */
lessons: Array<WorkspaceLesson>, 
/**
 * Its problems, each with its file; empty when it publishes as it is.
 */
problems: Array<CourseProblem>, };

export type WorkspaceLesson = { 
/**
 * Its id (its folder's name).
 */
id: string, 
/**
 * Its `lesson.md`, workspace-relative.
 */
path: string, 
/**
 * Its title.
 */
title: string, 
/**
 * How long it takes, in minutes.
 */
minutes: number | null, 
/**
 * A YouTube, Vimeo or Loom link.
 */
video: string | null, };

export type CourseProblem = { 
/**
 * Workspace-relative.
 */
file: string, 
/**
 * What is wrong, in words.
 */
message: string, };

export type SubscriptionRequest = { 
/**
 * The team server the course is on.
 */
teamServer: string, 
/**
 * The course's name.
 */
course: string, 
/**
 * Subscribed (`true`) or not.
 */
subscribed: boolean, };

export type StoreItem = { 
/**
 * Unique in the store, never renamed.
 */
name: string, 
/**
 * What the item is.
 */
kind: ItemKind, 
/**
 * What a template scaffolds; none for any other kind.
 */
subtype?: TemplateSubtype | null, 
/**
 * The latest version (never withdrawn).
 */
version: string, 
/**
 * The card's title; none = the item's name.
 */
title: string | null, 
/**
 * The card's text.
 */
description: string | null, 
/**
 * The card's tags.
 */
tags: Array<string>, 
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
versions: number, 
/**
 * When the item was first published.
 */
createdAt: number, 
/**
 * Its latest publish or card change.
 */
updatedAt: number, };

export type StoreVersion = { 
/**
 * The version (`X.Y.Z`).
 */
version: string, 
/**
 * When it was published.
 */
publishedAt: number, 
/**
 * The publishing admin's email.
 */
publishedBy: string, 
/**
 * How many files, and their bytes together.
 */
files: number, 
/**
 * The files' bytes together.
 */
size: number, 
/**
 * Set once an admin withdrew it: no new install should take it; copies already installed
 * (even pinned to it) keep working, and `app versions` notes it.
 */
withdrawnAt: number | null, };

export type ItemVersions = { 
/**
 * The item, at its latest version.
 */
item: StoreItem, 
/**
 * The versions kept, newest first.
 */
versions: Array<StoreVersion>, };

export type ItemKind = "app" | "workspace" | "workspace-component" | "template" | "course";

export type TemplateSubtype = "app" | "routine" | "skill" | "workspace";

export type Host = "desktop" | "web";

export type Subscriptions = { 
/**
 * The account's subscriptions.
 */
subscriptions: Array<Subscription>, };

export type Subscription = { 
/**
 * The team server the course is on.
 */
teamServer: string, 
/**
 * The course's name.
 */
course: string, 
/**
 * When the account subscribed.
 */
subscribedAt: number, 
/**
 * The course's latest version; `None` while it is unpublished.
 */
version: string | null, 
/**
 * The course's title at its latest version.
 */
title: string | null, 
/**
 * Lessons this account has marked done.
 */
lessonsDone: number, };

export type CourseProgress = { 
/**
 * The team server the course is on.
 */
teamServer: string, 
/**
 * The course's name.
 */
course: string, 
/**
 * The caller subscribed to it.
 */
subscribed: boolean, 
/**
 * The lessons done.
 */
lessons: Array<LessonDone>, };

export type LessonDone = { 
/**
 * The lesson's id (its folder name, page 11), not its place: reordering keeps progress.
 */
lesson: string, 
/**
 * When it was marked done.
 */
doneAt: number, };
