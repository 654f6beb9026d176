// tasks-add: one new open task.

import { find, open } from "./task-store.ts";

export default async (args: { title?: string; due?: string }, ctx: CoworkRoutineContext) => {
  const title = typeof args.title === "string" ? args.title.trim() : "";
  if (!title || title.length > 200) {
    throw ctx.error("BadRequest", "A task needs a title of 1 to 200 characters, e.g. {\"title\": \"Send the invoice\"}.");
  }
  const due = args.due ?? null;
  if (due !== null && !(typeof due === "string" && /^\d{4}-\d{2}-\d{2}$/.test(due) && !Number.isNaN(Date.parse(due)))) {
    throw ctx.error("BadRequest", `due is a date as YYYY-MM-DD, not ${JSON.stringify(due)}.`);
  }
  const db = await open(ctx);
  const { lastInsertRowid } = await db.exec("INSERT INTO tasks (title, due, created_at) VALUES (?, ?, ?)", [
    title,
    due,
    new Date().toISOString(),
  ]);
  const task = find(db, Number(lastInsertRowid));
  ctx.log(`added task #${task!.id}: ${title}`);
  return task;
};
