// records-save: creates a record (no id) or updates one (its id), one file per record.

import { allIds, checkId, fileOf, load, pathOf, type Item } from "./record-store.ts";

export default async (args: { id?: string; title?: string; body?: string }, ctx: CoworkRoutineContext) => {
  const title = typeof args.title === "string" ? args.title.trim() : "";
  if (!title) throw ctx.error("BadRequest", "A record needs a title, e.g. {\"title\": \"Launch plan\"}.");
  if (args.body !== undefined && typeof args.body !== "string") throw ctx.error("BadRequest", "`body` is the record's text.");
  const now = new Date().toISOString();
  const creating = args.id === undefined || args.id === "";

  let record: Item;
  if (creating) {
    // A new record: its id comes from the title, made unique among the records there are.
    const base = ctx.data.fileName(title, "record");
    const taken = new Set(allIds(ctx));
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    record = { id: checkId(ctx, id), title, body: args.body ?? "", created: now, updated: now };
  } else {
    const old = load(ctx, checkId(ctx, args.id));
    const body = args.body ?? old.body;
    if (old.title === title && old.body === body) {
      ctx.unchanged(); // nothing to write, e.g. an autosave of what is already there
      return { ...old, path: pathOf(ctx, old.id) };
    }
    record = { ...old, title, body, updated: now };
  }

  const path = ctx.data.write(fileOf(record.id), record);
  ctx.log(`${creating ? "created" : "updated"} record ${record.id}: "${record.title}"`);
  return { ...record, path };
};
