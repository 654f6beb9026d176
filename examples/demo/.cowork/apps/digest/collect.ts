// digest-collect: what a day's digest shows, from two other packages' routines.
//
// `notes` is an app, not a capability, so this package declares neither `kind` nor `uses` and
// keeps the old, unrestricted access to the workspace's routines (see README.md). Called from
// digest-daily this is the second level of nesting, so notes-list and tasks-list are the third —
// the deepest a chain goes: they must not call further routines.

import { dayOf, localDate } from "./day.ts";

type Outcome<T> = { value: T } | { problem: string };

export default async (args: { date?: string }, ctx: CoworkRoutineContext) => {
  const date = dayOf(ctx, args.date);
  ctx.unchanged(); // a read

  // A missing or switched-off package leaves its part out; the rest of the digest still comes.
  const attempt = <T,>(run: Promise<T>): Promise<Outcome<T>> =>
    run.then((value) => ({ value }), (e: any) => ({ problem: `${e.name}: ${e.message}` }));
  const [notes, tasks] = await Promise.all([
    attempt(ctx.routines.run("notes-list")),
    attempt(ctx.routines.run("tasks-list", {})),
  ]);

  const problems: string[] = [];
  let notesPart = null;
  if ("value" in notes) {
    const all = notes.value.notes as { id: string; title: string; updated: string; path: string }[];
    const updated = all.filter((n) => localDate(n.updated) === date).map(({ id, title, path }) => ({ id, title, path }));
    notesPart = { total: all.length, updated };
  } else problems.push(`notes-list: ${notes.problem}`);

  let tasksPart = null;
  if ("value" in tasks) {
    type Task = { id: number; title: string; due: string | null; status: string; completedAt: string | null };
    const all = tasks.value.tasks as Task[];
    const brief = ({ id, title, due }: Task) => ({ id, title, due });
    tasksPart = {
      done: all.filter((t) => t.status === "done" && t.completedAt && localDate(t.completedAt) === date).map(brief),
      open: all.filter((t) => t.status === "open").map(brief),
    };
  } else problems.push(`tasks-list: ${tasks.problem}`);

  return { date, notes: notesPart, tasks: tasksPart, problems };
};
