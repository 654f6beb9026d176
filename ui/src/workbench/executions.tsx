/**
 * Manage Workspace › Observability › Executions: the runs running now (and the triggered ones
 * queued for a slot), then the finished ones,
 * newest first, as `cowork routine runs` lists them — each with **Who** asked (you, or the agent by
 * its login, never by the name its client gives itself) and the task an agent ran it for. It follows the daemon's run events, so a run an
 * agent starts shows up at once and moves down when it ends.
 */
import { useCallback, useEffect, useState } from "react"

import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { NativeSelect, NativeSelectOption } from "@/components/ui/native-select"
import * as api from "./api"
import { RunningSince, took } from "./queued"
import { report } from "./report"
import { useWorkbench } from "./store"

const EVERYONE = ""

function when(iso: string) {
  return new Date(iso).toLocaleString()
}

/** Where the run came from, in words: a widget of an app, a schedule, the door… */
function via(source: string, callerApp: string | null) {
  return callerApp ? `${source} · ${callerApp}` : source
}

/**
 * **Who** asked: the agent's login for a call through the door (the audit's `principal`), with the
 * client it came through beside it — only a label the client chose, so a client that names itself
 * nothing is still shown by its login, never as you. "You" is the owner's own runs (a terminal, a
 * widget, a trigger you armed); a terminal run Claude Code made says so beside it.
 */
function Who({ run }: { run: Pick<api.FinishedRun, "principal" | "agent" | "source"> }) {
  const client = run.agent && (
    <span className="ml-1 text-muted-foreground" data-client>
      via {run.agent}
    </span>
  )
  if (run.principal)
    return (
      <span data-who={run.principal}>
        {run.principal}
        {client}
      </span>
    )
  // A door run recorded without a login (none are written so): an agent, by what it said it was.
  if (run.source === "mcp") return <span data-who="">{run.agent ?? "An agent"}</span>
  return (
    <span data-who="">
      You
      {client}
    </span>
  )
}

const STATUS: Record<api.FinishedRun["status"], "default" | "destructive" | "outline"> = {
  ok: "default",
  error: "destructive",
  denied: "outline",
}

export function Executions() {
  const workspace = useWorkbench((s) => s.workspace)
  const runsChanged = useWorkbench((s) => s.runsChanged)
  const [agent, setAgent] = useState(EVERYONE)
  const [agents, setAgents] = useState<string[]>([])
  const [list, setList] = useState<api.Runs | null>(null)
  const [older, setOlder] = useState<api.FinishedRun[]>([])
  const [next, setNext] = useState<string | null>(null)

  const filter = agent === EVERYONE ? {} : { agent }
  const load = useCallback(
    () =>
      api.runs(workspace, agent === EVERYONE ? {} : { agent }).then(
        (page) => {
          setList(page)
          setOlder([])
          setNext(page.next)
        },
        (error) => report("Cowork could not read the executions", error),
      ),
    [workspace, agent],
  )
  // Read again whenever a run starts or ends here: the events say when, no clock needed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `runsChanged` is the trigger, not a value the effect reads
  useEffect(() => void load(), [load, runsChanged])
  useEffect(() => {
    api.agents(workspace).then(
      (info) => setAgents(info.agents.map((a) => a.name)),
      () => setAgents([]),
    )
  }, [workspace])

  const more = async () => {
    if (!next) return
    try {
      const page = await api.runs(workspace, { ...filter, before: next })
      setOlder((runs) => [...runs, ...page.runs])
      setNext(page.next)
    } catch (error) {
      report("Cowork could not read older executions", error)
    }
  }

  if (!list) return null
  const runs = [...list.runs, ...older]
  // Agent logins, and the clients runs came through (Claude Code, Codex) as they appear.
  const who = [
    ...new Set([
      ...agents,
      ...runs.flatMap((run) => [run.principal, run.agent].filter((name) => name !== null)),
    ]),
  ]
  return (
    <div data-testid="executions" className="grid gap-3">
      <div className="flex items-center justify-between gap-3">
        <h2 className="text-sm font-semibold">Executions</h2>
        <label className="flex items-center gap-2 text-xs text-muted-foreground">
          Who
          <NativeSelect
            size="sm"
            aria-label="Who"
            value={agent}
            onChange={(e) => setAgent(e.target.value)}
          >
            <NativeSelectOption value={EVERYONE}>Everyone</NativeSelectOption>
            {who.map((name) => (
              <NativeSelectOption key={name} value={name}>
                {name}
              </NativeSelectOption>
            ))}
          </NativeSelect>
        </label>
      </div>
      {list.running.length > 0 && (
        <section
          aria-label="Running now"
          className="rounded-md border border-sky-500/30 bg-sky-500/5 px-3 py-2"
        >
          <h3 className="text-xs font-medium text-muted-foreground">Running now</h3>
          <ul className="mt-1 grid gap-1 text-sm">
            {list.running.map((run) => (
              <li
                key={run.runId}
                data-running={run.routine}
                className="flex flex-wrap items-baseline gap-x-3"
              >
                <span className="font-mono">{run.routine}</span>
                <RunningSince run={run} when={when} />
                <span className="text-xs">
                  <Who run={run} />
                </span>
                {run.task && <span className="text-xs text-muted-foreground">task {run.task}</span>}
                <span className="text-xs text-muted-foreground">{run.source}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {runs.length === 0 ? (
        <p className="text-sm text-muted-foreground">
          No runs in the last 7 days{agent === EVERYONE ? "" : ` by ${agent}`}. Runs that changed
          nothing are left out, as
          <code className="mx-1 font-mono">cowork routine runs</code>leaves them out.
        </p>
      ) : (
        <table className="w-full text-sm">
          <thead className="text-left text-xs text-muted-foreground">
            <tr>
              <th className="py-1 font-normal">Started</th>
              <th className="py-1 font-normal">Routine</th>
              <th className="py-1 font-normal">Who</th>
              <th className="py-1 font-normal">Task</th>
              <th className="py-1 font-normal">Source</th>
              <th className="py-1 font-normal">Status</th>
              <th className="py-1 font-normal">Took</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.runId} data-run={run.runId} className="border-t align-top">
                <td className="py-1.5 pr-2 text-xs whitespace-nowrap">{when(run.ts)}</td>
                <td className="py-1.5 pr-2">
                  <span className="font-mono">{run.routine}</span>
                  {run.app && <span className="ml-2 text-xs text-muted-foreground">{run.app}</span>}
                  {run.error && (
                    <p className="text-xs text-destructive">
                      {run.error.name}: {run.error.message}
                    </p>
                  )}
                </td>
                <td className="py-1.5 pr-2 text-xs">
                  <Who run={run} />
                </td>
                <td className="py-1.5 pr-2 font-mono text-xs">{run.task ?? "—"}</td>
                <td className="py-1.5 pr-2 text-xs">{via(run.source, run.callerApp)}</td>
                <td className="py-1.5 pr-2">
                  <Badge variant={STATUS[run.status]}>{run.status}</Badge>
                </td>
                <td className="py-1.5 text-xs whitespace-nowrap">{took(run)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <Button
          variant="outline"
          size="sm"
          className="justify-self-start"
          onClick={() => void more()}
        >
          Show older runs
        </Button>
      )}
    </div>
  )
}
