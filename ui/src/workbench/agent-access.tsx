/**
 * Manage Workspace › Permissions: Agent access (add an agent — its token shown once with the lines
 * that connect Claude Code and Codex —, per agent whether its token opens this workspace, with the
 * switch that lets it in or out, and each capability routine's Default / Allow / Deny) and
 * Capability defaults (the workspace default, one switch per routine, risk beside it).
 * The daemon applies the same rule as `cowork agent grants`: the agent's own setting, else the
 * default, else reads only.
 */
import { useCallback, useEffect, useState } from "react"

import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Input } from "@/components/ui/input"
import { NativeSelect, NativeSelectOption } from "@/components/ui/native-select"
import { Switch } from "@/components/ui/switch"
import { cn } from "@/lib/utils"
import * as api from "./api"
import { report } from "./report"
import { getState } from "./store"

export function AgentAccess({ risk }: { risk: Record<api.Risk, string> }) {
  const [info, setInfo] = useState<api.AgentsInfo | null>(null)
  const [created, setCreated] = useState<api.NewAgent | null>(null)
  const [name, setName] = useState("")
  const load = useCallback(async () => {
    try {
      setInfo(await api.agents(getState().workspace))
    } catch (error) {
      report("Cowork could not read the agents' access", error)
    }
  }, [])
  useEffect(() => void load(), [load])

  const grant = async (target: string, answer: "allow" | "deny" | "default", agent?: string) => {
    try {
      await api.grantAgent(getState().workspace, target, answer, agent)
      await load()
    } catch (error) {
      report("Cowork could not change the grant", error)
    }
  }
  const letIn = async (agent: string, action: "add" | "remove") => {
    try {
      await api.agentWorkspace(getState().workspace, agent, action)
      await load()
    } catch (error) {
      report("Cowork could not change where the agent works", error)
    }
  }
  const add = async () => {
    try {
      setCreated(await api.createAgent(getState().workspace, name.trim()))
      setName("")
      await load()
    } catch (error) {
      report("Cowork could not add the agent", error)
    }
  }
  if (!info) return null
  return (
    <div className="grid gap-6" data-agent-access>
      <section className="grid gap-3">
        <h2 className="text-sm font-semibold">Agent access</h2>
        <form
          className="flex gap-2"
          onSubmit={(event) => {
            event.preventDefault()
            void add()
          }}
        >
          <Input
            aria-label="Agent name"
            placeholder="claude"
            value={name}
            onChange={(e) => setName(e.target.value)}
            className="max-w-60"
          />
          <Button type="submit" disabled={!name.trim()}>
            Add agent
          </Button>
        </form>
        {created && (
          <div data-new-agent className="grid gap-2 rounded-lg border bg-card p-4 text-sm">
            <p>
              The token of <b>{created.name}</b>, shown this once (Cowork keeps only a hash):
            </p>
            <pre className="overflow-x-auto rounded bg-muted p-2 font-mono text-xs">
              {created.token}
            </pre>
            <p>Claude Code — run in the workspace folder:</p>
            <pre className="overflow-x-auto rounded bg-muted p-2 font-mono text-xs">
              {created.claude}
            </pre>
            <p>Codex — add to ~/.codex/config.toml, with COWORK_AGENT_TOKEN set to the token:</p>
            <pre className="overflow-x-auto rounded bg-muted p-2 font-mono text-xs">
              {created.codex}
            </pre>
          </div>
        )}
        {info.agents.length === 0 && (
          <p className="text-sm text-muted-foreground">No agent logins yet.</p>
        )}
        {info.agents.map((agent) => (
          <article key={agent.id} data-agent={agent.name} className="rounded-lg border bg-card p-4">
            <h3 className="font-medium">
              {agent.name}
              <span className="ml-2 font-mono text-xs text-muted-foreground">
                {agent.id} · last seen {agent.lastSeen ?? "never"}
              </span>
            </h3>
            <p
              data-agent-here={agent.here}
              className="mt-2 flex items-center gap-2 text-sm text-muted-foreground"
            >
              {agent.here
                ? "Its token opens this workspace."
                : "Not let into this workspace: its token opens nothing here."}
              <Button
                size="sm"
                variant="outline"
                onClick={() => void letIn(agent.name, agent.here ? "remove" : "add")}
              >
                {agent.here ? `Remove ${agent.name} from this workspace` : `Let ${agent.name} in`}
              </Button>
            </p>
            <table className="mt-3 w-full text-left text-sm">
              <tbody>
                {info.routines.map((routine) => {
                  const own = routine.agents[agent.name]
                  const target = `${routine.capability}/${routine.routine}`
                  return (
                    <tr key={target} className="border-b last:border-b-0">
                      <td className="py-1.5 pr-3 font-mono text-xs">{target}</td>
                      <td className="py-1.5 pr-3">
                        <Badge variant="outline" className={risk[routine.risk]}>
                          {routine.risk}
                        </Badge>
                        <Unavailable routine={routine} />
                      </td>
                      <td className="py-1.5 text-right">
                        <NativeSelect
                          aria-label={`${agent.name} ${target}`}
                          value={own.set ? own.answer : "default"}
                          onChange={(e) =>
                            void grant(
                              target,
                              e.target.value as "allow" | "deny" | "default",
                              agent.name,
                            )
                          }
                        >
                          <NativeSelectOption value="default">
                            Default ({routine.default.answer === "allow" ? "on" : "off"})
                          </NativeSelectOption>
                          <NativeSelectOption value="allow">Allow</NativeSelectOption>
                          <NativeSelectOption value="deny">Deny</NativeSelectOption>
                        </NativeSelect>
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </article>
        ))}
      </section>
      <section className="grid gap-3">
        <h2 className="text-sm font-semibold">Capability defaults</h2>
        {info.routines.length === 0 && (
          <p className="text-sm text-muted-foreground">No capability offers routines to agents.</p>
        )}
        <table className="w-full text-left text-sm">
          <tbody>
            {info.routines.map((routine) => {
              const target = `${routine.capability}/${routine.routine}`
              const on = routine.default.answer === "allow"
              return (
                <tr
                  key={target}
                  data-default={target}
                  className={cn("border-b last:border-b-0", !on && "text-muted-foreground")}
                >
                  <td className="py-1.5 pr-3 font-mono text-xs">{target}</td>
                  <td className="py-1.5 pr-3">
                    <Badge variant="outline" className={risk[routine.risk]}>
                      {routine.risk}
                    </Badge>
                    <Unavailable routine={routine} />
                  </td>
                  <td className="py-1.5 pr-3 text-xs">{routine.description}</td>
                  <td className="py-1.5 text-right">
                    <Switch
                      aria-label={`${target} by default`}
                      checked={on}
                      onCheckedChange={(allow) => void grant(target, allow ? "allow" : "deny")}
                    />
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </section>
    </div>
  )
}

/**
 * A routine no agent can run now whatever is granted: its capability's connection is not
 * connected (page 01), as `list_capabilities` tells the agent. The grant stays as set.
 */
function Unavailable({ routine }: { routine: api.RoutineGrants }) {
  if (!routine.unavailable) return null
  return (
    <Badge
      variant="outline"
      data-unavailable={`${routine.capability}/${routine.routine}`}
      className="ml-1 text-muted-foreground"
      title="Connect it in Components › Credentials or with `cowork credential connect`"
    >
      unavailable: {routine.unavailable}
    </Badge>
  )
}
