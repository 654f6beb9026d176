/**
 * The Chat in the right side bar: its own small store (conversations, the shown one's events, the
 * context chips the apps fed) and the calls that change it. The daemon runs the agent CLI
 * (`/api/chat/*`); this follows its events, and turns the panes' `chat.ask` / `agent.*` calls
 * (the daemon's `agent` events) into chips and messages.
 */
import { useSyncExternalStore } from "react"

import * as api from "./api"
import { followStream } from "./events"
import { getState, update } from "./store"
import type { ChatEvent, ContextItem, ConversationSummary, Decision } from "./wire/chat"

/** The right side bar's tab of the Chat (no app name can start with `@`). */
export const CHAT_TAB = "@chat"

export type ChatState = {
  conversations: ConversationSummary[]
  /** The conversation shown; null: a new one starts with the next message. */
  active: string | null
  /** Each conversation's events, streamed text joined. */
  events: Record<string, ChatEvent[]>
  /** What the apps fed for the next message, shown as chips the person can remove. */
  context: ContextItem[]
  /** The composer's text: kept here so a message that could not be sent comes back to it. */
  draft: string
  model: string
  effort: string
  /** The agent CLI a new conversation runs (`claude-code`, `codex`): the workspace's choice. */
  cli: string
  /** The last failure to say (a refused send, no CLI), with its hint. */
  error: string | null
  /** The CLI a send found missing (`AgentCliMissing`): the Chat offers to install it. */
  missing: string | null
  /** An install of a CLI, as npm's output comes (`lines` so far, the last one), then its end. */
  install: { cli: string; lines: number; line: string; outcome: string | null } | null
}

let state: ChatState = {
  conversations: [],
  active: null,
  events: {},
  context: [],
  draft: "",
  model: "",
  effort: "",
  cli: "claude-code",
  error: null,
  missing: null,
  install: null,
}
const listeners = new Set<() => void>()

function set(change: Partial<ChatState> | ((s: ChatState) => Partial<ChatState>)) {
  state = { ...state, ...(typeof change === "function" ? change(state) : change) }
  for (const listener of listeners) listener()
}

/** Reads the Chat's state in a component (select something stable: a field, not a new object). */
export function useChat<T>(select: (s: ChatState) => T): T {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => select(state),
  )
}

/** The events so far, a streamed piece of text joined to the text before it. */
function append(events: ChatEvent[], event: ChatEvent): ChatEvent[] {
  const last = events.at(-1)
  if (event.type === "text" && last?.type === "text")
    return [...events.slice(0, -1), { ...last, text: last.text + event.text }]
  return [...events, event]
}

function received(event: ChatEvent) {
  if (event.type === "install") {
    // Not a conversation's: the progress of an install, shown above the composer.
    const { cli, lines, line, outcome } = event
    set((s) => ({
      install: { cli, lines, line: line ?? s.install?.line ?? "", outcome },
      missing: outcome === "ok" ? null : s.missing,
    }))
    return
  }
  set((s) => ({
    events: {
      ...s.events,
      [event.conversation]: append(s.events[event.conversation] ?? [], event),
    },
  }))
  if (event.type === "user" || event.type === "turnEnd" || event.type === "error") void loadList()
}

async function loadList() {
  const workspace = getState().workspace
  if (!workspace) return
  try {
    const list = await api.chatList(workspace)
    set({ conversations: list.conversations, cli: list.cli })
  } catch (error) {
    console.warn("cowork: the chat's conversations could not be read", error)
  }
}

/** Follows `/api/chat/events` for the page's life, reconnecting; the list is read on each connect. */
export function followChat(workspace: string, signal: AbortSignal) {
  return followStream<ChatEvent>(
    () => api.chatEvents(workspace, signal),
    signal,
    received,
    () => void loadList(),
  )
}

function failed(error: unknown, missing: string | null = null) {
  const e = error as { name?: string; message?: string; hint?: string }
  set({
    error: `${e.name ?? "Error"}: ${e.message ?? String(error)}${e.hint ? ` — ${e.hint}` : ""}`,
    missing: e.name === "AgentCliMissing" ? missing : null,
  })
}

/** Installs the CLI a send found missing (npm, into Cowork's root); its progress comes as events. */
export async function installCli(cli: string) {
  set({ error: null, install: { cli, lines: 0, line: "", outcome: null } })
  try {
    await api.chatInstall({ workspace: getState().workspace, cli })
    set((s) => ({ missing: null, install: s.install && { ...s.install, outcome: "ok" } }))
  } catch (error) {
    set((s) => ({ install: s.install && { ...s.install, outcome: "failed" } }))
    failed(error)
  }
}

/** Opens the right side bar on the Chat. */
export function openChat() {
  update({ right: { open: true, app: CHAT_TAB } })
}

/**
 * The models offered for `cli`, the default (`""`) first. Claude Code takes its aliases. The
 * reference names no Codex models (and Codex's change with its releases): Codex offers its own
 * default (its config's `model`), and any model a Codex session said it runs.
 */
export function modelsOf(cli: string, s: Pick<ChatState, "conversations" | "events"> = state) {
  if (cli === "claude-code") return CLAUDE_MODELS
  const reported = new Set<string>()
  for (const c of s.conversations) {
    if (c.cli !== cli) continue
    if (c.model) reported.add(c.model)
    for (const e of s.events[c.id] ?? []) if (e.type === "session" && e.model) reported.add(e.model)
  }
  return ["", ...[...reported].sort()]
}
const CLAUDE_MODELS = ["", "sonnet", "opus", "haiku"]

/** The CLI the shown conversation runs (the one it began with), else the choice for a new one. */
export function cliOf(s: ChatState = state) {
  const active = s.active ? s.conversations.find((c) => c.id === s.active) : undefined
  return active?.cli ?? s.cli
}

/**
 * Says `text` in the shown conversation (a new one when none is), with the context chips. A
 * message the daemon refused comes back to the composer (unless the person typed another there
 * since), so Send works again once the cause is fixed (e.g. the CLI installed).
 */
export async function send(text: string) {
  if (!text.trim()) return
  const { active, context, model, effort, cli } = state
  const running = active ? state.conversations.find((c) => c.id === active)?.cli : undefined
  set({ error: null, install: null })
  try {
    const sent = await api.chatSend({
      workspace: getState().workspace,
      conversation: active,
      text,
      context,
      // A model of another agent (chosen before the agent changed) is not this one's.
      model: (modelsOf(running ?? cli).includes(model) && model) || null,
      effort: effort || null,
      // A conversation keeps the CLI it began with; a new one runs (and remembers) the choice.
      cli: active ? null : cli,
    })
    set({ active: sent.conversation, context: [] })
  } catch (error) {
    failed(error, running ?? cli)
    set((s) => ({ draft: s.draft.trim() ? s.draft : text }))
  }
}

/** Answers a permission prompt (allow once, always this session, deny). */
export function decide(id: string, decision: Decision) {
  return answer({ id, decision, answers: null })
}

/** Answers a question: its text → the chosen label. */
export function reply(id: string, answers: Record<string, string>) {
  return answer({ id, decision: null, answers })
}

async function answer(part: {
  id: string
  decision: Decision | null
  answers: Record<string, string> | null
}) {
  if (!state.active) return
  try {
    await api.chatAnswer({ workspace: getState().workspace, conversation: state.active, ...part })
  } catch (error) {
    failed(error)
  }
}

/** Stops the running turn of the shown conversation. */
export async function interrupt() {
  if (!state.active) return
  try {
    await api.chatInterrupt({ workspace: getState().workspace, conversation: state.active })
  } catch (error) {
    failed(error)
  }
}

/** Shows a conversation listed earlier (its transcript read from the daemon). */
export async function show(id: string | null) {
  // A failure said about the conversation shown before (its CLI missing) is not this one's.
  set({ active: id, error: null, missing: null })
  if (!id) return
  try {
    const { events } = await api.chatTranscript(getState().workspace, id)
    set((s) => ({ events: { ...s.events, [id]: events.reduce(append, [] as ChatEvent[]) } }))
  } catch (error) {
    failed(error)
  }
}

export const setModel = (model: string) => set({ model })
export const setEffort = (effort: string) => set({ effort })
export const setDraft = (draft: string) => set({ draft })
/**
 * Chooses the agent CLI of the next new conversation (kept by the daemon once it is used). The
 * failure said about the other CLI (its `AgentCliMissing`, its Install button, a finished
 * install's outcome) goes: the next send says what holds for this one. A model the new CLI does
 * not offer goes back to its default.
 */
export const setCli = (cli: string) =>
  set((s) =>
    s.cli === cli
      ? {}
      : {
          cli,
          error: null,
          missing: null,
          install: s.install?.outcome === null ? s.install : null,
          model: modelsOf(cli, s).includes(s.model) ? s.model : "",
        },
  )
export const removeChip = (index: number) =>
  set((s) => ({ context: s.context.filter((_, i) => i !== index) }))

/** A running turn in the shown conversation: its last event is not a turn's end or an error. */
export function running(events: ChatEvent[] | undefined) {
  const last = events?.findLast((e) => e.type !== "text" && e.type !== "session")
  return !!last && last.type !== "turnEnd" && last.type !== "error"
}

/**
 * A pane's `chat.ask` (open the Chat and submit) or `agent.*` (context chips: one per app and
 * kind, replaced by the app's next call, removed by its clear call).
 */
export function agentCall(event: { app: string; method: string; params: unknown }) {
  // The pane's params as it sent them: an object, or nothing a field can be read from.
  const params = (typeof event.params === "object" && event.params ? event.params : {}) as Record<
    string,
    unknown
  >
  const without = (kind: string) =>
    state.context.filter((c) => !(c.app === event.app && c.kind === kind))
  const chip = (kind: string, text: string) =>
    set({ context: text ? [...without(kind), { kind, app: event.app, text }] : without(kind) })
  switch (event.method) {
    case "chat.ask":
      openChat()
      return void send(String(params.text ?? ""))
    case "agent.setContext": {
      const value = params.value
      return chip(
        "context",
        value == null ? "" : typeof value === "string" ? value : JSON.stringify(value),
      )
    }
    case "agent.select":
      return chip("selection", String(params.text ?? ""))
    case "agent.clearContext":
      return set({ context: without("context") })
    case "agent.clearSelection":
      return set({ context: without("selection") })
  }
}
