// tasks-list: the tasks, oldest first, and how many are open and done.

import { COLUMNS, openForRead, type Task } from "./task-store.ts";

export default async (args: { status?: "open" | "done" }, ctx: CoworkRoutineContext) => {
  const status = args.status;
  if (status !== undefined && status !== "open" && status !== "done") {
    throw ctx.error("BadRequest", `status is "open" or "done" (or left out for every task), not ${JSON.stringify(status)}.`);
  }
  ctx.unchanged(); // a read
  const db = await openForRead(ctx);
  if (!db) return { tasks: [], open: 0, done: 0 };
  const tasks: Task[] = status
    ? await db.query(`SELECT ${COLUMNS} FROM tasks WHERE status = ? ORDER BY id`, [status])
    : await db.query(`SELECT ${COLUMNS} FROM tasks ORDER BY id`);
  const [counts] = await db.query(
    "SELECT count(*) FILTER (WHERE status = 'open') AS open, count(*) FILTER (WHERE status = 'done') AS done FROM tasks",
  );
  return { tasks, open: counts.open, done: counts.done };
};
