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
  | "NotFound" | "RoutineDisabled" | "RoutineCycle" | "RoutineDepth" | "Forbidden" | "TooManyRoutines"
  | "Timeout" | "RoutineCrashed" | "BadRoutine" | "NoRuntime" | "BadRequest" | "Unavailable"
  | "NotConnected" | "NotGranted" | "NotHere" | "NoDaemon" | "Denied" | "BadConfig" | "TimedOut"
  | "ProviderError" | "Unreachable" | "Unsupported";

/** An error a routine threw, or one of Cowork's own (`NotFound`, `Timeout`, …). */
interface CoworkError extends Error {
  /** The kind to branch on: `e.name === "NotConnected"`, never the message. A routine's own names (`ctx.error`) are any string. */
  name: CoworkErrorName | (string & {});
  /** The run that failed (`cowork routine runs show <runId>`); absent when nothing ran. */
  runId?: string;
}

/** A delivered notification, as `onNotification` and notification triggers receive it. */
interface CoworkNotification {
  app: string;
  appTitle: string;
  title: string;
  body?: string;
  tag?: string;
  urgent?: boolean;
  /** ISO time it was raised. */
  at: string;
}

interface CoworkNotifyOptions {
  /** Shown exactly as sent, at most 100 characters. */
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
  click?: { args: Record<string, unknown>; confirm?: string };
  menu?: { label: string; args: Record<string, unknown>; confirm?: string }[];
  /** Free-form (≤ 16 KB) for the app's widgets. */
  data?: unknown;
}

interface CoworkDialogField {
  id: string;
  type: "text" | "textarea" | "number" | "checkbox" | "select" | "color" | "section";
  label?: string;
  placeholder?: string;
  value?: string | number | boolean;
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
  values?: Record<string, unknown>;
}

interface CoworkDialog {
  message: string;
  detail?: string;
  type?: "none" | "info" | "warning" | "error";
  fields?: CoworkDialogField[];
  buttons?: CoworkDialogButton[];
  /** Ask again after refusing an answer. */
  alert?: { variant: "destructive" | "default"; text: string };
  /** `window` (default) dims the whole workbench; `pane` only this pane (looks only). */
  scope?: "window" | "pane";
}

interface CoworkCredential {
  name: string;
  kind: "oauth" | "key" | "both";
  state: "connected" | "needs-scopes" | "not-connected";
  account?: { email: string };
  missingScopes: string[];
  usedBy: string[];
  fields?: string[];
  url?: string;
  hint?: string;
}

interface CoworkRun {
  runId: string;
  routine: string;
  app: string;
  kind: "app" | "capability";
  status: "ok" | "error" | "denied";
  ts: string;
  durationMs: number;
  chain?: string[];
}

interface CoworkSubscription {
  /** Runs now (a run that starts after the call) and resolves once the answer reached onData/onError. */
  refresh(): Promise<void>;
  close(): void;
}

/** `window.cowork` (also the global `cowork`) in a widget. */
interface CoworkSDK {
  routines: {
    run<T = unknown>(id: string, args?: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<T>;
    subscribe<T = unknown>(
      id: string,
      args: Record<string, unknown>,
      options?: { interval?: number; timeoutMs?: number; onData?: (data: T) => void; onError?: (error: CoworkError) => void },
    ): CoworkSubscription;
    runs(id?: string, options?: { app?: string }): Promise<CoworkRun[]>;
  };
  app: { post(message: unknown): void; onMessage(callback: (message: unknown) => void): () => void };
  credentials: { get(name: string): Promise<CoworkCredential>; connect(name: string, fields?: Record<string, string>): Promise<CoworkCredential> };
  /** Asks the person to approve `value` (remembered under it); headless, refused with the `cowork consent allow` line in `message`. */
  consent: { request(request: { value: string; title?: string; body?: string; detail?: string }): Promise<{ granted: boolean; ticket?: string; message?: string }> };
  state: { get<T = unknown>(): T | undefined; set(value: unknown): void };
  openFile(path: string): Promise<void>;
  openExternal(url: string): Promise<void>;
  browser: { open(url: string): Promise<{ embedded: boolean }>; status(): Promise<{ open: boolean; tabs: { url: string; title: string; active: boolean }[] } | null> };
  notify(options: CoworkNotifyOptions): Promise<void>;
  onNotification(callback: (notification: CoworkNotification) => void): () => void;
  badge(count: number): Promise<void>;
  /** Set when this widget was opened for a routed file or folder (a folder's matchedGlob ends in `/`). */
  openedFile?: { path: string; workspaceRelativePath: string; basename: string; ext: string; matchedGlob: string };
  workspaceRoot: string;
  log(...parts: unknown[]): void;
  visible: boolean;
  onVisibility(callback: (visible: boolean) => void): () => void;
  ui: {
    dialog(options: CoworkDialog): Promise<{ label: string | null; values: Record<string, unknown> }>;
    confirm(options: { title?: string; body?: string; confirmLabel?: string; cancelLabel?: string; destructive?: boolean }): Promise<boolean>;
  };
  chat: { ask(text: string): Promise<void> };
  agent: { setContext(value: unknown): void; select(text: string): void; clearContext(): void; clearSelection(): void; setAutoSelection(on: boolean): void };
  identity: { currentUser(): Promise<{ uid: string; email: string } | null> };
  statusBar: {
    get(app: string): (CoworkStatusBarItem & { app: string }) | null;
    onChange(callback: (app: string, item: CoworkStatusBarItem | null) => void): () => void;
    refresh(app?: string): Promise<void>;
    click(app: string): Promise<void>;
  };
  viewSource(): Promise<void>;
  closeTab(): void;
}

declare const cowork: CoworkSDK;
interface Window {
  cowork: CoworkSDK;
}

/** `ctx.db(path)`: a workspace SQLite file (WAL). Await every call: deployed routines get Promises. */
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
  /** Who this run is for, frozen at its start. */
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
  auth: { getState(): Promise<{ authenticated: boolean; user: { uid: string; email: string; displayName: string } | null }>; getIdToken(): Promise<string | null> };
}
