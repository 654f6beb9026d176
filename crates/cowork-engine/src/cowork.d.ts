// Cowork Studio SDK types. Written by Cowork into .cowork/local/cowork.d.ts of every workspace it
// opens (ambient: nothing to import). Edits here are overwritten: the file follows the installed
// version of Cowork.

/**
 * The names of Cowork's own errors. `NotConnected`: connect the credential (the message says
 * where); `NotGranted`: outside the package's grants; `NotHere`: a sign-in started from a window
 * that is not on this computer; `NoDaemon`: `ctx.credential.start()` in a run without the daemon
 * (`cowork start`); `Denied`: consent refused; `TooManyRoutines`: every slot is busy.
 */
type CoworkErrorName =
  | "NotFound" | "RoutineDisabled" | "RoutineCycle" | "RoutineDepth" | "TooManyRoutines" | "Forbidden"
  | "NotGranted" | "NotConnected" | "NotHere" | "NoDaemon" | "BadRequest" | "Timeout" | "Denied"
  | "NotDeclared" | "Busy" | "DiskFull" | "Unsupported"
  | "StaleRef" | "NavigatedAway" | "TabClosed" | "NotActionable" | "ScriptError" | "Stopped" | "HoldsRoot" | "Unavailable" | "NoRuntime"
  | "BadRoutine" | "RoutineCrashed" | "SqliteError" | "CommandFailed" | "TooLarge" | "ProviderError"
  | "Error" | "BadConfig" | "TimedOut" | "Unreachable" | "Cancelled" | "StaleReceipt" | "WrongStatus"
  | "StoreDamaged" | "SymlinkedFolder" | "TooManyStreams";

/** An error a routine threw, or one of Cowork's own (`NotFound`, `Timeout`, …). */
interface CoworkError extends Error {
  /** The kind to branch on: `e.name === "NotConnected"`, never the message. A routine's own names (`ctx.error`) are any string. */
  name: CoworkErrorName | (string & {});
  /** The run that failed (`cowork routine runs show <runId>`); absent when nothing ran. */
  runId?: string;
}

/** A delivered notification, as `onNotification` receives it. */
interface CoworkNotification {
  /** The app it was posted as (a capability's go to the one app that uses it), not who posted it. */
  app: string;
  appTitle: string;
  title: string;
  body?: string;
  tag?: string;
  urgent?: boolean;
  /** When it was raised, in milliseconds since the epoch (as `Date.now()`). */
  at: number;
}

interface CoworkNotifyOptions {
  /** Required; shown exactly as sent, at most 100 characters (longer is cut). */
  title: string;
  /** At most 300 characters. */
  body?: string;
  /** Replaces this app's not-yet-shown notification with the same tag (at most 64 characters). */
  tag?: string;
  /** Keeps the banner up and asks for attention. */
  urgent?: boolean;
}

/** A footer item, as the `statusBar` routine returns it (or `null` to hide it). */
interface CoworkStatusBarItem {
  text: string;
  /** A codicon; `sync~spin` spins. */
  icon?: string;
  tooltip?: string;
  tone?: "warning" | "error";
  /** Clicking runs the same routine with `args` (after a modal when `confirm` is set). */
  click?: { args: Record<string, unknown>; confirm?: string };
  /** Instead of `click`: the user picks one action. */
  menu?: { label: string; args: Record<string, unknown>; confirm?: string }[];
  /** Free-form (≤ 16 KB) for the app's widgets. */
  data?: unknown;
}

interface CoworkDialogField {
  id: string;
  /** `section` is read-only: its `label` and `placeholder` text (`monospace` for code). */
  type: "text" | "textarea" | "number" | "checkbox" | "select" | "color" | "section";
  label?: string;
  placeholder?: string;
  value?: string | number | boolean;
  /** `select` and `color`; a swatch's value is a hex colour (`#rgb` … `#rrggbbaa`) or `""` for none. */
  options?: { label: string; value: string }[];
  monospace?: boolean;
}

interface CoworkDialogButton {
  label: string;
  role?: "submit" | "cancel";
  primary?: boolean;
  destructive?: boolean;
  /** An option row in the body. */
  card?: boolean;
  sublabel?: string;
  /** Merged into the answer's `values` when this button is pressed. */
  values?: Record<string, unknown>;
}

interface CoworkDialog {
  message: string;
  detail?: string;
  type?: "none" | "info" | "question" | "warning" | "error";
  fields?: CoworkDialogField[];
  /** With no buttons, one OK. */
  buttons?: CoworkDialogButton[];
  /** To refuse an answer: ask again with this and the typed `value`s. */
  alert?: { variant: "destructive" | "default"; text: string };
  /** `window` (default) dims the whole workbench — for anything that changes data; `pane` only this pane (looks only). */
  scope?: "window" | "pane";
}

/**
 * The dialog's answer: the button's label (`null` for Cancel or Esc — test `label`, never
 * `values`) and the fields' values by id (a `number` field: a number, `""` while empty; a
 * `checkbox`: a boolean; the rest strings), plus the button's own `values`.
 */
interface CoworkDialogResult {
  label: string | null;
  values: Record<string, unknown>;
}

interface CoworkCredential {
  name: string;
  kind: "oauth" | "key" | "both";
  /** Ready when `"connected"`. */
  state: "connected" | "needs-scopes" | "not-connected";
  account?: { email: string };
  missingScopes: string[];
  usedBy: string[];
  fields?: string[];
  url?: string;
  hint?: string;
  /** `connect` of a sign-in: the service's consent page, which Cowork opened for the person. */
  authUrl?: string;
}

interface CoworkRun {
  runId: string;
  routine: string;
  /** The package the run belongs to, and whether it is an app or a capability. */
  app: string;
  kind: "app" | "capability";
  status: "ok" | "error" | "denied";
  ts: string;
  durationMs: number;
  /** When nested: the routines that called it. */
  chain?: string[];
}

interface CoworkSubscription {
  /** Runs now (a run that starts after the call) and resolves once the answer reached onData/onError; never rejects. */
  refresh(): Promise<void>;
  close(): void;
}

/** A recording in progress (`capture.record`, `capture.current`). */
interface CoworkCaptureSession {
  id: string;
  /** Where the recording lands when it stops (inside the workspace). */
  file: string;
  /** With `live: true`: 20 ms frames of 16 kHz mono. Returns the unsubscribe. */
  onAudio(callback: (frame: Int16Array) => void): () => void;
  /** `reason` in words; `error` when something other than a stop ended it: `DiskFull` (under 2 GB free), `Unavailable` (the recording failed). */
  onStop(callback: (stopped: { file: string; reason: string; error?: "DiskFull" | "Unavailable" }) => void): () => void;
  stop(): Promise<void>;
}

/** A title-bar button (`setTitleActions`): a codicon, else its label; `tooltip` names it. */
interface CoworkTitleAction {
  id: string;
  label?: string;
  icon?: string;
  tooltip?: string;
}

type CoworkTaskStatus = "todo" | "in_progress" | "needs_review" | "done" | "failed";
type CoworkTaskView = CoworkTaskStatus | "needs_you" | "all";
/** A file's content, by name: all a widget attaches (a pane has no files to name by path). */
type CoworkFileContent = { name: string; text: string } | { name: string; base64: string };
/** A file a routine attaches: its content by name, or a workspace file by path (copied into the store). */
type CoworkFile = CoworkFileContent | { path: string };
type CoworkFileInfo = { id: number; name: string; size: number; entry?: number };

/** A task of the workspace's queues. Times are ms since the epoch. */
interface CoworkTask {
  id: number;
  queue: string;
  subject: string;
  status: CoworkTaskStatus;
  from: string;
  /** An agent, `owner` or `anyone`. */
  to: string;
  review: boolean;
  ref?: string;
  meta?: Record<string, unknown>;
  attempts: number;
  /** Who holds it (in progress), or finished it last. */
  holder?: string;
  leaseUntil?: number;
  availableAt: number;
  created: number;
  updated: number;
  /** `peek`, `receive` and the answers of changes carry the request and the thread; lists do not. */
  body?: string;
  files?: CoworkFileInfo[];
  entries?: { id: number; kind: string; author: string; to?: string; text: string; at: number; files: CoworkFileInfo[] }[];
}

interface CoworkTaskCounts { needs_you: number; todo: number; in_progress: number; needs_review: number; done: number; failed: number }

interface CoworkJournalEntry {
  id: number;
  skill: string;
  kind: "learning" | "error" | "note";
  text: string;
  source: string;
  status: "open" | "applied";
  created: number;
  resolved?: number;
}

/** One task queue, as a routine holds it: `ctx.queue(name)`. Synchronous. */
interface CoworkQueue {
  /** Creates the queue on first use; a repeated `ref` answers the first task (`deduplicated`). */
  send(body: string, options?: { subject?: string; to?: string; as?: string; review?: boolean; ref?: string; meta?: Record<string, unknown>; delayS?: number; files?: CoworkFile[] }): CoworkTask & { deduplicated: boolean };
  /** The oldest task for `as` (or for anyone) with its `receipt`, or `null`. */
  receive(options?: { as?: string; mine?: boolean; leaseS?: number }): (CoworkTask & { receipt: string }) | null;
  ack(id: number, receipt: string, options?: { result?: string; files?: CoworkFile[]; review?: boolean; to?: string }): CoworkTask;
  /** Up to 1000 sends in one transaction, all or none (an extension: faster than one at a time); a refusal names `tasks[i].<field>`. */
  sendMany(tasks: { body: string; options?: { subject?: string; to?: string; as?: string; review?: boolean; ref?: string; meta?: Record<string, unknown>; delayS?: number; files?: CoworkFile[] } }[]): (CoworkTask & { deduplicated: boolean })[];
  /** Up to `max` (1–1000) of the oldest tasks in one transaction, each with its own `receipt`; `[]` when there is none. */
  receiveMany(max: number, options?: { as?: string; mine?: boolean; leaseS?: number }): (CoworkTask & { receipt: string })[];
  /** Up to 1000 acks in one transaction, all or none: one stale receipt refuses them all, naming its task. */
  ackMany(acks: { id: number; receipt: string; options?: { result?: string; files?: CoworkFile[]; review?: boolean; to?: string } }[]): CoworkTask[];
  nack(id: number, receipt: string, options?: { delayS?: number; error?: string }): CoworkTask;
  approve(id: number): CoworkTask;
  reject(id: number, comment: string, options?: { files?: CoworkFile[] }): CoworkTask;
  reply(id: number, body: string, options?: { to?: string; as?: string; files?: CoworkFile[] }): CoworkTask;
  retry(id: number): CoworkTask;
  peek(id: number): CoworkTask;
  /** Newest first; `limit` 1–200 (default 50); `before` = the last id of the previous page. */
  list(query?: { view?: CoworkTaskView; agent?: string; q?: string; limit?: number; before?: number }): CoworkTask[];
  counts(): CoworkTaskCounts;
}

/**
 * `window.cowork` (also the global `cowork`) in a widget.
 *
 * `capture` records in the desktop app only (it rejects `Unsupported` in a browser on `cowork app
 * serve`).
 */
interface CoworkSDK {
  routines: {
    /**
     * Resolves the routine's return value; rejects with its error (`e.name` the kind it threw,
     * `e.runId` the run). Default timeout 30 s, max 300 s.
     */
    run<T = unknown>(id: string, args?: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<T>;
    /** One loop per app, routine and args: now, then every `interval` s (min 5, default 60) while a pane of the app is on screen. */
    subscribe<T = unknown>(
      id: string,
      args: Record<string, unknown>,
      options?: { interval?: number; timeoutMs?: number; onData?: (data: T) => void; onError?: (error: CoworkError) => void },
    ): CoworkSubscription;
    /** Bounded run history (metadata only); `app` narrows to one package's runs. */
    runs(id?: string, options?: { app?: string }): Promise<CoworkRun[]>;
  };
  /** This app's own panes talking: `post` reaches every OTHER open pane of the app in this workspace. */
  app: { post(message: unknown): Promise<void>; onMessage(callback: (message: unknown) => void): () => void };
  credentials: {
    get(name: string): Promise<CoworkCredential>;
    /** Signs in (the sign-in finishes in the browser — then `refresh()`), or saves a key with `fields`. Rejects `NotHere` in a machine's (remote) window. */
    connect(name: string, fields?: Record<string, string>): Promise<CoworkCredential>;
  };
  /** Per-view persisted state (≤ 256 KB; `set` rejects `BadRequest` past it). `get` is `null` until set. */
  state: { get<T = unknown>(): T | null; set(value: unknown): Promise<void> };
  /** Opens a workspace file through fileRouting; rejects `NotFound` when no app opens it. */
  openFile(path: string): Promise<void>;
  /** After the trust prompt; rejects `Cancelled` when the person says no. Plain `<a href="https://…">` links are already routed. */
  openExternal(url: string): Promise<void>;
  browser: {
    /** Beside the workbench in the desktop app (`embedded: true`); elsewhere through `openExternal` (`embedded: false`). */
    open(url: string): Promise<{ embedded: boolean }>;
    status(): Promise<{ open: boolean; tabs: { url: string; title: string; active: boolean }[] } | null>;
  };
  /** Muted or past 6 a minute: dropped, and it still resolves. Rejects `BadRequest` without a title. */
  notify(options: CoworkNotifyOptions): Promise<void>;
  onNotification(callback: (notification: CoworkNotification) => void): () => void;
  capture: {
    /**
     * Asks the person first in Cowork's dialog; resolves once recording. The file is written to
     * `file` (default `Recordings/<date-time>-<app>.webm`, VP8 + Opus) when it stops. Rejects
     * `Denied`, `NotDeclared`, `Busy` (one capture per workspace), `DiskFull` (under 2 GB free),
     * `Forbidden` (a `file` outside the workspace) or `Unsupported`.
     */
    record(options?: {
      video?: "screen" | "window" | false;
      audio?: { system?: boolean; mic?: boolean };
      live?: boolean;
      file?: string;
    }): Promise<CoworkCaptureSession>;
    /** Needs `"capture": ["screenshot"]`; `image: true` hands the PNG back. */
    shot(options?: { source?: "screen" | "window"; file?: string; image?: boolean }): Promise<{ path?: string; image?: Blob }>;
    /** This app's recording in progress, or `null`. */
    current(): Promise<CoworkCaptureSession | null>;
  };
  /** This app's count on the OS badge (in a browser tab, `(N) ` before its title); `0` clears. */
  badge(count: number): Promise<void>;
  /** Set when this widget was opened for a routed file or folder (a folder's matchedGlob ends in `/`, its ext is `""`). */
  openedFile: { path: string; workspaceRelativePath: string; basename: string; ext: string; matchedGlob: string } | null;
  /** Absolute workspace path. */
  workspaceRoot: string;
  /** A line in the Output panel. */
  log(...parts: unknown[]): Promise<void>;
  /** Whether the pane is on screen. */
  readonly visible: boolean;
  onVisibility(callback: (visible: boolean) => void): () => void;
  /**
   * SQLite `.db` files of the workspace (workspace-relative): outside `.cowork/`, the tables
   * `cowork table create` makes (`.cowork/data/<name>.db`) and this app's own data folder
   * (`.cowork/data/<app>/`) — never Cowork's own files (`.cowork/local/`, the task store) nor
   * another app's data (`Forbidden`). A statement reaches only the file named: `ATTACH`, `VACUUM`,
   * `load_extension` and PRAGMAs that write are refused (`Forbidden`). `query` is read-only,
   * ≤ 500 rows per page.
   */
  tables: {
    /** The tables and views, with their columns. */
    schema(options: { db: string }): Promise<{ name: string; type: "table" | "view"; sql: string | null; columns: { name: string; type: string }[] }[]>;
    /** Read-only (a read-only connection; a write is `Forbidden`); at most 500 rows a page — pass `nextCursor` back as `cursor`. */
    query(options: { db: string; sql: string; params?: unknown[]; limit?: number; cursor?: string }): Promise<{ columns: string[]; rows: Record<string, unknown>[]; nextCursor?: string }>;
    exec(options: { db: string; sql: string; params?: unknown[] }): Promise<{ changes: number; lastInsertRowid: number }>;
  };
  /** The workspace's task queues (`.cowork/local/queues.db`). Body ≤ 1 MiB; files as content `{ name, text | base64 }`, never a path. */
  queue: {
    send(
      queue: string,
      task: { body: string; subject?: string; to?: string; as?: string; review?: boolean; ref?: string; meta?: Record<string, unknown>; delayS?: number; files?: CoworkFileContent[] },
    ): Promise<CoworkTask & { deduplicated: boolean }>;
    /** The oldest task for you and its `receipt`, or `null`. */
    receive(queue: string, options?: { as?: string; mine?: boolean; leaseS?: number }): Promise<(CoworkTask & { receipt: string }) | null>;
    ack(queue: string, id: number, receipt: string, options?: { result?: string; files?: CoworkFileContent[]; review?: boolean; to?: string }): Promise<CoworkTask>;
    nack(queue: string, id: number, receipt: string, options?: { delayS?: number; error?: string }): Promise<CoworkTask>;
    approve(queue: string, id: number): Promise<CoworkTask>;
    reject(queue: string, id: number, comment: string): Promise<CoworkTask>;
    reply(queue: string, id: number, body: string, options?: { to?: string; as?: string; files?: CoworkFileContent[] }): Promise<CoworkTask>;
    retry(queue: string, id: number): Promise<CoworkTask>;
    /** Of one queue, or of every queue (newest change first). */
    tasks(options?: { queue?: string; view?: CoworkTaskView; agent?: string; q?: string; limit?: number }): Promise<CoworkTask[]>;
    items(queue: string, options?: { view?: CoworkTaskView; agent?: string; q?: string; limit?: number; before?: number }): Promise<CoworkTask[]>;
    peek(queue: string, id: number): Promise<CoworkTask>;
    list(): Promise<{ name: string; maxAttempts: number; leaseS: number; review: boolean; counts: CoworkTaskCounts }[]>;
    summary(): Promise<{ needsYou: CoworkTask[]; journal: CoworkJournalEntry[] }>;
    receivers(queue?: string): Promise<{ queue: string; name: string; lastSeen: number; listening: boolean }[]>;
    /** A task, or the whole queue without an id. */
    remove(queue: string, id?: number): Promise<boolean>;
    /** Deletes done tasks (default), failed ones or all of them; resolves with how many. */
    purge(queue: string, status?: "done" | "failed" | "all"): Promise<number>;
  };
  /** The skill journal: learnings and errors per skill, `open` until folded into the SKILL.md. */
  journal: {
    skills(): Promise<{ skill: string; open: number; applied: number; skillMd?: string }[]>;
    /** Oldest first; the open ones unless `status` says otherwise; `limit` 1–200 (default 200). */
    entries(skill: string, options?: { status?: "open" | "applied" | "all"; limit?: number }): Promise<CoworkJournalEntry[]>;
    add(entry: { skill: string; kind?: "learning" | "error" | "note"; text: string; source?: string }): Promise<CoworkJournalEntry>;
    /** Resolves with how many entries changed. */
    resolve(skill: string, ids?: number[]): Promise<number>;
  };
  /** Feeds the workbench's Chat (Claude Code in the right side bar): each app has one context and one selection, shown as chips the person can remove, sent with the next message; text the user selects in the pane already reaches it. */
  agent: {
    /** This app's context chip: `value` as text (JSON unless a string); replaces the last one. */
    setContext(value: unknown): Promise<void>;
    /** This app's selection chip; replaces the last one, `""` removes it. */
    select(text: string): Promise<void>;
    /** Removes this app's context chip. */
    clearContext(): Promise<void>;
    /** Removes this app's selection chip. */
    clearSelection(): Promise<void>;
    /** Whether text the person selects in the pane becomes its selection chip by itself. */
    setAutoSelection(on: boolean): void;
  };
  ui: {
    dialog(options: CoworkDialog): Promise<CoworkDialogResult>;
    /** `true` on confirm, `false` on Cancel or Esc. */
    confirm(options?: { title?: string; body?: string; confirmLabel?: string; cancelLabel?: string; destructive?: boolean }): Promise<boolean>;
  };
  /** Opens the Chat in the right side bar and submits `text` in the conversation shown (a new one when none is), with the context chips. */
  chat: { ask(text: string): Promise<void> };
  /** Asks the person to approve `value` (remembered under it); where no window can ask, refused at once with the `cowork consent allow` line in `message`. */
  consent: { request(request: { value: string; title: string; body: string; detail?: string }): Promise<{ granted: boolean; ticket?: string; message?: string }> };
  /**
   * One long-lived process with raw stdio on a real pseudo-terminal (a shell, `top`, `tail -f`),
   * started in the workspace's folder and confined as routines are. It needs consent for exactly
   * this argv (its words joined by spaces): `consent` is a ticket from `consent.request({ value:
   * argv.join(" "), … })` (a ticket opens one stream, within 10 minutes), or the value was approved
   * ahead (`cowork consent allow '<argv>' --app <app>`). At most 2 open per view; closing the view
   * kills each stream with everything it started. Rejects by name: `Denied` (no consent, a ticket
   * used already or granted for another argv), `TooManyStreams` (a third in this view),
   * `CommandFailed` (the program cannot start), `BadRequest` (no argv).
   */
  stream: {
    open(options: {
      argv: string[];
      consent?: string;
      /**
       * The output as the process wrote it: bytes (`new TextDecoder()` for text; xterm.js takes them
       * as they are). Returning a promise holds the stream until it settles — for xterm.js,
       * `(chunk) => new Promise((done) => term.write(chunk, done))` — so at most 1 MiB waits
       * unhandled and a flood (`yes`) waits on itself, never on the page.
       */
      onData?: (chunk: Uint8Array) => void | Promise<unknown>;
      /** The exit code, or `null` when a signal (or `close()`) ended it. */
      onEnd?: (end: { code: number | null }) => void;
      /** The terminal's size, 80 × 24 unless told. */
      cols?: number;
      rows?: number;
    }): Promise<{
      id: string;
      /** Input, as typed (`"ls\r"`); at most 64 KiB a call, kept in order. */
      write(data: string): void;
      /** The terminal's new size (the process gets `SIGWINCH`). */
      resize(cols: number, rows: number): void;
      /** Kills the process and all it started; `onEnd` follows with `code: null`. */
      close(): void;
    }>;
  };
  /** Who is signed in to Cowork (`cowork login`), or null. */
  identity: { currentUser(): Promise<{ uid: string; email: string } | null> };
  statusBar: {
    /** An app's footer item as last drawn, with its `data`, or null. */
    get(app: string): CoworkStatusBarItem | null;
    /** Called with each app's current item right away, then on every change. */
    onChange(callback: (app: string, item: CoworkStatusBarItem | null) => void): () => void;
    refresh(app?: string): Promise<void>;
    click(app: string): Promise<void>;
  };
  /** Opens this app's source. */
  viewSource(): Promise<void>;
  /** Title-bar buttons on the pane, in the standalone runner (`cowork app serve`). */
  setTitleActions(actions: CoworkTitleAction[]): Promise<void>;
  /** A click on one of them, by id. Returns the unsubscribe. */
  onTitleAction(callback: (id: string) => void): () => void;
  /** Closes this app's editor tab (or its dialog). */
  closeTab(): Promise<void>;
}

declare const cowork: CoworkSDK;
interface Window {
  cowork: CoworkSDK;
}

/**
 * `ctx.db(path)`: a workspace SQLite file (WAL), `path` relative to the workspace; links are
 * followed, and the file must stay inside it (`Forbidden` otherwise). Await every call: deployed
 * routines get Promises. A statement reaches only this file: `ATTACH`, `DETACH`, `VACUUM` (it
 * attaches its copy), `load_extension()` and the PRAGMAs that reach past the file or weaken it
 * (`temp_store_directory`, `mmap_size`, `writable_schema`, `trusted_schema` …) are refused with
 * `Forbidden`; the file's own settings (`user_version`, `journal_mode`, `foreign_keys`,
 * `synchronous`, `auto_vacuum`, `incremental_vacuum` …) are the routine's.
 */
interface CoworkDb {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[] | Record<string, unknown>): T[];
  exec(sql: string, params?: unknown[] | Record<string, unknown>): { changes: number; lastInsertRowid: number };
  /** `fn` must be synchronous. */
  transaction<T>(fn: () => T): T;
}

/** The second argument of every routine: `export default async (args, ctx: CoworkRoutineContext) => …`. */
interface CoworkRoutineContext {
  /** The absolute workspace path. */
  workspaceRoot: string;
  /** Who this run is for — the account signed in to Cowork (`cowork login`) and its organization — frozen at its start; both null when signed out. */
  identity: { user: { uid: string; email: string } | null; organization: { id: string; slug: string; name: string } | null };
  /** A line in the Output panel (and in the audit record of a run that changed something). */
  log(...parts: unknown[]): void;
  /** An Error with that name, to throw. */
  error(name: string, message: string): CoworkError;
  /** This run changed nothing: kept locally, hidden from run lists. */
  unchanged(): void;
  /** The app's data folder, `.cowork/data/<app name>/`. Names stay inside it. */
  data: {
    read<T = unknown>(name: string, fallback?: T): T;
    /** Atomic; creates subfolders; returns the workspace-relative path. */
    write(name: string, value: unknown): string;
    list(subfolder?: string): string[];
    remove(name: string): boolean;
    path(name: string): string;
    dir: string;
    fileName(title: string, fallback?: string): string;
  };
  db(path: string): CoworkDb;
  /** A task queue of the workspace (`.cowork/local/queues.db`), synchronous. */
  queue(name: string): CoworkQueue;
  /** The skill journal; `source` defaults to `routine:<file>`. */
  journal: { add(entry: { skill: string; kind?: "learning" | "error" | "note"; text: string; source?: string }): CoworkJournalEntry };
  routines: { run<T = unknown>(id: string, args?: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<T> };
  notify(options: CoworkNotifyOptions): Promise<unknown>;
  badge(count: number): Promise<unknown>;
  /** Within the package's grants: a capability reaches its own `<name>.*`, an app nothing. */
  secrets: { get(name: string): string | undefined; list(): string[]; set(name: string, value: string): void };
  /** The capability's connection, as its cowork.json `credential` declares it. */
  credential: {
    fetch(url: string, init?: RequestInit & { retries?: number; json?: unknown }): Promise<Response>;
    token(options?: { force?: boolean }): Promise<string>;
    fields(): Record<string, string>;
    status(): { connected: boolean; account?: { email: string } };
    start(): Promise<{ authUrl: string }>;
    disconnect(): Promise<void>;
  };
  command: { run(cmd: string, options?: { title?: string; description?: string; value?: string; timeoutMs?: number }): Promise<{ code: number; stdout: string; stderr: string }> };
  consent: { request(request: { value: string; title?: string; description?: string; command?: string }): Promise<{ granted: boolean; ticket?: string }> };
  /** The signed-in Cowork account: `getState()` as frozen at the run's start (`displayName` is the email when no name was given); `getIdToken()` a short-lived ID token signed by the hub (EdDSA, verifiable against `<hub>/.well-known/jwks.json`), or null when signed out. It is masked in the run's log like a secret. */
  auth: { getState(): Promise<{ authenticated: boolean; user: { uid: string; email: string; displayName: string } | null }>; getIdToken(): Promise<string | null> };
  /**
   * The Cowork Studio desktop app's browser, signed in as the person (desktop only: the app
   * declares `"requires": ["desktop"]`, else every call rejects `NotDeclared`; `Unsupported` on a
   * headless server or in a browser tab). The first action of this app, and the first on each new
   * site, asks the person in Cowork's dialog. Refs come from `snapshot()` / `find()` and live as
   * long as their page. Rejects by name: `StaleRef`, `NavigatedAway`, `TabClosed`, `Timeout`,
   * `NotFound`, `NotActionable`, `ScriptError`, `Denied`, `Stopped`, `Unsupported`.
   */
  browser: CoworkBrowser;
}

/** Which page an action is for (default: the browser's last-active tab) and its budget (30 s). */
interface CoworkBrowserTarget { tabIndex?: number; /** A site app's name: its own window and session. */ app?: string; timeoutMs?: number }
interface CoworkBrowserTab { index?: number; app?: string; url: string; title: string; active: boolean }
interface CoworkBrowserPage { kind: "page"; tab: CoworkBrowserTab; /** Refs of the page before are stale. */ navigated: boolean }
interface CoworkBrowser {
  /** `open(url)`: a new tab on `url`; `open()`: show the browser on its last-active tab. */
  open(url?: string, options?: CoworkBrowserTarget): Promise<CoworkBrowserPage>;
  /** @deprecated Does what `open()` does. */
  toggle(options?: CoworkBrowserTarget): Promise<CoworkBrowserPage>;
  navigate(url: string, options?: CoworkBrowserTarget): Promise<CoworkBrowserPage>;
  /** The accessibility tree, one node a line with its ref (`- button "Sign in" [e7]`); `cursor` → the next part. */
  snapshot(options?: CoworkBrowserTarget & { ref?: string; cursor?: string }): Promise<{ kind: "snapshot"; tab: CoworkBrowserTab; text: string; cursor?: string }>;
  find(query: { role?: string; name?: string; text?: string; exact?: boolean }, options?: CoworkBrowserTarget): Promise<{ kind: "found"; tab: CoworkBrowserTab; matches: { ref: string; role: string; name: string; line: string }[] }>;
  click(ref: string, options?: CoworkBrowserTarget & { button?: "left" | "middle" | "right"; double?: boolean }): Promise<CoworkBrowserPage>;
  fill(ref: string, value: string, options?: CoworkBrowserTarget): Promise<CoworkBrowserPage>;
  /** Real key events, into `ref` (focused first) or the focus; `submit` presses Enter after. */
  type(text: string, options?: CoworkBrowserTarget & { ref?: string; submit?: boolean }): Promise<CoworkBrowserPage>;
  /** A key or chord: `"Enter"`, `"Control+a"`. */
  press(key: string, options?: CoworkBrowserTarget & { ref?: string }): Promise<CoworkBrowserPage>;
  select(ref: string, values: string | string[], options?: CoworkBrowserTarget): Promise<CoworkBrowserPage>;
  check(ref: string, checked?: boolean, options?: CoworkBrowserTarget): Promise<CoworkBrowserPage>;
  waitFor(condition: string | { text: string; gone?: boolean } | { ref: string; state: "visible" | "hidden" | "enabled" | "disabled" | "checked" | "unchecked" | "detached" } | { navigation: true; url?: string } | { networkIdle: true }, options?: CoworkBrowserTarget): Promise<CoworkBrowserPage>;
  /** The page's (or a ref's) main text as markdown. */
  read(options?: CoworkBrowserTarget & { ref?: string; cursor?: string }): Promise<{ kind: "read"; tab: CoworkBrowserTab; markdown: string; cursor?: string }>;
  screenshot(options?: CoworkBrowserTarget & { ref?: string; fullPage?: boolean }): Promise<{ kind: "screenshot"; tab: CoworkBrowserTab; pngBase64: string; width: number; height: number }>;
  tabs(): Promise<{ kind: "tabs"; open: boolean; tabs: CoworkBrowserTab[]; apps: CoworkBrowserTab[] }>;
  close(options?: CoworkBrowserTarget): Promise<{ kind: "tabs"; open: boolean; tabs: CoworkBrowserTab[]; apps: CoworkBrowserTab[] }>;
  /** Runs in the page's own world (its logged-in session); a function is called; resolves with the value. */
  evaluate<T = unknown>(js: string | (() => unknown), options?: CoworkBrowserTarget): Promise<T>;
}
