// One note as a page (the `**/*.note.json` route). The page only knows the path of the file it was
// opened for: `notes-read {path}` reads it, `notes-save` saves it (the button or Cmd/Ctrl-S),
// `notes-remove` deletes it after a confirm. It tells the sidebar with `cowork.app.post`.
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { Skeleton } from "@/components/ui/skeleton";
import { AlertCircle, Check, CircleDot, FileQuestion, FileText, Loader2, Save, Trash2, X } from "lucide-react";

const cowork = window.cowork;
const mac = /Mac|iPhone|iPad/.test(navigator.platform);

const when = (iso) => new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
const words = (text) => (text.trim() ? text.trim().split(/\s+/).length : 0);

function Failure({ error, onDismiss }) {
  return (
    <div role="alert" className="flex items-start gap-2 rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2 text-sm text-destructive">
      <AlertCircle className="mt-0.5 size-4 shrink-0" />
      <div className="min-w-0 flex-1">
        <span className="font-semibold">{error.name}</span>: {error.message}
        {error.runId && <span className="ml-2 font-mono text-xs opacity-70">run {error.runId.slice(0, 8)}</span>}
      </div>
      {onDismiss && (
        <button type="button" aria-label="Dismiss" className="rounded-sm opacity-70 hover:opacity-100" onClick={onDismiss}>
          <X className="size-4" />
        </button>
      )}
    </div>
  );
}

/** Saving…, Unsaved changes, or Saved — what the person needs to know before closing the tab. */
function SaveState({ saving, dirty }) {
  const [icon, text] = saving
    ? [<Loader2 key="i" className="size-3.5 animate-spin" />, "Saving…"]
    : dirty
      ? [<CircleDot key="i" className="size-3.5" />, "Unsaved changes"]
      : [<Check key="i" className="size-3.5" />, "Saved"];
  return <span className="flex items-center gap-1.5 text-xs text-muted-foreground" aria-live="polite">{icon}{text}</span>;
}

function Gone({ message }) {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-3 bg-background p-8 text-center text-foreground">
      <div className="rounded-full bg-muted p-4"><FileQuestion className="size-6 text-muted-foreground" /></div>
      <h2 className="text-lg font-semibold">This note is not here</h2>
      <p className="max-w-sm text-sm text-muted-foreground">{message}</p>
      <Button variant="outline" onClick={() => cowork.closeTab()}>Close tab</Button>
    </div>
  );
}

export default function NotePage() {
  const path = cowork.openedFile?.workspaceRelativePath; // e.g. .cowork/data/notes/launch-plan.note.json
  const cached = cowork.state.get();
  const [note, setNote] = useState(cached?.note ?? null); // as last read or saved
  const [draft, setDraft] = useState(cached?.draft ?? cached?.note ?? null); // what the editor shows
  const [saving, setSaving] = useState(false);
  const [gone, setGone] = useState(null);
  const [readError, setReadError] = useState(null);
  const [actionError, setActionError] = useState(null);
  const dirty = !!note && !!draft && (draft.title !== note.title || draft.body !== note.body);
  const latest = useRef({});
  latest.current = { note, draft, dirty, saving };

  async function load() {
    try {
      const read = await cowork.routines.run("notes-read", { path });
      setNote(read);
      setReadError(null);
      if (!latest.current.dirty) setDraft({ title: read.title, body: read.body });
    } catch (error) {
      if (error.name === "NotFound") setGone(error.message);
      else setReadError(error);
    }
  }

  useEffect(() => {
    if (path) load();
    // Another pane renamed or deleted this note: follow it (an unsaved draft is left alone).
    return cowork.app.onMessage((message) => {
      if (message?.type !== "changed" || message.id !== latest.current.note?.id) return;
      if (message.removed) setGone("It was deleted.");
      else if (!latest.current.dirty) load();
    });
  }, []);

  // The draft survives a reload of the pane; written a moment after typing stops.
  useEffect(() => {
    const wait = setTimeout(() => note && cowork.state.set({ note, draft: dirty ? draft : undefined }), 400);
    return () => clearTimeout(wait);
  }, [note, draft]);

  async function save() {
    const { note, draft, dirty, saving } = latest.current;
    if (!dirty || saving || !draft.title.trim()) return;
    setSaving(true);
    setActionError(null);
    try {
      const saved = await cowork.routines.run("notes-save", { id: note.id, title: draft.title, body: draft.body });
      setNote(saved);
      setDraft((now) => (now === draft ? { title: saved.title, body: saved.body } : now)); // typed on? keep it
      cowork.app.post({ type: "changed", id: saved.id });
    } catch (error) {
      setActionError(error);
    } finally {
      setSaving(false);
    }
  }

  async function remove() {
    setActionError(null);
    const sure = await cowork.ui.confirm({
      title: `Delete “${note.title}”?`,
      body: "The note's file is deleted for good. This cannot be undone.",
      confirmLabel: "Delete",
      destructive: true,
    });
    if (!sure) return;
    try {
      await cowork.routines.run("notes-remove", { id: note.id });
      cowork.app.post({ type: "changed", id: note.id, removed: true });
      cowork.closeTab();
    } catch (error) {
      setActionError(error);
    }
  }

  useEffect(() => {
    const onKey = (e) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === "s") {
        e.preventDefault();
        save();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  if (!path) return <Gone message="Open a note from the Notes sidebar: this page shows one .note.json file." />;
  if (gone) return <Gone message={gone} />;
  const edit = (change) => setDraft((d) => ({ ...d, ...change }));

  return (
    <div className="flex h-full flex-col bg-background text-foreground">
      <header className="flex items-center gap-2 border-b px-4 py-2">
        <FileText className="size-4 shrink-0 text-muted-foreground" />
        <span className="min-w-0 truncate text-sm text-muted-foreground">
          Notes <span className="px-1">/</span> <span className="text-foreground">{draft?.title || note?.id || "…"}</span>
        </span>
        <div className="ml-auto flex items-center gap-2">
          {note && <SaveState saving={saving} dirty={dirty} />}
          <Button size="sm" variant={dirty ? "default" : "outline"} onClick={save} disabled={!dirty || saving || !draft?.title.trim()} title={`Save (${mac ? "⌘" : "Ctrl+"}S)`}>
            <Save /> Save
          </Button>
          <Button size="icon-sm" variant="ghost" aria-label="Delete note" title="Delete note" onClick={remove} disabled={!note}>
            <Trash2 />
          </Button>
        </div>
      </header>
      <main className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto flex min-h-full w-full max-w-3xl flex-col gap-3 px-6 py-6">
          {actionError && <Failure error={actionError} onDismiss={() => setActionError(null)} />}
          {readError && <Failure error={readError} />}
          {!draft ? (
            <div className="grid gap-3">
              <Skeleton className="h-9 w-1/2" /><Skeleton className="h-4 w-40" />
              <Skeleton className="h-4 w-full" /><Skeleton className="h-4 w-5/6" /><Skeleton className="h-4 w-2/3" />
            </div>
          ) : (
            <>
              <Input
                value={draft.title}
                onChange={(e) => edit({ title: e.target.value })}
                placeholder="Title"
                aria-label="Title"
                aria-invalid={!draft.title.trim() || undefined}
                className="h-auto truncate border-none bg-transparent px-0 text-2xl font-semibold shadow-none focus-visible:ring-0 md:text-2xl dark:bg-transparent"
              />
              <p className="text-xs text-muted-foreground">
                Created {when(note.created)} · Updated {when(note.updated)}
                {!draft.title.trim() && <span className="ml-2 text-destructive">A note needs a title to be saved.</span>}
              </p>
              <Textarea
                value={draft.body}
                onChange={(e) => edit({ body: e.target.value })}
                placeholder="Write something…"
                aria-label="Note"
                className="min-h-64 flex-1 resize-none border-none bg-transparent px-0 text-[15px] leading-relaxed shadow-none focus-visible:ring-0 dark:bg-transparent"
              />
            </>
          )}
        </div>
      </main>
      <footer className="flex items-center gap-3 border-t px-4 py-1.5 text-xs text-muted-foreground">
        <span>{draft ? `${words(draft.body)} words · ${draft.body.length} characters` : "Loading…"}</span>
        <span className="ml-auto font-mono">{path}</span>
      </footer>
    </div>
  );
}
