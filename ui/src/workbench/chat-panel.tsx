/**
 * The Chat panel of the right side bar: the conversation list, the shown conversation (streamed
 * text, tool calls folded with their results, permission prompts and questions as cards), the
 * context chips the apps fed, the model and effort, and send / interrupt.
 */
import { memo, useEffect, useMemo, useRef, useState } from "react"

import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Progress } from "@/components/ui/progress"
import { cn } from "@/lib/utils"
import * as chat from "./chat"
import { useLogWindow } from "./chat-window"
import { Codicon } from "./codicon"
import type { ChatEvent } from "./wire/chat"

/** The agent CLIs the Chat runs: Claude Code by default, Codex the other choice. */
const CLIS = [
  { id: "claude-code", name: "Claude Code" },
  { id: "codex", name: "Codex" },
]
const EFFORTS = ["", "low", "medium", "high"]

export function ChatPanel({ hidden }: { hidden: boolean }) {
  const conversations = chat.useChat((s) => s.conversations)
  const active = chat.useChat((s) => s.active)
  const events = chat.useChat((s) => (s.active ? s.events[s.active] : undefined))
  const error = chat.useChat((s) => s.error)
  const running = chat.running(events)
  const end = useRef<HTMLDivElement>(null)
  const log = useRef<HTMLDivElement>(null)
  const replies = useMemo(() => repliesOf(events ?? []), [events])
  const keys = useMemo(() => (events ?? []).map((e) => e.seq), [events])
  const shown = useLogWindow(log, active, keys)
  // Follow the conversation as it grows (a new event, a longer streamed text).
  const length = (events?.length ?? 0) + (events?.at(-1)?.type === "text" ? 1 : 0)
  useEffect(() => {
    if (length) end.current?.scrollIntoView({ block: "end" })
  }, [length])
  return (
    <section
      aria-label="Chat"
      data-testid="chat"
      className={cn("absolute inset-0 flex flex-col", hidden && "hidden")}
    >
      <div className="flex items-center gap-1 border-b px-2 py-1">
        <select
          aria-label="Conversation"
          className="h-7 min-w-0 flex-1 rounded-md border bg-background px-1 text-xs"
          value={active ?? ""}
          onChange={(e) => void chat.show(e.target.value || null)}
        >
          <option value="">New conversation</option>
          {conversations.map((c) => (
            <option key={c.id} value={c.id}>
              {c.title || c.id}
            </option>
          ))}
        </select>
        <Button
          size="icon-xs"
          variant="ghost"
          aria-label="New conversation"
          onClick={() => void chat.show(null)}
        >
          <Codicon name="add" />
        </Button>
      </div>
      <div
        ref={log}
        onScroll={shown.onScroll}
        className="min-h-0 flex-1 overflow-y-auto p-2 text-sm"
        data-testid="chat-log"
      >
        <div style={{ height: shown.before }} />
        {(events ?? []).slice(shown.start, shown.end).map((event) => (
          <div key={event.seq} data-key={event.seq} className="pb-2">
            <Entry event={event} reply={replies.get(replyKey(event))} />
          </div>
        ))}
        <div style={{ height: shown.after }} />
        {error && (
          <p
            role="alert"
            className="rounded-md border border-destructive/40 p-2 text-xs text-destructive"
          >
            {error}
          </p>
        )}
        <Install />
        <div ref={end} />
      </div>
      <Composer running={running} />
    </section>
  )
}

/** The name of a CLI id, as the Chat says it. */
const cliName = (id: string) => CLIS.find((c) => c.id === id)?.name ?? id

/**
 * A missing CLI's Install button, then npm's progress (it gives no percent: the bar fills toward
 * the end as its lines come) and the ready state.
 */
function Install() {
  const missing = chat.useChat((s) => s.missing)
  const install = chat.useChat((s) => s.install)
  if (install) {
    const { cli, lines, line, outcome } = install
    const value = outcome === "ok" ? 100 : Math.round(90 * (1 - 1 / (1 + lines / 8)))
    return (
      <div data-testid="chat-install" className="space-y-1 rounded-md border p-2 text-xs">
        <p>
          {outcome === "ok"
            ? `${cliName(cli)} is installed: send your message again.`
            : outcome === "failed"
              ? `${cliName(cli)} was not installed.`
              : `Installing ${cliName(cli)} with npm…`}
        </p>
        <Progress value={value} aria-label={`Installing ${cliName(cli)}`} />
        {line && outcome !== "ok" && <p className="truncate text-muted-foreground">{line}</p>}
      </div>
    )
  }
  if (!missing) return null
  return (
    <Button size="xs" onClick={() => void chat.installCli(missing)}>
      Install {cliName(missing)}
    </Button>
  )
}

/**
 * What answers an entry, by `replyKey`: a tool call's result, a prompt's or question's `answered`.
 * Found once per change of the conversation, not once per entry: a long conversation re-renders
 * in linear time, and an entry whose event and reply did not change is not rendered again.
 */
function repliesOf(events: ChatEvent[]) {
  const replies = new Map<string, ChatEvent>()
  for (const e of events) {
    if (e.type === "toolResult") replies.set(`tool:${e.id}`, e)
    if (e.type === "answered") replies.set(`answer:${e.id}`, e)
  }
  return replies
}

function replyKey(event: ChatEvent) {
  if (event.type === "toolCall") return `tool:${event.id}`
  if (event.type === "permission" || event.type === "question") return `answer:${event.id}`
  return ""
}

/** One entry of the log; memo keeps a streamed piece of text from rendering every entry again. */
const Entry = memo(function Entry({ event, reply }: { event: ChatEvent; reply?: ChatEvent }) {
  switch (event.type) {
    case "user":
      return (
        <div className="ml-6 rounded-lg bg-secondary p-2" data-chat="user">
          {event.context.length > 0 && (
            <div className="mb-1 flex flex-wrap gap-1">
              {event.context.map((c) => (
                <Badge
                  key={`${c.app}-${c.kind}-${c.text}`}
                  variant="outline"
                  className="max-w-full truncate"
                >
                  {c.app ?? c.kind}: {c.text}
                </Badge>
              ))}
            </div>
          )}
          <p className="whitespace-pre-wrap">{event.text}</p>
        </div>
      )
    case "text":
      return (
        <p className="whitespace-pre-wrap" data-chat="text">
          {event.text}
        </p>
      )
    case "toolCall": {
      const result = reply
      return (
        <details className="rounded-md border px-2 py-1 text-xs" data-chat="tool">
          <summary className="cursor-pointer font-mono">
            {event.name}
            {result?.type === "toolResult" && result.isError && " — failed"}
          </summary>
          <pre className="mt-1 overflow-x-auto whitespace-pre-wrap">
            {JSON.stringify(event.input, null, 2)}
          </pre>
          {result?.type === "toolResult" && (
            <pre className="mt-1 overflow-x-auto border-t pt-1 whitespace-pre-wrap">
              {result.output}
            </pre>
          )}
        </details>
      )
    }
    case "permission": {
      const done = reply
      return (
        <div className="rounded-lg border border-primary/40 p-2" data-chat="permission">
          <p className="text-xs font-medium">Allow {event.tool}?</p>
          <pre className="my-1 overflow-x-auto text-xs whitespace-pre-wrap">
            {JSON.stringify(event.input, null, 2)}
          </pre>
          {done?.type === "answered" ? (
            <p className="text-xs text-muted-foreground">Answered: {done.answer}</p>
          ) : (
            <div className="flex gap-1">
              <Button size="xs" onClick={() => void chat.decide(event.id, "allow")}>
                Allow once
              </Button>
              <Button
                size="xs"
                variant="outline"
                onClick={() => void chat.decide(event.id, "always")}
              >
                Always this session
              </Button>
              <Button
                size="xs"
                variant="destructive"
                onClick={() => void chat.decide(event.id, "deny")}
              >
                Deny
              </Button>
            </div>
          )}
        </div>
      )
    }
    case "question": {
      const done = reply
      return (
        <QuestionCard
          id={event.id}
          questions={event.questions}
          answer={done?.type === "answered" ? done.answer : null}
        />
      )
    }
    case "turnEnd":
      return event.interrupted ? (
        <p className="text-xs text-muted-foreground">Interrupted.</p>
      ) : null
    case "error":
      return (
        <p
          role="alert"
          className="rounded-md border border-destructive/40 p-2 text-xs text-destructive"
          data-chat="error"
        >
          {event.name}: {event.message}
          {event.hint && <span className="block text-muted-foreground">{event.hint}</span>}
        </p>
      )
    default:
      return null
  }
})

function QuestionCard({
  id,
  questions,
  answer,
}: {
  id: string
  questions: Extract<ChatEvent, { type: "question" }>["questions"]
  answer: string | null
}) {
  const [chosen, setChosen] = useState<Record<string, string>>({})
  return (
    <div className="rounded-lg border border-primary/40 p-2" data-chat="question">
      {questions.map((q) => (
        <fieldset key={q.question} className="mb-1">
          <legend className="text-xs font-medium">{q.question}</legend>
          <div className="mt-1 flex flex-wrap gap-1">
            {q.options.map((o) => (
              <Button
                key={o.label}
                size="xs"
                variant={chosen[q.question] === o.label ? "default" : "outline"}
                disabled={answer !== null}
                title={o.description ?? undefined}
                onClick={() => setChosen((c) => ({ ...c, [q.question]: o.label }))}
              >
                {o.label}
              </Button>
            ))}
          </div>
        </fieldset>
      ))}
      {answer !== null ? (
        <p className="text-xs text-muted-foreground">Answered: {answer}</p>
      ) : (
        <Button
          size="xs"
          disabled={questions.some((q) => !chosen[q.question])}
          onClick={() => void chat.reply(id, chosen)}
        >
          Answer
        </Button>
      )}
    </div>
  )
}

function Composer({ running }: { running: boolean }) {
  const context = chat.useChat((s) => s.context)
  const model = chat.useChat((s) => s.model)
  const effort = chat.useChat((s) => s.effort)
  const chosen = chat.useChat((s) => s.cli)
  const conversations = chat.useChat((s) => s.conversations)
  const events = chat.useChat((s) => s.events)
  const active = chat.useChat((s) =>
    s.active ? s.conversations.find((c) => c.id === s.active) : undefined,
  )
  // A conversation goes on with the CLI it began with; the choice is for a new one.
  const cli = active?.cli ?? chosen
  const cliName = CLIS.find((c) => c.id === cli)?.name ?? cli
  // The agent's own models; one it does not offer (chosen for another agent) shows as its default.
  const models = useMemo(
    () => chat.modelsOf(cli, { conversations, events }),
    [cli, conversations, events],
  )
  const shownModel = models.includes(model) ? model : ""
  const text = chat.useChat((s) => s.draft)
  const submit = () => {
    // Out of the composer while it is sent; back in it if the daemon refuses it (`chat.send`).
    chat.setDraft("")
    void chat.send(text)
  }
  return (
    <div className="border-t p-2">
      {context.length > 0 && (
        <div className="mb-1 flex flex-wrap gap-1" data-testid="chat-context">
          {context.map((c, i) => (
            <Badge key={`${c.app}-${c.kind}`} variant="secondary" className="max-w-full gap-1">
              <span className="truncate">
                {c.app ? `${c.app} · ` : ""}
                {c.kind}: {c.text}
              </span>
              <button
                type="button"
                aria-label={`Remove ${c.kind} of ${c.app ?? "the app"}`}
                onClick={() => chat.removeChip(i)}
              >
                <Codicon name="close" size={12} />
              </button>
            </Badge>
          ))}
        </div>
      )}
      <textarea
        aria-label="Message"
        className="h-16 w-full resize-none rounded-md border bg-background p-2 text-sm"
        placeholder={`Ask ${cliName} about this workspace`}
        value={text}
        onChange={(e) => chat.setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault()
            submit()
          }
        }}
      />
      <div className="mt-1 flex items-center gap-1">
        <select
          aria-label="Agent"
          className="h-7 rounded-md border bg-background px-1 text-xs"
          value={cli}
          disabled={active !== undefined}
          onChange={(e) => chat.setCli(e.target.value)}
        >
          {CLIS.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
        <select
          aria-label="Model"
          className="h-7 rounded-md border bg-background px-1 text-xs"
          value={shownModel}
          onChange={(e) => chat.setModel(e.target.value)}
        >
          {models.map((m) => (
            <option key={m} value={m}>
              {m || "default model"}
            </option>
          ))}
        </select>
        <select
          aria-label="Effort"
          className="h-7 rounded-md border bg-background px-1 text-xs"
          value={effort}
          onChange={(e) => chat.setEffort(e.target.value)}
        >
          {EFFORTS.map((m) => (
            <option key={m} value={m}>
              {m || "default effort"}
            </option>
          ))}
        </select>
        <div className="flex-1" />
        {running ? (
          <Button size="xs" variant="outline" onClick={() => void chat.interrupt()}>
            Stop
          </Button>
        ) : (
          <Button size="xs" onClick={submit} disabled={!text.trim()}>
            Send
          </Button>
        )}
      </div>
    </div>
  )
}
