// records-list: every record, most recently updated first, with a short preview for the sidebar.

import { allIds, fileOf, pathOf, type Item } from "./record-store.ts";

export default async (args: { query?: string }, ctx: CoworkRoutineContext) => {
  if (args.query !== undefined && typeof args.query !== "string") {
    throw ctx.error("BadRequest", "`query` is text to look for, e.g. {\"query\": \"launch\"}.");
  }
  ctx.unchanged(); // a read
  const query = args.query?.trim().toLowerCase() ?? "";
  const found: Item[] = [];
  for (const id of allIds(ctx)) {
    const record = ctx.data.read(fileOf(id), null);
    if (!record) {
      ctx.log(`skipped ${fileOf(id)}: it is not a readable record`);
      continue;
    }
    if (query && !`${record.title}\n${record.body}`.toLowerCase().includes(query)) continue;
    found.push(record);
  }
  found.sort((a, b) => b.updated.localeCompare(a.updated) || a.title.localeCompare(b.title));
  return {
    items: found.map((record) => ({
      id: record.id,
      title: record.title,
      preview: record.body.replace(/\s+/g, " ").trim().slice(0, 120),
      updated: record.updated,
      path: pathOf(ctx, record.id),
    })),
  };
};
