/**
 * Who is signed in to Cowork: the title bar's account button (its popover signs in and out) and
 * Manage Workspace's Account tab, both drawn from the store's `account` (account.ts).
 */
import { useState } from "react"

import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Input } from "@/components/ui/input"
import { Popover, PopoverContent, PopoverTrigger } from "@/components/ui/popover"
import { cn } from "@/lib/utils"
import type { AccountInfo } from "./api"
import { signIn, signOut } from "./account"
import { Codicon } from "./codicon"
import { useWorkbench } from "./store"

/** The title bar's account button: "Sign in", or the signed-in person's initial and email. */
export function AccountButton() {
  const account = useWorkbench((s) => s.account)
  if (!account) return null
  const user = account.user
  return (
    <Popover>
      <PopoverTrigger asChild>
        <button
          type="button"
          data-testid="account-button"
          data-signed-in={user ? "true" : "false"}
          // Who is signed in stays out of the shell the next start paints from localStorage; its
          // box stays, so the title bar does not shift when the button fills.
          data-shell="hollow"
          title={user ? `Signed in to Cowork as ${user.email}` : "Sign in to Cowork"}
          className="flex h-7 max-w-56 items-center gap-1.5 rounded-md px-1.5 text-sidebar-foreground/80 hover:bg-sidebar-accent hover:text-sidebar-foreground"
        >
          {user ? (
            <>
              <Initial name={user.displayName || user.email} />
              <span className="truncate">{user.email}</span>
            </>
          ) : (
            <>
              <Codicon name="account" size={16} />
              <span>{account.signingIn ? "Signing in…" : "Sign in"}</span>
            </>
          )}
        </button>
      </PopoverTrigger>
      <PopoverContent align="end" className="w-80 p-4">
        <AccountPanel account={account} />
      </PopoverContent>
    </Popover>
  )
}

function Initial({ name }: { name: string }) {
  return (
    <span className="grid size-5 shrink-0 place-items-center rounded-full bg-gradient-to-br from-emerald-500 to-sky-600 text-[10px] font-semibold text-white uppercase">
      {name.slice(0, 1)}
    </span>
  )
}

/** The account: who, on which hub, in which organization, their team servers; sign in or out. */
export function AccountPanel({ account, className }: { account: AccountInfo; className?: string }) {
  const user = account.user
  return (
    <div data-testid="account-panel" className={cn("grid gap-3 text-sm", className)}>
      {user ? (
        <>
          <div className="flex items-center gap-3">
            <Initial name={user.displayName || user.email} />
            <div className="grid min-w-0">
              <span className="truncate font-medium" data-account-email>
                {user.email}
              </span>
              {user.displayName && user.displayName !== user.email && (
                <span className="truncate text-xs text-muted-foreground">{user.displayName}</span>
              )}
            </div>
          </div>
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
            <dt className="text-muted-foreground">Organization</dt>
            <dd data-account-org>
              {user.organization ? `${user.organization.name} (${user.organization.slug})` : "none"}
            </dd>
            <dt className="text-muted-foreground">Hub</dt>
            <dd className="truncate font-mono">{account.hub}</dd>
          </dl>
          <TeamServers account={account} />
          <Button variant="outline" size="sm" onClick={() => void signOut()}>
            <Codicon name="sign-out" size={14} />
            Sign out
          </Button>
        </>
      ) : (
        <SignIn account={account} />
      )}
    </div>
  )
}

function TeamServers({ account }: { account: AccountInfo }) {
  if (account.teamServers.length === 0) {
    return (
      <p className="text-xs text-muted-foreground">
        No team servers yet (`cowork team-server create &lt;name&gt;`).
      </p>
    )
  }
  return (
    <div className="grid gap-1">
      <span className="text-xs text-muted-foreground">Team servers</span>
      <ul className="grid gap-1" data-account-team-servers>
        {account.teamServers.map((server) => (
          <li key={server.slug} className="flex items-center gap-2 text-xs">
            <Codicon name="organization" size={13} />
            <span className="font-mono">{server.slug}</span>
            <span className="truncate text-muted-foreground">{server.name}</span>
            <Badge variant="outline" className="ml-auto">
              {server.role}
            </Badge>
          </li>
        ))}
      </ul>
    </div>
  )
}

/** Signed out: the hub (asked for once, then remembered) and the browser sign-in. */
function SignIn({ account }: { account: AccountInfo }) {
  const [hub, setHub] = useState(account.hub ?? "")
  const needsHub = !account.hub
  return (
    <form
      className="grid gap-2"
      onSubmit={(event) => {
        event.preventDefault()
        void signIn(needsHub ? hub.trim() : undefined)
      }}
    >
      <p className="font-medium">Sign in to Cowork</p>
      <p className="text-xs text-muted-foreground">
        Your account on your team's hub: it shares apps through team servers, and routines see who
        they run for.
      </p>
      {needsHub ? (
        <Input
          aria-label="Hub address"
          placeholder="https://hub.example.com"
          value={hub}
          onChange={(event) => setHub(event.target.value)}
        />
      ) : (
        <p className="truncate font-mono text-xs text-muted-foreground">{account.hub}</p>
      )}
      <Button type="submit" size="sm" disabled={needsHub && !hub.trim()}>
        <Codicon name="sign-in" size={14} />
        {account.signingIn ? "Waiting for the browser… (start again)" : "Sign in with the browser"}
      </Button>
      <p className="text-xs text-muted-foreground">
        On a server: <code>cowork login --device</code>, or{" "}
        <code>cowork login --email &lt;address&gt;</code>.
      </p>
    </form>
  )
}
