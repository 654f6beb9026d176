// Generated from cowork-queue's Rust types (crates/cowork-queue/src/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-queue --lib typescript

export type QueueInfo = { 
/**
 * The queue's name.
 */
name: string, 
/**
 * How many of its tasks are in each view.
 */
counts: Counts, 
/**
 * How many times a task is received before a nack or an expired lease fails it.
 */
maxAttempts: number, 
/**
 * How long a receiver holds a task, in seconds.
 */
leaseS: number, 
/**
 * Whether finishing a task needs the owner's review.
 */
review: boolean, };

export type Settings = { 
/**
 * How many times a task is received before a nack or an expired lease fails it.
 */
maxAttempts: number, 
/**
 * How long a receiver holds a task, in seconds.
 */
leaseS: number, 
/**
 * Whether finishing a task needs the owner's review.
 */
review: boolean, };

export type Counts = { 
/**
 * To do and addressed to `owner`, or waiting for review.
 */
needs_you: number, 
/**
 * To do.
 */
todo: number, 
/**
 * Held by a receiver.
 */
in_progress: number, 
/**
 * Waiting for the owner's review.
 */
needs_review: number, 
/**
 * Finished.
 */
done: number, 
/**
 * Out of attempts.
 */
failed: number, };

export type Status = "todo" | "in_progress" | "needs_review" | "done" | "failed";

export type View = "needs_you" | "todo" | "in_progress" | "needs_review" | "done" | "failed" | "all";

export type Task = { 
/**
 * The task's id, unique in the store.
 */
id: number, 
/**
 * The queue it is in.
 */
queue: string, 
/**
 * Its subject: given, or the body's first line.
 */
subject: string, 
/**
 * Where it is.
 */
status: Status, 
/**
 * Who sent it: an agent's name or `owner`.
 */
from: string, 
/**
 * Whom it is for: an agent's name, `owner` or `anyone`.
 */
to: string, 
/**
 * Whether finishing it needs the owner's review.
 */
review: boolean, 
/**
 * The sender's dedupe key (`ref`): a second send with it answers this task.
 */
ref?: string, 
/**
 * The JSON object the sender kept with it.
 */
meta?: unknown, 
/**
 * How many times it has been received.
 */
attempts: number, 
/**
 * Who holds it (in progress), or finished it last.
 */
holder?: string, 
/**
 * While in progress: when the lease runs out (ms since the epoch).
 */
leaseUntil?: number, 
/**
 * When it may be received (ms since the epoch; later than `created` when delayed).
 */
availableAt: number, 
/**
 * When it was sent (ms since the epoch).
 */
created: number, 
/**
 * When it last changed (ms since the epoch).
 */
updated: number, 
/**
 * Its text (not in lists).
 */
body?: string, 
/**
 * The files sent with it (not in lists).
 */
files?: Array<FileInfo>, 
/**
 * Its thread: results, errors, replies, notes (not in lists).
 */
entries?: Array<Entry>, };

export type Entry = { 
/**
 * The entry's id.
 */
id: number, 
/**
 * `result`, `error`, `comment`, `reply`, `note`, `approved`, `retried`, `expired`.
 */
kind: string, 
/**
 * Who wrote it: an agent's name or `owner`.
 */
author: string, 
/**
 * Whom it handed the task to, when it did.
 */
to?: string, 
/**
 * Its text.
 */
text: string, 
/**
 * Milliseconds since the Unix epoch.
 */
at: number, 
/**
 * The files attached to it.
 */
files: Array<FileInfo>, };

export type FileInfo = { 
/**
 * Its id in the store: what `file` takes to read it.
 */
id: number, 
/**
 * Its name as attached.
 */
name: string, 
/**
 * Its size in bytes.
 */
size: number, 
/**
 * The entry it belongs to; none for the request's own files.
 */
entry?: number, };

export type TableFile = { 
/**
 * The file's name without `.db`.
 */
name: string, 
/**
 * Workspace-relative.
 */
path: string, 
/**
 * Its size in bytes.
 */
size: number, 
/**
 * Its tables (not its views), by name.
 */
tables: Array<string>, };
