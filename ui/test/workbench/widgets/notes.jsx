// The notes app's sidebar: its list through one shared subscription, each note opening as a file.
import { useEffect, useState } from "react"
import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Skeleton } from "@/components/ui/skeleton"
import { FileText, Plus } from "lucide-react"

export default function Notes() {
  const cowork = window.cowork
  const [notes, setNotes] = useState(() => cowork.state.get())
  useEffect(() => {
    const subscription = cowork.routines.subscribe(
      "notes-list",
      {},
      {
        interval: 30,
        onData: (answer) => {
          setNotes(answer.notes)
          cowork.state.set(answer.notes)
        },
      },
    )
    return () => subscription.close()
  }, [])
  return (
    <div className="flex h-full flex-col gap-1 bg-background p-2 text-foreground">
      <div className="flex items-center justify-between px-1 pb-1">
        <span className="text-xs text-muted-foreground">
          {notes ? `${notes.length} notes` : "Loading…"}
        </span>
        <Button
          size="icon-xs"
          variant="ghost"
          aria-label="New note"
          onClick={() => cowork.log("new note asked")}
        >
          <Plus />
        </Button>
      </div>
      {!notes && [0, 1, 2].map((i) => <Skeleton key={i} className="h-12 w-full" />)}
      {(notes ?? []).map((note) => (
        <button
          key={note.path}
          type="button"
          data-testid="note"
          onClick={() => cowork.openFile(note.path)}
          className="flex items-start gap-2 rounded-md px-2 py-2 text-left hover:bg-accent"
        >
          <FileText className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
          <span className="grid min-w-0 gap-0.5">
            <span className="truncate text-sm font-medium">{note.title}</span>
            <span className="truncate text-xs text-muted-foreground">{note.excerpt}</span>
          </span>
          {note.pinned && (
            <Badge variant="secondary" className="ml-auto">
              pinned
            </Badge>
          )}
        </button>
      ))}
    </div>
  )
}
