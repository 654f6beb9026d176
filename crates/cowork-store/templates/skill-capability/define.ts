// glossary-define: adds a term, or changes what an existing one means.

import { all, save } from "./terms.ts";

export default async (args: { term?: string; meaning?: string }, ctx: CoworkRoutineContext) => {
  const term = typeof args.term === "string" ? args.term.trim() : "";
  const meaning = typeof args.meaning === "string" ? args.meaning.trim() : "";
  if (!term || !meaning) {
    throw ctx.error("BadRequest", "A definition needs a `term` and a `meaning`, e.g. {\"term\": \"ARR\", \"meaning\": \"Annual recurring revenue\"}.");
  }
  const terms = all(ctx).filter((t) => t.term.toLowerCase() !== term.toLowerCase());
  const entry = { term, meaning, updated: new Date().toISOString() };
  terms.push(entry);
  save(ctx, terms);
  ctx.log(`defined ${term}`);
  return entry;
};
