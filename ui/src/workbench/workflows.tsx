/**
 * Manage Workspace › Workflows: each routine with a trigger here (a schedule, a webhook, an app's
 * notifications), its state as `cowork routine list` prints it, its next fire and last run, and the
 * Active switch — the owner's consent that arms it as declared (`cowork routine active <id> on|off`).
 * A routine whose triggers changed in `workspace.json` since then says what changed and fires nothing
 * until Confirm (the same switch, on again, with the triggers shown: changed again, nothing is armed);
 * then the Monitor: the runs running now (a triggered run waiting for a slot shows queued, and since
 * when) and the last runs triggers started (with how long each waited for a slot), each with the same
 * switch; it follows the daemon's run events.
 * The page holds the owner token; no app pane can reach this switch.
 */
import { useCallback, useEffect, useState } from "react"

import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Switch } from "@/components/ui/switch"
import * as api from "./api"
import { RunningSince, took } from "./queued"
import { report } from "./report"
import { useWorkbench } from "./store"

/** How often the list is read again while it shows (next fires move); runs starting and ending
 * read it again at once. */
const REFRESH_MS = 15_000

function when(iso: string | null) {
  return iso ? new Date(iso).toLocaleString() : "—"
}

export function Workflows() {
  const workspace = useWorkbench((s) => s.workspace)
  const runsChanged = useWorkbench((s) => s.runsChanged)
  const [list, setList] = useState<Awaited<ReturnType<typeof api.workflows>> | null>(null)
  const [pending, setPending] = useState<string | null>(null)
  const load = useCallback(
    () =>
      api
        .workflows(workspace)
        .then(setList, (error) => report("Cowork could not read the workflows", error)),
    [workspace],
  )
  useEffect(() => {
    const timer = setInterval(() => void load(), REFRESH_MS)
    return () => clearInterval(timer)
  }, [load])
  // biome-ignore lint/correctness/useExhaustiveDependencies: `runsChanged` is the trigger, not a value the effect reads
  useEffect(() => void load(), [load, runsChanged])
  const flip = async (id: string, on: boolean, expected?: api.Digest) => {
    setPending(id)
    try {
      await api.setActive(workspace, id, on, expected)
      await load()
    } catch (error) {
      report("Cowork could not change the Active switch", error)
    } finally {
      setPending(null)
    }
  }
  if (!list) return null
  if (list.workflows.length === 0) {
    return (
      <p className="text-sm text-muted-foreground">
        No routine has a trigger.{" "}
        <code className="font-mono">cowork deploy add &lt;id&gt; --schedule "0 6 * * *"</code> (or
        --webhook, --notifications &lt;app&gt;) gives one.
      </p>
    )
  }
  const flowOf = new Map(list.workflows.map((flow) => [flow.id, flow]))
  // On arms the triggers this list shows, never ones written since it was read.
  const activeSwitch = (id: string) => {
    const flow = flowOf.get(id)
    return flow ? (
      <Switch
        aria-label={`Active: ${id}`}
        checked={flow.active}
        disabled={pending === id}
        onCheckedChange={(on) => void flip(id, on, on ? flow.declared : undefined)}
      />
    ) : null
  }
  return (
    <div data-testid="workflows" className="grid gap-2">
      <p className="text-xs text-muted-foreground">
        {list.armed
          ? "This workspace's triggers are on: each routine fires once its own switch is on."
          : "This workspace's triggers are off: switching a routine on arms it and turns them on."}
      </p>
      <table className="w-full text-sm">
        <thead className="text-left text-xs text-muted-foreground">
          <tr>
            <th className="py-1 font-normal">Routine</th>
            <th className="py-1 font-normal">State</th>
            <th className="py-1 font-normal">Next fire</th>
            <th className="py-1 font-normal">Last run</th>
            <th className="py-1 font-normal">Active</th>
          </tr>
        </thead>
        <tbody>
          {list.workflows.map((flow) => (
            <tr key={flow.id} data-workflow={flow.id} className="border-t">
              <td className="py-2">
                <span className="font-mono">{flow.id}</span>
                <span className="ml-2 text-xs text-muted-foreground">{flow.app}</span>
              </td>
              <td className="py-2">
                <Badge variant={flow.active ? "default" : "outline"}>{flow.state}</Badge>
                {flow.changed && (
                  <div
                    data-changed
                    className="mt-1 grid justify-items-start gap-1 text-xs text-muted-foreground"
                  >
                    <span>{flow.changed}</span>
                    <Button
                      size="sm"
                      variant="outline"
                      aria-label={`Confirm: ${flow.id}`}
                      disabled={pending === flow.id}
                      onClick={() => void flip(flow.id, true, flow.declared)}
                    >
                      Confirm
                    </Button>
                  </div>
                )}
              </td>
              <td className="py-2 text-xs">{when(flow.next)}</td>
              <td className="py-2 text-xs">
                {flow.lastRun
                  ? `${when(flow.lastRun.ts)} · ${flow.lastRun.status} · ${flow.lastRun.source}`
                  : "—"}
              </td>
              <td className="py-2">{activeSwitch(flow.id)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2 className="mt-4 text-sm font-semibold">Monitor</h2>
      <p data-testid="running" className="text-xs text-muted-foreground">
        {list.running === 1
          ? "1 routine is running now"
          : `${list.running} routines are running now`}
        {list.queued > 0 &&
          (list.queued === 1
            ? ", 1 triggered run waits for a slot"
            : `, ${list.queued} triggered runs wait for a slot`)}{" "}
        (every workspace)
        {list.runningNow.length > 0 ? ", here:" : "."}
      </p>
      {list.runningNow.length > 0 && (
        <ul aria-label="Running now" className="grid gap-1 text-sm">
          {list.runningNow.map((run) => (
            <li
              key={run.runId}
              data-running={run.routine}
              className="flex flex-wrap items-center gap-x-3"
            >
              <span className="font-mono">{run.routine}</span>
              <RunningSince run={run} when={when} />
              <span className="text-xs">{run.source}</span>
              {run.principal && <span className="text-xs">{run.principal}</span>}
              {run.agent && <span className="text-xs text-muted-foreground">via {run.agent}</span>}
              {activeSwitch(run.routine)}
            </li>
          ))}
        </ul>
      )}
      {list.recent.length === 0 ? (
        <p className="text-sm text-muted-foreground">No run started by a trigger yet.</p>
      ) : (
        <table data-testid="monitor" className="w-full text-sm">
          <thead className="text-left text-xs text-muted-foreground">
            <tr>
              <th className="py-1 font-normal">Started</th>
              <th className="py-1 font-normal">Routine</th>
              <th className="py-1 font-normal">Trigger</th>
              <th className="py-1 font-normal">Status</th>
              <th className="py-1 font-normal">Took</th>
              <th className="py-1 font-normal">Active</th>
            </tr>
          </thead>
          <tbody>
            {list.recent.map((run) => (
              <tr key={run.runId} className="border-t">
                <td className="py-1.5 text-xs">{when(run.ts)}</td>
                <td className="py-1.5 font-mono">{run.routine}</td>
                <td className="py-1.5 text-xs">{run.trigger}</td>
                <td className="py-1.5 text-xs">{run.status}</td>
                <td className="py-1.5 text-xs">{took(run)}</td>
                <td className="py-1.5">{activeSwitch(run.routine)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
