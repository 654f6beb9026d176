// standup-report: a day's standup — done, next, focus — from the tasks capability and the timer.

import { localDate, loadTimer } from "./timer.ts";

type Task = { id: number; title: string; due: string | null; completedAt: string | null };

export default async (args: { date?: string }, ctx: CoworkRoutineContext) => {
  const date = args.date ?? localDate();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw ctx.error("BadRequest", `date is YYYY-MM-DD, not ${JSON.stringify(date)}.`);
  ctx.unchanged(); // a read

  const { tasks } = await ctx.routines.run("tasks-list", {});
  const done = tasks.filter((t: Task & { status: string }) => t.status === "done" && t.completedAt && localDate(t.completedAt) === date);
  const open = tasks.filter((t: Task & { status: string }) => t.status === "open");
  // A session belongs to the day it ended (one across midnight counts for the morning).
  const sessions = loadTimer(ctx).sessions.filter((s) => localDate(s.end) === date);
  const minutes = Math.round(sessions.reduce((sum, s) => sum + s.minutes, 0));

  const item = (t: Task) => `- ${t.title}${t.due ? ` (due ${t.due})` : ""}`;
  const text = [
    `Standup ${date}`,
    "Done:",
    ...(done.length ? done.map(item) : ["- nothing marked done"]),
    "Next:",
    ...(open.length ? open.map(item) : ["- nothing open"]),
    `Focus: ${sessions.length} session${sessions.length === 1 ? "" : "s"}, ${minutes} min`,
  ].join("\n");

  const brief = ({ id, title, due }: Task) => ({ id, title, due });
  return { date, done: done.map(brief), open: open.map(brief), focus: { sessions: sessions.length, minutes }, text };
};
