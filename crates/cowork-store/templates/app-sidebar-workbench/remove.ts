// records-remove: deletes one record's file.

import { checkId, fileOf, load } from "./record-store.ts";

export default async (args: { id?: string }, ctx: CoworkRoutineContext) => {
  const id = checkId(ctx, args.id);
  const record = load(ctx, id); // NotFound before anything is touched
  if (!ctx.data.remove(fileOf(id))) throw ctx.error("NotFound", `There is no record "${id}" any more.`);
  ctx.log(`removed record ${id}: "${record.title}"`);
  return { removed: { id, title: record.title } };
};
