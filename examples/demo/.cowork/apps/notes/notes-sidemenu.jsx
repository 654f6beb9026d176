// The notes sidebar: the list (kept fresh by one `notes-list` subscription), a search box, New note,
// and a menu per note to rename or delete it. A row opens the note's file, which the
// `**/*.note.json` route shows as `note-page.jsx`.
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Skeleton } from "@/components/ui/skeleton";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { AlertCircle, FileText, MoreHorizontal, Pencil, Plus, Search, StickyNote, Trash2, X } from "lucide-react";

const cowork = window.cowork;

/** "just now", "5 min ago", "3 h ago", "Mar 4" — how long ago a note changed. */
function ago(iso) {
  const minutes = Math.round((Date.now() - Date.parse(iso)) / 60000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 24 * 60) return `${Math.round(minutes / 60)} h ago`;
  return new Date(iso).toLocaleDateString([], { month: "short", day: "numeric" });
}

/** A routine's failure: its name, its message and the run to look up (`cowork routine runs show`). */
function Failure({ error, onDismiss }) {
  return (
    <div role="alert" className="mx-2 mb-2 flex gap-2 rounded-md border border-destructive/40 bg-destructive/10 p-2 text-xs text-destructive">
      <AlertCircle className="mt-0.5 size-3.5 shrink-0" />
      <div className="min-w-0 flex-1">
        <span className="font-semibold">{error.name}</span>: {error.message}
        {error.runId && <div className="mt-0.5 font-mono opacity-70">run {error.runId.slice(0, 8)}</div>}
      </div>
      {onDismiss && (
        <button type="button" aria-label="Dismiss" className="h-fit rounded-sm opacity-70 hover:opacity-100" onClick={onDismiss}>
          <X className="size-3.5" />
        </button>
      )}
    </div>
  );
}

function NoteRow({ note, onRename, onDelete }) {
  return (
    <div className="group relative">
      <button
        type="button"
        onClick={() => cowork.openFile(note.path)}
        className="flex w-full items-start gap-2.5 rounded-md px-2 py-2 pr-8 text-left transition-colors hover:bg-accent hover:text-accent-foreground"
      >
        <FileText className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
        <span className="grid min-w-0 flex-1 gap-0.5">
          <span className="truncate text-sm font-medium">{note.title}</span>
          <span className="truncate text-xs text-muted-foreground">{note.preview || "Empty note"}</span>
          <span className="text-[11px] text-muted-foreground/80">{ago(note.updated)}</span>
        </span>
      </button>
      <DropdownMenu>
        <DropdownMenuTrigger asChild>
          <Button
            size="icon-xs"
            variant="ghost"
            aria-label={`More for ${note.title}`}
            className="absolute right-1.5 top-2 opacity-0 group-hover:opacity-100 focus-visible:opacity-100 data-[state=open]:opacity-100"
          >
            <MoreHorizontal />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end">
          <DropdownMenuItem onSelect={() => cowork.openFile(note.path)}><FileText /> Open</DropdownMenuItem>
          <DropdownMenuItem onSelect={() => onRename(note)}><Pencil /> Rename…</DropdownMenuItem>
          <DropdownMenuSeparator />
          <DropdownMenuItem variant="destructive" onSelect={() => onDelete(note)}><Trash2 /> Delete…</DropdownMenuItem>
        </DropdownMenuContent>
      </DropdownMenu>
    </div>
  );
}

function Empty({ query, onCreate }) {
  return (
    <div className="flex flex-col items-center gap-3 px-4 py-10 text-center">
      <div className="rounded-full bg-muted p-3"><StickyNote className="size-5 text-muted-foreground" /></div>
      <p className="text-sm text-muted-foreground">{query ? `No note mentions “${query}”.` : "No notes yet. Jot the first one down."}</p>
      {!query && <Button size="sm" onClick={onCreate}><Plus /> New note</Button>}
    </div>
  );
}

export default function NotesSidemenu() {
  const [notes, setNotes] = useState(() => cowork.state.get()?.notes ?? null); // null: skeleton rows
  const [query, setQuery] = useState("");
  const [searched, setSearched] = useState(""); // the query the list answers, a moment after typing
  const [readError, setReadError] = useState(null);
  const [actionError, setActionError] = useState(null); // kept until dismissed or the next action
  const list = useRef(null);
  // Each row says how long ago its note changed: drawn again each minute, so "5 min ago" keeps true.
  const [, setMinute] = useState(0);
  useEffect(() => {
    const each = setInterval(() => setMinute((n) => n + 1), 60_000);
    return () => clearInterval(each);
  }, []);

  useEffect(() => {
    const wait = setTimeout(() => setSearched(query.trim()), 250);
    return () => clearTimeout(wait);
  }, [query]);

  useEffect(() => {
    list.current = cowork.routines.subscribe("notes-list", searched ? { query: searched } : {}, {
      interval: 60,
      onData: (answer) => {
        setNotes(answer.notes);
        setReadError(null);
        if (!searched) cowork.state.set({ notes: answer.notes.slice(0, 50) }); // the cache stays small
      },
      onError: setReadError,
    });
    return () => list.current.close();
  }, [searched]);

  // The note page posts {type: "changed"} after a save or a delete.
  useEffect(() => cowork.app.onMessage((message) => message?.type === "changed" && list.current?.refresh()), []);

  async function act(work) {
    setActionError(null);
    try {
      const changed = await work(); // {id, removed?}, or nothing when the person cancelled
      if (!changed) return;
      cowork.app.post({ type: "changed", ...changed });
      await list.current?.refresh();
    } catch (error) {
      setActionError(error);
    }
  }

  async function askTitle(message, value, label) {
    const { label: chosen, values } = await cowork.ui.dialog({
      type: "none",
      message,
      fields: [{ id: "title", type: "text", label: "Title", value, placeholder: "Launch plan" }],
      buttons: [{ label: "Cancel", role: "cancel" }, { label, role: "submit", primary: true }],
    });
    const title = String(values.title ?? "").trim();
    return chosen === label && title ? title : null;
  }

  const create = () => act(async () => {
    const title = await askTitle("New note", "", "Create");
    if (!title) return false;
    const note = await cowork.routines.run("notes-save", { title });
    cowork.openFile(note.path);
    return { id: note.id };
  });

  const rename = (note) => act(async () => {
    const title = await askTitle(`Rename “${note.title}”`, note.title, "Rename");
    if (!title || title === note.title) return false;
    await cowork.routines.run("notes-save", { id: note.id, title });
    return { id: note.id };
  });

  const remove = (note) => act(async () => {
    const sure = await cowork.ui.confirm({
      title: `Delete “${note.title}”?`,
      body: "The note's file is deleted for good. This cannot be undone.",
      confirmLabel: "Delete",
      destructive: true,
    });
    if (!sure) return null;
    await cowork.routines.run("notes-remove", { id: note.id });
    return { id: note.id, removed: true };
  });

  return (
    <div className="flex h-full flex-col bg-background text-foreground">
      <div className="flex items-center gap-2 px-3 pb-2 pt-3">
        <span className="text-xs text-muted-foreground">
          {notes === null ? "Loading…" : `${notes.length} note${notes.length === 1 ? "" : "s"}${searched ? " found" : ""}`}
        </span>
        <Button size="sm" className="ml-auto h-7" onClick={create}><Plus /> New note</Button>
      </div>
      <div className="relative px-3 pb-2">
        <Search className="pointer-events-none absolute left-5 top-2 size-4 text-muted-foreground" />
        <Input value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Search notes" aria-label="Search notes" className="h-8 pl-8 text-sm" />
      </div>
      {actionError && <Failure error={actionError} onDismiss={() => setActionError(null)} />}
      {readError && <Failure error={readError} />}
      <div className="min-h-0 flex-1 overflow-y-auto px-1 pb-2">
        {notes === null
          ? [0, 1, 2, 3].map((i) => (
              <div key={i} className="flex gap-2.5 px-2 py-2">
                <Skeleton className="size-4" />
                <div className="grid flex-1 gap-1.5"><Skeleton className="h-3.5 w-2/3" /><Skeleton className="h-3 w-full" /></div>
              </div>
            ))
          : notes.map((note) => <NoteRow key={note.id} note={note} onRename={rename} onDelete={remove} />)}
        {notes?.length === 0 && <Empty query={searched} onCreate={create} />}
      </div>
    </div>
  );
}
