// One note as a page (the `**/*.note.json` route) — a placeholder until the workbench UI: the note
// is read and saved by routines; the page only knows the path of the file it was opened for.
import { useEffect, useState } from "react";

const routines = window.cowork.routines;

export default function NotePage() {
  const path = window.cowork.openedFile?.workspaceRelativePath;
  const [note, setNote] = useState(null);
  const [error, setError] = useState(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!path) return;
    routines.run("notes-read", { path }).then(setNote, setError);
  }, [path]);

  async function save() {
    setSaving(true);
    setError(null);
    try {
      setNote(await routines.run("notes-save", { id: note.id, title: note.title, body: note.body }));
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  }

  if (error && error.name === "NotFound" && !note) {
    return <div className="p-4 text-sm text-muted-foreground">This note is gone (it was removed, or is not in the notes folder).</div>;
  }
  return (
    <div className="flex h-full flex-col gap-2 overflow-y-auto bg-background p-4 text-foreground">
      {error ? (
        <div className="text-xs text-destructive">
          <b>{error.name}</b>: {error.message} {error.runId ? `(run ${error.runId.slice(0, 8)})` : ""}
        </div>
      ) : null}
      {note === null ? (
        <div className="h-8 w-1/2 animate-pulse rounded bg-muted" />
      ) : (
        <>
          <input
            className="border-b bg-transparent text-lg font-semibold outline-none"
            value={note.title}
            onChange={(e) => setNote({ ...note, title: e.target.value })}
          />
          <textarea
            className="min-h-64 flex-1 resize-none bg-transparent text-sm outline-none"
            value={note.body}
            onChange={(e) => setNote({ ...note, body: e.target.value })}
          />
          <div className="flex items-center gap-2">
            <button className="rounded bg-primary px-3 py-1 text-sm text-primary-foreground" disabled={saving} onClick={save}>
              {saving ? "Saving…" : "Save"}
            </button>
            <span className="text-xs text-muted-foreground">Updated {new Date(note.updated).toLocaleString()}</span>
          </div>
        </>
      )}
    </div>
  );
}
