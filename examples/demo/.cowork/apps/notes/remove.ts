// notes-remove: deletes one note's file.

import { checkId, fileOf, load } from "./note-store.ts";

export default async (args: { id?: string }, ctx: CoworkRoutineContext) => {
  const id = checkId(ctx, args.id);
  const note = load(ctx, id); // NotFound before anything is touched
  if (!ctx.data.remove(fileOf(id))) throw ctx.error("NotFound", `There is no note "${id}" any more.`);
  ctx.log(`removed note ${id}: "${note.title}"`);
  return { removed: { id, title: note.title } };
};
