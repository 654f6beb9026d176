#!/usr/bin/env node
// The environment that points an agent CLI at the stand-in, for a program that spawns the CLI
// itself (the desktop app's Chat, `cowork app update --ai-merge`): printed as shell lines for
// bin/claude and bin/codex (the wrappers a test puts first on PATH), or as JSON for a test in
// another language that sets it on the process it spawns.
//
//   node env.mjs claude|codex [--url URL] [--home DIR] [--json]
//
// URL defaults to $STANDIN_URL; DIR (the CLI's HOME, config and cache) to $STANDIN_HOME, else a
// new temporary folder, left behind: give a test's own temp folder to have it cleaned with it, and
// the same one to each run of a session that resumes. Output: `unset NAME` for every variable of
// the caller that would point the CLI at a real account or API (ANTHROPIC_*, CLAUDE_*, OPENAI_*,
// CODEX_*, proxies…), then `export NAME='value'` for what the stand-in needs, the CLI's binary as
// STANDIN_CLI_BIN. With --json: `{ "unset": [...], "set": { NAME: value } }`.
import fs from "node:fs";
import path from "node:path";
import { FOREIGN_ENV, claudeBin, claudeEnv, codexBin, codexEnv, tempHome } from "./clients.mjs";

/** What to unset and set in the caller's environment for `cli` against the stand-in at `url`. */
export function envFor(cli, { url, home }) {
  const full = cli === "claude" ? claudeEnv({ url, home }) : codexEnv({ url, home });
  const set = { STANDIN_CLI_BIN: cli === "claude" ? claudeBin() : codexBin() };
  for (const [k, v] of Object.entries(full)) if (process.env[k] !== v) set[k] = v;
  const unset = Object.keys(process.env).filter((k) => FOREIGN_ENV.test(k) && !(k in full));
  return { unset, set };
}

function main(args) {
  const [cli, ...rest] = args;
  let url = process.env.STANDIN_URL;
  let home = process.env.STANDIN_HOME;
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "--url") url = rest[++i];
    else if (rest[i] === "--home") home = rest[++i];
    else if (rest[i] === "--json") json = true;
    else return usage(`unknown argument ${JSON.stringify(rest[i])}`);
  }
  if (cli !== "claude" && cli !== "codex") return usage(`the first argument is claude or codex, not ${JSON.stringify(cli ?? "")}`);
  if (!url) return usage("no stand-in URL: pass --url or set STANDIN_URL (the first line `node standin.mjs` prints)");
  if (home) fs.mkdirSync(home, { recursive: true });
  const env = envFor(cli, { url, home: home ? path.resolve(home) : tempHome() });
  if (json) return console.log(JSON.stringify(env));
  const quote = (v) => `'${String(v).replaceAll("'", `'\\''`)}'`;
  for (const k of env.unset) console.log(`unset ${k}`);
  for (const [k, v] of Object.entries(env.set)) console.log(`export ${k}=${quote(v)}`);
}

function usage(problem) {
  console.error(`error: failed to make the stand-in's environment: ${problem}`);
  console.error("hint: node tests/standin/env.mjs claude|codex [--url URL] [--home DIR] [--json]");
  process.exitCode = 2;
}

main(process.argv.slice(2));
