/**
 * The Tasks view (in Manage Workspace): each task queue's tasks by view — needs you, to do, in
 * progress, needs review, done, failed — and one task's request and thread, with what the owner
 * does to it: approve, send back with a comment, reply, retry, delete. Agents change tasks from
 * other processes (their shells); the daemon sees each commit land in the store's files and says
 * so (`queues`), and the open view reads it again. Below them, the workspace's tables
 * (`.cowork/data/`).
 */
import { useCallback, useEffect, useState } from "react"

import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Textarea } from "@/components/ui/textarea"
import { cn } from "@/lib/utils"
import * as api from "./api"
import { report } from "./report"
import { useWorkbench } from "./store"

const VIEWS = [
  ["needs_you", "Needs you"],
  ["todo", "To do"],
  ["in_progress", "In progress"],
  ["needs_review", "Needs review"],
  ["done", "Done"],
  ["failed", "Failed"],
] as const
/** The views the Tasks view offers (cowork-queue's `View` but `all`). */
type View = (typeof VIEWS)[number][0]

/**
 * What changes with no write to the store — a receiver killed while it waited stops being listed
 * as listening when its wait would have ended — is read again this often.
 */
const REFRESH_MS = 15_000

/**
 * Re-reads `read` now, whenever the task store changes (the daemon's `queues` event: a commit by
 * any process — an agent's CLI, a routine, a widget), after each action, and every 15 s.
 */
function useLive<T>(read: () => Promise<T>, deps: unknown[]): [T | null, () => void] {
  const [value, setValue] = useState<T | null>(null)
  const queuesChanged = useWorkbench((s) => s.queuesChanged)
  const refresh = useCallback(
    () => void read().then(setValue, (e) => report("The task queues", e)),
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's `deps` say when `read` changes, as useCallback's own do
    deps,
  )
  useEffect(() => {
    const timer = setInterval(refresh, REFRESH_MS)
    return () => clearInterval(timer)
  }, [refresh])
  // biome-ignore lint/correctness/useExhaustiveDependencies: `queuesChanged` is the trigger, not a value the effect reads
  useEffect(refresh, [refresh, queuesChanged])
  return [value, refresh]
}

export function TasksView() {
  const workspace = useWorkbench((s) => s.workspace)
  const [queues, refreshQueues] = useLive(() => api.queueList(workspace), [workspace])
  const [queue, setQueue] = useState<string | null>(null)
  const [chosen, setView] = useState<View | null>(null)
  const [open, setOpen] = useState<number | null>(null)
  const current = queue ?? queues?.[0]?.name ?? null
  // Until the person picks a view: the first that holds a task, so a queue never opens on an empty list.
  const counts = queues?.find((q) => q.name === current)?.counts
  const view = chosen ?? VIEWS.map(([v]) => v).find((v) => (counts?.[v] ?? 0) > 0) ?? "needs_you"
  const [tasks, refreshTasks] = useLive(
    () => (current ? api.queueItems(workspace, current, view) : Promise.resolve([])),
    [workspace, current, view],
  )
  const changed = () => {
    refreshQueues()
    refreshTasks()
  }
  if (!queues) return null
  return (
    <div className="grid grid-cols-1 gap-6">
      {queues.length === 0 ? (
        <p data-testid="tasks-empty" className="text-sm text-muted-foreground">
          No task queues yet: <code>cowork queue send &lt;queue&gt; "…"</code>, a routine's{" "}
          <code>ctx.queue</code> or a widget's <code>cowork.queue</code> creates one.
        </p>
      ) : (
        <Queues
          queues={queues}
          current={current}
          setQueue={setQueue}
          view={view}
          setView={setView}
          tasks={tasks}
          open={open}
          setOpen={setOpen}
          workspace={workspace}
          changed={changed}
        />
      )}
      <Tables workspace={workspace} />
    </div>
  )
}

function Tables({ workspace }: { workspace: string }) {
  const [files] = useLive(() => api.tables(workspace), [workspace])
  return (
    <section data-testid="tables" className="grid gap-2">
      <h2 className="text-sm font-semibold">Tables</h2>
      {files?.length === 0 && (
        <p className="text-sm text-muted-foreground">
          No tables in .cowork/data/ yet: <code>cowork table create &lt;name&gt;</code> makes one.
        </p>
      )}
      {files?.map((file) => (
        <p key={file.path} className="flex items-center gap-2 text-sm">
          <span className="font-mono">{file.path}</span>
          <span className="text-xs text-muted-foreground">
            {file.tables.length > 0 ? file.tables.join(", ") : "no tables yet"} · {file.size} bytes
          </span>
        </p>
      ))}
    </section>
  )
}

interface QueuesProps {
  queues: api.QueueInfo[]
  current: string | null
  setQueue: (name: string) => void
  view: View
  setView: (view: View) => void
  tasks: api.Task[] | null
  open: number | null
  setOpen: (id: number | null) => void
  workspace: string
  changed: () => void
}

function Queues({
  queues,
  current,
  setQueue,
  view,
  setView,
  tasks,
  open,
  setOpen,
  workspace,
  changed,
}: QueuesProps) {
  return (
    <div data-testid="tasks" className="grid grid-cols-1 gap-3">
      <div className="flex flex-wrap gap-2">
        {queues.map((q) => (
          <Button
            key={q.name}
            size="sm"
            variant={q.name === current ? "default" : "outline"}
            onClick={() => setQueue(q.name)}
          >
            {q.name}
            {q.counts.needs_you > 0 && <Badge variant="destructive">{q.counts.needs_you}</Badge>}
          </Button>
        ))}
      </div>
      <div className="flex flex-wrap gap-1" role="tablist">
        {VIEWS.map(([id, label]) => {
          const count = queues.find((q) => q.name === current)?.counts[id] ?? 0
          return (
            <Button
              key={id}
              role="tab"
              aria-selected={id === view}
              size="sm"
              variant={id === view ? "secondary" : "ghost"}
              onClick={() => setView(id)}
            >
              {label} · <span data-testid={`count-${id}`}>{count}</span>
            </Button>
          )
        })}
      </div>
      <ul className="divide-y rounded-lg border">
        {tasks?.length === 0 && (
          <li className="p-3 text-sm text-muted-foreground">No tasks here.</li>
        )}
        {tasks?.map((task) => (
          <li key={task.id} data-testid="task-row" className="p-3">
            <button
              type="button"
              className="flex w-full items-center gap-2 text-left text-sm"
              onClick={() => setOpen(open === task.id ? null : task.id)}
            >
              <span className="font-mono text-xs text-muted-foreground">#{task.id}</span>
              <span className="flex-1 truncate">{task.subject}</span>
              <Badge variant="outline">{task.status.replace("_", " ")}</Badge>
              <span className="text-xs text-muted-foreground">
                {task.from} → {task.to}
              </span>
            </button>
            {open === task.id && current && (
              <TaskDetail workspace={workspace} queue={current} id={task.id} changed={changed} />
            )}
          </li>
        ))}
      </ul>
    </div>
  )
}

function TaskDetail({
  workspace,
  queue,
  id,
  changed,
}: {
  workspace: string
  queue: string
  id: number
  changed: () => void
}) {
  const [task, refresh] = useLive(() => api.queuePeek(workspace, queue, id), [workspace, queue, id])
  const [text, setText] = useState("")
  if (!task) return null
  const act = (action: api.TaskAction) => async () => {
    try {
      await api.queueAct(workspace, queue, id, action)
      setText("")
      refresh()
      changed()
    } catch (error) {
      report(`Task ${id}`, error)
    }
  }
  return (
    <div data-testid="task-detail" className="mt-3 grid gap-3 text-sm">
      <pre className="whitespace-pre-wrap rounded-md bg-muted p-3 font-sans">{task.body}</pre>
      {task.files && task.files.length > 0 && (
        <p className="text-xs text-muted-foreground">
          Files: {task.files.map((f) => f.name).join(", ")}
        </p>
      )}
      <ol className="grid gap-2">
        {task.entries?.map((entry) => (
          <li
            key={entry.id}
            className={cn("rounded-md border p-2", entry.author === "owner" && "bg-muted/50")}
          >
            <p className="text-xs text-muted-foreground">
              {entry.kind} · {entry.author}
              {entry.to ? ` → ${entry.to}` : ""} · {new Date(entry.at).toLocaleString()}
            </p>
            {entry.text && <p className="whitespace-pre-wrap">{entry.text}</p>}
          </li>
        ))}
      </ol>
      <Textarea
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder="A comment or a reply"
      />
      <div className="flex flex-wrap gap-2">
        {task.status === "needs_review" && (
          <>
            <Button size="sm" onClick={act({ method: "approve" })}>
              Approve
            </Button>
            <Button
              size="sm"
              variant="outline"
              disabled={!text.trim()}
              onClick={act({ method: "reject", comment: text })}
            >
              Send back
            </Button>
          </>
        )}
        {task.status === "failed" && (
          <Button size="sm" variant="outline" onClick={act({ method: "retry" })}>
            Retry
          </Button>
        )}
        <Button
          size="sm"
          variant="outline"
          disabled={!text.trim()}
          onClick={act({
            method: "reply",
            body: text,
            options: { to: task.from === "owner" ? task.to : task.from },
          })}
        >
          Reply
        </Button>
        <Button size="sm" variant="ghost" onClick={act({ method: "remove" })}>
          Delete
        </Button>
      </div>
    </div>
  )
}
