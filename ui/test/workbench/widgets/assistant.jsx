// A right-side-bar app: a small chat surface.
import { useState } from "react"
import { Button } from "@/components/ui/button"
import { Input } from "@/components/ui/input"
import { Sparkles } from "lucide-react"

export default function Assistant() {
  const cowork = window.cowork
  const [link, setLink] = useState("")
  function openDocs() {
    cowork.openExternal("https://example.com/docs").then(() => setLink("opened"), (error) => setLink(error.name))
  }
  return (
    <div className="flex h-full flex-col bg-background text-foreground">
      <div className="flex flex-1 flex-col gap-3 overflow-auto p-3">
        <div className="flex gap-2">
          <Sparkles className="mt-1 size-4 shrink-0 text-violet-500" />
          <p className="rounded-lg bg-muted px-3 py-2 text-sm">Hi! Ask me about this workspace's notes and sales.</p>
        </div>
        <Button variant="link" size="sm" className="self-start" data-testid="docs" onClick={openDocs}>Read the docs</Button>
        <p data-testid="link" className="text-xs text-muted-foreground">{link}</p>
      </div>
      <form className="flex gap-2 border-t p-2" onSubmit={(e) => { e.preventDefault(); cowork.notify({ title: "Assistant", body: "Thinking…" }) }}>
        <Input placeholder="Ask anything" />
        <Button type="submit" data-testid="ask">Ask</Button>
      </form>
    </div>
  )
}
