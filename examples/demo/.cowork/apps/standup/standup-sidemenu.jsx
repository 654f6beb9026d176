// The standup sidebar: the focus timer (the footer item's data; Start/Stop is the item's click), the
// open tasks from the `tasks` capability this app uses (add, complete), and today's standup-report.
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";
import { Progress } from "@/components/ui/progress";
import { Skeleton } from "@/components/ui/skeleton";
import { cn } from "@/lib/utils";
import { AlertCircle, CheckCircle2, Copy, Pause, Play, Plus, Timer, X } from "lucide-react";

const cowork = window.cowork;
const clock = (s) => `${String(Math.floor(Math.abs(s) / 60)).padStart(2, "0")}:${String(Math.floor(Math.abs(s) % 60)).padStart(2, "0")}`;

function Failure({ error, onDismiss }) {
  return (
    <div role="alert" className="flex gap-2 rounded-md border border-destructive/40 bg-destructive/10 p-2 text-xs text-destructive">
      <AlertCircle className="mt-0.5 size-3.5 shrink-0" />
      <div className="min-w-0 flex-1">
        <span className="font-semibold">{error.name}</span>: {error.message}
        {error.runId && <div className="mt-0.5 font-mono opacity-70">run {error.runId.slice(0, 8)}</div>}
      </div>
      {onDismiss && <button type="button" aria-label="Dismiss" className="h-fit opacity-70 hover:opacity-100" onClick={onDismiss}><X className="size-3.5" /></button>}
    </div>
  );
}

function Section({ title, count, action, children }) {
  return (
    <section className="grid grid-cols-[minmax(0,1fr)] gap-2">
      <div className="flex items-center gap-2">
        <h3 className="text-xs font-semibold uppercase tracking-wide text-muted-foreground">{title}</h3>
        {count !== undefined && <Badge variant="secondary" className="px-1.5">{count}</Badge>}
        <div className="ml-auto">{action}</div>
      </div>
      {children}
    </section>
  );
}

const Rows = ({ n = 3 }) => Array.from({ length: n }, (_, i) => <Skeleton key={i} className="h-7 w-full" />);

/** The focus timer as the footer item last drew it, counting down on screen between its refreshes. */
function FocusCard({ item, onToggle, busy }) {
  const data = item?.data;
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!data?.running) return;
    // A clock tick for the display only — the timer itself lives in the routine, not here.
    const next = setTimeout(() => setTick((n) => n + 1), 1000 - (Date.now() % 1000));
    return () => clearTimeout(next);
  }, [data?.running, tick]);
  if (!item) return <Skeleton className="h-32 w-full rounded-xl" />;
  if (!data) return <p className="rounded-xl border p-3 text-xs text-muted-foreground">{item.tooltip ?? item.text}</p>;
  const planned = data.plannedMinutes * 60;
  const left = data.running ? Math.min(planned, planned - (Date.now() - Date.parse(data.startedAt)) / 1000) : planned;
  const over = data.running && left < 0;
  const ends = data.running && new Date(Date.parse(data.startedAt) + planned * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return (
    <div className={cn("grid gap-3 rounded-xl border bg-card p-4 text-card-foreground shadow-xs", over && "border-destructive/50")}>
      <div className="flex items-center gap-2 text-xs text-muted-foreground">
        <Timer className="size-3.5" /> Focus
        <Badge variant={over ? "destructive" : data.running ? "default" : "outline"} className="ml-auto">
          {over ? "Over time" : data.running ? "Running" : "Idle"}
        </Badge>
      </div>
      <div className={cn("text-4xl font-semibold tabular-nums tracking-tight", over && "text-destructive")}>
        {over ? "+" : ""}{clock(left)}
      </div>
      <Progress value={data.running ? (1 - Math.max(left, 0) / planned) * 100 : 0} className={cn(over && "[&>*]:bg-destructive")} />
      <div className="flex items-center gap-2">
        <span className="text-xs text-muted-foreground">
          {over ? "Over time — take a break." : data.running ? `Until ${ends}` : `${data.plannedMinutes}-minute session`}
        </span>
        <Button size="sm" className="ml-auto" variant={data.running ? "outline" : "default"} onClick={onToggle} disabled={busy}>
          {data.running ? <><Pause /> Stop</> : <><Play /> Start</>}
        </Button>
      </div>
    </div>
  );
}

export default function StandupSidemenu() {
  const cached = cowork.state.get() ?? {};
  const [item, setItem] = useState(() => cowork.statusBar.get("standup"));
  const [tasks, setTasks] = useState(cached.tasks ?? null);
  const [report, setReport] = useState(cached.report ?? null);
  const [readErrors, setReadErrors] = useState({}); // per routine: a good read clears only its own
  const [actionError, setActionError] = useState(null);
  const [title, setTitle] = useState("");
  const [busy, setBusy] = useState(false);
  const [ticked, setTicked] = useState(null); // the task being completed, checked at once
  const [copied, setCopied] = useState(false);
  const subs = useRef({});

  useEffect(() => cowork.statusBar.onChange((app, next) => app === "standup" && setItem(next)), []);
  useEffect(() => {
    const failed = (key) => (error) => setReadErrors((now) => ({ ...now, [key]: error }));
    const keep = (key, set) => (answer) => {
      set(answer);
      failed(key)(null);
      Object.assign(cached, { [key]: answer });
      cowork.state.set({ tasks: cached.tasks, report: cached.report }); // both small: a day's tasks
    };
    subs.current.tasks = cowork.routines.subscribe("tasks-list", { status: "open" }, { interval: 60, onData: keep("tasks", setTasks), onError: failed("tasks") });
    subs.current.report = cowork.routines.subscribe("standup-report", {}, { interval: 300, onData: keep("report", setReport), onError: failed("report") });
    return () => Object.values(subs.current).forEach((s) => s.close());
  }, []);

  async function act(work) {
    setActionError(null);
    setBusy(true);
    try {
      await work();
      await Promise.all([subs.current.tasks.refresh(), subs.current.report.refresh(), cowork.statusBar.refresh("standup")]);
    } catch (error) {
      setActionError(error);
    } finally {
      setBusy(false);
      setTicked(null);
    }
  }

  // No <form>: a pane is sandboxed without allow-forms, so the browser would block its submit.
  const add = () => {
    const text = title.trim();
    if (text) act(async () => { await cowork.routines.run("tasks-add", { title: text }); setTitle(""); });
  };

  function copy() {
    const area = Object.assign(document.createElement("textarea"), { value: report.text });
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    if (ok) { setCopied(true); setTimeout(() => setCopied(false), 1500); } else cowork.agent.select(report.text);
  }

  return (
    <div className="flex h-full flex-col bg-background text-foreground">
      <div className="flex items-center gap-2 px-3 pb-2 pt-3">
        <h2 className="text-sm font-semibold">{new Date().toLocaleDateString([], { weekday: "long", month: "long", day: "numeric" })}</h2>
      </div>
      {/* minmax(0,1fr), not grid's auto column: a long task title would widen the column past the
          side bar (its nowrap text is the column's min-content) and push the buttons off-screen. */}
      <div className="grid min-h-0 flex-1 grid-cols-[minmax(0,1fr)] content-start gap-5 overflow-y-auto px-3 pb-4">
        {actionError && <Failure error={actionError} onDismiss={() => setActionError(null)} />}
        {Object.entries(readErrors).map(([key, error]) => error && <Failure key={key} error={error} />)}
        <FocusCard item={item} busy={busy} onToggle={() => act(() => cowork.statusBar.click("standup"))} />

        <Section title="Open tasks" count={tasks?.open}>
          <div className="flex gap-1.5">
            <Input
              value={title}
              onChange={(e) => setTitle(e.target.value)}
              onKeyDown={(e) => e.key === "Enter" && add()}
              placeholder="Add a task…"
              aria-label="New task"
              maxLength={200}
              className="h-8 text-sm"
            />
            <Button size="icon-sm" variant="outline" aria-label="Add task" disabled={!title.trim() || busy} onClick={add}><Plus /></Button>
          </div>
          <div className="grid grid-cols-[minmax(0,1fr)] gap-0.5">
            {!tasks ? <Rows /> : tasks.tasks.map((t) => (
              <label key={t.id} className="flex cursor-pointer items-center gap-2.5 rounded-md px-1.5 py-1.5 text-sm hover:bg-accent">
                <Checkbox
                  checked={ticked === t.id}
                  disabled={busy}
                  onCheckedChange={() => { setTicked(t.id); act(() => cowork.routines.run("tasks-complete", { id: t.id })); }}
                  aria-label={`Complete ${t.title}`}
                />
                <span className="min-w-0 flex-1 truncate">{t.title}</span>
                {t.due && <span className="shrink-0 text-xs text-muted-foreground">{t.due.slice(5)}</span>}
              </label>
            ))}
            {tasks?.tasks.length === 0 && <p className="px-1.5 py-2 text-xs text-muted-foreground">Nothing open — add what is next.</p>}
          </div>
        </Section>

        <Section
          title="Done today"
          count={report?.done.length}
          action={report && (
            <Button size="xs" variant="ghost" onClick={copy} title="Copy the standup as text">
              {copied ? <CheckCircle2 /> : <Copy />} {copied ? "Copied" : "Copy standup"}
            </Button>
          )}
        >
          {!report ? <Rows n={2} /> : (
            <div className="grid grid-cols-[minmax(0,1fr)] gap-1">
              {report.done.map((t) => (
                <div key={t.id} className="flex items-center gap-2.5 px-1.5 py-1 text-sm text-muted-foreground">
                  <CheckCircle2 className="size-4 shrink-0 text-primary" />
                  <span className="truncate line-through decoration-muted-foreground/50">{t.title}</span>
                </div>
              ))}
              {report.done.length === 0 && <p className="px-1.5 text-xs text-muted-foreground">Nothing marked done yet today.</p>}
              <div className="mt-2 flex items-center gap-2 rounded-md bg-muted px-3 py-2 text-xs">
                <Timer className="size-3.5 text-muted-foreground" />
                <span><b>{report.focus.minutes} min</b> focused in {report.focus.sessions} session{report.focus.sessions === 1 ? "" : "s"}</span>
              </div>
            </div>
          )}
        </Section>
      </div>
    </div>
  );
}
