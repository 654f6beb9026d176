// tasks-complete: marks one task done; a task already done is returned as it is.

import { checkId, find, notFound, open } from "./task-store.ts";

export default async (args: { id?: number }, ctx: CoworkRoutineContext) => {
  const id = checkId(ctx, args.id);
  const db = await open(ctx);
  // One transaction, so the check and the change see the same row (the function is synchronous).
  const { task, changed } = db.transaction(() => {
    const before = find(db, id);
    if (!before) throw notFound(ctx, id);
    if (before.status === "done") return { task: before, changed: false };
    db.exec("UPDATE tasks SET status = 'done', completed_at = ? WHERE id = ?", [new Date().toISOString(), id]);
    return { task: find(db, id), changed: true };
  });
  if (changed) ctx.log(`completed task #${id}: ${task!.title}`);
  else ctx.unchanged(); // it was done already
  return task;
};
