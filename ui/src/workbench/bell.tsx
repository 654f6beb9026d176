/**
 * The bell: every notification as `<App>: <title> — <body>` with Open (which shows the app), and
 * each app's badge count.
 */
import { useState } from "react"

import { Popover, PopoverContent, PopoverTrigger } from "@/components/ui/popover"
import type { NotificationEvent } from "@/frame/protocol"
import { AppIcon } from "./app-icon"
import { allowBanners, bannersUndecided } from "./banners"
import { Codicon } from "./codicon"
import { canOpen, showApp } from "./navigation"
import { PanelButton } from "./output-panel"
import { appNamed, update, useWorkbench } from "./store"

const when = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" })

export function Bell() {
  const unread = useWorkbench((s) => s.unread)
  const notifications = useWorkbench((s) => s.notifications)
  const badges = useWorkbench((s) => s.badges)
  const counted = Object.entries(badges.apps).filter(([, count]) => count > 0)
  return (
    <Popover onOpenChange={(open) => open && update({ unread: 0 })}>
      <PopoverTrigger asChild>
        <button
          type="button"
          aria-label={unread ? `Notifications (${unread} new)` : "Notifications"}
          className="flex items-center gap-1 px-2 hover:bg-sidebar-accent"
        >
          <Codicon name={unread ? "bell-dot" : "bell"} size={14} />
        </button>
      </PopoverTrigger>
      <PopoverContent side="top" align="end" className="w-96 p-0">
        <header className="flex h-9 items-center gap-2 border-b pr-2 pl-3">
          <span className="flex-1 text-[11px] font-semibold tracking-wider uppercase">
            Notifications
          </span>
          <PanelButton
            icon="clear-all"
            label="Clear All Notifications"
            onClick={() => update({ notifications: [], unread: 0 })}
          />
        </header>
        <BannerOffer />
        {counted.length > 0 && (
          <div className="flex flex-wrap gap-1.5 border-b px-3 py-2">
            {counted.map(([name, count]) => {
              const app = appNamed(name)
              return (
                <span
                  key={name}
                  className="flex items-center gap-1.5 rounded-full border py-0.5 pr-2 pl-1 text-xs"
                >
                  {app && <AppIcon app={app} size="small" />}
                  {app?.title ?? name}
                  <span className="rounded-full bg-blue-600 px-1.5 text-[10px] font-semibold text-white">
                    {count}
                  </span>
                </span>
              )
            })}
          </div>
        )}
        <ul className="max-h-96 overflow-auto">
          {notifications.length === 0 && (
            <li className="px-3 py-8 text-center text-sm text-muted-foreground">
              No new notifications
            </li>
          )}
          {notifications.map((notification, index) => (
            <NotificationRow
              // biome-ignore lint/suspicious/noArrayIndexKey: two notifications can share a time; the list is replaced whole, never reordered
              key={`${notification.at}-${index}`}
              notification={notification}
            />
          ))}
        </ul>
      </PopoverContent>
    </Popover>
  )
}

/** In a browser tab the browser has not been asked yet: the person may turn banners on here. */
function BannerOffer() {
  const [undecided, setUndecided] = useState(bannersUndecided)
  if (!undecided) return null
  return (
    <div className="flex items-center gap-2 border-b bg-muted/50 px-3 py-2 text-xs">
      <Codicon name="bell" className="text-muted-foreground" />
      <span className="flex-1 text-muted-foreground">
        Show a banner while this tab is in the background?
      </span>
      <button
        type="button"
        onClick={() => void allowBanners().finally(() => setUndecided(bannersUndecided()))}
        className="h-6 rounded px-2 font-medium text-blue-600 hover:bg-accent dark:text-blue-400"
      >
        Turn On
      </button>
    </div>
  )
}

function NotificationRow({ notification }: { notification: NotificationEvent }) {
  const app = appNamed(notification.app)
  return (
    <li data-testid="notification" className="flex gap-3 border-b px-3 py-2.5 last:border-b-0">
      <div className="pt-0.5">
        {app ? <AppIcon app={app} size="small" /> : <Codicon name="info" />}
      </div>
      <div className="grid min-w-0 flex-1 gap-0.5 text-sm">
        <p className="break-words">
          <span className="font-medium">
            {notification.appTitle}: {notification.title}
          </span>
          {notification.body && (
            <span className="text-muted-foreground"> — {notification.body}</span>
          )}
        </p>
        <p className="text-xs text-muted-foreground">
          {notification.urgent && (
            <span className="mr-1 font-medium text-destructive">Urgent ·</span>
          )}
          {when.format(notification.at)}
        </p>
      </div>
      {app && canOpen(app) && (
        <button
          type="button"
          onClick={() => void showApp(app)}
          className="h-6 self-start rounded px-2 text-xs font-medium text-blue-600 hover:bg-accent dark:text-blue-400"
        >
          Open
        </button>
      )}
    </li>
  )
}
