// The Chat in the desktop window: opened from the title bar, it runs the REAL Claude Code (the
// pinned CLI of tests/standin) in the workspace folder, pointed by tests/desktop/session at a
// scripted stand-in for its model API that this file starts with its plan. A plain answer streams
// into the side bar; a tool call becomes the Chat's own permission card, and "Allow once" runs it.
// Needs `npm ci --prefix tests/standin` (scripts/install-deps does it).
import assert from "node:assert/strict"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { after, before, describe, test } from "node:test"
import { fileURLToPath } from "node:url"
import { start } from "../standin/standin.mjs"
import { onFreshWorkspace, screenshotScreen, skip as noDesktop } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

const STANDIN = fileURLToPath(new URL("../standin/", import.meta.url))
const installed = existsSync(join(STANDIN, "node_modules/@anthropic-ai/claude-code"))
if (!noDesktop && !installed && process.env.CI) throw new Error("the Chat's desktop test needs the pinned Claude Code: run `npm ci --prefix tests/standin`")
const skip = noDesktop || (!installed && "no pinned Claude Code (run `npm ci --prefix tests/standin`)")

/** The CLI starts in seconds on an idle machine; this one is shared with builds. */
const TURN_MS = 120_000
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

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
})
