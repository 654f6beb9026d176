/**
 * How Executions and the Monitor show a run a trigger started that had to wait for a concurrency
 * slot: while it waits, since when (the lists are read again when it starts, so no clock ticks
 * here); once it ran, how long it waited first (the audit line's `queuedMs`).
 */
import { Badge } from "@/components/ui/badge"
import type { RunningRun } from "./wire/daemon"

/** `640 ms`, `3.2 s`. */
export function waited(ms: number) {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`
}

/** A finished run's time: `812 ms`, and `, queued 3.2 s` when it waited for a slot first. */
export function took(run: { durationMs: number; queuedMs: number | null }) {
  return run.queuedMs == null
    ? `${run.durationMs} ms`
    : `${run.durationMs} ms, queued ${waited(run.queuedMs)}`
}

/** A run listed as running now: `since …`, or, while it waits for a slot, a `queued` badge and since when. */
export function RunningSince({ run, when }: { run: RunningRun; when: (iso: string) => string }) {
  if (run.queued) {
    return (
      <>
        <Badge variant="outline" data-queued={run.routine}>
          queued
        </Badge>
        <span className="text-xs text-muted-foreground">
          waiting for a slot since {when(run.started)}
        </span>
      </>
    )
  }
  return (
    <span className="text-xs text-muted-foreground">
      since {when(run.started)}
      {run.queuedMs != null && `, after ${waited(run.queuedMs)} queued`}
    </span>
  )
}
