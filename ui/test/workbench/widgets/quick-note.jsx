// A quick-capture modal: asks Cowork's dialog (window- and pane-scoped) and shows the answer.
import { useState } from "react"
import { Button } from "@/components/ui/button"
import { Textarea } from "@/components/ui/textarea"

export default function QuickNote() {
  const cowork = window.cowork
  const [answer, setAnswer] = useState(null)
  async function save() {
    setAnswer(
      await cowork.ui.dialog({
        type: "question",
        message: "Save the note?",
        detail: "It goes to Notes/Inbox.",
        fields: [
          { id: "title", type: "text", label: "Title", value: "Groceries" },
          {
            id: "folder",
            type: "select",
            label: "Folder",
            value: "inbox",
            options: [
              { label: "Inbox", value: "inbox" },
              { label: "Archive", value: "archive" },
            ],
          },
          { id: "count", type: "number", label: "Copies", value: 1 },
          { id: "pin", type: "checkbox", label: "Pin it" },
          {
            id: "color",
            type: "color",
            label: "Colour",
            value: "",
            options: [
              { label: "None", value: "" },
              { label: "Red", value: "#e5484d" },
              { label: "Blue", value: "#0090ff" },
            ],
          },
        ],
        buttons: [
          { label: "Cancel", role: "cancel" },
          { label: "Save", role: "submit", primary: true, values: { saved: true } },
        ],
      }),
    )
  }
  // As a menu item does: the menu closes after the dialog opened and gives the focus back to its
  // trigger, here in the frame.
  async function fromMenu(event) {
    const trigger = event.currentTarget
    const asked = cowork.ui.dialog({
      message: "Rename the note",
      fields: [{ id: "title", type: "text", label: "New title", value: "" }],
    })
    setTimeout(() => trigger.focus(), 150)
    setAnswer(await asked)
  }
  async function look() {
    setAnswer(
      await cowork.ui.dialog({
        scope: "pane",
        message: "Paper style",
        buttons: [
          { label: "Lined", card: true, sublabel: "Ruled lines", role: "submit" },
          { label: "Plain", card: true, sublabel: "Nothing on it", role: "submit" },
          { label: "Cancel", role: "cancel" },
        ],
      }),
    )
  }
  return (
    <div className="flex h-full flex-col gap-3 bg-background p-4 text-foreground">
      <Textarea className="flex-1" placeholder="Write it down…" defaultValue="Milk, eggs, coffee" />
      <div className="flex items-center gap-2">
        <pre data-testid="answer" className="min-w-0 flex-1 truncate text-xs text-muted-foreground">
          {answer ? JSON.stringify(answer) : ""}
        </pre>
        <Button variant="outline" data-testid="rename" onClick={fromMenu}>
          Rename…
        </Button>
        <Button variant="outline" data-testid="look" onClick={look}>
          Paper…
        </Button>
        <Button data-testid="save" onClick={save}>
          Save
        </Button>
      </div>
    </div>
  )
}
