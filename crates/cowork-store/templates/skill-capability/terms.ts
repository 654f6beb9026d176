// What the glossary routines share: the terms live in one file of the capability's data folder.

export type Term = { term: string; meaning: string; updated: string };

const FILE = "terms.json";

export const all = (ctx: CoworkRoutineContext): Term[] => ctx.data.read(FILE, []);

export const save = (ctx: CoworkRoutineContext, terms: Term[]) => ctx.data.write(FILE, terms);
