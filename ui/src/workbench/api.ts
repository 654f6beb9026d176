/**
 * The daemon's workbench API: one typed function per route, and nothing else talks to the daemon.
 *
 * Every route but `/api/sdk/*` carries the owner token (`Authorization: Bearer …`, never a
 * cookie); `/api/sdk/<method>` carries the PANE's token, from which the daemon derives the app, so
 * a pane can only ever act as its own app. A failed call rejects with a `CoworkError` named as the
 * daemon named it (`NotFound`, `TooManyRoutines` …).
 */
import { CoworkError, type OpenedFile, type WireError } from "@/frame/protocol"

import type {
  AccountInfo,
  AgentsInfo,
  Answered,
  Changed,
  ConsentAnswer,
  DaemonEvent as WorkspaceEvent,
  ErrorBody,
  FileEntry,
  FileText,
  NewAgent,
  OpenedPane,
  Outcome,
  Route,
  Runs,
  RuntimeInfo,
  SignInStarted,
  StatusBarAnswer,
  Switched,
  WorkbenchInfo,
  Workflows,
} from "./wire/daemon"
import type { Digest, RailFolder } from "./wire/core"
import type { StreamOpen } from "./wire/streams"
import type { QueueInfo, TableFile, Task, View } from "./wire/queue"
import type {
  AppRequest,
  CourseView,
  InstallAnswer,
  InstalledApps,
  InstallRequest,
  PinAnswer,
  PinRequest,
  RemoveAnswer,
  ScaffoldAnswer,
  ScaffoldRequest,
  StoreCards,
  Templates,
  UpdateAnswer,
  UpdateChoice,
  UpdateRequest,
  LessonDoneRequest,
  CourseProgress,
  Subscriptions,
  SubscriptionRequest,
  WorkspaceCourses,
} from "./wire/store"
import type {
  AnswerBody,
  ConversationBody,
  Conversations,
  InstallBody,
  Installed,
  SendBody,
  Sent,
  Transcript,
} from "./wire/chat"

export type { Badges, DaemonNotification } from "./wire/daemon"
export type { Digest, Display, Problem, RailFolder, Risk, RouteConflict } from "./wire/core"
export type {
  AgentsInfo,
  App,
  FileEntry,
  FinishedRun,
  NewAgent,
  OpenedPane,
  Route,
  Routine,
  Runs,
  TriggeredRoutine,
  WorkbenchInfo,
} from "./wire/daemon"
export type { AccountInfo, AccountTeamServer, AccountUser } from "./wire/daemon"
export type { ConsentEvent, ConsentRequest } from "./wire/daemon"
export type { Answer, RoutineGrants } from "./wire/core"
export type { QueueInfo, TableFile, Task, View } from "./wire/queue"
export type {
  CourseView,
  InstalledApp,
  InstalledApps,
  Subscription,
  Subscriptions,
  StoreCard,
  TemplateCard,
  UpdateChoice,
  WorkspaceCourse,
  WorkspaceCourses,
  WorkspaceLesson,
} from "./wire/store"

/**
 * What `/api/events` streams to a page. The page follows one workspace (`?workspace=`), so it reads
 * the daemon's events without the `workspace` each one names.
 */
export type DaemonEvent = WorkspaceEvent extends infer E
  ? E extends unknown
    ? Omit<E, "workspace">
    : never
  : never

let ownerToken = ""

/**
 * This page's session: sent with every call, it is what the daemon records each pane token under.
 * The page's event stream keeps the session alive; when the stream closes for good (the page is
 * gone) or the page ends it, its pane tokens end too.
 */
const pageSession = crypto.randomUUID()
const SESSION_HEADER = "x-cowork-session"

/** The owner token every call but `/api/sdk/*` carries. */
export function setOwnerToken(token: string) {
  ownerToken = token
}

/**
 * `POST /api/session`: the one-time code of the page's address for the owner token. A used or
 * expired code rejects with the daemon's message (run `cowork open --browser` again).
 */
export async function exchangeCode(code: string): Promise<string> {
  const response = await fetch("/api/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code }),
  })
  if (!response.ok) throw await failure(response)
  return ((await response.json()) as { token: string }).token
}

type Query = Record<string, string | undefined>

function url(path: string, query: Query = {}) {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value)
  const search = params.toString()
  return search ? `${path}?${search}` : path
}

async function call<T>(path: string, init: { body?: unknown; token?: string; query?: Query } = {}) {
  const response = await fetch(url(path, init.query), {
    method: init.body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${init.token ?? ownerToken}`,
      [SESSION_HEADER]: pageSession,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  if (!response.ok) throw await failure(response)
  return (await response.json()) as T
}

/**
 * A refusal of the daemon: its name (`NoHub`, `NotAdmin` …), message and, where the daemon knows
 * the fix, its hint — which a toast shows, since a refusal without its way out strands people.
 */
export class DaemonError extends CoworkError {
  hint?: string

  constructor(name: string, message: string, hint?: string) {
    super(name, message)
    if (hint) this.hint = hint
  }
}

/** The daemon's error body (`{error: {name, message, hint}}` or `{error: "…"}`), or the status. */
async function failure(response: Response) {
  const text = await response.text()
  try {
    // The daemon sends `ErrorBody`; `{error: "…"}` is what something else on the way may send.
    const { error } = JSON.parse(text) as { error?: Partial<ErrorBody["error"]> | string }
    if (typeof error === "string") return new DaemonError(errorName(response.status), error)
    if (error?.message)
      return new DaemonError(error.name || errorName(response.status), error.message, error.hint)
  } catch {
    // Not JSON: the text (or the status) is the message.
  }
  return new DaemonError(
    errorName(response.status),
    text || `${response.status} ${response.statusText}`,
  )
}

function errorName(status: number) {
  if (status === 401 || status === 403) return "Unauthorized"
  if (status === 404) return "NotFound"
  if (status === 429) return "TooManyRoutines"
  return status >= 500 ? "DaemonError" : "BadRequest"
}

/** `GET /api/workbench`: everything the workbench draws; no workspace → the daemon's default. */
export const workbench = (workspace?: string) =>
  call<WorkbenchInfo>("/api/workbench", { query: { workspace } })

/**
 * The page's first `GET /api/workbench`: the answer to the request index.html sent while the
 * bundle loaded (the start waits for this data, so it does not wait for the bundle to run first),
 * else — none sent, or it failed — asked now.
 */
export async function firstWorkbench(workspace?: string) {
  const page = window as { coworkFirstWorkbench?: Promise<Response> }
  const early = await page.coworkFirstWorkbench?.catch(() => undefined)
  delete page.coworkFirstWorkbench
  if (early?.ok) return (await early.json()) as WorkbenchInfo
  return workbench(workspace)
}

/** `GET /api/account`: who is signed in to Cowork on this machine, on which hub, their team servers. */
export const account = () => call<AccountInfo>("/api/account")

/**
 * `POST /api/account/sign-in`: the daemon starts a browser sign-in (PKCE, back to its loopback
 * port) on `hub` (default: the one this machine remembers) and answers the address to open; the
 * `account` event follows when the browser comes back. Rejects `NoHub` when no hub was ever named.
 */
export const signIn = (hub?: string) =>
  call<SignInStarted>("/api/account/sign-in", { body: hub ? { hub } : {} })

/** `POST /api/account/sign-out`: signs this machine out (the session revoked on the hub). */
export const signOut = () => call<AccountInfo>("/api/account/sign-out", { body: {} })

/** `GET /api/runtime`: the runtime routines run on here (`null`: none), and Bun's install. */
export const runtime = () => call<RuntimeInfo>("/api/runtime")

/** `POST /api/runtime/install`: the daemon installs Bun from the npm registry, integrity checked. */
export const installRuntime = () => call<RuntimeInfo>("/api/runtime/install", { body: {} })

/** `POST /api/panes`: a pane of `app` showing `file` — its frame page, token and widget. */
export const openPane = (body: {
  workspace: string
  app: string
  file: string
  openedFile?: OpenedFile
}) => call<OpenedPane>("/api/panes", { body })

/**
 * `POST /api/web-apps/file`: the page of the web app a file routes to, its address carrying a token
 * for that one file (the page reads and saves it with it; page 12 "Web apps").
 */
export const openWebFile = (body: { workspace: string; path: string }) =>
  call<{ app: string; src: string }>("/api/web-apps/file", { body })

/** `POST /api/web-apps/file/end`: the tab of a routed file closed; its token ends. */
export const endWebFile = (token: string) =>
  call<{ ended: boolean }>("/api/web-apps/file/end", { body: { token } })

/** Where a web app's build stands (`web.download`): fetched on the first open, then cached. */
export type WebAppBuild =
  | { state: "ready" }
  | { state: "fetching"; received: number; total: number | null }
  | { state: "failed"; error: WireError }

/** `POST /api/web-apps/build`: the build's state; asking starts its fetch (once). */
export const webAppBuild = (body: { workspace: string; app: string }) =>
  call<WebAppBuild>("/api/web-apps/build", { body })

/** `POST /api/sdk/<method>` as the pane whose token this is: the SDK calls the daemon answers. */
export async function sdk(paneToken: string, method: string, params: unknown): Promise<unknown> {
  const answer = await call<Outcome<unknown, WireError>>(`/api/sdk/${method}`, {
    body: params ?? {},
    token: paneToken,
  })
  if (!answer.ok) throw CoworkError.from(answer.error)
  return answer.result
}

/**
 * `POST /api/streams` as a pane (`cowork.stream.open`): the stream's id and the body that carries
 * its frames (streams.ts reads them), or the daemon's refusal, thrown by name.
 */
export async function openStream(
  paneToken: string,
  params: StreamOpen,
  signal: AbortSignal,
): Promise<{ id: string; body: ReadableStream<Uint8Array> }> {
  const response = await fetch("/api/streams", {
    method: "POST",
    headers: {
      authorization: `Bearer ${paneToken}`,
      [SESSION_HEADER]: pageSession,
      "content-type": "application/json",
    },
    body: JSON.stringify(params),
    signal,
  })
  if (!response.ok) throw await failure(response)
  const id = response.headers.get("x-cowork-stream")
  if (id && response.body) return { id, body: response.body }
  const answer = (await response.json()) as Outcome<unknown, WireError>
  throw answer.ok
    ? new CoworkError("Error", "the daemon opened no stream")
    : CoworkError.from(answer.error)
}

/**
 * What the Tasks view asks the store of one of its tasks (cowork-queue's `Call` of the same
 * `method`, with the task's `queue` and `id` added).
 */
export type TaskAction =
  | { method: "approve" }
  | { method: "reject"; comment: string }
  | { method: "reply"; body: string; options: { to: string } }
  | { method: "retry" }
  | { method: "remove" }

/**
 * `POST /api/queues`: one task-store operation (cowork-queue's `Call`) as the owner. The store's
 * result is typed by the operation that asked for it (`QueueAnswers`); a failed operation rejects
 * named as the store named it (`StaleReceipt`, `WrongStatus` …).
 */
async function queueCall<M extends keyof QueueAnswers>(
  workspace: string,
  operation: { method: M } & Record<string, unknown>,
) {
  const answer = await call<Outcome<QueueAnswers[M], WireError>>("/api/queues", {
    body: { workspace, call: operation },
  })
  if (!answer.ok) throw CoworkError.from(answer.error)
  return answer.result
}

/** What each operation the Tasks view sends answers (cowork-queue's `Store::call`). */
interface QueueAnswers {
  queues: QueueInfo[]
  items: Task[]
  peek: Task
  approve: Task
  reject: Task
  reply: Task
  retry: Task
  remove: boolean
}

/** Every queue with its counts per view. */
export const queueList = (workspace: string) => queueCall(workspace, { method: "queues" })

/** One queue's tasks in one view, newest first (no bodies, entries or files). */
export const queueItems = (workspace: string, queue: string, view: View) =>
  queueCall(workspace, { method: "items", queue, query: { view } })

/** One task with its body, its thread and its files. */
export const queuePeek = (workspace: string, queue: string, id: number) =>
  queueCall(workspace, { method: "peek", queue, id })

/** The person's action on one task: approve, send back, reply, retry, delete. */
export const queueAct = (workspace: string, queue: string, id: number, action: TaskAction) =>
  queueCall(workspace, { queue, id, ...action })

/** `GET /api/tables`: the workspace's tables, for Manage Workspace. */
export const tables = (workspace: string) =>
  call<TableFile[]>("/api/tables", { query: { workspace } })

/** `POST /api/sdk/pane.close`: the pane is gone, so the daemon revokes its token. */
export const closePane = (paneToken: string) => sdk(paneToken, "pane.close", {})

/** `GET /api/route`: which app opens a workspace path, or null. */
export const route = (workspace: string, path: string) =>
  call<Route | null>("/api/route", { query: { workspace, path } })

/** `POST /api/open-with`: the app that opens a glob two apps claim, remembered. */
export const openWith = (workspace: string, glob: string, app: string) =>
  call<Changed>("/api/open-with", { body: { workspace, glob, app } })

/** `GET /api/files`: one folder of the workspace (`""` is its root). */
export const files = (workspace: string, path: string) =>
  call<FileEntry[]>("/api/files", { query: { workspace, path } })

/**
 * `GET /api/file`: a workspace file's text, or why it has none (`notText`: `Binary`, `TooLarge`);
 * refused by name (`Forbidden`) outside the workspace or in its `.cowork/local`.
 */
export const readFile = (workspace: string, path: string) =>
  call<FileText>("/api/file", { query: { workspace, path } })

/** `POST /api/apps/enable`: switches an app folder on or off. */
export const enableApp = (workspace: string, dir: string, enabled: boolean) =>
  call<Changed>("/api/apps/enable", { body: { workspace, app: dir, enabled } })

/** `POST /api/apps/mute`: mutes or unmutes an app folder's notifications. */
export const muteApp = (workspace: string, dir: string, muted: boolean) =>
  call<Changed>("/api/apps/mute", { body: { workspace, app: dir, muted } })

/** `GET /api/deploy/workflows`: the routines with a trigger, their state, next fire and last run. */
export const workflows = (workspace: string) =>
  call<Workflows>("/api/deploy/workflows", { query: { workspace } })

/**
 * `POST /api/deploy/active`: the Active switch (`cowork routine active <id> on|off`). On arms the
 * routine's triggers as declared now; `expected` (what the person was shown) makes the daemon refuse
 * (`ChangedAgain`) when the file says something else by then, so a confirmation arms only what was seen.
 */
export const setActive = (workspace: string, id: string, active: boolean, expected?: Digest) =>
  call<Switched>("/api/deploy/active", { body: { workspace, id, active, expected } })

/** `GET /api/runs`: the runs running now, then a page of finished ones, newest first (`cowork routine runs`). */
export const runs = (workspace: string, filter: { agent?: string; before?: string } = {}) =>
  call<Runs>("/api/runs", { query: { workspace, ...filter } })

/** `GET /api/agents`: the agent logins and each capability routine's answers (default, per agent). */
export const agents = (workspace: string) =>
  call<AgentsInfo>("/api/agents", { query: { workspace } })

/** `POST /api/agents`: a new agent login; its token is in this answer and nowhere else. */
export const createAgent = (workspace: string, name: string) =>
  call<NewAgent>("/api/agents", { body: { workspace, name } })

/**
 * `POST /api/agents/workspaces`: let an agent's login into this workspace (`add`: its token then
 * opens it) or out of it (`remove`) — `cowork agent workspaces add|remove`.
 */
export const agentWorkspace = (workspace: string, name: string, action: "add" | "remove") =>
  call<Changed>("/api/agents/workspaces", { body: { workspace, name, action } })

/**
 * `POST /api/agents/grant`: allow or deny `<capability>/<routine>` (or `<capability>/*`) for one
 * agent, or as the workspace default (no agent); `default` drops the setting.
 */
export const grantAgent = (
  workspace: string,
  target: string,
  answer: "allow" | "deny" | "default",
  agent?: string,
) => call<Changed>("/api/agents/grant", { body: { workspace, target, answer, agent } })

/** `POST /api/rail`: writes `workspace.json#rail.folders`. */
export const saveRail = (workspace: string, folders: RailFolder[]) =>
  call<Changed>("/api/rail", { body: { workspace, folders } })

/**
 * A footer routine's answer: the daemon answers a run that failed with 200 and `ok: false` (the
 * call itself worked), which becomes a rejection named as the routine's error.
 */
async function footerItem(answer: Promise<StatusBarAnswer>) {
  const drawn = await answer
  if (!drawn.ok) throw CoworkError.from(drawn.error)
  return drawn.item
}

/** `GET /api/statusbar`: an app's footer item as its routine returns it (null hides it). */
export const statusBar = (workspace: string, app: string) =>
  footerItem(call("/api/statusbar", { query: { workspace, app } }))

/** `POST /api/statusbar/click`: runs an app's footer routine with a click's `args`. */
export const clickStatusBar = (workspace: string, app: string, args: unknown) =>
  footerItem(call("/api/statusbar/click", { body: { workspace, app, args } }))

/** `GET /api/events`: the open stream of daemon events (read it with `events.ts`'s `follow`). */
export const events = (workspace: string, signal: AbortSignal) =>
  eventStream(url("/api/events", { workspace }), signal)

/** One of the daemon's server-sent event streams, opened with this page's key. */
async function eventStream(path: string, signal: AbortSignal) {
  const response = await fetch(path, {
    headers: {
      authorization: `Bearer ${ownerToken}`,
      accept: "text/event-stream",
      [SESSION_HEADER]: pageSession,
    },
    signal,
  })
  if (!response.ok || !response.body) throw await failure(response)
  return response.body
}

/** `GET /api/consent/requests`: the consent questions of every workspace, as they are asked. */
export const consentRequests = (signal: AbortSignal) => eventStream("/api/consent/requests", signal)

/** `POST /api/consent/answer`: the person's answer to a consent question. */
export const answerConsent = (body: ConsentAnswer) =>
  call<Answered>("/api/consent/answer", { body })

/** `POST /api/session/end`: the page is going away; its pane tokens end now (kept alive past unload). */
export function endSession() {
  if (!ownerToken) return
  void fetch("/api/session/end", {
    method: "POST",
    keepalive: true,
    headers: { authorization: `Bearer ${ownerToken}`, [SESSION_HEADER]: pageSession },
  }).catch(() => {})
}

// The store in the workbench (`/api/store/…`, types in wire/store.ts, generated from cowork-wire).

/** `GET /api/store/apps`: each app's source, version, pin, "update available" and edits. */
export const storeApps = (workspace: string) =>
  call<InstalledApps>("/api/store/apps", { query: { workspace } })

/** `POST /api/store/install`: `<team-server>/<app>[@X.Y.Z]` (a version pins). */
export const installApp = (workspace: string, item: string) =>
  call<InstallAnswer>("/api/store/install", { body: { workspace, item } satisfies InstallRequest })

/** `POST /api/store/update`: the latest now (unpins); an edited app needs `choice` (`Edited` otherwise). */
export const updateApp = (workspace: string, app: string, choice?: UpdateChoice) =>
  call<UpdateAnswer>("/api/store/update", {
    body: { workspace, app, choice } satisfies UpdateRequest,
  })

/** `POST /api/store/pin`: pins (or unpins) an installed app at its version. */
export const pinApp = (workspace: string, app: string, pinned: boolean) =>
  call<PinAnswer>("/api/store/pin", { body: { workspace, app, pinned } satisfies PinRequest })

/** `POST /api/store/remove`: deletes what is as installed, keeps what the person changed or added. */
export const removeApp = (workspace: string, app: string) =>
  call<RemoveAnswer>("/api/store/remove", { body: { workspace, app } satisfies AppRequest })

/** `GET /api/store/items`: a team server's store as cards, with this workspace's copies. */
export const storeItems = (workspace: string, teamServer: string) =>
  call<StoreCards>("/api/store/items", { query: { workspace, teamServer } })

/**
 * `GET /api/store/screenshot`: screenshot `n` of an item's card (checked by the daemon against its
 * SHA-256) as an object URL for an `<img>` — fetched with the owner token, which an `<img src>`
 * could not send. Revoke it when the image goes.
 */
export async function storeScreenshot(teamServer: string, name: string, n: number) {
  const response = await fetch(url("/api/store/screenshot", { teamServer, name, n: String(n) }), {
    headers: { authorization: `Bearer ${ownerToken}`, [SESSION_HEADER]: pageSession },
  })
  if (!response.ok) throw await failure(response)
  return URL.createObjectURL(await response.blob())
}

/** `GET /api/store/templates`: the built-in `cowork` store's, then each team server's. */
export const templates = () => call<Templates>("/api/store/templates")

/** `POST /api/store/templates/scaffold`: `<store>/<template>` as `name` (refused `AlreadyExists`). */
export const scaffold = (workspace: string, template: string, name: string) =>
  call<ScaffoldAnswer>("/api/store/templates/scaffold", {
    body: { workspace, template, name } satisfies ScaffoldRequest,
  })

/** `GET /api/store/courses`: the courses this account subscribed to (the Academy). */
export const courses = () => call<Subscriptions>("/api/store/courses")

/** `POST /api/store/subscription`: subscribes to a course (or not); answers the subscriptions after. */
export const setSubscription = (teamServer: string, course: string, subscribed: boolean) =>
  call<Subscriptions>("/api/store/subscription", {
    body: { teamServer, course, subscribed } satisfies SubscriptionRequest,
  })

/** `GET /api/store/workspace-courses`: the workspace's own courses and lessons, with problems. */
export const workspaceCourses = (workspace: string) =>
  call<WorkspaceCourses>("/api/store/workspace-courses", { query: { workspace } })

/** `GET /api/store/course`: a subscribed course's latest version, lessons in order. */
export const course = (workspace: string, teamServer: string, course: string) =>
  call<CourseView>("/api/store/course", { query: { workspace, teamServer, course } })

/** `GET /api/store/progress`: the lessons this account has done in a course. */
export const progress = (teamServer: string, course: string) =>
  call<CourseProgress>("/api/store/progress", { query: { teamServer, course } })

/** `POST /api/store/progress`: a lesson marked done (or not), kept by the hub. */
export const setLessonDone = (teamServer: string, course: string, lesson: string, done: boolean) =>
  call<CourseProgress>("/api/store/progress", {
    body: { teamServer, course, lesson, done } satisfies LessonDoneRequest,
  })

/** `GET /api/chat`: the workspace's conversations, newest first. */
export const chatList = (workspace: string) =>
  call<Conversations>("/api/chat", { query: { workspace } })

/** `GET /api/chat/transcript`: a conversation's events so far. */
export const chatTranscript = (workspace: string, conversation: string) =>
  call<Transcript>("/api/chat/transcript", { query: { workspace, conversation } })

/** `POST /api/chat/send`: says something in a conversation (a new one without `conversation`). */
export const chatSend = (body: SendBody) => call<Sent>("/api/chat/send", { body })

/** `POST /api/chat/answer`: a permission prompt's decision or a question's answers. */
export const chatAnswer = (body: AnswerBody) => call<Changed>("/api/chat/answer", { body })

/** `POST /api/chat/interrupt`: stops the running turn. */
export const chatInterrupt = (body: ConversationBody) =>
  call<Changed>("/api/chat/interrupt", { body })

/** `POST /api/chat/install`: installs an agent CLI from npm; answers once npm is done. */
export const chatInstall = (body: InstallBody) => call<Installed>("/api/chat/install", { body })

/** `GET /api/chat/events`: the workspace's chat events as server-sent events. */
export const chatEvents = (workspace: string, signal: AbortSignal) =>
  eventStream(url("/api/chat/events", { workspace }), signal)
