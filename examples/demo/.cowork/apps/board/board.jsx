// The task board: the `tasks` capability (this app `uses` it) as two columns, Open and Done, kept
// fresh by one `tasks-list` subscription. Add, complete, delete (after a confirm) and share the
// open tasks (`tasks-share`, which reaches other people — so it asks first, in Cowork's dialog).
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";
import { Skeleton } from "@/components/ui/skeleton";
import { cn } from "@/lib/utils";
import { AlertCircle, CalendarDays, CheckCircle2, Circle, KanbanSquare, Plus, Send, Trash2, X } from "lucide-react";

const cowork = window.cowork;
const today = () => new Date().toLocaleDateString("sv"); // YYYY-MM-DD, this computer's day
const short = (iso) => new Date(iso.length === 10 ? `${iso}T00:00` : iso).toLocaleDateString([], { month: "short", day: "numeric" });

function Banner({ error, notice, onDismiss }) {
  return (
    <div
      role={error ? "alert" : "status"}
      className={cn("flex items-start gap-2 rounded-md border px-3 py-2 text-sm", error ? "border-destructive/40 bg-destructive/10 text-destructive" : "bg-muted")}
    >
      {error ? <AlertCircle className="mt-0.5 size-4 shrink-0" /> : <Send className="mt-0.5 size-4 shrink-0 text-muted-foreground" />}
      <div className="min-w-0 flex-1">
        {error ? <><span className="font-semibold">{error.name}</span>: {error.message}</> : notice}
        {error?.runId && <span className="ml-2 font-mono text-xs opacity-70">run {error.runId.slice(0, 8)}</span>}
      </div>
      {onDismiss && <button type="button" aria-label="Dismiss" className="opacity-70 hover:opacity-100" onClick={onDismiss}><X className="size-4" /></button>}
    </div>
  );
}

function Due({ due, done }) {
  const late = !done && due < today();
  const now = !done && due === today();
  return (
    <Badge variant={late ? "destructive" : "outline"} className={cn("font-normal", now && "border-primary")}>
      <CalendarDays /> {late ? "Overdue · " : now ? "Today · " : ""}{short(due)}
    </Badge>
  );
}

function TaskCard({ task, busy, ticked, onComplete, onDelete }) {
  const done = task.status === "done";
  return (
    <div className="group flex items-start gap-3 rounded-lg border bg-card p-3 text-card-foreground shadow-xs transition-colors hover:border-ring/60">
      {done ? (
        <CheckCircle2 className="mt-0.5 size-4 shrink-0 text-primary" />
      ) : (
        <Checkbox className="mt-0.5" checked={ticked} disabled={busy} onCheckedChange={() => onComplete(task)} aria-label={`Complete ${task.title}`} />
      )}
      <div className="grid min-w-0 flex-1 gap-1.5">
        <span className={cn("text-sm leading-snug wrap-anywhere", done && "text-muted-foreground line-through")}>{task.title}</span>
        <div className="flex flex-wrap items-center gap-1.5 text-xs text-muted-foreground">
          <span className="font-mono">#{task.id}</span>
          {task.due && <Due due={task.due} done={done} />}
          <span>{done ? `done ${short(task.completedAt)}` : `added ${short(task.createdAt)}`}</span>
        </div>
      </div>
      <Button
        size="icon-xs"
        variant="ghost"
        aria-label={`Delete ${task.title}`}
        className="opacity-0 group-hover:opacity-100 focus-visible:opacity-100"
        disabled={busy}
        onClick={() => onDelete(task)}
      >
        <Trash2 />
      </Button>
    </div>
  );
}

// Side by side (md and wider) each column scrolls within the board's height; narrower, they stack
// at their full height and the board scrolls as one — the desktop app's smallest window (760×480)
// would otherwise leave each stacked column a slit one card tall.
function Column({ title, icon, count, empty, children }) {
  return (
    <section className="flex flex-col rounded-xl border bg-muted/40 md:min-h-0">
      <header className="flex items-center gap-2 px-4 py-3">
        {icon}
        <h2 className="text-sm font-semibold">{title}</h2>
        <Badge variant="secondary">{count ?? "–"}</Badge>
      </header>
      <div className="grid grid-cols-[minmax(0,1fr)] content-start gap-2 px-3 pb-3 md:min-h-0 md:flex-1 md:overflow-y-auto">
        {children}
        {count === 0 && <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">{empty}</p>}
      </div>
    </section>
  );
}

export default function Board() {
  const [list, setList] = useState(() => cowork.state.get() ?? null); // {tasks, open, done}
  const [readError, setReadError] = useState(null);
  const [actionError, setActionError] = useState(null);
  const [notice, setNotice] = useState(null);
  const [busy, setBusy] = useState(false);
  const [ticked, setTicked] = useState(null); // the task being completed, checked at once
  const [title, setTitle] = useState("");
  const [due, setDue] = useState("");
  const tasks = useRef(null);

  useEffect(() => {
    tasks.current = cowork.routines.subscribe("tasks-list", {}, {
      interval: 60,
      onData: (answer) => {
        setList(answer);
        setReadError(null);
        const open = answer.tasks.filter((t) => t.status === "open").slice(0, 100);
        const done = answer.tasks.filter((t) => t.status === "done").slice(-50);
        cowork.state.set({ ...answer, tasks: [...open, ...done] }); // a bounded cache for the next paint
      },
      onError: setReadError,
    });
    const stop = cowork.app.onMessage((message) => message?.type === "changed" && tasks.current.refresh());
    return () => { tasks.current.close(); stop(); };
  }, []);

  async function act(work) {
    setActionError(null);
    setNotice(null);
    setBusy(true);
    try {
      if (await work()) {
        cowork.app.post({ type: "changed" });
        // The footer counts open tasks too (Standup's item): it catches up now, not at its interval.
        await Promise.all([tasks.current.refresh(), cowork.statusBar.refresh()]);
      }
    } catch (error) {
      setActionError(error);
    } finally {
      setBusy(false);
      setTicked(null);
    }
  }

  // No <form>: a pane is sandboxed without allow-forms, so the browser would block its submit.
  const add = () => {
    if (!title.trim()) return;
    act(async () => {
      await cowork.routines.run("tasks-add", due ? { title: title.trim(), due } : { title: title.trim() });
      setTitle("");
      setDue("");
      return true;
    });
  };
  const complete = (task) => { setTicked(task.id); act(() => cowork.routines.run("tasks-complete", { id: task.id })); };
  const remove = (task) => act(async () => {
    const sure = await cowork.ui.confirm({ title: `Delete “${task.title}”?`, body: "The task is gone for good — completing it keeps it in Done.", confirmLabel: "Delete", destructive: true });
    return sure && cowork.routines.run("tasks-delete", { id: task.id });
  });
  const share = () => act(async () => {
    const { label, values } = await cowork.ui.dialog({
      type: "none",
      message: `Share ${list?.open ?? "the"} open task${list?.open === 1 ? "" : "s"}?`,
      detail: "They are sent as a digest to the people you name — beyond this workspace.",
      fields: [
        { id: "to", type: "text", label: "To", value: "#team", placeholder: "#team or name@example.com" },
        { id: "message", type: "textarea", label: "Message (optional)", placeholder: "Where we are this week" },
      ],
      buttons: [{ label: "Cancel", role: "cancel" }, { label: "Share", role: "submit", primary: true }],
    });
    if (label !== "Share") return false;
    const sent = await cowork.routines.run("tasks-share", { to: String(values.to ?? ""), message: String(values.message ?? "") });
    setNotice(sent.shared ? `Shared ${sent.count} open task${sent.count === 1 ? "" : "s"} with ${sent.to}.` : "Nothing is open, so nothing was sent.");
    return false;
  });

  const open = list?.tasks.filter((t) => t.status === "open") ?? [];
  const done = (list?.tasks.filter((t) => t.status === "done") ?? []).sort((a, b) => b.completedAt.localeCompare(a.completedAt));
  const cards = (rows) => rows.map((t) => <TaskCard key={t.id} task={t} busy={busy} ticked={ticked === t.id} onComplete={complete} onDelete={remove} />);
  const skeleton = [0, 1, 2].map((i) => <Skeleton key={i} className="h-16 w-full rounded-lg" />);

  return (
    <div className="flex h-full flex-col gap-4 overflow-y-auto bg-background p-4 text-foreground sm:p-6">
      <header className="flex flex-wrap items-center gap-3">
        <div className="rounded-lg bg-primary p-2 text-primary-foreground"><KanbanSquare className="size-5" /></div>
        <div>
          <h1 className="text-lg font-semibold leading-tight">Board</h1>
          <p className="text-xs text-muted-foreground">{list ? `${list.open} open · ${list.done} done` : "Loading tasks…"}</p>
        </div>
        <Button variant="outline" className="ml-auto" onClick={share} disabled={busy || !list?.open}><Send /> Share open tasks</Button>
      </header>
      <div className="flex flex-wrap gap-2">
        <Input
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && add()}
          placeholder="Add a task…"
          aria-label="New task"
          maxLength={200}
          className="min-w-48 flex-1"
        />
        <Input type="date" value={due} onChange={(e) => setDue(e.target.value)} aria-label="Due date" className="w-40 dark:[color-scheme:dark]" />
        <Button onClick={add} disabled={!title.trim() || busy}><Plus /> Add task</Button>
      </div>
      {actionError && <Banner error={actionError} onDismiss={() => setActionError(null)} />}
      {readError && <Banner error={readError} />}
      {notice && <Banner notice={notice} onDismiss={() => setNotice(null)} />}
      <div className="grid grid-cols-[minmax(0,1fr)] gap-4 md:min-h-72 md:flex-1 md:auto-rows-[minmax(0,1fr)] md:grid-cols-2">
        <Column title="Open" icon={<Circle className="size-4 text-muted-foreground" />} count={list?.open} empty="Nothing open. Add a task above.">
          {list ? cards(open) : skeleton}
        </Column>
        <Column title="Done" icon={<CheckCircle2 className="size-4 text-muted-foreground" />} count={list?.done} empty="Completed tasks land here.">
          {list ? cards(done) : skeleton}
        </Column>
      </div>
    </div>
  );
}
