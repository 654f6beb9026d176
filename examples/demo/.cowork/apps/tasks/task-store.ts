// What the tasks routines share: the SQLite file, its one table, and how a task reads back.
//
// The table lives in the workspace, `.cowork/data/tasks.db` (what `cowork table create tasks`
// would make), so the Tables view and `cowork.tables.query` see the same rows. `ctx.db` is
// synchronous here; the calls outside a transaction are awaited anyway, as the reference asks.

export const DB = ".cowork/data/tasks.db";

const SCHEMA = `CREATE TABLE IF NOT EXISTS tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL,
  due TEXT,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
  created_at TEXT NOT NULL,
  completed_at TEXT
)`;

/** The columns of a task as the routines return it. */
export const COLUMNS = "id, title, due, status, created_at AS createdAt, completed_at AS completedAt";

export type Task = { id: number; title: string; due: string | null; status: "open" | "done"; createdAt: string; completedAt: string | null };

/** The task database, its table created if missing (for the routines that write). */
export async function open(ctx: CoworkRoutineContext) {
  const db = ctx.db(DB);
  await db.exec(SCHEMA);
  return db;
}

/** The database for a read: never creates the table, so a read changes nothing. */
export async function openForRead(ctx: CoworkRoutineContext) {
  const db = ctx.db(DB);
  const table = await db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tasks'");
  return table.length ? db : null;
}

/** One task by id, or null. Synchronous, so it works inside `transaction(fn)`. */
export function find(db: ReturnType<CoworkRoutineContext["db"]>, id: number): Task | null {
  return db.query(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`, [id])[0] ?? null;
}

/** A task id as tasks-list returns it, or `BadRequest`. */
export function checkId(ctx: CoworkRoutineContext, id: unknown): number {
  if (typeof id !== "number" || !Number.isInteger(id) || id < 1) {
    throw ctx.error("BadRequest", `${JSON.stringify(id)} is not a task id: pass the number tasks-list shows, e.g. {"id": 3}.`);
  }
  return id;
}

export const notFound = (ctx: CoworkRoutineContext, id: number) => ctx.error("NotFound", `There is no task #${id} (tasks-list shows them).`);
