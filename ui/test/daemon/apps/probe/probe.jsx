// The real-daemon test's widget: SDK members through the daemon, app.post between panes, its
// view's state, Cowork's dialog with every field kind it tests, and a task handed to an agent.
import { useEffect, useState } from "react"
import { Button } from "@/components/ui/button"

async function settle(promise) {
  try {
    return { ok: (await promise) ?? null }
  } catch (error) {
    return { error: error.name }
  }
}

export default function Probe() {
  const cowork = window.cowork
  const [count, setCount] = useState(() => cowork.state.get()?.count ?? 0)
  const [me] = useState(() => Math.random().toString(36).slice(2, 8))
  const [messages, setMessages] = useState([])
  const [tour, setTour] = useState(null)
  const [answer, setAnswer] = useState(null)
  const [handed, setHanded] = useState(null)
  useEffect(() => cowork.app.onMessage((message) => setMessages((all) => [...all, message])), [])

  async function runTour() {
    const run = await settle(cowork.routines.run("probe-echo", { say: "hi" }))
    const runs = await settle(cowork.routines.runs("probe-echo"))
    setTour({
      log: await settle(cowork.log("probe says hi")),
      badge: await settle(cowork.badge(2)),
      run,
      runs: runs.ok ? runs.ok.map((each) => [each.routine, each.app]) : runs,
      user: await settle(cowork.identity.currentUser()),
      credential: await settle(cowork.credentials.get("google")),
      agent: await settle(
        Promise.all([
          cowork.agent.setContext({ page: "probe" }),
          cowork.agent.select("the selected text"),
          cowork.chat.ask("What changed?"),
        ]),
      ),
      tooBig: await settle(cowork.state.set({ count, blob: "x".repeat(300 * 1024) })),
    })
  }

  async function report() {
    let alert
    let text = ""
    for (;;) {
      const { label, values } = await cowork.ui.dialog({
        message: "Report a bug",
        alert,
        fields: [
          {
            id: "where",
            type: "section",
            label: "Where",
            placeholder: "Probe › Report",
            monospace: true,
          },
          { id: "text", type: "textarea", label: "What happened", value: text },
        ],
        buttons: [
          { label: "Cancel", role: "cancel" },
          { label: "Send", role: "submit", primary: true },
        ],
      })
      if (label !== "Send") return setAnswer({ label })
      text = values.text
      if (text.length >= 10) break
      alert = { variant: "destructive", text: "Say a little more: 10 characters at least." }
    }
    const sure = await cowork.ui.confirm({ title: "Send the report?", confirmLabel: "Send" })
    setAnswer({ text, sure })
  }

  async function handOff() {
    const sent = await settle(
      cowork.queue.send("inbox", { body: "Summarise the launch plan", to: "claude", review: true }),
    )
    setHanded(sent.ok ? { id: sent.ok.id, status: sent.ok.status } : sent)
  }

  function increment() {
    setCount(count + 1)
    cowork.state.set({ count: count + 1 })
  }

  return (
    <div className="flex h-full flex-col gap-3 bg-background p-4 text-foreground">
      <div className="flex flex-wrap gap-2">
        <Button data-testid="tour" onClick={runTour}>
          Tour
        </Button>
        <Button data-testid="post" variant="outline" onClick={() => cowork.app.post({ from: me })}>
          Post
        </Button>
        <Button data-testid="count" variant="outline" onClick={increment}>
          Count {count}
        </Button>
        <Button data-testid="report" variant="outline" onClick={report}>
          Report a bug
        </Button>
        <Button data-testid="hand-off" variant="outline" onClick={handOff}>
          Hand off
        </Button>
      </div>
      <p data-testid="version">version 1</p>
      <p data-testid="me">{me}</p>
      <pre data-testid="messages" className="text-xs">
        {JSON.stringify(messages)}
      </pre>
      <pre data-testid="answer" className="text-xs">
        {answer ? JSON.stringify(answer) : ""}
      </pre>
      <pre data-testid="handed" className="text-xs">
        {handed ? JSON.stringify(handed) : ""}
      </pre>
      <pre data-testid="result" className="overflow-auto text-xs">
        {tour ? JSON.stringify(tour) : ""}
      </pre>
    </div>
  )
}
