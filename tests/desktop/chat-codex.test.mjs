// Codex, the Chat's other choice, in the desktop window: picked in the Chat's Agent menu, the REAL
// Codex (the pinned CLI of tests/standin, `codex app-server`) runs in the workspace folder against
// the scripted stand-in for its model API (tests/desktop/session points it there), and its answer
// streams into the side bar. Needs `npm ci --prefix tests/standin` (scripts/install-deps does it).
import assert from "node:assert/strict"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { after, before, describe, test } from "node:test"
import { fileURLToPath } from "node:url"
import { start } from "../standin/standin.mjs"
import { onFreshWorkspace, screenshotScreen, skip as noDesktop } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

const STANDIN = fileURLToPath(new URL("../standin/", import.meta.url))
const installed = existsSync(join(STANDIN, "node_modules/@openai/codex"))
if (!noDesktop && !installed && process.env.CI) throw new Error("the Chat's Codex desktop test needs the pinned Codex: run `npm ci --prefix tests/standin`")
const skip = noDesktop || (!installed && "no pinned Codex (run `npm ci --prefix tests/standin`)")

/** Codex starts in seconds on an idle machine; this one is shared with builds. */
const TURN_MS = 120_000
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

describe("Codex in the desktop window's Chat", { skip }, () => {
  const fixture = onFreshWorkspace()
  let standin
  before(async () => {
    const port = Number(new URL(process.env.STANDIN_URL).port)
    // Pieces far enough apart that the window shows the answer half written.
    standin = await start({ port, plan: { turns: [{ text: ["Hello ", "from ", "Codex."], chunkDelayMs: 700 }] } })
  })
  after(async () => {
    await standin?.close()
  })

  const logText = () => fixture.app.session.execute(`return document.querySelector('[data-testid="chat-log"]')?.innerText ?? ""`)

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

  test("picked in the Agent menu, Codex's answer streams into the Chat", async () => {
    const { session } = fixture.app
    await session.click(await session.waitFor('button[aria-label="Toggle Secondary Side Bar"]'))
    await session.click(await byText('[role="tab"]', "Chat", 10_000))
    await session.waitFor('[data-testid="chat"]')
    await session.click(await session.waitFor('select[aria-label="Agent"]'))
    await session.click(await session.find('select[aria-label="Agent"] option[value="codex"]'))
    const message = await session.waitFor('textarea[aria-label="Message"]')
    await until(async () => (await session.execute(`return document.querySelector('textarea[aria-label="Message"]').placeholder`)) === "Ask Codex about this workspace", { timeoutMs: 10_000, what: "Codex chosen" })
    await session.type(message, "say hello")
    await session.click(await byText("button", "Send", 10_000))

    const seen = []
    await until(async () => {
      const text = await logText()
      seen.push(text)
      return text.includes("Hello from Codex.")
    }, { timeoutMs: TURN_MS, what: "Codex's streamed answer" })
    assert.ok(seen.some((text) => text.includes("Hello") && !text.includes("Codex.")), "the answer shows in pieces as Codex streams it")
    await byText("button", "Send", TURN_MS)
    screenshotScreen("chat-codex-answer")
    assert.deepEqual(standin.failures, [], "the stand-in's checks")
    const answered = standin.requests.filter((r) => r.turn !== null)
    assert.equal(answered.length, 1, "one model request answered the message")
    assert.equal(answered[0].path.split("?")[0], "/v1/responses", "Codex asked the Responses API")
  })
})
