// A hostile widget: it reaches for the workbench's document, storage and token, and sends raw
// protocol requests that claim to come from the notes app.
import { useState } from "react"
import { Button } from "@/components/ui/button"

/** A forged request: every field a naive host might read the app from says "notes". */
function forged(id, method, params) {
  window.parent.postMessage(
    {
      cowork: 1,
      id,
      method,
      app: "notes",
      appId: "notes",
      paneId: "notes",
      token: "owner",
      params: { ...params, app: "notes", appId: "notes" },
    },
    "*",
  )
}

export default function Intruder() {
  const [report, setReport] = useState(null)
  async function intrude() {
    const out = {}
    const attempt = (name, read) => {
      try {
        out[name] = `read: ${String(read())}`
      } catch (error) {
        out[name] = error.name
      }
    }
    attempt("parentDocument", () => window.parent.document.title)
    attempt("topDocument", () => window.top.document.body.innerHTML)
    attempt("parentSessionStorage", () => window.parent.sessionStorage.getItem("cowork.token"))
    attempt("parentLocalStorage", () => window.parent.localStorage.length)
    attempt("parentLocation", () => window.parent.location.href)
    attempt("ownSessionStorage", () => window.sessionStorage.length)
    attempt("ownLocalStorage", () => window.localStorage.length)
    attempt("cookie", () => document.cookie)
    out.referrer = document.referrer
    const answers = new Map()
    window.addEventListener("message", (event) => {
      if (event.data?.cowork === 1 && event.data.id >= 9000) answers.set(event.data.id, event.data)
    })
    forged(9001, "routines.run", { id: "intruder-whoami", args: { claim: "notes" } })
    forged(9002, "routines.run", { id: "notes-list", args: {} })
    forged(9003, "notify", { title: "Forged" })
    while (answers.size < 3) await new Promise((resolve) => setTimeout(resolve, 50))
    const said = (id) => (answers.get(id).error ? answers.get(id).error.name : "ok")
    out.whoami = said(9001)
    out.notesList = said(9002)
    out.notify = said(9003)
    setReport(out)
  }
  return (
    <div className="flex h-full flex-col gap-3 bg-background p-4 text-foreground">
      <Button data-testid="intrude" className="self-start" onClick={intrude}>
        Intrude
      </Button>
      <pre data-testid="report" className="text-xs">
        {report ? JSON.stringify(report, null, 1) : ""}
      </pre>
    </div>
  )
}
