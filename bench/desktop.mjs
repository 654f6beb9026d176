// The desktop app's figures (BENCHMARKS.md, "Desktop"): run by bench/desktop, inside
// tests/desktop/session (Xvfb, a private bus, tauri-driver), on a copy of examples/demo.
//
// - Cold start → painted rail: from asking WebDriver to launch `cowork-desktop <demo>` (a new
//   process, which starts the daemon in-process) until the page's first contentful paint, as the
//   page itself timed it: from the second start on, the shell (ui/src/workbench/shell.ts: the title
//   bar, rail and status bar as the last start drew them, painted by index.html before the bundle
//   runs); on the first, React's rail. Then cold start → live rail: until React's own rail has laid
//   out its first app tile (Board) and two animation frames have passed, seen through WebDriver
//   calls, which wait behind the page's own work. Median of `runs`; each run quits the app (Ctrl+Q)
//   before the next, so every start is a new process and a new daemon. Where each start went is
//   printed step by step (the app's COWORK_START_TRACE and the page's timings).
// - Memory: PSS (/proc/<pid>/smaps_rollup, shared pages split among their users) summed over the
//   app's process and its WebKit processes, with the workbench and 3 open panes (the home Notes
//   sidebar, a Board tab, the Standup sidebar — three apps, three origins), against a one-window
//   Tauri 2 app measured on this machine (measured-here.md); then with 10 panes (7 copies of the
//   Board app added to the workspace while it runs), and back at 3 panes before and after 100
//   open/close cycles of one tab: what a closed pane leaves behind.
//
//   node bench/desktop.mjs [runs] [--start-only]   (through bench/desktop, which sets up the session;
//                                                  --start-only: the starts, not the memory)
import { spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { COWORK_BIN, DESKTOP_BIN, alive, daemonJson, quitDesktop } from "../tests/desktop/desktop.mjs"
import { launch, until } from "../tests/desktop/webdriver.mjs"
import { byProgram, processes, treePss } from "./pss.mjs"

const startOnly = process.argv.includes("--start-only")
const runs = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 5)
/** Where the shell writes its steps (bench/desktop sets it for tauri-driver, which launches the app). */
const TRACE = process.env.COWORK_START_TRACE
/** measured-here.md, "Desktop (Tauri 2)": PSS of app + WebKit children, one window, under Xvfb. */
const BASELINE = { name: "one-window Tauri 2 app", low: 257, high: 265 }

const repo = new URL("..", import.meta.url).pathname
const workspace = mkdtempSync(join(tmpdir(), "cowork-bench-desktop-"))
cpSync(join(repo, "examples/demo"), workspace, { recursive: true, verbatimSymlinks: true, filter: (p) => !/\/\.cowork\/(data|local)(\/|$)/.test(p) })

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves, once the rail's Board tile is laid out and two frames have been drawn since, to that moment (Unix ms). */
const RAIL_PAINTED = `
  const done = arguments[arguments.length - 1]
  const tile = document.querySelector('[data-testid="rail"] button[aria-label="Board"]')
  if (!tile || tile.getBoundingClientRect().width === 0) return done(false)
  requestAnimationFrame(() => requestAnimationFrame(() => done(performance.timeOrigin + performance.now())))
`

/** The page's own timings (Unix ms): its navigation, and the requests it made on the way to the rail. */
const PAGE_TIMINGS = `
  const at = (ms) => performance.timeOrigin + ms
  const nav = performance.getEntriesByType("navigation")[0]
  const requests = performance.getEntriesByType("resource").map((r) => ({ name: r.name, start: at(r.startTime), end: at(r.responseEnd) }))
  const paint = performance.getEntriesByName("first-contentful-paint")[0]
  const marks = {}
  for (const mark of performance.getEntriesByType("mark")) marks[mark.name] ??= at(mark.startTime)
  return { origin: performance.timeOrigin, html: at(nav.responseEnd), dcl: at(nav.domContentLoadedEventEnd), paint: paint && at(paint.startTime), requests, marks }
`

/** When `pid` started (Unix ms, to the kernel's 10 ms tick): its start in ticks after boot, against the uptime now. */
function processStart(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])
  const uptime = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0])
  return Date.now() - (uptime - ticks / 100) * 1000
}

/** The shell's steps from `COWORK_START_TRACE` (src-tauri/src/start_trace.rs): step → Unix ms. */
function shellSteps() {
  if (!TRACE) return {}
  const lines = readFileSync(TRACE, "utf8").split("\n").filter(Boolean)
  return Object.fromEntries(lines.map((line) => [line.slice(line.indexOf(" ") + 1), Number(line.slice(0, line.indexOf(" ")))]))
}

/** Where one start went: each step's moment, in ms after the launch request. */
function steps(t0, pid, shell, page, launched, painted) {
  const first = (pattern) => page.requests.find((r) => pattern.test(r.name))
  const bundle = first(/\/workbench\/start-[^/]*\.js$/)
  const data = first(/\/api\/workbench\b/)
  const styles = first(/\/workbench\/workbench-[^/]*\.css$/)
  const font = first(/\/workbench\/codicon-[^/]*\.ttf(\?.*)?$/)
  const marks = [
    ["process", processStart(pid)],
    ...Object.entries(shell),
    ["navigation", page.origin],
    ["index.html", page.html],
    ["bundle fetched", bundle?.end],
    ["stylesheet fetched", styles?.end],
    ["DOMContentLoaded (index.html and its small entry script run)", page.dcl],
    ["bundle run (the page's mark)", page.marks["workbench bundle run"]],
    ["icon font asked", font?.start],
    ["icon font fetched", font?.end],
    ["/api/workbench asked", data?.start],
    ["/api/workbench answered", data?.end],
    ["shell painted (the last start's title bar, rail and status bar: the page's mark)", page.marks["shell painted"]],
    ["workbench data in (the page's mark)", page.marks["workbench data"]],
    ["workbench rendered (React's first commit: title bar, rail, status bar)", page.marks["workbench rendered"]],
    ["whole workbench rendered (side bars, editor area, panel: the next frame)", page.marks["workbench whole"]],
    // Without a shell the page draws an empty background until the workspace's data is in: its
    // first content is then React's title bar, rail and status bar.
    ["first contentful paint (the shell's rail, or React's)", page.paint],
    ["live rail painted (seen by the bench: laid out, two frames later)", painted],
    ["WebDriver session up (the bench's own wait)", launched],
  ]
  return Object.fromEntries(marks.filter(([, at]) => at !== undefined).map(([step, at]) => [step, at - t0]))
}

async function start() {
  if (TRACE) writeFileSync(TRACE, "")
  const t0 = performance.timeOrigin + performance.now()
  const session = await launch(DESKTOP_BIN, [workspace])
  const launched = performance.timeOrigin + performance.now()
  const painted = await until(() => session.executeAsync(RAIL_PAINTED), { timeoutMs: 60_000, intervalMs: 10, what: "the rail's Board tile" })
  const ms = painted - t0
  const pid = (await until(() => daemonJson(), { what: "daemon.json" })).pid
  // The side bars, editor area and panel come a frame after the rail (none to wait for in a
  // workbench built before the page marked its steps).
  const whole = `return performance.getEntriesByName("workbench whole").length > 0 || performance.getEntriesByName("workbench rendered").length === 0`
  await until(() => session.execute(whole), { what: "the whole workbench" })
  const page = await session.execute(PAGE_TIMINGS)
  return { session, pid, ms, firstPaint: page.paint - t0, steps: steps(t0, pid, shellSteps(), page, launched, painted) }
}

async function stop(app) {
  await quitDesktop(app, 60_000)
  await app.session.delete()
}

// ---- PSS over the app's process tree ----

/** The app and every descendant, with PSS; routine runtimes (bun, node) are listed apart. */
function memory(root) {
  const table = processes()
  const rows = treePss(root, table)
  const tree = rows.map((row) => row.pid)
  const routine = (row) => /^(bun|node)$/.test(row.comm)
  const app = rows.filter((row) => !routine(row))
  // PSS splits a shared page among the processes that map it: another WebKit app running now
  // takes a share of libwebkit2gtk's pages off ours, and the figure drops.
  const others = [...table].filter(([pid, p]) => !tree.includes(pid) && /^WebKit(Web|Network)Proc/.test(p.comm)).length
  return { app, routines: rows.filter(routine), others, totalMb: app.reduce((sum, row) => sum + row.kb, 0) / 1024 }
}

function describe(label, m) {
  const ratio = (mb) => `${(m.totalMb / mb).toFixed(2)}×`
  console.log(`${label}: PSS ${m.totalMb.toFixed(1)} MB (${byProgram(m.app)} MB)  ratio ${ratio((BASELINE.low + BASELINE.high) / 2)} vs ${BASELINE.name} ${BASELINE.low}–${BASELINE.high} MB`)
  if (m.others) console.log(`  note: ${m.others} other WebKit process(es) run on this machine and share libraries with ours: the figure is low`)
  if (m.routines.length) console.log(`  not counted: ${m.routines.length} routine process(es) running, ${(m.routines.reduce((s, r) => s + r.kb, 0) / 1024).toFixed(1)} MB`)
}

/** Switches into each pane in turn: true when every one's widget has rendered into #root. */
async function panesPainted(session, count) {
  const frames = await session.findAll("iframe")
  if (frames.length < count) return false
  for (const frame of frames) {
    await session.switchToFrame(frame)
    const painted = await session.execute(`return !!document.querySelector("#root > *")`)
    await session.switchToFrame(null)
    if (!painted) return false
  }
  return true
}

// ---- the runs ----

/** Issue 45's goals for a start (ms after the launch request). */
const GOALS = { painted: 250, live: 300, firstEver: 500 }
/** Starts without a saved shell, after the others: a first start ever, as far as the page goes. */
const FIRST_EVER_RUNS = 3
/** Forgets the shells the workbench saved (ui/src/workbench/shell.ts), so the next start has none. */
const FORGET_SHELLS = `
  for (const key of Object.keys(localStorage)) if (key.startsWith("cowork.shell:")) localStorage.removeItem(key)
  return Object.keys(localStorage).filter((key) => key.startsWith("cowork.shell:")).length
`

const starts = []
const firstPaints = []
const splits = []
let last
for (let i = 0; i < runs; i++) {
  const app = await start()
  starts.push(app.ms)
  firstPaints.push(app.firstPaint)
  splits.push(app.steps)
  if (i < runs - 1) await stop(app)
  else last = app
}
// A first start ever (no saved shell): the page draws nothing until React's rail, its first paint.
// The Cowork root, the transpile cache and the OS file cache stay warm, as they are after an
// install has run the app once; what is cold is what the page saved.
const firstEver = []
const firstEverPaints = []
for (let i = 0; i < FIRST_EVER_RUNS; i++) {
  const left = await last.session.execute(FORGET_SHELLS)
  if (left !== 0) throw new Error(`the saved shell is still there (${left} key(s))`)
  await stop(last)
  last = await start()
  if (last.steps["shell painted (the last start's title bar, rail and status bar: the page's mark)"] !== undefined) throw new Error("a start without a saved shell painted one")
  firstEver.push(last.ms)
  firstEverPaints.push(last.firstPaint)
}
const list = (values) => `${values.map((ms) => ms.toFixed(0)).join(", ")} ms`
const goal = (ms, limit) => `goal ≤ ${limit} ms: ${ms <= limit ? "met" : "not met"}`
console.log(`cold start → painted rail (first contentful paint: the shell's, or React's on a first start): median ${median(firstPaints).toFixed(0)} ms (${goal(median(firstPaints), GOALS.painted)}; ${runs} runs: ${list(firstPaints)})`)
console.log(`cold start → live rail (React's, laid out, two frames drawn; seen by the bench): median ${median(starts).toFixed(0)} ms (${goal(median(starts), GOALS.live)}; ${list(starts)})`)
console.log(`first start ever (no saved shell) → live rail: median ${median(firstEver).toFixed(0)} ms (${goal(median(firstEver), GOALS.firstEver)}; ${list(firstEver)}); its first paint (React's rail) ${list(firstEverPaints)}`)
// Each step's median moment after the launch request (the starts with a saved shell), in that
// order, and the time since the one before.
console.log("where a start goes (median ms after the launch request, +ms since the step before):")
const moments = [...new Set(splits.flatMap(Object.keys))]
  .map((step) => [step, median(splits.map((run) => run[step]).filter((ms) => ms !== undefined))])
  .sort((a, b) => a[1] - b[1])
for (const [index, [step, at]] of moments.entries()) {
  const since = at - (index ? moments[index - 1][1] : 0)
  console.log(`  ${at.toFixed(0).padStart(5)}  +${since.toFixed(0).padStart(4)}  ${step}`)
}

if (startOnly) {
  await finish()
  process.exit(0)
}

const { session, pid } = last
await until(() => panesPainted(session, 1), { timeoutMs: 30_000, what: "the home pane (Notes)" })
await sleep(3000)
describe("workbench + 1 pane (home: Notes)", memory(pid))

await session.click(await session.waitFor('[data-testid="rail"] button[aria-label="Board"]'))
const opened = spawnSync(COWORK_BIN, ["app", "open", join(workspace, ".cowork/apps/standup/cowork.json")], { env: process.env, encoding: "utf8" })
if (opened.status !== 0) throw new Error(`cowork app open standup: ${opened.stderr}`)
await until(() => panesPainted(session, 3), { timeoutMs: 60_000, what: "3 painted panes" })
await sleep(3000)
describe("workbench + 3 panes (Notes, Board, Standup)", memory(pid))

// Ten panes: seven copies of the Board app join the workspace while it is open (the rail follows
// the apps folder), each its own app and origin, and each gets a tab.
const COPIES = Array.from({ length: 7 }, (_, i) => `Board ${i + 2}`)
for (const [i, title] of COPIES.entries()) {
  const folder = join(workspace, `.cowork/apps/board-${i + 2}`)
  cpSync(join(workspace, ".cowork/apps/board"), folder, { recursive: true })
  const manifest = JSON.parse(readFileSync(join(folder, "cowork.json"), "utf8"))
  writeFileSync(join(folder, "cowork.json"), JSON.stringify({ ...manifest, name: `board-${i + 2}`, title }, null, 2))
}
const tile = (title) => session.waitFor(`[data-testid="rail"] button[aria-label="${title}"]`)
// The tab's close button, pressed from script: it shows only on the active or hovered tab.
const closeTab = async (title) => {
  const closed = await session.execute(`const button = document.querySelector('[role="tab"] button[aria-label="Close ${title}"]'); button?.click(); return !!button`)
  if (!closed) throw new Error(`no tab named ${title} to close`)
}
const frameCount = async (count) => (await session.findAll("iframe")).length === count
for (const title of COPIES) await session.click(await tile(title))
await until(() => panesPainted(session, 10), { timeoutMs: 120_000, what: "10 painted panes" })
await sleep(3000)
describe("workbench + 10 panes (Notes, Standup, Board and 7 copies)", memory(pid))

// Back to 3 panes, then a Board tab opened and closed 100 times: what a closed pane leaves behind.
for (const title of COPIES) await closeTab(title)
await until(() => frameCount(3), { timeoutMs: 30_000, what: "the copies' panes to close" })
await sleep(3000)
const before = memory(pid)
describe("back to 3 panes", before)
const CYCLES = 100
for (let i = 0; i < CYCLES; i++) {
  await session.click(await tile(COPIES[0]))
  await until(() => panesPainted(session, 4), { timeoutMs: 30_000, what: `the ${COPIES[0]} pane, cycle ${i + 1}` })
  await closeTab(COPIES[0])
  await until(() => frameCount(3), { timeoutMs: 30_000, what: `the ${COPIES[0]} pane to close, cycle ${i + 1}` })
}
await sleep(3000)
const after = memory(pid)
describe(`3 panes after ${CYCLES} open/close cycles of a ${COPIES[0]} tab`, after)
console.log(`growth over ${CYCLES} cycles: ${(after.totalMb - before.totalMb).toFixed(1)} MB (${(((after.totalMb - before.totalMb) / CYCLES) * 1024).toFixed(0)} kB a cycle)`)

await finish()

async function finish() {
  await stop(last)
  if (alive(last.pid)) throw new Error("the app did not quit")
  rmSync(workspace, { recursive: true, force: true })
  if (TRACE) rmSync(TRACE, { force: true })
}
