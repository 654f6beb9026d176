// notes-list: every note, most recently updated first, with a short preview for the sidebar.

import { allIds, fileOf, pathOf, type Note } from "./note-store.ts";

export default async (args: { query?: string }, ctx: CoworkRoutineContext) => {
  if (args.query !== undefined && typeof args.query !== "string") {
    throw ctx.error("BadRequest", "`query` is text to look for, e.g. {\"query\": \"launch\"}.");
  }
  ctx.unchanged(); // a read
  const query = args.query?.trim().toLowerCase() ?? "";
  const notes: Note[] = [];
  for (const id of allIds(ctx)) {
    const note = ctx.data.read(fileOf(id), null);
    if (!note) {
      ctx.log(`skipped ${fileOf(id)}: it is not a readable note`);
      continue;
    }
    if (query && !`${note.title}\n${note.body}`.toLowerCase().includes(query)) continue;
    notes.push(note);
  }
  notes.sort((a, b) => b.updated.localeCompare(a.updated) || a.title.localeCompare(b.title));
  return {
    notes: notes.map((note) => ({
      id: note.id,
      title: note.title,
      preview: note.body.replace(/\s+/g, " ").trim().slice(0, 120),
      updated: note.updated,
      path: pathOf(ctx, note.id),
    })),
  };
};
