/** The consent question as a workbench in a browser tab words it (src/workbench/consent.ts). */
import { describe, expect, it } from "vitest"

import { question } from "../src/workbench/consent"

const asked = {
  id: "c1",
  workspace: "/home/ann/acme",
  app: "notes",
  appTitle: "Notes",
  routine: "notes-sync",
  value: "git pull",
  title: null,
  description: null,
  command: "git pull",
}

describe("the consent question", () => {
  it("shows a routine's command whole, and the label a different one is remembered under", () => {
    const plain = question(asked, "/home/ann/acme")
    expect(plain.message).toBe("Allow Notes to run a command?")
    expect(plain.detail).toBe("Notes (routine notes-sync) wants to run:")
    expect(plain.fields?.[0]?.placeholder).toBe("git pull")
    expect(plain.alert.text).toBe(
      '"Always allow" remembers the answer for Notes in this workspace.',
    )
    const labelled = question(
      { ...asked, value: "list files", command: "id > pwned.txt" },
      "/home/ann/acme",
    )
    expect(labelled.fields?.[0]?.placeholder).toBe("id > pwned.txt")
    expect(labelled.alert.text).toContain('under the label "list files"')
  })

  it("names another workspace's question, and words a widget's request by its title", () => {
    expect(question(asked, "/home/ann/other").detail).toBe(
      "Notes (routine notes-sync in the workspace acme) wants to run:",
    )
    const widget = {
      ...asked,
      routine: undefined,
      command: null,
      title: "Open a terminal?",
      description: "It runs bash.",
    }
    const asks = question(widget, "/home/ann/acme")
    expect(asks.message).toBe("Allow Notes?")
    expect(asks.detail).toBe("Notes asks: Open a terminal?\n\nIt runs bash.")
  })
})
