// records-read: one whole record, by id or by the path of its file (what a routed page knows).

import { checkId, idFromPath, load, pathOf } from "./record-store.ts";

export default async (args: { id?: string; path?: string }, ctx: CoworkRoutineContext) => {
  const id = typeof args.path === "string" ? idFromPath(ctx, args.path) : checkId(ctx, args.id);
  ctx.unchanged(); // a read
  return { ...load(ctx, id), path: pathOf(ctx, id) };
};
