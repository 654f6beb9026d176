// digest-read: a saved digest, by day or the latest.

import { relative, sep } from "node:path";
import { dayOf } from "./day.ts";

export default async (args: { date?: string }, ctx: CoworkRoutineContext) => {
  const wanted = args.date === undefined ? null : dayOf(ctx, args.date);
  ctx.unchanged(); // a read
  const days = ctx.data.list("daily").filter((n: string) => n.endsWith(".json")).map((n: string) => n.slice(0, -5));
  const date = wanted ?? days.at(-1);
  const digest = date ? ctx.data.read(`daily/${date}.json`, null) : null;
  if (!digest) {
    throw ctx.error("NotFound", date ? `There is no digest for ${date} (digest-daily makes one).` : "There is no digest yet (digest-daily makes one).");
  }
  const path = relative(ctx.workspaceRoot, ctx.data.path(`daily/${date}.json`)).split(sep).join("/");
  return { ...digest, path };
};
