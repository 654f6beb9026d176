// The Chat in the desktop window: opened from the title bar, it runs the REAL Claude Code (the
// pinned CLI of tests/standin) in the workspace folder, pointed by tests/desktop/session at a
// scripted stand-in for its model API that this file starts with its plan. A plain answer streams
// into the side bar; a tool call becomes the Chat's own permission card, and "Allow once" runs it.
// Needs `npm ci --prefix tests/standin` (scripts/install-deps does it).
import assert from "node:assert/strict"
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import http from "node:http"
import { join } from "node:path"
import { after, before, describe, test } from "node:test"
import { fileURLToPath } from "node:url"
import { start } from "../standin/standin.mjs"
import { HOME, onFreshWorkspace, screenshotScreen, skip as noDesktop } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

const STANDIN = fileURLToPath(new URL("../standin/", import.meta.url))
const installed = existsSync(join(STANDIN, "node_modules/@anthropic-ai/claude-code"))
if (!noDesktop && !installed && process.env.CI) throw new Error("the Chat's desktop test needs the pinned Claude Code: run `npm ci --prefix tests/standin`")
const skip = noDesktop || (!installed && "no pinned Claude Code (run `npm ci --prefix tests/standin`)")

/** The CLI starts in seconds on an idle machine; this one is shared with builds. */
const TURN_MS = 120_000
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
/** One timed turn each: the word the stand-in streams first. */
const MARKERS = ["Aardvark", "Bison", "Caracal", "Dingo", "Eland", "Fossa", "Gibbon"]
/** The long conversation: 1,000 messages of the person's and 1,000 answers. */
const LONG_MESSAGES = 2000

/**
 * When the stand-in (in this process) wrote each marker to Claude Code's HTTP stream: its
 * responses are this module's `http.ServerResponse`s, so a wrapper on `write` sees every SSE
 * event as it leaves. Claude Code reads it, emits it on stdout, the daemon relays it to the
 * window: the time from here to the screen bounds the time from the CLI's emitting it.
 */
const written = new Map()
const write = http.ServerResponse.prototype.write
http.ServerResponse.prototype.write = function (chunk, ...rest) {
  const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : ""
  for (const marker of MARKERS) if (!written.has(marker) && text.includes(`"${marker} "`)) written.set(marker, Date.now())
  return write.call(this, chunk, ...rest)
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

describe("the Chat in the desktop window", { skip }, () => {
  const fixture = onFreshWorkspace()
  let standin
  before(async () => {
    const port = Number(new URL(process.env.STANDIN_URL).port)
    standin = await start({
      port,
      plan: {
        turns: [
          // Pieces far enough apart that the window shows the answer half written.
          { text: ["Hello ", "from ", "the stand-in."], chunkDelayMs: 700 },
          { tool: { name: "Bash", input: { command: "echo made > made.txt", description: "Make a file" } } },
          { expect: { toolResultError: false }, text: "Finished: made.txt is there." },
          // The first token's way to the screen, timed: a marker first, the rest a while later.
          ...MARKERS.map((marker) => ({ text: [`${marker} `, "and the rest."], chunkDelayMs: 400 })),
        ],
      },
    })
  })
  after(async () => {
    await standin?.close()
  })

  /** The first element matching `selector` whose text is `text`, as a WebDriver element id. */
  async function byText(selector, text, timeoutMs = TURN_MS) {
    const { session } = fixture.app
    return until(async () => {
      const found = await session.execute(
        "return [...document.querySelectorAll(arguments[0])].find((e) => e.textContent.trim() === arguments[1]) ?? null",
        selector,
        text,
      )
      return found?.[ELEMENT]
    }, { timeoutMs, what: `${selector} saying ${JSON.stringify(text)}` })
  }

  const logText = () => fixture.app.session.execute(`return document.querySelector('[data-testid="chat-log"]')?.innerText ?? ""`)

  async function send(text) {
    const { session } = fixture.app
    await session.type(await session.waitFor('textarea[aria-label="Message"]'), text)
    await session.click(await byText("button", "Send", 10_000))
  }

  test("opens from the title bar and streams Claude Code's answer", async () => {
    const { session } = fixture.app
    await session.click(await session.waitFor('button[aria-label="Toggle Secondary Side Bar"]'))
    await session.click(await byText('[role="tab"]', "Chat", 10_000))
    await session.waitFor('[data-testid="chat"]')

    await send("say hello")
    await until(async () => (await logText()).includes("say hello"), { what: "the message in the Chat" })
    const seen = []
    await until(async () => {
      const text = await logText()
      seen.push(text)
      return text.includes("Hello from the stand-in.")
    }, { timeoutMs: TURN_MS, what: "the streamed answer" })
    assert.ok(
      seen.some((text) => text.includes("Hello") && !text.includes("the stand-in.")),
      "the answer shows in pieces as Claude Code streams it",
    )
    // The turn ended: Send is back instead of Stop.
    await byText("button", "Send", TURN_MS)
    screenshotScreen("chat-answer")
    const answers = standin.requests.filter((r) => r.turn !== null)
    assert.equal(answers.length, 1, "one model request answered the message")
    assert.equal(answers[0].stream, true, "Claude Code asked for a streamed answer")
  })

  test("a tool call asks in the Chat, and Allow once runs it", async () => {
    const { workspace } = fixture
    const made = join(workspace, "made.txt")
    await send("make a file")
    const allow = await byText("button", "Allow once")
    assert.match(await logText(), /Allow Bash\?/)
    assert.ok(!existsSync(made), "nothing runs before the person answers")
    screenshotScreen("chat-permission")
    await fixture.app.session.click(allow)

    await until(async () => (await logText()).includes("Finished: made.txt is there."), { timeoutMs: TURN_MS, what: "the closing words" })
    assert.match(await logText(), /Answered: allow/)
    assert.equal(readFileSync(made, "utf8").trim(), "made")
    await byText("button", "Send", TURN_MS)
    screenshotScreen("chat-allowed")
    assert.deepEqual(standin.failures, [], "the stand-in's checks")
    assert.equal(standin.requests.filter((r) => r.turn !== null).length, 3, "every turn of the plan was asked for")
  })

  /**
   * Keeps a conversation of LONG_MESSAGES messages as the daemon keeps one — a summary and a
   * transcript under <root>/workspaces/<key>/chat/ — for the Chat to list after its next turn.
   */
  function keepLongConversation() {
    // This workspace's: other files of the run (the Codex one) keep conversations of their own
    // workspaces under the same root. A workspace's key is its path with `-` for `/`, then a hash.
    const prefix = `${fixture.workspace.replaceAll("/", "-")}-`
    const dir = readdirSync(join(HOME, "workspaces"))
      .filter((key) => key.startsWith(prefix))
      .map((key) => join(HOME, "workspaces", key, "chat"))
      .find((chat) => existsSync(chat) && readdirSync(chat).some((f) => f.endsWith(".jsonl")))
    assert.ok(dir, "the conversations so far are kept under the root")
    const id = "long-conversation"
    const lines = []
    let seq = 0
    const event = (kind) => lines.push(JSON.stringify({ conversation: id, seq: ++seq, ...kind }))
    for (let turn = 0; turn < LONG_MESSAGES / 2; turn++) {
      event({ type: "user", text: `Question ${turn}: what changed in section ${turn}?`, context: [] })
      if (turn % 10 === 0) {
        event({ type: "toolCall", id: `t${turn}`, name: "Read", input: { file_path: `notes/${turn}.md` } })
        event({ type: "toolResult", id: `t${turn}`, output: `# Section ${turn}\n`.repeat(5), isError: false })
      }
      event({ type: "text", text: `Answer ${turn}: section ${turn} now says more about the plan, its numbers and who does what next week.` })
      event({ type: "turnEnd", result: null, isError: false, interrupted: false })
    }
    writeFileSync(join(dir, `${id}.jsonl`), `${lines.join("\n")}\n`)
    writeFileSync(join(dir, `${id}.json`), JSON.stringify({ id, title: "the long one", created: "2026-01-01T00:00:00Z", model: null, effort: null, session: null, running: false }))
  }

  // Issue 40 §3 asks ≤ 50 ms from the CLI's emitting the first token to the screen: printed here
  // (and kept in BENCHMARKS.md), not asserted — speed is measured, never asserted in tests.
  test("shows each first streamed token before the rest of its answer, and times it", async () => {
    const { session } = fixture.app
    // Listed once a turn here has ended: the next test scrolls it.
    keepLongConversation()
    await session.click(await session.waitFor('button[aria-label="New conversation"]'))
    const latencies = []
    for (const marker of MARKERS) {
      // The window notes when the marker first shows, by its own clock (the machine's, as ours).
      await session.execute(`
        const log = document.querySelector('[data-testid="chat-log"]')
        window.__shown = null
        window.__observer?.disconnect()
        window.__observer = new MutationObserver(() => {
          if (window.__shown === null && log.textContent.includes(arguments[0])) {
            window.__shown = Date.now()
            window.__alone = !log.textContent.includes(arguments[0] + " and the rest.")
          }
        })
        window.__observer.observe(log, { childList: true, subtree: true, characterData: true })`, marker)
      await send(`say ${marker.toLowerCase()}`)
      const shown = await until(() => session.execute("return window.__shown"), { timeoutMs: TURN_MS, what: `${marker} on screen` })
      latencies.push(shown - written.get(marker))
      assert.equal(await session.execute("return window.__alone"), true, `${marker} showed before the rest of its answer`)
      await until(async () => (await logText()).includes(`${marker} and the rest.`), { timeoutMs: TURN_MS, what: `${marker}'s turn` })
      await byText("button", "Send", TURN_MS)
    }
    const line = `chat first token, stand-in's write → on screen (desktop app, debug): ${latencies.join(", ")} ms; median ${median(latencies)} ms`
    process.stderr.write(`${line}\n`)
  })

  test(`scrolls a ${LONG_MESSAGES.toLocaleString("en")}-message conversation`, async () => {
    const { session } = fixture.app
    const option = await session.find('select[aria-label="Conversation"] option[value="long-conversation"]')
    assert.ok(option, "the long conversation is listed")
    const picked = Date.now()
    await session.click(await session.waitFor('select[aria-label="Conversation"]'))
    await session.click(option)
    await until(async () => (await logText()).includes(`Answer ${LONG_MESSAGES / 2 - 1}:`), { timeoutMs: TURN_MS, what: "the long conversation's last answer" })
    const opened = Date.now() - picked
    const selected = await session.execute(`const s = document.querySelector('select[aria-label="Conversation"]'); return [s.value, s.selectedOptions[0]?.textContent]`)
    assert.deepEqual(selected, ["long-conversation", "the long one"])

    // Scroll from the top to the bottom in 120 frames, as a wheel or a dragged scroll bar does.
    const frames = await session.executeAsync(`
      const done = arguments[arguments.length - 1]
      const log = document.querySelector('[data-testid="chat-log"]')
      log.scrollTop = 0
      const steps = 120
      const step = (log.scrollHeight - log.clientHeight) / steps
      const times = []
      let i = 0
      const report = () => done({ times, height: log.scrollHeight, nodes: log.querySelectorAll("*").length })
      // A window that stops drawing still answers: with the frames it drew.
      const late = setTimeout(() => { i = steps + 1; report() }, 20000)
      requestAnimationFrame(function frame(t) {
        if (i > steps) return
        times.push(t)
        if (i++ === steps) return clearTimeout(late), report()
        log.scrollTop = i * step
        requestAnimationFrame(frame)
      })`)
    assert.ok(frames.times.length > 1, `the window drew ${frames.times.length} frames while scrolling`)
    const gaps = frames.times.slice(1).map((t, i) => t - frames.times[i])
    const fps = (gaps.length * 1000) / (frames.times.at(-1) - frames.times[0])
    const worst = Math.max(...gaps)
    const p95 = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length * 0.95)]
    screenshotScreen("chat-long")
    const line = `chat ${LONG_MESSAGES} messages (desktop app, debug): opened in ${opened} ms; scrolled ${gaps.length} of 120 frames at ${fps.toFixed(1)} fps, p95 frame ${p95.toFixed(1)} ms, worst ${worst.toFixed(1)} ms; ${frames.nodes} elements in the log`
    process.stderr.write(`${line}\n`)
    // The page holds the entries in view, not all of them (3,401 elements before the log was
    // windowed). The frame rate is printed, not held to 60: this machine's load moves it (52 fps
    // before the window, 45–75 after, at a load of 11 on 2 cores).
    assert.ok(frames.nodes < 1000, `the page holds the entries in view, not all ${LONG_MESSAGES}: ${line}`)
    assert.equal(gaps.length, 120, `every step of the scroll was drawn: ${line}`)
  })
})
