// What the records routines share: where a record lives and what one looks like.
//
// A record is one JSON file in the app's data folder, `.cowork/data/records/<id>.records.json`, so the
// `**/*.records.json` route opens each one as a page. Every read and write goes through `ctx.data`.

import { relative, sep } from "node:path";

export type Item = { id: string; title: string; body: string; created: string; updated: string };

const SUFFIX = ".records.json";
const ID = /^[a-z0-9][a-z0-9-]{0,79}$/;

export const fileOf = (id: string) => `${id}${SUFFIX}`;

/** The workspace-relative path of a record's file, as `cowork.openFile` takes it. */
export const pathOf = (ctx: CoworkRoutineContext, id: string) =>
  relative(ctx.workspaceRoot, ctx.data.path(fileOf(id))).split(sep).join("/");

/** An id as records-list returns it; anything else (a path, "..") is refused by name. */
export function checkId(ctx: CoworkRoutineContext, id: unknown): string {
  if (typeof id !== "string" || !ID.test(id)) {
    throw ctx.error("BadRequest", `${JSON.stringify(id)} is not a record id (lowercase letters, digits and dashes, as records-list returns it).`);
  }
  return id;
}

/** The ids of every record file, in name order. */
export const allIds = (ctx: CoworkRoutineContext): string[] =>
  ctx.data.list().filter((name: string) => name.endsWith(SUFFIX)).map((name: string) => name.slice(0, -SUFFIX.length));

/** One record, or `NotFound`. */
export function load(ctx: CoworkRoutineContext, id: string): Item {
  const record = ctx.data.read(fileOf(id), null);
  if (!record) throw ctx.error("NotFound", `There is no record "${id}" (records-list shows them).`);
  return record;
}

/** The record id behind a `.records.json` path, or `NotFound` when the path is not one of our records. */
export function idFromPath(ctx: CoworkRoutineContext, path: string): string {
  const folder = relative(ctx.workspaceRoot, ctx.data.dir).split(sep).join("/");
  const file = path.replace(/^\.\//, "");
  const name = file.startsWith(`${folder}/`) ? file.slice(folder.length + 1) : "";
  if (!name.endsWith(SUFFIX) || name.includes("/")) {
    throw ctx.error("NotFound", `${path} is not a record: records live in ${folder}/ (create one with records-save).`);
  }
  return checkId(ctx, name.slice(0, -SUFFIX.length));
}
