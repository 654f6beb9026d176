/**
 * The workbench's per-workspace notes in localStorage (src/workbench/kept.ts), on a storage with a
 * quota as WebKit's and Chromium's have: the oldest go past `MOST`, a full storage (keys from
 * before) is cleared of the other workspaces' rather than refusing every write, and no write throws.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { keep, MOST } from "../src/workbench/kept"
import { rememberedWindow, rememberWindow } from "../src/workbench/window-memory"
import { update } from "../src/workbench/store"

/** localStorage with a quota of `limit` characters (keys and values), as browsers count. */
class QuotaStorage {
  items = new Map<string, string>()
  constructor(private limit: number) {}
  get length() {
    return this.items.size
  }
  key(i: number) {
    return [...this.items.keys()][i] ?? null
  }
  getItem(key: string) {
    return this.items.get(key) ?? null
  }
  removeItem(key: string) {
    this.items.delete(key)
  }
  setItem(key: string, value: string) {
    const used = [...this.items].reduce((n, [k, v]) => n + (k === key ? 0 : k.length + v.length), 0)
    if (used + key.length + value.length > this.limit)
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError")
    this.items.set(key, value)
  }
}

let storage: QuotaStorage
beforeEach(() => {
  storage = new QuotaStorage(200_000)
  vi.stubGlobal("localStorage", storage)
})
afterEach(() => vi.unstubAllGlobals())

const shell = (n: number) => `cowork.shell:/tmp/ws-${n}`

describe("the workbench's notes per workspace", () => {
  it("keeps the most recently written, MOST keys at most", () => {
    for (let n = 0; n < MOST + 10; n++) keep(shell(n), "x".repeat(100))
    const shells = [...storage.items.keys()].filter((key) => key.startsWith("cowork.shell:"))
    expect(shells).toHaveLength(MOST)
    expect(shells).toContain(shell(MOST + 9))
    expect(shells).not.toContain(shell(9))
    // Written again, an old one is recent again and stays.
    keep(shell(10), "again")
    keep(shell(MOST + 10), "new")
    expect(storage.getItem(shell(10))).toBe("again")
    expect(storage.getItem(shell(11))).toBeNull()
  })

  it("clears other workspaces' notes from a full storage instead of failing every write", () => {
    // Shells from before the list (what filled a tester's WebKit): the storage is full.
    for (let n = 0; n < 40; n++) storage.setItem(shell(n), "x".repeat(4_900))
    storage.setItem("cowork.window:/tmp/ws-here", "{}")
    storage.setItem("cowork.theme", "dark")
    expect(() => storage.setItem(shell(99), "y".repeat(5_000))).toThrow(/quota/)
    expect(() => keep("cowork.shell:/tmp/ws-here", "y".repeat(5_000))).not.toThrow()
    expect(storage.getItem("cowork.shell:/tmp/ws-here")).toBe("y".repeat(5_000))
    // This workspace's window and what is not per workspace stay; the other workspaces' go.
    expect(storage.getItem("cowork.window:/tmp/ws-here")).toBe("{}")
    expect(storage.getItem("cowork.theme")).toBe("dark")
    expect(storage.getItem(shell(0))).toBeNull()
  })

  it("never throws, even when nothing can be written", () => {
    storage = new QuotaStorage(10)
    vi.stubGlobal("localStorage", storage)
    expect(() => keep(shell(1), "too long for this storage")).not.toThrow()
    expect(storage.getItem(shell(1))).toBeNull()
  })

  it("the window's memory on a full storage: the workbench goes on, the window is remembered", () => {
    // Full but for 10 characters.
    for (let n = 0; n < 39; n++) storage.setItem(shell(n), "x".repeat(4_970))
    const free = 200_000 - [...storage.items].reduce((n, [k, v]) => n + k.length + v.length, 0)
    storage.setItem(shell(39), "x".repeat(free - shell(39).length - 10))
    const stop = rememberWindow("/tmp/ws-here")
    // A side bar closing writes the window down (in a store subscriber: a throw there blanked a view).
    expect(() => update((s) => ({ left: { ...s.left, open: !s.left.open } }))).not.toThrow()
    expect(rememberedWindow("/tmp/ws-here").left).toBeDefined()
    stop()
  })
})
