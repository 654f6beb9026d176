// Generated from cowork-queue's Rust types (crates/cowork-queue/src/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-queue --lib typescript

export type QueueInfo = { name: string, counts: Counts, 
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

export type Counts = { needs_you: number, todo: number, in_progress: number, needs_review: number, done: number, failed: number, };

export type Status = "todo" | "in_progress" | "needs_review" | "done" | "failed";

export type View = "needs_you" | "todo" | "in_progress" | "needs_review" | "done" | "failed" | "all";

export type Task = { id: number, queue: string, subject: string, status: Status, from: string, to: string, review: boolean, ref?: string, meta?: unknown, attempts: number, 
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
availableAt: number, created: number, updated: number, body?: string, files?: Array<FileInfo>, entries?: Array<Entry>, };

export type Entry = { id: number, 
/**
 * `result`, `error`, `comment`, `reply`, `note`, `approved`, `retried`, `expired`.
 */
kind: string, author: string, to?: string, text: string, 
/**
 * Milliseconds since the Unix epoch.
 */
at: number, files: Array<FileInfo>, };

export type FileInfo = { id: number, name: string, size: number, 
/**
 * The entry it belongs to; none for the request's own files.
 */
entry?: number, };

export type TableFile = { name: string, 
/**
 * Workspace-relative.
 */
path: string, size: number, tables: Array<string>, };
