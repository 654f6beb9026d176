// tasks-delete: removes one task for good.

import { checkId, find, notFound, open } from "./task-store.ts";

export default async (args: { id?: number }, ctx: CoworkRoutineContext) => {
  const id = checkId(ctx, args.id);
  const db = await open(ctx);
  const task = db.transaction(() => {
    const found = find(db, id);
    if (!found) throw notFound(ctx, id);
    db.exec("DELETE FROM tasks WHERE id = ?", [id]);
    return found;
  });
  ctx.log(`deleted task #${id}: ${task.title} (${task.status})`);
  return { deleted: task };
};
