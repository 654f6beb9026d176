/**
 * The store in Manage Workspace (issue 42, page 02): each installed app's source, version, pin and
 * "update available", an edited app's four choices (Replace, Keep both, AI merge, Skip), pin and
 * remove; the icon that counts edited apps; and the Team Servers tab, a team server's store as
 * cards (title, description, tags, screenshots, versions) to install, update, pin and remove, a
 * course's card to subscribe to (the Academy lists it) or unsubscribe; and Create from a template.
 * Every action is one `/api/store/…` call (api.ts); the registry reload that follows redraws.
 */
import { useCallback, useEffect, useState } from "react"

import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Input } from "@/components/ui/input"
import { NativeSelect, NativeSelectOption } from "@/components/ui/native-select"
import { Switch } from "@/components/ui/switch"
import * as api from "./api"
import { Codicon } from "./codicon"
import { report } from "./report"
import { reload } from "./session"
import { getState, useWorkbench } from "./store"

/** The store's view of the workspace's apps, read again whenever the registry changes. */
export function useStoreApps() {
  const info = useWorkbench((s) => s.info)
  const [apps, setApps] = useState<api.InstalledApps | null>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: `info` is the registry's version: a new one means read again
  useEffect(() => {
    let live = true
    api.storeApps(getState().workspace).then(
      (answer) => live && setApps(answer),
      // A daemon without the store (or no account) leaves the cards as they were.
      () => live && setApps(null),
    )
    return () => {
      live = false
    }
  }, [info])
  return apps
}

/** The four choices for an edited app, as page 02 names them. */
const CHOICES: { choice: api.UpdateChoice; label: string; says: string }[] = [
  { choice: "replace", label: "Replace", says: "the store wins; files you added are kept" },
  { choice: "keep-both", label: "Keep both", says: "the new version beside yours, switched off" },
  { choice: "ai-merge", label: "AI merge", says: "Claude merges your changes into it" },
  { choice: "skip", label: "Skip", says: "dismiss this version" },
]

/** Runs a store action, reporting a refusal by its name and hint, then redraws. */
async function act(what: string, action: () => Promise<unknown>) {
  try {
    await action()
  } catch (error) {
    report(`Cowork could not ${what}`, error)
  } finally {
    await reload()
  }
}

/** A card's actions: one at a time (its buttons off meanwhile), each through `act`. */
function useAction() {
  const [busy, setBusy] = useState(false)
  const run = (what: string, action: () => Promise<unknown>) => {
    setBusy(true)
    void act(what, action).finally(() => setBusy(false))
  }
  return [busy, run] as const
}

/** Source, version, pin and update of one app on its Manage Workspace card. */
export function StoreLine({ app }: { app: api.InstalledApp }) {
  const [busy, run] = useAction()
  const workspace = getState().workspace
  const local = app.teamServer === null
  return (
    <div className="mt-2 grid gap-2 text-xs" data-store-line={app.dir}>
      <div className="flex flex-wrap items-center gap-2">
        <Badge variant="outline" data-source>
          {app.source}
        </Badge>
        {!local && (
          <Badge variant="secondary" data-pin>
            {app.pinned ? "pinned" : "auto"}
          </Badge>
        )}
        {app.updateAvailable && (
          <Badge className="bg-sky-600 text-white" data-update-available>
            update available · v{app.latest}
          </Badge>
        )}
        {app.edited.length > 0 && (
          <span className="inline-flex items-center gap-1 text-amber-700 dark:text-amber-400">
            <Codicon name="edit" size={12} />
            edited: {app.edited.join(", ")}
          </span>
        )}
        {!local && (
          <span className="ml-auto flex items-center gap-2">
            <label className="flex items-center gap-2 text-muted-foreground">
              Pinned
              <Switch
                aria-label={`${app.name} pinned`}
                checked={app.pinned}
                disabled={busy}
                onCheckedChange={(on) =>
                  run("change the pin", () => api.pinApp(workspace, app.dir, on))
                }
              />
            </label>
            {app.updateAvailable && app.edited.length === 0 && (
              <Button
                size="sm"
                disabled={busy}
                onClick={() => run("update the app", () => api.updateApp(workspace, app.dir))}
              >
                Update
              </Button>
            )}
            <Button
              size="sm"
              variant="outline"
              disabled={busy}
              onClick={() => run("remove the app", () => api.removeApp(workspace, app.dir))}
            >
              Remove
            </Button>
          </span>
        )}
      </div>
      {app.updateAvailable && app.edited.length > 0 && (
        <div
          className="grid gap-2 rounded-md border border-amber-500/30 bg-amber-500/10 px-3 py-2"
          data-choices
        >
          <p>v{app.latest} is out, but you edited this app. Choose how to take it:</p>
          <div className="flex flex-wrap gap-2">
            {CHOICES.map(({ choice, label, says }) => (
              <Button
                key={choice}
                size="sm"
                variant="outline"
                title={says}
                disabled={busy}
                onClick={() =>
                  run("update the app", () => api.updateApp(workspace, app.dir, choice))
                }
              >
                {label}
              </Button>
            ))}
          </div>
        </div>
      )}
    </div>
  )
}

/** The Apps tab's icon counting edited installed apps (none: no icon). */
export function EditedCount({ count }: { count: number }) {
  if (count === 0) return null
  return (
    <span
      className="ml-1 inline-flex items-center gap-0.5 text-amber-700 dark:text-amber-400"
      title={`${count} installed app${count === 1 ? "" : "s"} edited: an update asks before it takes them`}
      data-testid="edited-count"
    >
      <Codicon name="edit" size={12} />
      {count}
    </span>
  )
}

/** The Team Servers tab: one team server's store as cards. */
export function TeamServersStore() {
  const account = useWorkbench((s) => s.account)
  const info = useWorkbench((s) => s.info)
  const servers = account?.teamServers ?? []
  const [slug, setSlug] = useState<string | null>(null)
  const chosen = slug ?? servers[0]?.slug ?? null
  const [cards, setCards] = useState<api.StoreCard[] | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  // The account's course subscriptions: a course card says Subscribe or Unsubscribe by them.
  const [subscribed, setSubscribed] = useState<Set<string>>(new Set())
  const follow = useCallback((answer: api.Subscriptions) => {
    setSubscribed(new Set(answer.subscriptions.map((each) => `${each.teamServer}/${each.course}`)))
  }, [])
  useEffect(() => {
    api.courses().then(follow, () => {})
  }, [follow])
  const read = useCallback(async (teamServer: string) => {
    try {
      const answer = await api.storeItems(getState().workspace, teamServer)
      setCards(answer.cards)
      setFailed(null)
    } catch (error) {
      setCards(null)
      setFailed(error instanceof Error ? error.message : String(error))
    }
  }, [])
  // biome-ignore lint/correctness/useExhaustiveDependencies: `info` changes after an install or removal: read the copies again
  useEffect(() => {
    if (chosen) void read(chosen)
  }, [chosen, read, info])
  if (servers.length === 0) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="store-none">
        You belong to no team server: sign in to Cowork and join one to browse its store.
      </p>
    )
  }
  return (
    <div className="grid gap-3" data-testid="team-server-store">
      <label className="flex items-center gap-2 text-sm">
        Team server
        <NativeSelect
          size="sm"
          aria-label="Team server"
          value={chosen ?? ""}
          onChange={(event) => setSlug(event.target.value)}
        >
          {servers.map((server) => (
            <NativeSelectOption key={server.slug} value={server.slug}>
              {server.name}
            </NativeSelectOption>
          ))}
        </NativeSelect>
      </label>
      {failed && <p className="text-sm text-destructive">{failed}</p>}
      {cards?.length === 0 && (
        <p className="text-sm text-muted-foreground">{chosen} publishes nothing yet.</p>
      )}
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        {chosen &&
          cards?.map((card) => (
            <StoreCardView
              key={card.name}
              slug={chosen}
              card={card}
              subscribed={subscribed.has(`${chosen}/${card.name}`)}
              onSubscriptions={follow}
            />
          ))}
      </div>
    </div>
  )
}

/** A card's first screenshot; nothing while it loads or when the daemon refuses it (not an image). */
function Screenshot({ slug, name, title }: { slug: string; name: string; title: string }) {
  const [src, setSrc] = useState<string | null>(null)
  useEffect(() => {
    let gone = false
    let made: string | null = null
    api.storeScreenshot(slug, name, 0).then(
      (url) => {
        made = url
        if (gone) URL.revokeObjectURL(url)
        else setSrc(url)
      },
      () => {},
    )
    return () => {
      gone = true
      if (made) URL.revokeObjectURL(made)
    }
  }, [slug, name])
  if (!src) return null
  return (
    <img
      src={src}
      alt={`A screenshot of ${title}`}
      className="max-h-40 w-full rounded border object-cover object-top"
      data-screenshot
    />
  )
}

function StoreCardView({
  slug,
  card,
  subscribed,
  onSubscriptions,
}: {
  slug: string
  card: api.StoreCard
  /** A course: this account takes it in the Academy. */
  subscribed: boolean
  onSubscriptions: (answer: api.Subscriptions) => void
}) {
  const [busy, run] = useAction()
  const workspace = getState().workspace
  const copy = card.installed
  const newer = copy !== null && copy.version !== card.version
  return (
    <article
      className="grid content-start gap-2 rounded-lg border bg-card p-4"
      data-store-card={card.name}
    >
      <div className="flex items-start gap-2">
        <Codicon name={card.icon && !/^[0-9a-f]{64}$/.test(card.icon) ? card.icon : "package"} />
        <div className="grid min-w-0 flex-1 gap-0.5">
          <h3 className="font-medium">{card.title ?? card.name}</h3>
          <p className="font-mono text-xs text-muted-foreground">
            {slug}/{card.name} · v{card.version} · {card.versions} version
            {card.versions === 1 ? "" : "s"} kept · {card.kind}
          </p>
        </div>
      </div>
      {card.description && <p className="text-sm">{card.description}</p>}
      {card.tags.length > 0 && (
        <div className="flex flex-wrap gap-1">
          {card.tags.map((tag) => (
            <Badge key={tag} variant="secondary">
              {tag}
            </Badge>
          ))}
        </div>
      )}
      {card.screenshots.length > 0 && (
        <>
          <Screenshot slug={slug} name={card.name} title={card.title ?? card.name} />
          <p className="text-xs text-muted-foreground" data-screenshots>
            {card.screenshots.length} screenshot{card.screenshots.length === 1 ? "" : "s"}
          </p>
        </>
      )}
      <div className="flex flex-wrap items-center gap-2 text-xs">
        {copy ? (
          <>
            <Badge variant="outline" data-installed>
              installed v{copy.version} in {copy.dir}
              {copy.pinned ? " · pinned" : ""}
            </Badge>
            {newer && (
              <Button
                size="sm"
                disabled={busy}
                onClick={() => run("update the app", () => api.updateApp(workspace, copy.dir))}
              >
                Update to v{card.version}
              </Button>
            )}
            <Button
              size="sm"
              variant="outline"
              disabled={busy}
              onClick={() =>
                run("change the pin", () => api.pinApp(workspace, copy.dir, !copy.pinned))
              }
            >
              {copy.pinned ? "Unpin" : "Pin"}
            </Button>
            <Button
              size="sm"
              variant="outline"
              disabled={busy}
              onClick={() => run("remove the app", () => api.removeApp(workspace, copy.dir))}
            >
              Remove
            </Button>
          </>
        ) : card.kind === "course" ? (
          <>
            {subscribed && (
              <Badge variant="outline" data-subscribed>
                subscribed · in the Academy
              </Badge>
            )}
            <Button
              size="sm"
              variant={subscribed ? "outline" : "default"}
              disabled={busy}
              onClick={() =>
                run(subscribed ? "unsubscribe from the course" : "subscribe to the course", () =>
                  api.setSubscription(slug, card.name, !subscribed).then(onSubscriptions),
                )
              }
            >
              {subscribed ? "Unsubscribe" : "Subscribe"}
            </Button>
          </>
        ) : (
          card.kind === "app" && (
            <Button
              size="sm"
              disabled={busy}
              onClick={() =>
                run("install the app", () => api.installApp(workspace, `${slug}/${card.name}`))
              }
            >
              Install
            </Button>
          )
        )}
      </div>
    </article>
  )
}

/**
 * The Create menu's templates (`cowork template install`): the built-in `cowork` store's and the
 * team servers', scaffolded under a name into `.cowork/apps/<name>/` — nothing is written when
 * that folder exists (the daemon refuses `AlreadyExists`, and the toast says so).
 */
export function CreateFromTemplate() {
  const [templates, setTemplates] = useState<api.TemplateCard[]>([])
  const [chosen, setChosen] = useState("")
  const [name, setName] = useState("")
  const [busy, setBusy] = useState(false)
  const [wrote, setWrote] = useState<string | null>(null)
  useEffect(() => {
    api.templates().then(
      (answer) => {
        setTemplates(answer.templates)
        setChosen((now) => now || key(answer.templates[0]))
      },
      (error) => report("Cowork could not list the templates", error),
    )
  }, [])
  if (templates.length === 0) return null
  const create = () => {
    setBusy(true)
    setWrote(null)
    void act("create from the template", async () => {
      const done = await api.scaffold(getState().workspace, chosen, name)
      const missing = done.missing?.length
        ? ` It uses ${done.missing.join("; ")} — install it yourself: Components lists it as missing.`
        : ""
      setWrote(`Wrote ${done.dir}/ from ${chosen} (${done.files.length} files).${missing}`)
    }).finally(() => setBusy(false))
  }
  return (
    <section className="grid gap-2 rounded-lg border bg-card p-4" data-testid="create-template">
      <h2 className="text-sm font-semibold">Create from a template</h2>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <NativeSelect
          size="sm"
          aria-label="Template"
          value={chosen}
          onChange={(event) => setChosen(event.target.value)}
        >
          {templates.map((template) => (
            <NativeSelectOption key={key(template)} value={key(template)}>
              {template.title ?? template.name} — {key(template)}
            </NativeSelectOption>
          ))}
        </NativeSelect>
        <Input
          aria-label="Name"
          placeholder="name (lowercase, dashes)"
          className="h-8 w-56"
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <Button size="sm" disabled={busy || !name || !chosen} onClick={create}>
          Create
        </Button>
      </div>
      {wrote && (
        <p className="text-xs text-muted-foreground" data-wrote>
          {wrote}
        </p>
      )}
    </section>
  )
}

const key = (template?: api.TemplateCard) => (template ? `${template.store}/${template.name}` : "")
