// glossary-search: the terms matching every word asked for (a read).

import { all } from "./terms.ts";

export default async (args: { query?: string }, ctx: CoworkRoutineContext) => {
  if (args.query !== undefined && typeof args.query !== "string") {
    throw ctx.error("BadRequest", "`query` is text, e.g. {\"query\": \"churn\"}.");
  }
  ctx.unchanged();
  const words = (args.query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  const terms = all(ctx).filter((t) => words.every((w) => `${t.term} ${t.meaning}`.toLowerCase().includes(w)));
  return { terms: terms.sort((a, b) => a.term.localeCompare(b.term)) };
};
