/**
 * Manage Workspace: the apps and (under Components) the capabilities, each with its on/off switch,
 * its notification switch, its problems and its routines with their risk; then the folders that
 * are not apps and the workspace's own problems; Permissions is what agents may run (agent-access.tsx);
 * Observability › Executions, who ran what (executions.tsx); Components › Courses & Lessons, the
 * workspace's own courses as files (courses-view.tsx).
 */
import CircleAlertIcon from "lucide-react/icons/circle-alert"
import { useState } from "react"

import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert"
import { Badge } from "@/components/ui/badge"
import { NativeSelect, NativeSelectOption } from "@/components/ui/native-select"
import { ScrollArea } from "@/components/ui/scroll-area"
import { Switch } from "@/components/ui/switch"
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs"
import { cn } from "@/lib/utils"
import { Academy } from "./academy"
import { AccountPanel } from "./account-view"
import { AgentAccess } from "./agent-access"
import * as api from "./api"
import { AppIcon } from "./app-icon"
import { Codicon } from "./codicon"
import { WorkspaceCourses } from "./courses-view"
import { inShell } from "./desktop"
import { Executions } from "./executions"
import { report } from "./report"
import { reload } from "./session"
import { DEFAULT_IDLE, IDLE_CHOICES, idleText, setSiteHibernation } from "./site-hibernation"
import { getState, useWorkbench } from "./store"
import {
  CreateFromTemplate,
  EditedCount,
  StoreLine,
  TeamServersStore,
  useStoreApps,
} from "./store-view"
import { Workflows } from "./workflows"
import { TasksView } from "./tasks-view"

const RISK: Record<api.Risk, string> = {
  low: "border-emerald-500/30 bg-emerald-500/10 text-emerald-700 dark:text-emerald-400",
  medium: "border-amber-500/30 bg-amber-500/10 text-amber-700 dark:text-amber-400",
  high: "border-red-500/30 bg-red-500/10 text-red-700 dark:text-red-400",
}

export function ManageWorkspace() {
  const info = useWorkbench((s) => s.info)
  const account = useWorkbench((s) => s.account)
  const store = useStoreApps()
  if (!info) return null
  const apps = info.apps.filter((app) => app.kind === "app")
  const capabilities = info.apps.filter((app) => app.kind === "capability")
  const stored = new Map(store?.apps.map((entry) => [entry.dir, entry]))
  return (
    // The full height of the editor area, so its viewport is what scrolls. (Not "absolute inset-0":
    // Radix sets `position: relative` on the root inline, so the root took its content's height and
    // the editor panel scrolled instead, tab strip and all.)
    <ScrollArea data-testid="manage" className="h-full">
      <div className="mx-auto grid max-w-4xl grid-cols-1 gap-6 px-8 py-8">
        <header className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">Manage Workspace</h1>
          <p className="font-mono text-xs text-muted-foreground">{info.workspace.path}</p>
          {account && (
            <p className="text-xs text-muted-foreground" data-testid="manage-account">
              {account.user
                ? `Signed in to Cowork as ${account.user.email}${account.user.organization ? ` (${account.user.organization.name})` : ""}`
                : "Not signed in to Cowork"}
            </p>
          )}
        </header>
        {info.problems.length > 0 && (
          <Alert variant="destructive">
            <CircleAlertIcon />
            <AlertTitle>The workspace has problems</AlertTitle>
            <AlertDescription>
              <ProblemList problems={info.problems} />
            </AlertDescription>
          </Alert>
        )}
        <Tabs defaultValue="apps">
          {/* Ten tabs outgrow a narrow editor area: they wrap rather than hide the last ones. */}
          <TabsList className="h-auto flex-wrap justify-start [&>[role=tab]]:h-7 [&>[role=tab]]:flex-none">
            <TabsTrigger value="apps">
              Apps · {apps.length}
              <EditedCount count={store?.edited ?? 0} />
            </TabsTrigger>
            <TabsTrigger value="components">Components</TabsTrigger>
            <TabsTrigger value="team-servers">Team Servers</TabsTrigger>
            <TabsTrigger value="academy">Academy</TabsTrigger>
            <TabsTrigger value="workflows">Workflows</TabsTrigger>
            <TabsTrigger value="tasks">Tasks</TabsTrigger>
            <TabsTrigger value="permissions">Permissions</TabsTrigger>
            <TabsTrigger value="observability">Observability</TabsTrigger>
            <TabsTrigger value="account">Account</TabsTrigger>
            {info.broken.length > 0 && (
              <TabsTrigger value="broken">Not apps · {info.broken.length}</TabsTrigger>
            )}
          </TabsList>
          <TabsContent value="apps" className="mt-4 grid grid-cols-1 gap-3">
            <CreateFromTemplate />
            {apps.length === 0 && (
              <p className="text-sm text-muted-foreground">No apps in .cowork/apps/ yet.</p>
            )}
            {apps.map((app) => (
              <PackageCard key={app.dir} app={app} stored={stored.get(app.dir)} />
            ))}
          </TabsContent>
          <TabsContent value="team-servers" className="mt-4">
            <TeamServersStore />
          </TabsContent>
          <TabsContent value="academy" className="mt-4">
            <Academy />
          </TabsContent>
          <TabsContent value="components" className="mt-4 grid grid-cols-1 gap-3">
            <h2 className="text-sm font-semibold">Capabilities</h2>
            {capabilities.length === 0 && (
              <p className="text-sm text-muted-foreground">No capabilities in this workspace.</p>
            )}
            {capabilities.map((app) => (
              <PackageCard key={app.dir} app={app} stored={stored.get(app.dir)} />
            ))}
            <WorkspaceCourses />
          </TabsContent>
          <TabsContent value="workflows" className="mt-4">
            <Workflows />
          </TabsContent>
          <TabsContent value="tasks" className="mt-4">
            <TasksView />
          </TabsContent>
          <TabsContent value="permissions" className="mt-4">
            <AgentAccess risk={RISK} />
          </TabsContent>
          <TabsContent value="observability" className="mt-4">
            <Executions />
          </TabsContent>
          <TabsContent value="account" className="mt-4">
            {account && (
              <AccountPanel account={account} className="max-w-md rounded-lg border bg-card p-4" />
            )}
          </TabsContent>
          <TabsContent value="broken" className="mt-4 grid grid-cols-1 gap-3">
            {info.broken.map((folder) => (
              <div key={folder.dir} className="rounded-lg border bg-card p-4">
                <p className="flex items-center gap-2 font-mono text-sm">
                  <Codicon name="warning" className="text-amber-500" />
                  {folder.dir}
                </p>
                <ProblemList problems={folder.problems} className="mt-2" />
              </div>
            ))}
          </TabsContent>
        </Tabs>
      </div>
    </ScrollArea>
  )
}

/** Each problem as where (the file, and the key in it) over what is wrong. */
function ProblemList({ problems, className }: { problems: api.Problem[]; className?: string }) {
  return (
    <ul className={cn("grid gap-2 text-sm", className)}>
      {problems.map((problem, index) => (
        <li
          // biome-ignore lint/suspicious/noArrayIndexKey: problems have no identity of their own; the list is replaced whole
          key={index}
          data-problem
          className="grid gap-0.5"
        >
          <span className="font-mono text-xs break-all opacity-75">
            {problem.file}
            {problem.key && ` › ${problem.key}`}
          </span>
          <span className="break-words">{problem.message}</span>
        </li>
      ))}
    </ul>
  )
}

/** Sends a switch to the daemon, showing it flipped at once; the registry reload confirms it. */
function useSwitch(send: (workspace: string, on: boolean) => Promise<unknown>, initial: boolean) {
  const [pending, setPending] = useState<boolean | null>(null)
  const flip = async (on: boolean) => {
    setPending(on)
    try {
      await send(getState().workspace, on)
      await reload()
    } catch (error) {
      report("Cowork could not change the switch", error)
    } finally {
      setPending(null)
    }
  }
  return [pending ?? initial, flip] as const
}

/** Where a site app's unread count comes from, as its window last reported. */
function unreadSourceText(source: api.App["unreadSource"]) {
  switch (source) {
    case "badge":
      return "Unread count: the site's own badge"
    case "title":
      return "Unread count: the (N) in the site's title"
    case "notifications":
      return "Unread count: its notifications since you last looked"
    default:
      return "Unread count: reported once it runs in the desktop app"
  }
}

/** What each `capture` entry lets the app's panes ask for. */
const CAPTURE_TEXT: Record<NonNullable<api.App["capture"]>[number], string> = {
  screen: "the screen",
  "system-audio": "the sound the computer plays",
  mic: "the microphone",
  screenshot: "screenshots",
}

function PackageCard({ app, stored }: { app: api.App; stored?: api.InstalledApp }) {
  const muted = useWorkbench((s) => s.info?.muted.includes(app.dir) ?? false)
  const [enabled, setEnabled] = useSwitch(
    (workspace, on) => api.enableApp(workspace, app.dir, on),
    app.enabled,
  )
  const [notify, setNotify] = useSwitch(
    (workspace, on) => api.muteApp(workspace, app.dir, !on),
    !muted,
  )
  return (
    <article
      data-app-card={app.name}
      className={cn("rounded-lg border bg-card p-4", !enabled && "opacity-70")}
    >
      <div className="flex items-start gap-3">
        <AppIcon app={app} />
        <div className="grid min-w-0 flex-1 gap-1">
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="font-medium">{app.title}</h3>
            <span className="font-mono text-xs text-muted-foreground">{app.name}</span>
            {/* A routines-only app shows nowhere, so it has no display to name. */}
            {app.kind === "app" && (app.site || app.entry) && (
              <Badge variant="secondary">{app.site ? "site" : app.display}</Badge>
            )}
            {!app.ownsName && <Badge variant="destructive">name taken</Badge>}
            {app.unrestricted && (
              <Badge variant="destructive" data-unrestricted>
                unrestricted (declares neither kind nor uses)
              </Badge>
            )}
          </div>
          <p className="font-mono text-xs text-muted-foreground">{app.dir}</p>
          {app.site && (
            <p className="text-xs text-muted-foreground" data-unread-source>
              {unreadSourceText(app.unreadSource)}
            </p>
          )}
          {app.site && <Hibernation app={app} />}
          {app.capture && (
            <p className="text-xs text-muted-foreground" data-capture>
              May capture, after asking you each time:{" "}
              {app.capture.map((what) => CAPTURE_TEXT[what]).join(", ")}
            </p>
          )}
          {stored && <StoreLine app={stored} />}
        </div>
        <div className="grid gap-2 text-xs">
          <label className="flex items-center justify-end gap-2">
            {enabled ? "On" : "Off"}
            <Switch
              aria-label={`${app.title} on`}
              checked={enabled}
              onCheckedChange={(on) => void setEnabled(on)}
            />
          </label>
          <label className="flex items-center justify-end gap-2 text-muted-foreground">
            Notifications
            <Switch
              aria-label={`${app.title} notifications`}
              checked={notify}
              onCheckedChange={(on) => void setNotify(on)}
            />
          </label>
        </div>
      </div>
      {app.problems.length > 0 && (
        <div className="mt-3 rounded-md border border-amber-500/30 bg-amber-500/10 px-3 py-2 text-amber-800 dark:text-amber-300">
          <ProblemList problems={app.problems} />
        </div>
      )}
      {app.routines.length > 0 && <RoutineTable routines={app.routines} />}
    </article>
  )
}

/**
 * A site app's hibernation: off by default; on, its window once out of sight (hidden or minimized)
 * for the idle time is released with its memory, and it wakes at the same page when opened.
 */
function Hibernation({ app }: { app: api.App }) {
  const state = useWorkbench((s) => s.siteHibernation[app.name])
  const [pending, setPending] = useState(false)
  if (!inShell()) {
    return (
      <p className="text-xs text-muted-foreground" data-hibernation>
        Hibernation: set in the desktop app, where site apps run
      </p>
    )
  }
  const after = state?.hibernateAfter ?? null
  const change = async (next: number | null) => {
    setPending(true)
    await setSiteHibernation(app.name, next)
    setPending(false)
  }
  const choices =
    after === null || IDLE_CHOICES.includes(after)
      ? IDLE_CHOICES
      : [...IDLE_CHOICES, after].sort((a, b) => a - b)
  return (
    <div
      className="mt-1 grid gap-1 text-xs"
      data-hibernation={after === null ? "off" : String(after)}
    >
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-2">
          <Switch
            aria-label={`${app.title} hibernates`}
            checked={after !== null}
            disabled={pending}
            onCheckedChange={(on) => void change(on ? DEFAULT_IDLE : null)}
          />
          Hibernate when out of sight for
        </label>
        <NativeSelect
          size="sm"
          aria-label={`${app.title} hibernates after`}
          value={String(after ?? DEFAULT_IDLE)}
          disabled={pending || after === null}
          onChange={(event) => void change(Number(event.target.value))}
        >
          {choices.map((seconds) => (
            <NativeSelectOption key={seconds} value={seconds}>
              {idleText(seconds)}
            </NativeSelectOption>
          ))}
        </NativeSelect>
        {state?.asleep && (
          <Badge variant="outline" data-asleep>
            hibernating
          </Badge>
        )}
      </div>
      <p className="text-muted-foreground">
        {after === null
          ? "Off: it runs while its window is open."
          : "Closing its window hides it. Hidden or minimized that long, it gives its memory back and wakes at the same page when you open it. While it hibernates it sends no notifications, and its unread count keeps its last value."}
      </p>
    </div>
  )
}

function RoutineTable({ routines }: { routines: api.Routine[] }) {
  return (
    <table className="mt-3 w-full text-left text-sm">
      <thead className="text-xs text-muted-foreground">
        <tr className="border-b">
          <th className="py-1.5 font-medium">Routine</th>
          <th className="py-1.5 font-medium">Risk</th>
          <th className="py-1.5 font-medium">What it does</th>
        </tr>
      </thead>
      <tbody>
        {routines.map((routine) => (
          <tr
            key={routine.id}
            className={cn("border-b last:border-b-0", routine.disabled && "text-muted-foreground")}
          >
            <td className="py-1.5 pr-3 align-top font-mono text-xs whitespace-nowrap">
              {routine.id}
              {routine.disabled && <span className="ml-2 font-sans">(off)</span>}
            </td>
            <td className="py-1.5 pr-3 align-top">
              <Badge variant="outline" className={RISK[routine.risk]}>
                {routine.risk}
              </Badge>
            </td>
            <td className="py-1.5 align-top text-xs">
              <span className="flex flex-wrap items-center gap-1.5">
                {routine.readOnly && <Flag icon="eye" text="read-only" />}
                {routine.destructive && <Flag icon="trash" text="destructive" />}
                {routine.reachesOthers && <Flag icon="mention" text="reaches others" />}
                {routine.description && (
                  <span className="text-muted-foreground">{routine.description}</span>
                )}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function Flag({ icon, text }: { icon: string; text: string }) {
  return (
    <span className="inline-flex items-center gap-1 rounded border px-1.5 py-px text-[11px]">
      <Codicon name={icon} size={12} />
      {text}
    </span>
  )
}
