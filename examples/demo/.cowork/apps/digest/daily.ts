// digest-daily: collects the day (digest-collect → notes-list, tasks-list), writes it to
// `.cowork/data/digest/daily/<date>.json` and notifies.

import { dayOf } from "./day.ts";

export default async (args: { date?: string }, ctx: CoworkRoutineContext) => {
  const date = dayOf(ctx, args.date);
  const collected = await ctx.routines.run("digest-collect", { date });
  const { notes, tasks } = collected;

  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  const headline = [
    notes && `${plural(notes.updated.length, "note")} updated`,
    tasks && `${plural(tasks.done.length, "task")} done, ${tasks.open.length} open`,
  ].filter(Boolean).join(" · ") || "nothing to report";
  const lines = [
    `# ${date}: ${headline}`,
    ...(notes?.updated ?? []).map((n: { title: string }) => `- note: ${n.title}`),
    ...(tasks?.done ?? []).map((t: { title: string }) => `- done: ${t.title}`),
    ...(tasks?.open ?? []).map((t: { title: string; due: string | null }) => `- open: ${t.title}${t.due ? ` (due ${t.due})` : ""}`),
    ...collected.problems.map((p: string) => `- left out: ${p}`),
  ];

  const digest = { ...collected, generatedAt: new Date().toISOString(), headline, text: lines.join("\n") };
  const path = ctx.data.write(`daily/${date}.json`, digest);
  // The bell shows `<App>: <title> — <body>` and a banner is headed by the app's title, so the
  // title leaves the app's name out: "Daily digest: 2026-12-07 — 1 note updated · …".
  const { delivery } = await ctx.notify({ title: date, body: headline, tag: "digest-daily" });
  ctx.log(`wrote the ${date} digest (${headline}) to ${path}`);
  return { ...digest, path, delivery };
};
