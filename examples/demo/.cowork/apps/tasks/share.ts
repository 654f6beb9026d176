// tasks-share: sends the open tasks to other people as a digest.
//
// The demo has no mail or chat service to post to, so "sending" is writing the digest to the
// outbox, `.cowork/data/tasks/outbox/<time>.json` (what a real sender would pick up), and
// raising a notification. It is still marked `reachesOthers`: that is what the routine means.

import { COLUMNS, openForRead, type Task } from "./task-store.ts";

export default async (args: { to?: string; message?: string }, ctx: CoworkRoutineContext) => {
  const to = typeof args.to === "string" && args.to.trim() ? args.to.trim() : "team";
  if (args.message !== undefined && typeof args.message !== "string") throw ctx.error("BadRequest", "message is one line of text.");
  const db = await openForRead(ctx);
  const tasks: Task[] = db ? await db.query(`SELECT ${COLUMNS} FROM tasks WHERE status = 'open' ORDER BY id`) : [];
  if (tasks.length === 0) {
    ctx.unchanged(); // nothing was sent
    return { shared: false, to, count: 0 };
  }

  const sentAt = new Date().toISOString();
  const lines = tasks.map((t) => `- #${t.id} ${t.title}${t.due ? ` (due ${t.due})` : ""}`);
  const text = [args.message?.trim(), `Open tasks (${tasks.length}):`, ...lines].filter(Boolean).join("\n");
  const digest = {
    to,
    from: ctx.identity.user?.email ?? null,
    sentAt,
    tasks: tasks.map(({ id, title, due }) => ({ id, title, due })),
    text,
  };
  const path = ctx.data.write(`outbox/${sentAt.replace(/[:.]/g, "-")}.json`, digest);
  const { delivery } = await ctx.notify({
    title: `Shared ${tasks.length} open task${tasks.length === 1 ? "" : "s"} with ${to}`,
    body: tasks.map((t) => t.title).join(" · "),
    tag: "tasks-share",
  });
  ctx.log(`posted ${tasks.length} open tasks to ${to}: ${path}`);
  return { shared: true, to, count: tasks.length, path, delivery };
};
