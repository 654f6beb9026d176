// standup-status: the footer item. A refresh only reads the timer and counts the open tasks (through
// the `tasks` capability this app `uses`); a click ({"action": "toggle"}) starts or stops a session.

import { clock, loadTimer, saveTimer, type Timer } from "./timer.ts";

type Args = { action?: "toggle" | "start" | "stop"; minutes?: number };

function start(ctx: CoworkRoutineContext, timer: Timer, minutes: number | undefined, now: Date) {
  if (minutes !== undefined && !(Number.isInteger(minutes) && minutes >= 1 && minutes <= 180)) {
    throw ctx.error("BadRequest", "minutes is a whole number from 1 to 180.");
  }
  timer.minutes = minutes ?? timer.minutes;
  timer.startedAt = now.toISOString();
  ctx.log(`started a ${timer.minutes}-minute focus session`);
}

function stop(ctx: CoworkRoutineContext, timer: Timer, now: Date) {
  const started = new Date(timer.startedAt!);
  const minutes = Math.round((now.getTime() - started.getTime()) / 6000) / 10;
  timer.sessions.push({ start: timer.startedAt!, end: now.toISOString(), minutes, planned: timer.minutes, overran: minutes > timer.minutes });
  timer.startedAt = null;
  ctx.log(`stopped the focus session after ${minutes} min`);
}

export default async (args: Args, ctx: CoworkRoutineContext) => {
  const now = new Date();
  const timer = loadTimer(ctx);
  const action = args.action;
  if (action !== undefined && action !== "toggle" && action !== "start" && action !== "stop") {
    throw ctx.error("BadRequest", `action is "toggle", "start" or "stop", not ${JSON.stringify(action)}.`);
  }
  const running = timer.startedAt !== null;
  const wanted = action === undefined ? running : action === "toggle" ? !running : action === "start";
  if (wanted === running) {
    ctx.unchanged(); // a refresh, or a start while running / a stop while stopped
  } else {
    if (wanted) start(ctx, timer, args.minutes, now);
    else stop(ctx, timer, now);
    saveTimer(ctx, timer);
  }

  // The open tasks, from the tasks capability. The timer still works without it.
  let openTasks: number | null = null;
  let titles: string[] = [];
  let tasksProblem: string | null = null;
  try {
    const listed = await ctx.routines.run("tasks-list", { status: "open" });
    openTasks = listed.open;
    titles = listed.tasks.map((t: { title: string }) => t.title);
  } catch (e: any) {
    tasksProblem = `${e.name}: ${e.message}`;
  }
  if (openTasks !== null) await ctx.badge(openTasks);
  const tasksText = openTasks === null ? "" : ` · ${openTasks} open`;
  const tasksTip = tasksProblem
    ? `\nTasks are unavailable (${tasksProblem}).`
    : openTasks
      ? `\nOpen tasks: ${titles.slice(0, 5).join(", ")}${titles.length > 5 ? ", …" : ""}`
      : "\nNo open tasks.";

  const planned = timer.minutes * 60;
  const elapsed = timer.startedAt ? (now.getTime() - Date.parse(timer.startedAt)) / 1000 : 0;
  const remaining = planned - elapsed;
  const overran = timer.startedAt !== null && remaining < 0;
  const data = { running: timer.startedAt !== null, startedAt: timer.startedAt, plannedMinutes: timer.minutes, remainingSeconds: Math.round(remaining), overran, openTasks };

  if (!timer.startedAt) {
    return {
      text: `Focus ${clock(planned)}${tasksText}`,
      icon: "play-circle",
      tooltip: `Click to start a ${timer.minutes}-minute focus session.${tasksTip}`,
      click: { args: { action: "toggle" } },
      data,
    };
  }
  const ends = new Date(Date.parse(timer.startedAt) + planned * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return overran
    ? {
        text: `Focus +${clock(-remaining)}${tasksText}`,
        icon: "watch",
        tooltip: `Your focus session ran over by ${Math.ceil(-remaining / 60)} min — click to stop and take a break.${tasksTip}`,
        tone: "warning",
        click: { args: { action: "toggle" } },
        data,
      }
    : {
        text: `Focus ${clock(remaining)}${tasksText}`,
        icon: "watch",
        tooltip: `Focusing until ${ends} — click to stop.${tasksTip}`,
        click: { args: { action: "toggle" } },
        data,
      };
};
