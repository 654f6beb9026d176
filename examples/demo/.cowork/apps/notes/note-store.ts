// What the notes routines share: where a note lives and what one looks like.
//
// A note is one JSON file in the app's data folder, `.cowork/data/notes/<id>.note.json`, so the
// `**/*.note.json` route opens each one as a page. Every read and write goes through `ctx.data`.

import { relative, sep } from "node:path";

export type Note = { id: string; title: string; body: string; created: string; updated: string };

const SUFFIX = ".note.json";
const ID = /^[a-z0-9][a-z0-9-]{0,79}$/;

export const fileOf = (id: string) => `${id}${SUFFIX}`;

/** The workspace-relative path of a note's file, as `cowork.openFile` takes it. */
export const pathOf = (ctx: CoworkRoutineContext, id: string) =>
  relative(ctx.workspaceRoot, ctx.data.path(fileOf(id))).split(sep).join("/");

/** An id as notes-list returns it; anything else (a path, "..") is refused by name. */
export function checkId(ctx: CoworkRoutineContext, id: unknown): string {
  if (typeof id !== "string" || !ID.test(id)) {
    throw ctx.error("BadRequest", `${JSON.stringify(id)} is not a note id (lowercase letters, digits and dashes, as notes-list returns it).`);
  }
  return id;
}

/** The ids of every note file, in name order. */
export const allIds = (ctx: CoworkRoutineContext): string[] =>
  ctx.data.list().filter((name: string) => name.endsWith(SUFFIX)).map((name: string) => name.slice(0, -SUFFIX.length));

/** One note, or `NotFound`. */
export function load(ctx: CoworkRoutineContext, id: string): Note {
  const note = ctx.data.read(fileOf(id), null);
  if (!note) throw ctx.error("NotFound", `There is no note "${id}" (notes-list shows them).`);
  return note;
}

/** The note id behind a `.note.json` path, or `NotFound` when the path is not one of our notes. */
export function idFromPath(ctx: CoworkRoutineContext, path: string): string {
  const folder = relative(ctx.workspaceRoot, ctx.data.dir).split(sep).join("/");
  const file = path.replace(/^\.\//, "");
  const name = file.startsWith(`${folder}/`) ? file.slice(folder.length + 1) : "";
  if (!name.endsWith(SUFFIX) || name.includes("/")) {
    throw ctx.error("NotFound", `${path} is not a note: notes live in ${folder}/ (create one with notes-save).`);
  }
  return checkId(ctx, name.slice(0, -SUFFIX.length));
}
