/**
 * A stand-in for the Cowork daemon's workbench API, with canned data: it serves ui/dist (the
 * workbench at `/`, the frame on each app's own `<app>-1a2b.app.localhost` origin) and answers
 * every route the workbench calls, recording what it was asked so a test can check it.
 */
import { existsSync, readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { extname, join, normalize } from "node:path"

import type { Widget, WireError } from "../../src/frame/protocol"
import type { DaemonEvent } from "../../src/workbench/api"
import type {
  AccountInfo,
  AgentsInfo,
  App,
  Changed,
  ErrorBody,
  FileEntry,
  FileText,
  OpenedPane,
  Outcome,
  Route,
  RunningRun,
  Runs,
  RuntimeInfo,
  StatusBarAnswer,
  WorkbenchInfo,
  Workflows,
} from "../../src/workbench/wire/daemon"
import type {
  CourseProgress,
  CourseView,
  InstalledApps,
  ScaffoldAnswer,
  StoreCards,
  StoreItem,
  Subscriptions,
  Templates,
  WorkspaceCourses,
} from "../../src/workbench/wire/store"
import type { ChatEvent, ConversationSummary } from "../../src/workbench/wire/chat"

export const OWNER_TOKEN = "owner-secret"

/** A webhook call waiting for a concurrency slot (every one busy), as `/api/runs` lists it. */
const QUEUED_RUN: RunningRun = {
  runId: "r-queued",
  routine: "sales-hook",
  app: "sales",
  started: "2026-12-02T09:00:00.000Z",
  source: "webhook",
  principal: null,
  agent: null,
  task: null,
  queued: true,
  queuedMs: null,
}

/** The webhook call before it, which ran once a slot freed. */
const WAITED_RUN = {
  runId: "r-waited",
  ts: "2026-12-02T08:59:58.000Z",
  routine: "sales-hook",
  app: "sales",
  status: "ok",
  durationMs: 812,
  queuedMs: 3200,
  source: "webhook",
  callerApp: null,
  principal: null,
  agent: null,
  task: null,
  error: null,
} satisfies Runs["runs"][number]

/**
 * An agent's write through the door from a client that named itself nothing (QA16 #1): the audit
 * line has its login (`principal`) and no client label — Executions must not show it as you.
 */
const AGENT_RUN = {
  ...WAITED_RUN,
  runId: "r-agent",
  routine: "sales-add",
  source: "mcp",
  queuedMs: null,
  principal: "hostile",
  agent: null,
  task: "t-1",
} satisfies Runs["runs"][number]

/** The owner's run from a terminal Claude Code drove (`COWORK_AGENT`): you, via claude-code. */
const TERMINAL_RUN = {
  ...AGENT_RUN,
  runId: "r-terminal",
  source: "cli",
  principal: null,
  agent: "claude-code",
  task: null,
} satisfies Runs["runs"][number]
export const WORKSPACE = "/home/ada/acme"

/**
 * The store's view of the workspace: Gmail installed from acme-apps at 1.0.0 and edited since,
 * with 1.0.1 out; Calendar installed and pinned; the others local.
 */
function cannedStoreApps(): InstalledApps {
  const local = (name: string) => ({
    dir: `.cowork/apps/${name}`,
    name,
    source: "local",
    teamServer: null,
    version: "1.0.0",
    pinned: false,
    latest: null,
    updateAvailable: false,
    edited: [],
    verified: false,
  })
  return {
    apps: [
      {
        ...local("gmail"),
        source: "acme-apps@1.0.0",
        teamServer: "acme-apps",
        latest: "1.0.1",
        updateAvailable: true,
        edited: ["mail-list.jsx"],
        verified: true,
      },
      {
        ...local("calendar"),
        source: "acme-apps@2.1.0",
        teamServer: "acme-apps",
        version: "2.1.0",
        pinned: true,
        latest: "2.2.0",
        updateAvailable: true,
        verified: true,
      },
      local("notes"),
      local("sales"),
    ],
    edited: 1,
    unreachable: [],
  }
}

const storeItem = (name: string, change: Partial<StoreItem>): StoreItem => ({
  name,
  kind: "app",
  version: "1.0.0",
  title: name,
  description: null,
  tags: [],
  icon: null,
  banner: null,
  screenshots: [],
  requires: [],
  versions: 1,
  createdAt: 0,
  updatedAt: 0,
  ...change,
})

/**
 * acme-apps' store: Gmail (installed here), Calendar (pinned here), the Sales onboarding course (not
 * subscribed), Invoices (not yet installed).
 */
function cannedCards(store: InstalledApps): StoreCards {
  const copy = (name: string) => {
    const app = store.apps.find((each) => each.name === name && each.teamServer === "acme-apps")
    return app ? { dir: app.dir, version: app.version, pinned: app.pinned } : null
  }
  return {
    teamServer: "acme-apps",
    cards: [
      {
        ...storeItem("gmail", {
          title: "Gmail",
          description: "Your inbox in the side bar: read, label and answer mail.",
          tags: ["mail", "google"],
          icon: "mail",
          version: "1.0.1",
          versions: 2,
          screenshots: ["a".repeat(64), "b".repeat(64)],
        }),
        installed: copy("gmail"),
      },
      {
        ...storeItem("calendar", {
          title: "Calendar",
          description: "This week's meetings.",
          tags: ["google"],
          icon: "calendar",
          version: "2.2.0",
          versions: 4,
        }),
        installed: copy("calendar"),
      },
      {
        ...storeItem("sales-onboarding", {
          kind: "course",
          title: "Sales onboarding",
          description: "Everything a new rep needs, in five lessons.",
          tags: ["sales"],
          icon: "mortar-board",
        }),
        installed: null,
      },
      {
        ...storeItem("invoices", {
          title: "Invoices",
          description: "Approve and send invoices.",
          tags: ["finance"],
          icon: "credit-card",
        }),
        installed: copy("invoices"),
      },
    ],
  }
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".ttf": "font/ttf",
  ".svg": "image/svg+xml",
}

const app = (name: string, change: Partial<App>): App => ({
  dir: `.cowork/apps/${name}`,
  name,
  title: name,
  icon: "",
  display: "sidebar",
  kind: "app",
  enabled: true,
  ownsName: true,
  unrestricted: false,
  problems: [],
  routines: [],
  site: false,
  // The served answer names each app's frame page (the port is known only then).
  frameUrl: "",
  ...change,
})

function cannedInfo(): WorkbenchInfo {
  return {
    workspace: { path: WORKSPACE, name: "acme" },
    apps: [
      app("assistant", {
        title: "Assistant",
        icon: "sparkle",
        display: "right",
        entry: "assistant.jsx",
      }),
      app("calendar", {
        title: "Calendar",
        icon: "calendar",
        color: "#1A73E8",
        entry: "notes.jsx",
      }),
      app("files-plus", {
        title: "Explorer Plus",
        icon: "files",
        display: "tab",
        entry: "sales.jsx",
      }),
      app("gmail", {
        title: "Gmail",
        icon: "mail",
        color: "#EA4335",
        entry: "notes.jsx",
        open: { routine: "gmail-open-inbox", args: { folder: "INBOX" } },
      }),
      app("invoices", {
        title: "Invoices",
        kind: "capability",
        icon: "credit-card",
        routines: [
          {
            id: "invoices-list",
            risk: "low",
            readOnly: true,
            destructive: false,
            reachesOthers: false,
            description: "Lists open invoices",
            disabled: false,
          },
          {
            id: "invoices-approve",
            risk: "high",
            readOnly: false,
            destructive: false,
            reachesOthers: true,
            description: "Approves an invoice and emails the supplier",
            disabled: false,
          },
        ],
      }),
      app("notes", {
        title: "Notes",
        icon: "notebook",
        color: "#7C5CFF",
        entry: "notes.jsx",
        statusBar: { routine: "notes-status", interval: 60 },
        routines: [
          {
            id: "notes-list",
            risk: "low",
            readOnly: true,
            destructive: false,
            reachesOthers: false,
            description: "Lists the notes",
            disabled: false,
          },
          {
            id: "notes-status",
            risk: "low",
            readOnly: true,
            destructive: false,
            reachesOthers: false,
            disabled: false,
          },
          {
            id: "notes-remove",
            risk: "medium",
            readOnly: false,
            destructive: true,
            reachesOthers: false,
            description: "Deletes a note",
            disabled: false,
          },
        ],
      }),
      app("paper", { title: "Paper", icon: "file", display: "tab", entry: "paper.jsx" }),
      app("quick-note", {
        title: "Quick Note",
        icon: "edit",
        display: "modal",
        entry: "quick-note.jsx",
      }),
      app("sales", {
        title: "Sales",
        icon: "graph",
        color: "#0F9D58",
        display: "tab",
        entry: "sales.jsx",
        routines: [
          {
            id: "sales-load",
            risk: "low",
            readOnly: true,
            destructive: false,
            reachesOthers: false,
            description: "Loads the quarter",
            disabled: false,
          },
        ],
        problems: [
          {
            file: ".cowork/apps/sales/cowork.json",
            key: "open",
            message: '"open" is for sidebar apps only; dropped',
          },
          {
            file: ".cowork/apps/sales/sales.jsx:2",
            key: null,
            message: '"./helper" is not in the cowork webapp allowlist',
          },
        ],
      }),
      app("whatsapp", {
        title: "WhatsApp",
        icon: "icon.svg",
        iconUrl: "/test-icons/whatsapp.svg",
        color: "#25D366",
        display: "tab",
        site: true,
        unreadSource: "title",
      }),
    ],
    broken: [
      {
        dir: ".cowork/apps/old-stuff",
        problems: [
          {
            file: ".cowork/apps/old-stuff/cowork.json",
            key: "name",
            message: "required; this folder is not an app",
          },
        ],
      },
    ],
    problems: [],
    rail: {
      folders: [
        {
          id: "google",
          title: "Google",
          color: "#0090ff",
          members: ["workbench.view.cowork.app.gmail", "workbench.view.cowork.app.calendar"],
        },
      ],
    },
    startup: { home: "notes" },
    muted: [],
    badges: { apps: { gmail: 3 }, total: 3 },
    notifications: [],
    routeConflicts: [
      { glob: "**/*.csv", claimants: ["sales", "notes"], chosen: "sales", remembered: false },
    ],
  }
}

/** The canned apps, to configure a changed copy of. */
export const cannedApps = () => cannedInfo().apps

const FILES: Record<string, FileEntry[]> = {
  "": [
    { name: ".cowork", path: ".cowork", dir: true },
    { name: "Notes", path: "Notes", dir: true },
    { name: "Projects", path: "Projects", dir: true },
    { name: ".gitignore", path: ".gitignore", dir: false },
    { name: "logo.png", path: "logo.png", dir: false },
    { name: "pipeline.csv", path: "pipeline.csv", dir: false },
    { name: "README.md", path: "README.md", dir: false },
  ],
  ".cowork": [{ name: "apps", path: ".cowork/apps", dir: true }],
  ".cowork/apps": ["notes", "sales", "quick-note"].map((name) => ({
    name,
    path: `.cowork/apps/${name}`,
    dir: true,
  })),
  ".cowork/apps/sales": [
    { name: "cowork.json", path: ".cowork/apps/sales/cowork.json", dir: false },
    { name: "sales.jsx", path: ".cowork/apps/sales/sales.jsx", dir: false },
  ],
  Notes: [
    { name: "groceries.md", path: "Notes/groceries.md", dir: false },
    { name: "ideas.md", path: "Notes/ideas.md", dir: false },
  ],
  Projects: [{ name: "Alpha", path: "Projects/Alpha", dir: true }],
}

/** What `/api/file` reads; a path not here is refused as the daemon refuses a binary file. */
const TEXTS: Record<string, string> = {
  ".gitignore": "node_modules/\ndist/\n",
  ".cowork/apps/sales/sales.jsx": "export default function Sales() {\n  return <KPIs />\n}\n",
}

/** An app's own picture: transparent corners, so its `color` shows behind them. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="11" fill="#fff"/><path d="M11 21l1-3.2A6 6 0 1 1 14.4 20z" fill="#25D366"/></svg>`

/** Which widget each app file is (test/workbench/widgets/<name>.jsx). */
const WIDGETS: Record<string, string> = {
  "notes.jsx": "notes",
  "sales.jsx": "sales",
  "quick-note.jsx": "quick-note",
  "assistant.jsx": "assistant",
  "note-page.jsx": "note-page",
  "paper.jsx": "paper",
  "swatch.jsx": "swatch",
}

export interface SdkCall {
  method: string
  app: string
  token: string
  params: Record<string, unknown>
}

/** The workspace's own courses: one ready to publish, one with a missing lesson; a loose lesson. */
const WORKSPACE_COURSES: WorkspaceCourses = {
  courses: [
    {
      name: "onboarding",
      path: ".cowork/courses/onboarding/course.md",
      title: "Sales Onboarding",
      level: "Beginner",
      lessons: [
        {
          id: "welcome",
          path: ".cowork/lessons/welcome/lesson.md",
          title: "Welcome",
          minutes: 5,
          video: "https://youtu.be/abc",
        },
        {
          id: "first-call",
          path: ".cowork/lessons/first-call/lesson.md",
          title: "Your first call",
          minutes: null,
          video: null,
        },
      ],
      problems: [],
    },
    {
      name: "pricing",
      path: ".cowork/courses/pricing/course.md",
      title: "Pricing",
      level: null,
      lessons: [],
      problems: [
        {
          file: ".cowork/lessons/discounts/lesson.md",
          message: 'the lesson "discounts" on the `lessons:` line has no lesson.md',
        },
      ],
    },
  ],
  lessons: [
    {
      id: "draft",
      path: ".cowork/lessons/draft/lesson.md",
      title: "A draft",
      minutes: null,
      video: null,
    },
  ],
}

const COURSE_TITLES: Record<string, string> = {
  "getting-started": "Getting started with Cowork",
  "sales-onboarding": "Sales onboarding",
}

export async function startFakeDaemon(distDir: string, widgets: Record<string, string>) {
  let info = cannedInfo()
  let storeApps = cannedStoreApps()
  const scaffolded = new Set<string>()
  const lessonsDone = new Set<string>(["welcome"])
  const subscribed = new Set<string>(["getting-started"])
  const sdkCalls: SdkCall[] = []
  const posts: { path: string; body: unknown }[] = []
  const subscriptions = (): Subscriptions => ({
    subscriptions: [...subscribed].map((course) => ({
      teamServer: "acme-apps",
      course,
      subscribedAt: 0,
      version: "1.0.0",
      title: COURSE_TITLES[course] ?? course,
      lessonsDone: course === "getting-started" ? lessonsDone.size : 0,
    })),
  })
  const streams = new Set<ServerResponse>()
  /** Open panes by token: their app and the id their `appMessage` events name. */
  const paneTokens = new Map<string, { app: string; paneId: string }>()
  const states = new Map<string, unknown>()
  let panes = 0
  let statusBarFailure: string | null = null
  let clickFailure: string | null = null
  let busy = { runs: 0, id: "" }
  let widgetFiles = { ...WIDGETS }
  let files = structuredClone(FILES)
  const statusBarDelays = new Map<string, number>()
  /** What `/api/runtime` answers; unset, it answers 404 as an older daemon would. */
  let runtime: RuntimeInfo | undefined
  /** Who is signed in to Cowork (`/api/account`): signed out, on a remembered hub. */
  const signedOut = (): AccountInfo => ({
    hub: "https://hub.acme.test",
    user: null,
    teamServers: [],
    polledAt: null,
    signingIn: false,
  })
  let account = signedOut()
  /** Whether the hub answers (down: a sign-in is refused as the daemon refuses it, `Unreachable`). */
  let hubUp = true
  /** An app's frame page, on its own origin. */
  const frameSrc = (app: unknown) => `http://${app}-1a2b.app.localhost:${port}/frame.html`

  function push(event: DaemonEvent) {
    for (const stream of streams) stream.write(`data: ${JSON.stringify(event)}\n\n`)
  }

  /** The Chat's event streams (`/api/chat/events`) and conversations: one, `c1`, once sent to. */
  const chatStreams = new Set<ServerResponse>()
  let chatSeq = 0
  let conversations: ConversationSummary[] = []
  /** The workspace's choice of agent CLI, as the daemon remembers it. */
  let cli = "claude-code"
  /** Agent CLIs not installed: a send to one is `AgentCliMissing` until it is installed. */
  let missingClis = new Set<string>()
  /** A chat event of conversation `c1` (its `seq` counted here). */
  function pushChat(kind: Record<string, unknown> & { type: ChatEvent["type"] }) {
    const conversation = kind.type === "install" ? "" : "c1"
    const event = { conversation, seq: ++chatSeq, ...kind } as ChatEvent
    for (const stream of chatStreams) stream.write(`data: ${JSON.stringify(event)}\n\n`)
  }

  function widget(file: string): Widget {
    const name = widgetFiles[file]
    const code = name && widgets[name]
    if (!code) return { file, error: { name: "Unreadable", file, message: `no widget ${file}` } }
    const imports = [...code.matchAll(/require\("([^"]+)"\)/g)].map((match) => ({
      specifier: match[1]!,
      line: 1,
      column: 1,
    }))
    return { file, code, imports }
  }

  async function sdk(method: string, call: SdkCall): Promise<unknown> {
    const { app, params } = call
    switch (method) {
      case "state.get":
        return states.get(`${app}/${params.view}`) ?? null
      case "state.set":
        states.set(`${app}/${params.view}`, params.value)
        return null
      case "routines.run":
        if (busy.runs > 0 && params.id === busy.id) {
          busy.runs--
          throw {
            name: "TooManyRoutines",
            message: "the daemon is running as many routines as it may",
          }
        }
        if (params.id === "gmail-open-inbox") return { path: "Notes/ideas.md" }
        if (params.id === "notes-list") {
          return {
            notes: [
              {
                path: "Notes/groceries.md",
                title: "Groceries",
                excerpt: "Milk, eggs, coffee",
                pinned: true,
              },
              {
                path: "Notes/ideas.md",
                title: "Ideas",
                excerpt: "A workbench for every workspace",
              },
              { path: "Notes/standup.md", title: "Standup", excerpt: "Ship the rail folders" },
            ],
          }
        }
        if (params.id === "sales-load") {
          return {
            kpis: [
              { label: "Revenue", value: "$1.28M", trend: "+12%" },
              { label: "Deals won", value: "48", trend: "+6" },
              { label: "Pipeline", value: "$3.9M", trend: "+4%" },
            ],
          }
        }
        throw { name: "NotFound", message: `no routine ${params.id}` }
      case "notify":
        push({
          type: "notification",
          notification: {
            app,
            appTitle: info.apps.find((each) => each.name === app)?.title ?? app,
            urgent: false,
            ...(params as { title: string }),
            at: new Date().toISOString(),
          },
          replaced: false,
        })
        return null
      // The daemon echoes both as events to every window, the sender's included.
      case "log":
        push({
          type: "log",
          routine: app,
          runId: "",
          stream: "widget",
          line: (params.parts as string[]).join(" "),
        })
        return null
      case "app.post":
        push({
          type: "appMessage",
          app,
          fromPane: paneTokens.get(call.token)!.paneId,
          message: params.message,
        })
        return null
      case "pane.close":
        paneTokens.delete(call.token)
        return null
      case "credentials.connect":
        if (params.name === "vm")
          throw { name: "NotHere", message: "a sign-in needs this computer's own window" }
        return {
          name: params.name,
          kind: "oauth",
          state: "not-connected",
          missingScopes: [],
          usedBy: ["gmail"],
          authUrl: `http://127.0.0.1:${port}/signin?service=${params.name}`,
        }
      case "identity.currentUser":
        return { uid: "u1", email: "ada@example.com" }
      default:
        throw { name: "NotFound", message: `cowork has no method "${method}"` }
    }
  }

  async function api(
    request: IncomingMessage,
    url: URL,
    body: Record<string, unknown>,
  ): Promise<unknown> {
    const path = url.pathname
    const token = (request.headers.authorization ?? "").replace(/^Bearer /, "")
    if (path.startsWith("/api/sdk/")) {
      const app = paneTokens.get(token)?.app
      if (!app) throw Object.assign(new Error("not a pane token"), { status: 401 })
      const method = path.slice("/api/sdk/".length)
      const call = { method, app, token, params: body }
      sdkCalls.push(call)
      try {
        return { ok: true, result: await sdk(method, call) } satisfies Outcome<unknown, WireError>
      } catch (error) {
        return { ok: false, error: error as WireError } satisfies Outcome<unknown, WireError>
      }
    }
    if (token !== OWNER_TOKEN)
      throw Object.assign(new Error("not the owner token"), { status: 401 })
    if (request.method === "POST") posts.push({ path, body })
    switch (path) {
      case "/api/chat":
        return { conversations, cli }
      case "/api/chat/transcript":
        return { events: [] }
      case "/api/chat/send": {
        const sent = body as { text: string; context: unknown[]; cli: string | null }
        const wanted = sent.cli ?? cli
        if (missingClis.has(wanted)) {
          // The daemon's words (crates/cowork-daemon/src/chat/cli.rs, `FindError`).
          const [name, bin, pkg] =
            wanted === "codex"
              ? ["Codex", "codex", "@openai/codex"]
              : ["Claude Code", "claude", "@anthropic-ai/claude-code"]
          throw Object.assign(
            new Error(`failed to start the chat: ${name} (\`${bin}\`) is not on the PATH`),
            {
              status: 503,
              name: "AgentCliMissing",
              hint: `press Install ${name} in the Chat, or install ${name} with \`npm install -g ${pkg}\` (then sign in with \`${bin}\`), or set COWORK_${wanted === "codex" ? "CODEX" : "CLAUDE"} to its binary and restart the daemon`,
            },
          )
        }
        cli = sent.cli ?? cli
        conversations = [
          {
            id: "c1",
            title: sent.text,
            created: "2026-12-06T10:00:00Z",
            model: null,
            effort: null,
            session: "s1",
            cli,
            running: true,
          },
        ]
        pushChat({ type: "user", text: sent.text, context: sent.context })
        return { conversation: "c1" }
      }
      case "/api/chat/answer": {
        const answer = body as { id: string; decision: string | null }
        pushChat({ type: "answered", id: answer.id, answer: answer.decision ?? "answers" })
        return { changed: true } satisfies Changed
      }
      case "/api/chat/interrupt":
        return { changed: true } satisfies Changed
      case "/api/chat/install": {
        // npm's lines as progress, then the end; the CLI is found from then on.
        const installing = String(body.cli)
        for (const [i, line] of [
          "npm http fetch GET 200 @openai/codex",
          "added 1 package",
        ].entries())
          pushChat({ type: "install", cli: installing, line, lines: i + 1, outcome: null })
        await new Promise((resolve) => setTimeout(resolve, 300))
        missingClis.delete(installing)
        pushChat({ type: "install", cli: installing, line: null, lines: 2, outcome: "ok" })
        return {
          program: `/root/.cowork/agents/${installing}/node_modules/.bin/codex`,
          version: "0.169.1",
        }
      }
      case "/api/workbench":
        return { ...info, apps: info.apps.map((app) => ({ ...app, frameUrl: frameSrc(app.name) })) }
      case "/api/panes": {
        const n = ++panes
        const paneToken = `pane-${body.app}-${n}`
        paneTokens.set(paneToken, { app: String(body.app), paneId: `p${n}` })
        return {
          paneId: `p${n}`,
          src: frameSrc(body.app),
          paneToken,
          widget: widget(String(body.file)),
          workspaceRoot: WORKSPACE,
        } satisfies OpenedPane
      }
      case "/api/route": {
        const target = url.searchParams.get("path") ?? ""
        if (target.endsWith(".md"))
          return {
            app: "notes",
            file: "note-page.jsx",
            glob: "**/*.md",
            folder: false,
          } satisfies Route
        if (target.endsWith(".csv")) {
          const conflict = info.routeConflicts[0]!
          return {
            app: conflict.chosen,
            file: "note-page.jsx",
            glob: "**/*.csv",
            folder: false,
          } satisfies Route
        }
        if (/^Projects\/[^/]+$/.test(target))
          return {
            app: "sales",
            file: "note-page.jsx",
            glob: "Projects/*/",
            folder: true,
          } satisfies Route
        return null
      }
      case "/api/open-with":
        info.routeConflicts = info.routeConflicts.map((each) =>
          each.glob === body.glob ? { ...each, chosen: String(body.app), remembered: true } : each,
        )
        return { changed: true } satisfies Changed
      case "/api/files":
        return files[url.searchParams.get("path") ?? ""] ?? []
      case "/api/file": {
        const path = url.searchParams.get("path") ?? ""
        if (path in TEXTS)
          return { path, text: TEXTS[path]!, size: TEXTS[path]!.length } satisfies FileText
        const notText = { name: "Binary" as const, message: `${path} is not a text file` }
        return { path, size: 10, notText } satisfies FileText
      }
      // A routine that failed is an answer, not a failed call: 200 with `ok: false`.
      case "/api/statusbar":
        await new Promise((resolve) =>
          setTimeout(resolve, statusBarDelays.get(url.searchParams.get("app") ?? "") ?? 0),
        )
        if (statusBarFailure)
          return {
            ok: false,
            error: { name: "Error", message: statusBarFailure },
          } satisfies StatusBarAnswer
        return {
          ok: true,
          item: {
            text: "3 notes",
            icon: "notebook",
            tooltip: "Notes: 3 notes, 1 pinned",
            click: { args: { action: "sync" }, confirm: "Sync the notes now?" },
            data: { count: 3 },
          },
        } satisfies StatusBarAnswer
      case "/api/statusbar/click":
        if (clickFailure)
          return {
            ok: false,
            error: { name: "NotConnected", message: clickFailure, runId: "r-click" },
          } satisfies StatusBarAnswer
        return { ok: true, item: null } satisfies StatusBarAnswer
      case "/api/rail":
        info = { ...info, rail: { folders: body.folders as WorkbenchInfo["rail"]["folders"] } }
        return { changed: true } satisfies Changed
      case "/api/apps/enable":
        info = {
          ...info,
          apps: info.apps.map((each) =>
            each.dir === body.app ? { ...each, enabled: Boolean(body.enabled) } : each,
          ),
        }
        push({ type: "registry" })
        return { changed: true } satisfies Changed
      case "/api/runtime":
        if (runtime) return runtime
        break
      case "/api/runtime/install":
        if (!runtime) break
        // Halfway until the test lets it finish (finishRuntimeInstall): no race with the page's polls.
        runtime = {
          runtime: null,
          install: { state: "running", done: 22_300_000, total: 44_600_000 },
        }
        return runtime
      case "/api/account":
        return account
      case "/api/account/sign-in":
        if (!hubUp)
          throw Object.assign(
            new Error(
              `failed to sign in: failed to reach the hub at ${account.hub}: connection refused`,
            ),
            {
              status: 502,
              name: "Unreachable",
              hint: "check the hub's address (`cowork status` shows it) and that it is running",
            },
          )
        account = {
          ...account,
          hub: typeof body.hub === "string" ? body.hub : account.hub,
          signingIn: true,
        }
        return { url: `http://127.0.0.1:${port}/hub-sign-in` }
      case "/api/account/sign-out":
        account = signedOut()
        return account
      // A webhook call waits for a slot; the one before it ran after waiting 3.2 s.
      case "/api/agents": {
        // One routine whose capability's connection is not connected (QA16 #6): unavailable
        // whatever is granted; the other available.
        const on = { answer: "allow", set: false } as const
        const routine = {
          risk: "low",
          description: null,
          default: on,
          agents: { claude: on },
        } as const
        return {
          agents: [
            {
              name: "claude",
              id: "0123456789abcdef",
              lastSeen: null,
              here: true,
              workspaces: [WORKSPACE],
            },
          ],
          routines: [
            { ...routine, capability: "acme", routine: "acme-me", unavailable: "not connected" },
            { ...routine, capability: "tasks", routine: "tasks-list", unavailable: null },
          ],
        } satisfies AgentsInfo
      }
      case "/api/runs":
        return {
          running: [QUEUED_RUN],
          runs: [WAITED_RUN, AGENT_RUN, TERMINAL_RUN],
          next: null,
        } satisfies Runs
      case "/api/deploy/workflows":
        return {
          armed: true,
          workflows: [
            {
              id: "sales-hook",
              app: "sales",
              triggers: ["webhook"],
              schedule: null,
              state: "active · webhook",
              active: true,
              declared: {
                schedule: null,
                webhook: true,
                hookToken: true,
                corsOrigin: "*",
                notifications: [],
              },
              changed: null,
              next: null,
              lastRun: { runId: "r-waited", ts: WAITED_RUN.ts, status: "ok", source: "webhook" },
            },
          ],
          running: 8,
          queued: 1,
          runningNow: [QUEUED_RUN],
          recent: [
            {
              runId: "r-waited",
              routine: "sales-hook",
              ts: WAITED_RUN.ts,
              status: "ok",
              trigger: "webhook",
              durationMs: 812,
              queuedMs: 3200,
            },
          ],
        } satisfies Workflows
      case "/api/store/apps":
        return storeApps
      case "/api/store/items":
        return cannedCards(storeApps)
      case "/api/store/subscription":
        if (body.subscribed) subscribed.add(String(body.course))
        else subscribed.delete(String(body.course))
        return subscriptions()
      case "/api/store/courses":
        return subscriptions()
      case "/api/store/workspace-courses":
        return WORKSPACE_COURSES
      case "/api/store/course":
        return {
          teamServer: "acme-apps",
          course: "getting-started",
          version: "1.0.0",
          title: "Getting started with Cowork",
          level: "Beginner",
          description: "From a folder to a workspace of apps.",
          lessons: [
            {
              id: "welcome",
              title: "Welcome",
              minutes: 3,
              video: "https://youtu.be/abc",
              body: "What Cowork is, and what this course builds.",
            },
            {
              id: "first-app",
              title: "Your first app",
              minutes: 10,
              video: null,
              body: "cowork template install cowork/app-sidebar-workbench --name clients",
            },
            { id: "publish", title: "Publish it", minutes: null, video: null, body: "cowork push" },
          ],
        } satisfies CourseView
      case "/api/store/progress":
        if (request.method === "POST") {
          if (body.done) lessonsDone.add(String(body.lesson))
          else lessonsDone.delete(String(body.lesson))
        }
        return {
          teamServer: "acme-apps",
          course: "getting-started",
          subscribed: true,
          lessons: [...lessonsDone].map((lesson) => ({ lesson, doneAt: 0 })),
        } satisfies CourseProgress
      case "/api/store/templates":
        return {
          templates: [
            {
              store: "cowork",
              ...storeItem("app-sidebar-workbench", {
                kind: "template",
                subtype: "app",
                title: "Sidebar workbench (CRUD)",
              }),
            },
            {
              store: "acme-apps",
              ...storeItem("report", { kind: "template", subtype: "app", title: "Weekly report" }),
            },
          ],
          unreachable: [],
        } satisfies Templates
      case "/api/store/templates/scaffold":
        if (body.name === "clients" && scaffolded.has("clients"))
          throw Object.assign(
            new Error(
              "failed to write .cowork/apps/clients: it already exists (nothing was written)",
            ),
            {
              status: 409,
              name: "AlreadyExists",
              hint: "choose another --name, or move the existing folder away first",
            },
          )
        scaffolded.add(String(body.name))
        return {
          dir: `.cowork/apps/${body.name}`,
          subtype: "app",
          files: ["cowork.json", "records.jsx", "records.ts"],
        } satisfies ScaffoldAnswer
      case "/api/store/pin":
      case "/api/store/update":
      case "/api/store/remove":
      case "/api/store/install": {
        const dir = String(body.app ?? "")
        const app = storeApps.apps.find((each) => each.dir === dir)
        if (path === "/api/store/install") {
          storeApps = {
            ...storeApps,
            apps: [
              ...storeApps.apps,
              {
                ...storeApps.apps[0]!,
                dir: ".cowork/apps/invoices",
                name: "invoices",
                source: "acme-apps@1.0.0",
                latest: "1.0.0",
                updateAvailable: false,
                edited: [],
              },
            ],
          }
          push({ type: "registry" })
          return {
            dir: ".cowork/apps/invoices",
            name: "invoices",
            teamServer: "acme-apps",
            version: "1.0.0",
            pinned: false,
            verified: true,
            files: 3,
            blobs: 3,
          }
        }
        if (!app?.teamServer)
          throw Object.assign(new Error(`${dir} was not installed from a team server's store`), {
            status: 409,
            name: "NotInstalled",
          })
        if (path === "/api/store/update" && app.edited.length > 0 && !body.choice)
          throw Object.assign(new Error(`${dir} was edited since it was installed`), {
            status: 409,
            name: "Edited",
          })
        const changed =
          path === "/api/store/pin"
            ? { ...app, pinned: Boolean(body.pinned) }
            : {
                ...app,
                version: app.latest!,
                source: `acme-apps@${app.latest}`,
                updateAvailable: false,
                edited: [],
                pinned: false,
              }
        storeApps = {
          ...storeApps,
          apps:
            path === "/api/store/remove"
              ? storeApps.apps.filter((each) => each !== app)
              : storeApps.apps.map((each) => (each === app ? changed : each)),
        }
        storeApps = {
          ...storeApps,
          edited: storeApps.apps.filter((each) => each.edited.length > 0).length,
        }
        push({ type: "registry" })
        return path === "/api/store/pin"
          ? { dir, version: app.version, pinned: Boolean(body.pinned) }
          : {
              dir,
              teamServer: "acme-apps",
              outcome: "updated",
              from: app.version,
              to: app.latest,
              blobs: 1,
              bytes: 120,
            }
      }
      case "/api/apps/mute":
        info = {
          ...info,
          muted: body.muted
            ? [...info.muted, String(body.app)]
            : info.muted.filter((dir) => dir !== body.app),
        }
        return { changed: true } satisfies Changed
    }
    throw Object.assign(new Error(`no route ${path}`), { status: 404 })
  }

  function serveFile(dir: string, pathname: string, response: ServerResponse) {
    const path = normalize(decodeURIComponent(pathname))
    const file = join(dir, path === "/" ? "index.html" : path)
    if (!file.startsWith(dir) || !existsSync(file)) return void response.writeHead(404).end()
    response.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      // The frame's origin is opaque: its scripts and styles are cross-origin requests.
      "access-control-allow-origin": "*",
    })
    response.end(readFileSync(file))
  }

  // A 1×1 PNG.
  const SCREENSHOT_PNG =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
  const server = createServer((request, response) => {
    const url = new URL(request.url!, "http://x")
    if (url.pathname === "/signin") {
      response.writeHead(200, { "content-type": "text/html" })
      return void response.end("<title>Sign in</title><h1>Sign in</h1>")
    }
    if (url.pathname === "/test-icons/whatsapp.svg") {
      response.writeHead(200, { "content-type": "image/svg+xml" })
      return void response.end(ICON)
    }
    const host = request.headers.host ?? ""
    if (/\.app\.localhost(:\d+)?$/.test(host)) return serveFile(distDir, url.pathname, response)
    // Plays the hub's sign-in page, which a sign-in opens in a new tab.
    if (url.pathname === "/hub-sign-in")
      return void response
        .writeHead(200, { "content-type": "text/html" })
        .end("<title>Sign in to the hub</title>")
    if (!url.pathname.startsWith("/api/")) return serveFile(distDir, url.pathname, response)
    // The event streams; this daemon asks no consent question (nothing follows that stream).
    const followers: Set<ServerResponse> | undefined = {
      "/api/events": streams,
      "/api/chat/events": chatStreams,
      "/api/consent/requests": new Set<ServerResponse>(),
    }[url.pathname as "/api/events"]
    if (followers) {
      if (request.headers.authorization !== `Bearer ${OWNER_TOKEN}`)
        return void response.writeHead(401).end()
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" })
      response.write(": hello\n\n")
      followers.add(response)
      request.on("close", () => followers.delete(response))
      return
    }
    // A card's screenshot is an image, not JSON: a 1×1 PNG for gmail's first.
    if (url.pathname === "/api/store/screenshot") {
      if (request.headers.authorization !== `Bearer ${OWNER_TOKEN}`)
        return void response.writeHead(401).end()
      if (url.searchParams.get("name") !== "gmail" || url.searchParams.get("n") !== "0")
        return void response.writeHead(404).end()
      response.writeHead(200, { "content-type": "image/png" })
      return void response.end(Buffer.from(SCREENSHOT_PNG, "base64"))
    }
    let raw = ""
    request.on("data", (chunk) => (raw += chunk))
    request.on("end", () => {
      api(request, url, raw ? JSON.parse(raw) : {}).then(
        (result) => {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify(result))
        },
        (error: Error & { status?: number; hint?: string }) => {
          response.writeHead(error.status ?? 500, { "content-type": "application/json" })
          response.end(
            JSON.stringify({
              error: { name: error.name, message: error.message, hint: error.hint },
            } satisfies ErrorBody),
          )
        },
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port

  return {
    port,
    sdkCalls,
    posts,
    push,
    pushChat,
    /** How many workbench pages follow the event stream. */
    listeners: () => streams.size,
    /** Changes what `/api/workbench` answers. */
    configure(change: Partial<WorkbenchInfo>) {
      info = { ...info, ...change }
    },
    /** The next `n` runs of routine `id` are refused with `TooManyRoutines` (other panes' runs,
     * the sidebar's list say, go through: they would use up the refusals at random). */
    busy(n: number, id: string) {
      busy = { runs: n, id }
    },
    /** The browser came back: `email` is signed in (in Acme, a member of two team servers), and every window hears it. */
    signIn(email: string) {
      account = {
        hub: account.hub,
        user: {
          uid: "u1",
          email,
          displayName: "Ada Lovelace",
          organization: { id: "o1", slug: "acme", name: "Acme" },
          method: "browser",
        },
        teamServers: [
          { slug: "acme-apps", name: "Acme apps", role: "owner" },
          { slug: "sales-tools", name: "Sales tools", role: "member" },
        ],
        polledAt: Date.now(),
        signingIn: false,
      }
      push({ type: "account", signedIn: true })
    },
    /** Takes the hub down (`false`) or brings it back. */
    hubUp(up: boolean) {
      hubUp = up
    },
    /** Makes `/api/runtime` answer that no runtime runs routines here. */
    noRuntime() {
      runtime = { runtime: null, install: { state: "idle" } }
    },
    /** Ends the Bun install `/api/runtime/install` started: Bun runs routines now. */
    finishRuntimeInstall() {
      runtime = {
        runtime: { kind: "bun", version: "1.4.5" },
        install: { state: "done", version: "1.4.5" },
      }
    },
    /** Makes `/api/statusbar` fail with `message` (null: answer again). */
    failStatusBar(message: string | null) {
      statusBarFailure = message
    },
    /** Makes `/api/statusbar/click` answer that the routine threw `message` (null: it works). */
    failStatusBarClick(message: string | null) {
      clickFailure = message
    },
    /** Makes `app`'s footer routine answer `ms` late (after the others). */
    delayStatusBar(app: string, ms: number) {
      statusBarDelays.set(app, ms)
    },
    /** A file appears in a folder of the workspace (a routine wrote it). */
    addFile(folder: string, entry: FileEntry) {
      files[folder] = [...(files[folder] ?? []), entry]
    },
    /** Whether a pane token still works (`pane.close` revokes it). */
    paneOpen: (token: string) => paneTokens.has(token),
    /** Serves another of the test widgets for an app file (a saved edit, for hot reload). */
    editWidget(file: string, widgetName: string) {
      widgetFiles = { ...widgetFiles, [file]: widgetName }
    },
    /** Makes the Chat's send find `id` (`codex`, `claude-code`) missing until it is installed. */
    missingCli(id: string) {
      missingClis.add(id)
    },
    /** Back to the canned workspace, with nothing recorded and no page following. */
    reset() {
      for (const stream of streams) stream.end()
      streams.clear()
      for (const stream of chatStreams) stream.end()
      chatStreams.clear()
      chatSeq = 0
      conversations = []
      cli = "claude-code"
      missingClis = new Set()
      statusBarFailure = null
      clickFailure = null
      busy = { runs: 0, id: "" }
      widgetFiles = { ...WIDGETS }
      files = structuredClone(FILES)
      statusBarDelays.clear()
      runtime = undefined
      account = signedOut()
      hubUp = true
      info = cannedInfo()
      storeApps = cannedStoreApps()
      scaffolded.clear()
      lessonsDone.clear()
      lessonsDone.add("welcome")
      subscribed.clear()
      subscribed.add("getting-started")
      sdkCalls.length = 0
      posts.length = 0
    },
    close: () => {
      for (const stream of streams) stream.end()
      server.close()
    },
  }
}
