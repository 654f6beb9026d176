// What the notification server was really asked to show: `dbus-monitor` on the session bus, parsed.
// The shell's notification plugin reports success even when nothing is shown, so the tests assert
// on the bus — each `org.freedesktop.Notifications.Notify` call (app name, replaces_id, summary,
// body, actions), the id the server returned for it, and the `ActionInvoked` signals of clicks.
//
// dbus-monitor prints strings raw: a string holding a newline goes on over the lines that follow,
// until one ends with its closing quote (`joinStrings`), so a text line ending in `"` is the only
// one a test cannot send.
import { spawn } from "node:child_process"
import { READY_MS, until } from "./webdriver.mjs"

const HEADER = /^(method call|method return|signal|error) time=\S+ sender=(\S+) -> destination=(\S+) serial=(\d+)(?: reply_serial=(\d+))?(?: path=([^;]+); interface=([^;]+); member=(\S+))?/

/** One value as dbus-monitor prints it: `string "x"`, `uint32 5`, `variant byte 1`, … */
function scalar(line) {
  const text = line.trim()
  const variant = /^variant\s+(.*)$/s.exec(text)
  if (variant) return scalar(variant[1])
  const [, type, rest = ""] = /^(\S+)\s?(.*)$/s.exec(text)
  if (type === "string" || type === "object" || type === "signature") return rest.slice(1, -1)
  if (type === "boolean") return rest === "true"
  if (/^u?int\d+$|^byte$|^double$/.test(type)) return Number(rest)
  return text
}

/** `lines` with each string that holds newlines back on one line (`string "a\nb"`). */
function joinStrings(lines) {
  const joined = []
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]
    const open = /^\s*(?:variant\s+)?string "/.exec(line)
    if (open) {
      while (!(line.length > open[0].length && line.endsWith('"')) && i + 1 < lines.length) line += `\n${lines[++i]}`
    }
    joined.push(line)
  }
  return joined
}

/**
 * A message's arguments: top-level values (3-space indent); an array becomes the flat list of its
 * values (a hints dictionary: key, value, key, value…).
 */
function parseArgs(raw) {
  const lines = joinStrings(raw)
  const args = []
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("   ") || lines[i].startsWith("    ")) continue
    if (lines[i].trim() === "array [") {
      const items = []
      for (i++; i < lines.length && lines[i] !== "   ]"; i++) {
        const inner = lines[i].trim()
        if (inner && !/^(dict entry\(|\)|array \[|\]|struct \{|\})$/.test(inner)) items.push(scalar(inner))
      }
      args.push(items)
    } else {
      args.push(scalar(lines[i]))
    }
  }
  return args
}

/** The notifications the session bus carried since `watch()`; `stop()` ends dbus-monitor. */
export class NotificationBus {
  /** Notify calls, oldest first: {appName, replacesId, summary, body, actions, hints, expireTimeout, sender (a bus name), id?}. */
  notifies = []
  /** ActionInvoked signals: {id, action}. */
  actions = []
  #child
  #pending = new Map()
  #message = null
  #idle = null

  constructor(child) {
    this.#child = child
  }

  #header(match) {
    const [, kind, sender, destination, serial, replySerial, , iface, member] = match
    return { kind, sender, destination, serial: Number(serial), replySerial: Number(replySerial), iface, member, lines: [] }
  }

  #finish() {
    const message = this.#message
    this.#message = null
    if (!message) return
    const args = parseArgs(message.lines)
    if (message.kind === "method call" && message.member === "Notify") {
      const [appName, replacesId, , summary, body, actions, hints, expireTimeout] = args
      const notify = { appName, replacesId, summary, body, actions, hints, expireTimeout, sender: message.sender, id: undefined, at: Date.now() }
      this.notifies.push(notify)
      this.#pending.set(`${message.sender} ${message.serial}`, notify)
    } else if (message.kind === "method return") {
      const notify = this.#pending.get(`${message.destination} ${message.replySerial}`)
      if (notify) {
        notify.id = args[0]
        this.#pending.delete(`${message.destination} ${message.replySerial}`)
      }
    } else if (message.kind === "signal" && message.member === "ActionInvoked") {
      this.actions.push({ id: args[0], action: args[1] })
    }
  }

  /** Feeds one line of dbus-monitor's output. */
  line(text) {
    const match = HEADER.exec(text)
    if (match) {
      this.#finish()
      this.#message = this.#header(match)
    } else if (this.#message) {
      this.#message.lines.push(text)
    }
    // dbus-monitor prints a message whole; the last one is done once the output pauses.
    clearTimeout(this.#idle)
    this.#idle = setTimeout(() => this.#finish(), 30)
  }

  /** Where the list ends now: pass it as `since` to see only what comes after. */
  mark() {
    return this.notifies.length
  }

  /** Notify calls after `since` for which `where` holds. */
  after(since = 0, where = () => true) {
    return this.notifies.slice(since).filter(where)
  }

  /** Waits until `count` Notify calls after `since` match `where` (and have their id), then returns them. */
  waitFor(count, { since = 0, where = () => true, timeoutMs = READY_MS } = {}) {
    return until(
      () => {
        const seen = this.after(since, where)
        return seen.length >= count && seen.slice(0, count).every((n) => n.id !== undefined) && seen.slice(0, count)
      },
      { timeoutMs, what: `${count} Notify call(s) on the session bus (saw ${this.after(since, where).length})` },
    )
  }

  /** Waits `ms`, then returns the Notify calls after `since` that match: for asserting "no more". */
  async quiet(ms, { since = 0, where = () => true } = {}) {
    await new Promise((resolve) => setTimeout(resolve, ms))
    return this.after(since, where)
  }

  stop() {
    clearTimeout(this.#idle)
    this.#child.kill()
  }
}

/**
 * Starts dbus-monitor on the session bus (DBUS_SESSION_BUS_ADDRESS, set by dbus-run-session):
 * the Notifications interface (calls and signals) and every method return (the ids Notify
 * returned; dbus-monitor cannot match a return by the call it answers).
 */
export async function watchNotifications() {
  const child = spawn("dbus-monitor", ["--session", "interface='org.freedesktop.Notifications'", "type='method_return'"], {
    stdio: ["ignore", "pipe", "inherit"],
  })
  const bus = new NotificationBus(child)
  let started = false
  let rest = ""
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk) => {
    started = true
    const lines = (rest + chunk).split("\n")
    rest = lines.pop()
    for (const line of lines) bus.line(line)
  })
  // dbus-monitor announces itself (NameAcquired / NameLost) once its match rules are in place.
  await until(() => started || child.exitCode !== null, { what: "dbus-monitor to start" })
  if (child.exitCode !== null) throw new Error(`dbus-monitor exited (${child.exitCode}); is DBUS_SESSION_BUS_ADDRESS set?`)
  return bus
}
