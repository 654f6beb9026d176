/**
 * The shapes the engine and core own that cross the daemon's wire: the generated `daemon.ts`
 * names them. Hand-written until the engine's types export their own TypeScript.
 */
import type { NotificationEvent } from "@/frame/protocol"

/** A notification as the daemon sends it: stamped in RFC 3339 (see `session.ts`, which turns it into milliseconds). */
export type DaemonNotification = Omit<NotificationEvent, "at"> & { at: string }

export type Display = "sidebar" | "tab" | "modal" | "right"
export type Risk = "low" | "medium" | "high"

/** What is wrong, where: a file (with `:line` for a widget's), the dotted key in it when there is one. */
export interface Problem {
  file: string
  key?: string | null
  message: string
}

export interface RailFolder {
  id: string
  title: string
  color?: string
  /** View-container ids, `workbench.view.cowork.app.<name>`. */
  members: string[]
}

export interface RouteConflict {
  glob: string
  claimants: string[]
  chosen: string
  remembered: boolean
}

export interface Badges {
  apps: Record<string, number>
  total: number
}
