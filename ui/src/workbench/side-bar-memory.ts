/**
 * Whether each side bar was open when this workspace's window last had it, kept in this
 * browser's localStorage per workspace: page 08's absent `startup.left` / `startup.right`
 * "keeps whatever the window last had".
 */
import { getState, subscribe } from "./store"

interface SideBars {
  left?: boolean
  right?: boolean
}

const key = (workspace: string) => `cowork.sideBars:${workspace}`

/** What the window last had for `workspace`; nothing for a workspace never opened here. */
export function rememberedSideBars(workspace: string): SideBars {
  try {
    const saved = JSON.parse(localStorage.getItem(key(workspace)) ?? "{}") as SideBars
    return {
      left: typeof saved.left === "boolean" ? saved.left : undefined,
      right: typeof saved.right === "boolean" ? saved.right : undefined,
    }
  } catch {
    return {}
  }
}

/** Writes the side bars down whenever one opens or closes, from now on. */
export function rememberSideBars(workspace: string) {
  let last = ""
  return subscribe(() => {
    const { left, right } = getState()
    const now = JSON.stringify({ left: left.open, right: right.open })
    if (now === last) return
    last = now
    localStorage.setItem(key(workspace), now)
  })
}
