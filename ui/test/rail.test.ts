import { describe, expect, it } from "vitest"

import type { App, RailFolder } from "@/workbench/api"
import {
  EXPLORER_VIEW,
  MANAGE_VIEW,
  MAX_FOLDERS,
  MAX_MEMBERS,
  dropOnto,
  editFolder,
  hasTile,
  railItems,
  takeOut,
  ungroup,
  viewId,
} from "@/workbench/rail"

const app = (name: string, change: Partial<App> = {}): App => ({
  dir: `.cowork/apps/${name}`,
  name,
  title: name[0]!.toUpperCase() + name.slice(1),
  icon: "mail",
  display: "sidebar",
  entry: `${name}.jsx`,
  kind: "app",
  enabled: true,
  ownsName: true,
  unrestricted: false,
  problems: [],
  routines: [],
  site: false,
  frameUrl: `http://${name}-1a2b.app.localhost:7420/frame.html`,
  ...change,
})

const [gmail, calendar, notes, sales] = ["gmail", "calendar", "notes", "sales"].map(viewId) as [
  string,
  string,
  string,
  string,
]

describe("which apps get a tile", () => {
  it("a switched-on app with an entry, a site app or a web app, that owns its name", () => {
    expect(hasTile(app("gmail"))).toBe(true)
    expect(hasTile(app("whatsapp", { entry: undefined, site: true }))).toBe(true)
    const webUrl = "http://sqlpad-1a2b.app.localhost:7420/"
    expect(hasTile(app("sqlpad", { entry: undefined, display: "tab", webUrl }))).toBe(true)
    expect(hasTile(app("tools", { entry: undefined }))).toBe(false)
    expect(hasTile(app("gmail", { enabled: false }))).toBe(false)
    expect(hasTile(app("gmail", { ownsName: false }))).toBe(false)
    expect(hasTile(app("invoices", { kind: "capability", entry: undefined }))).toBe(false)
  })

  it("none for an app shown in the right side bar", () => {
    expect(hasTile(app("chatgpt", { display: "right", site: true, entry: undefined }))).toBe(false)
  })

  it("none for an app whose title starts with a system view's name", () => {
    expect(hasTile(app("files", { title: "Explorer Pro" }))).toBe(false)
    expect(hasTile(app("finder", { title: "search everything" }))).toBe(false)
    expect(hasTile(app("admin", { title: "Manage Workspace+" }))).toBe(false)
    expect(hasTile(app("chatgpt", { title: "ChatGPT", display: "tab" }))).toBe(false)
    expect(hasTile(app("research", { title: "Research" }))).toBe(true)
  })
})

describe("tiles and folders", () => {
  const google: RailFolder = { id: "google", title: "Google", members: [calendar, gmail] }

  it("a folder stands where its first member would, with its members in its own order", () => {
    expect(railItems([gmail, notes, calendar, sales], [google])).toEqual([
      { kind: "folder", folder: google, views: [calendar, gmail] },
      { kind: "tile", view: notes },
      { kind: "tile", view: sales },
    ])
  })

  it("members without a tile are not drawn, a folder with none is not drawn", () => {
    const gone: RailFolder = {
      id: "gone",
      title: "Gone",
      members: [viewId("old"), viewId("older")],
    }
    expect(railItems([notes, gmail], [google, gone])).toEqual([
      { kind: "tile", view: notes },
      { kind: "folder", folder: google, views: [gmail] },
    ])
  })

  it("ignores folders and members past the limits", () => {
    const tiles = Array.from({ length: 40 }, (_, n) => viewId(`app${n}`))
    const folders = Array.from({ length: 14 }, (_, n) => ({
      id: `f${n}`,
      title: `F${n}`,
      members: [tiles[2 * n]!, tiles[2 * n + 1]!],
    }))
    const drawn = railItems(tiles, folders)
    expect(drawn.filter((item) => item.kind === "folder")).toHaveLength(MAX_FOLDERS)
    expect(drawn.filter((item) => item.kind === "tile")).toHaveLength(40 - 2 * MAX_FOLDERS)
    const wide = Array.from({ length: 30 }, (_, n) => viewId(`w${n}`))
    expect(railItems(wide, [{ id: "big", title: "Big", members: wide }])).toHaveLength(
      1 + 30 - MAX_MEMBERS,
    )
  })

  it("a tile two folders list belongs to the first", () => {
    const other: RailFolder = { id: "other", title: "Other", members: [gmail, notes] }
    expect(railItems([gmail, notes], [google, other])).toEqual([
      { kind: "folder", folder: google, views: [gmail] },
      { kind: "folder", folder: other, views: [notes] },
    ])
  })
})

describe("dragging one tile onto another", () => {
  it("makes a folder of the two, target first", () => {
    const { folders, refused } = dropOnto([], gmail, calendar)
    expect(refused).toBeNull()
    expect(folders).toEqual([{ id: "folder-1", title: "New Folder", members: [calendar, gmail] }])
  })

  it("onto a folder or one of its tiles adds to that folder", () => {
    const start: RailFolder[] = [{ id: "google", title: "Google", members: [calendar, gmail] }]
    expect(dropOnto(start, notes, "google").folders[0]!.members).toEqual([calendar, gmail, notes])
    expect(dropOnto(start, notes, gmail).folders[0]!.members).toEqual([calendar, gmail, notes])
  })

  it("moves a tile from its folder, dissolving a folder left with one tile", () => {
    const start: RailFolder[] = [
      { id: "a", title: "A", members: [gmail, calendar] },
      { id: "b", title: "B", members: [notes, sales] },
    ]
    expect(dropOnto(start, gmail, "b").folders).toEqual([
      { id: "b", title: "B", members: [notes, sales, gmail] },
    ])
  })

  it("never mixes the system tiles with app tiles", () => {
    expect(dropOnto([], gmail, EXPLORER_VIEW).refused).toMatch(/never share a folder/)
    expect(dropOnto([], MANAGE_VIEW, EXPLORER_VIEW).folders[0]!.members).toEqual([
      EXPLORER_VIEW,
      MANAGE_VIEW,
    ])
  })

  it("keeps the limits: 12 folders, 24 tiles a folder", () => {
    const many = Array.from({ length: MAX_FOLDERS }, (_, n) => ({
      id: `f${n}`,
      title: `F${n}`,
      members: [viewId(`a${n}`), viewId(`b${n}`)],
    }))
    expect(dropOnto(many, gmail, calendar)).toEqual({
      folders: many,
      refused: expect.stringMatching(/12 folders/),
    })
    const full: RailFolder[] = [
      {
        id: "full",
        title: "Full",
        members: Array.from({ length: MAX_MEMBERS }, (_, n) => viewId(`x${n}`)),
      },
    ]
    expect(dropOnto(full, gmail, "full").refused).toMatch(/24 tiles/)
  })

  it("refuses a tile onto itself or into its own folder", () => {
    expect(dropOnto([], gmail, gmail).refused).not.toBeNull()
    const start: RailFolder[] = [{ id: "g", title: "G", members: [gmail, calendar] }]
    expect(dropOnto(start, gmail, calendar).refused).toMatch(/already/)
  })
})

describe("editing folders", () => {
  const start: RailFolder[] = [{ id: "g", title: "G", members: [gmail, calendar, notes] }]

  it("takes a tile out, renames, ungroups", () => {
    expect(takeOut(start, notes)[0]!.members).toEqual([gmail, calendar])
    expect(takeOut(takeOut(start, notes), gmail)).toEqual([])
    expect(editFolder(start, "g", { title: "Google", color: "#0090ff" })[0]).toMatchObject({
      title: "Google",
      color: "#0090ff",
    })
    expect(ungroup(start, "g")).toEqual([])
  })
})
