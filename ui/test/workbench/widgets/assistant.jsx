// A right-side-bar app: a small chat surface, with a plain link, a sign-in and title-bar buttons.
import { useEffect, useState } from "react"
import { Button } from "@/components/ui/button"
import { Input } from "@/components/ui/input"
import { Sparkles } from "lucide-react"

export default function Assistant() {
  const cowork = window.cowork
  const [link, setLink] = useState("")
  const [said, setSaid] = useState("")
  useEffect(() => {
    cowork.setTitleActions([{ id: "clear", icon: "clear-all", tooltip: "Clear the conversation" }])
    return cowork.onTitleAction((id) => setSaid(`title action: ${id}`))
  }, [])
  function openDocs() {
    cowork.openExternal("https://example.com/docs").then(
      () => setLink("opened"),
      (error) => setLink(error.name),
    )
  }
  function connect(name) {
    cowork.credentials.connect(name).then(
      (credential) => setSaid(`${credential.name}: ${credential.state}`),
      (error) => setSaid(`${error.name}: ${error.message}`),
    )
  }
  return (
    <div className="flex h-full flex-col bg-background text-foreground">
      <div className="flex flex-1 flex-col gap-3 overflow-auto p-3">
        <div className="flex gap-2">
          <Sparkles className="mt-1 size-4 shrink-0 text-violet-500" />
          <p className="rounded-lg bg-muted px-3 py-2 text-sm">
            Hi! Ask me about this workspace's notes and sales. See{" "}
            <a href="https://example.com/guide" className="underline">
              the guide
            </a>
            .
          </p>
        </div>
        <Button
          variant="link"
          size="sm"
          className="self-start"
          data-testid="docs"
          onClick={openDocs}
        >
          Read the docs
        </Button>
        <p data-testid="link" className="text-xs text-muted-foreground">
          {link}
        </p>
        <div className="flex gap-2">
          <Button
            variant="outline"
            size="sm"
            data-testid="connect-google"
            onClick={() => connect("google")}
          >
            Connect Google
          </Button>
          <Button
            variant="outline"
            size="sm"
            data-testid="connect-vm"
            onClick={() => connect("vm")}
          >
            Connect VM
          </Button>
        </div>
        <p data-testid="said" className="text-xs text-muted-foreground">
          {said}
        </p>
      </div>
      <form
        className="flex gap-2 border-t p-2"
        onSubmit={(e) => {
          e.preventDefault()
          cowork.notify({ title: "Thinking about it", body: "Asked from the form" })
        }}
      >
        <Input placeholder="Ask anything" />
        <Button type="submit" data-testid="ask">
          Ask
        </Button>
      </form>
    </div>
  )
}
