// The notes sidebar — a placeholder until the workbench UI: the list, kept fresh with
// `cowork.routines.subscribe`, and a button that creates a note.
import { useEffect, useRef, useState } from "react";

const routines = window.cowork.routines;

function Failure({ error, onDismiss }) {
  return (
    <div className="m-2 rounded border border-destructive/50 p-2 text-xs text-destructive">
      <b>{error.name}</b>: {error.message}
      {error.runId ? <div className="text-muted-foreground">cowork routine runs show {error.runId.slice(0, 8)}</div> : null}
      {onDismiss ? (
        <button className="mt-1 underline" onClick={onDismiss}>
          Dismiss
        </button>
      ) : null}
    </div>
  );
}

export default function NotesSidemenu() {
  const [notes, setNotes] = useState(null); // null until the first answer: skeleton rows
  const [readError, setReadError] = useState(null);
  const [actionError, setActionError] = useState(null);
  const subscription = useRef(null);

  useEffect(() => {
    const s = routines.subscribe("notes-list", {}, {
      interval: 60,
      onData: (data) => {
        setNotes(data.notes);
        setReadError(null);
      },
      onError: setReadError,
    });
    subscription.current = s;
    return () => s.close();
  }, []);

  async function createNote() {
    setActionError(null);
    try {
      await routines.run("notes-save", { title: "Untitled" });
      subscription.current?.refresh();
    } catch (error) {
      setActionError(error);
    }
  }

  return (
    <div className="flex h-full flex-col bg-background text-foreground">
      <div className="flex items-center justify-between border-b p-2">
        <span className="text-sm font-semibold">Notes</span>
        <button className="rounded bg-primary px-2 py-1 text-xs text-primary-foreground" onClick={createNote}>
          New note
        </button>
      </div>
      {actionError ? <Failure error={actionError} onDismiss={() => setActionError(null)} /> : null}
      {readError ? <Failure error={readError} /> : null}
      <ul className="flex-1 overflow-y-auto">
        {notes === null
          ? [0, 1, 2].map((i) => <li key={i} className="m-2 h-8 animate-pulse rounded bg-muted" />)
          : notes.map((note) => (
              <li key={note.id} className="border-b px-2 py-1">
                <div className="truncate text-sm">{note.title}</div>
                <div className="truncate text-xs text-muted-foreground">{note.preview || "Empty note"}</div>
              </li>
            ))}
        {notes !== null && notes.length === 0 ? <li className="p-2 text-xs text-muted-foreground">No notes yet.</li> : null}
      </ul>
    </div>
  );
}
