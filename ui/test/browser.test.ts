/**
 * The built frame in headless Chromium, embedded the way the workbench embeds it: a sandboxed
 * iframe on its own origin (`notes-1a2b.app.localhost`), driven by the real host helper from a
 * page on another origin (`127.0.0.1`). Screenshots land in `test-results/` for a person to look at.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { extname, join, normalize } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, Frame, Page } from "playwright-core"
import { CHROMIUM, launchChromium } from "./chromium"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"

import type { Theme, Widget } from "@/frame/protocol"
import type { PaneEvent } from "@/host/panes"
import {
  crashing,
  flood,
  greeting,
  heavy,
  leftPad,
  madeUp,
  plain,
  refusedByDaemon,
  reloaded,
  unparsable,
} from "./browser/widgets"

const ui = fileURLToPath(new URL("..", import.meta.url))
const results = join(ui, "test-results")
const FRAME_HOST = "notes-1a2b.app.localhost"

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
}

/**
 * Serves the frame's build on the app's host name and the test workbench on any other. The
 * frame's origin is opaque, so its module scripts and stylesheets are cross-origin requests:
 * the daemon must send `Access-Control-Allow-Origin` with them, as this server does.
 */
function serve(frameDir: string, hostDir: string) {
  return createServer((request, response) => {
    const dir = request.headers.host?.startsWith(FRAME_HOST) ? frameDir : hostDir
    const path = normalize(decodeURIComponent(new URL(request.url!, "http://x").pathname))
    const file = join(dir, path)
    if (!file.startsWith(dir) || !existsSync(file) || path.endsWith("/")) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "access-control-allow-origin": "*",
    })
    response.end(readFileSync(file))
  })
}

let server: Server
let browser: Browser
let port: number

beforeAll(async () => {
  mkdirSync(results, { recursive: true })
  server = serve(join(ui, "dist"), inject("hostDir"))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  server?.close()
})

/** A fresh workbench page with one pane showing `widget`; `loaded` lists every URL it fetched. */
async function openPane(widget: Widget, theme: Theme = "light") {
  const page = await browser.newPage({ viewport: { width: 640, height: 460 } })
  const loaded: string[] = []
  page.on("request", (request) => loaded.push(request.url()))
  const problems: string[] = []
  page.on("pageerror", (error) => problems.push(error.message))
  await page.goto(`http://127.0.0.1:${port}/host.html`)
  await page.evaluate(({ src, widget, theme }) => (window as any).test.mount(src, widget, theme), {
    src: `http://${FRAME_HOST}:${port}/frame.html`,
    widget,
    theme,
  })
  return { page, loaded, problems, frame: page.frameLocator("iframe") }
}

function send(page: Page, event: PaneEvent) {
  return page.evaluate((event) => (window as any).test.send(event), event)
}

/** Hot reload, with the stylesheet the workbench compiles for the new code. */
function reload(page: Page, widget: Widget) {
  return page.evaluate((widget) => (window as any).test.reload(widget), widget)
}

/**
 * A workbench page whose pane's frame has loaded, and said it is ready, before the workbench has
 * the pane to give it (`test.mount` with `src` then mounts it).
 */
async function preloadedFrame() {
  const page = await browser.newPage({ viewport: { width: 640, height: 460 } })
  await page.goto(`http://127.0.0.1:${port}/host.html`)
  const src = `http://${FRAME_HOST}:${port}/frame.html`
  await page.evaluate((src) => (window as any).test.preload(src), src)
  await expect.poll(() => paneFrame(page)?.evaluate(() => document.readyState)).toBe("complete")
  return { page, src }
}

function paneFrame(page: Page): Frame {
  return page.frames().find((frame) => frame.url().includes("/frame.html"))!
}

const chunks = (urls: string[]) =>
  urls
    .filter((url) => url.includes(FRAME_HOST) && url.endsWith(".js"))
    .map((url) => url.split("/").pop()!)

describe.skipIf(!existsSync(CHROMIUM))("the frame in Chromium", () => {
  it("runs a widget that imports only React with nothing but the frame's bundle", async () => {
    const { page, loaded, frame } = await openPane(plain)
    await expect.poll(() => frame.getByTestId("plain").textContent()).toBe("Only React here")
    // The frame's bundle is its entry and the bundler's runtime (rolldown splits it out): no
    // component or library chunk.
    expect(chunks(loaded).filter((chunk) => !/^rolldown-runtime-/.test(chunk))).toEqual([
      expect.stringMatching(/^frame-.*\.js$/),
    ])
    await page.close()
  })

  it("runs the widget of a frame that loaded before its pane was mounted", async () => {
    const { page, src } = await preloadedFrame()
    await page.evaluate(({ src, widget }) => (window as any).test.mount(src, widget, "light"), {
      src,
      widget: plain,
    })
    await expect
      .poll(() => page.frameLocator("iframe").getByTestId("plain").textContent())
      .toBe("Only React here")
    expect(await page.locator("iframe").count()).toBe(1)
    await page.close()
  })

  it("paints a widget styled from its first frame, and styles a class it makes at run time", async () => {
    const { page, src } = await preloadedFrame()
    // The colour of the widget's text the moment its element enters the document, before any paint.
    const atFirst = paneFrame(page).evaluate(
      () =>
        new Promise<string>((resolve) => {
          const root = document.getElementById("root")!
          new MutationObserver(() => {
            if (root.firstElementChild) resolve(getComputedStyle(root.firstElementChild).color)
          }).observe(root, { childList: true })
        }),
    )
    await page.evaluate(({ src, widget }) => (window as any).test.mount(src, widget, "light"), {
      src,
      widget: madeUp,
    })
    expect(await atFirst).toBe("oklch(0.532 0.157 131.589)")
    // `bg-sky-600` is in no source: the frame's observer sends it, the workbench compiles it.
    const paragraph = page.frameLocator("iframe").getByTestId("made-up")
    await expect
      .poll(() => paragraph.evaluate((node) => getComputedStyle(node).backgroundColor))
      .toBe("oklch(0.588 0.158 241.966)")
    await page.close()
  })

  it("says once in the log that a widget made up more classes than its app may send, and goes on", async () => {
    const { page, frame } = await openPane(flood)
    await frame.locator('[data-round="2"]').waitFor()
    const tooLarge = () =>
      page.evaluate(
        () =>
          (window as any).test.calls.filter(
            ([method, params]: [string, any]) =>
              method === "log" && /TooLarge/.test(params.parts[0]),
          ).length,
      )
    await expect.poll(tooLarge).toBe(1)
    // Its third round (past the limit) asked nothing more.
    await page.waitForTimeout(300)
    expect(await tooLarge()).toBe(1)
    await page.close()
  })

  it("renders shadcn parts, calls a routine, follows the theme, reloads, and shows errors", async () => {
    const { page, loaded, problems, frame } = await openPane(greeting)

    // The routine's answer came through window.cowork and the fake daemon.
    await expect.poll(() => frame.getByTestId("greeting").textContent()).toBe("Hello, Ada")
    const calls = await page.evaluate(() => (window as any).test.calls)
    expect(calls).toContainEqual(["routines.run", { id: "greet", args: { name: "Ada" } }])

    // Isolation: the frame's origin is opaque.
    await expect(paneFrame(page).evaluate(() => window.origin)).resolves.toBe("null")

    // Only the chunks this widget imports were fetched.
    const fetched = chunks(loaded).join(" ")
    expect(fetched).toMatch(/button-/)
    expect(fetched).toMatch(/lucide-react-/)
    expect(fetched).not.toMatch(/recharts-|xyflow-|xterm-/)

    // Tailwind compiled the shadcn classes against the theme tokens.
    const button = frame.getByTestId("click")
    const look = await button.evaluate((node) => {
      const style = getComputedStyle(node)
      return { background: style.backgroundColor, radius: style.borderRadius, height: style.height }
    })
    expect(look).toEqual({ background: "oklch(0.205 0 0)", radius: "8px", height: "36px" })
    await page.screenshot({ path: join(results, "widget-light.png") })

    // The workbench turns dark: the frame follows at once.
    await send(page, { event: "theme", theme: "dark" })
    await frame.locator("html.dark").waitFor({ state: "attached" })
    const background = await frame
      .locator("body")
      .evaluate((node) => getComputedStyle(node).backgroundColor)
    expect(background).toBe("oklch(0.145 0 0)")
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(results, "widget-dark.png") })

    // Hot reload: new code, same state.
    await button.click()
    await frame.getByText("1 clicks").waitFor()
    await reload(page, reloaded)
    await expect
      .poll(() => frame.getByTestId("reloaded").textContent())
      .toBe('Reloaded with {"clicks":1}')

    // A throw while rendering shows in the pane, naming the file.
    await reload(page, crashing)
    const crash = () => frame.getByRole("alert").textContent()
    await expect.poll(crash).toContain("This widget crashed")
    expect(await crash()).toContain("widgets/crashing.jsx")
    expect(await crash()).toContain("TypeError")
    await page.screenshot({ path: join(results, "widget-crashed.png") })
    // …and reaches the host's log.
    await expect
      .poll(() => page.evaluate(() => (window as any).test.calls))
      .toContainEqual(["log", { level: "error", parts: [expect.stringContaining("TypeError")] }])

    // Code that does not parse, and code the daemon refused, with the daemon's place.
    await reload(page, unparsable)
    await expect.poll(() => frame.getByRole("alert").textContent()).toContain("SyntaxError")
    await reload(page, refusedByDaemon)
    await expect
      .poll(() => frame.getByRole("alert").textContent())
      .toContain("widgets/broken.tsx:12:3")

    // An import outside the allowlist: refused before the code runs, with its place.
    await reload(page, leftPad)
    const refusal = () => frame.getByRole("alert").textContent()
    await expect.poll(refusal).toContain('"left-pad" is not in the cowork webapp allowlist')
    expect(await refusal()).toContain("widgets/padded.jsx:2:17")
    await page.screenshot({ path: join(results, "widget-allowlist-error.png") })

    await send(page, { event: "theme", theme: "light" })
    await frame.locator("html:not(.dark)").waitFor({ state: "attached" })
    await page.screenshot({ path: join(results, "widget-allowlist-error-light.png") })

    expect(problems).toEqual([])
    await page.close()
  })

  it("loads the node canvas, charts and terminal with their stylesheets", async () => {
    const { page, loaded, problems, frame } = await openPane(heavy)
    await frame.locator(".react-flow__node").nth(1).waitFor()
    await frame.locator(".recharts-bar-rectangle").first().waitFor()
    await frame.locator(".xterm-rows").waitFor()
    const styled = await paneFrame(page).evaluate(() => ({
      // Each value comes from the library's own stylesheet.
      node: getComputedStyle(document.querySelector(".react-flow__node-default")!).width,
      terminal: getComputedStyle(document.querySelector(".xterm-helper-textarea")!).opacity,
    }))
    expect(styled).toEqual({ node: "150px", terminal: "0" })
    expect(chunks(loaded).join(" ")).toMatch(/recharts-.*xyflow-|xyflow-.*recharts-/)
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(results, "widget-heavy.png") })
    expect(problems).toEqual([])
    await page.close()
  })

  it("renders every component of the set, light and dark, with working overlays", async () => {
    const code = inject("gallery")
    const specifiers = [...code.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]!)
    expect(specifiers.filter((name) => name.startsWith("@/components/ui/"))).toHaveLength(47)
    const gallery: Widget = {
      file: "widgets/gallery.jsx",
      code,
      imports: specifiers.map((specifier) => ({ specifier, line: 1, column: 1 })),
    }
    const { page, problems, frame } = await openPane(gallery)
    await page.setViewportSize({ width: 1280, height: 1180 })
    await frame.getByText("Make changes to your account here.").waitFor()
    await frame.locator(".recharts-bar-rectangle").first().waitFor()
    expect(await frame.getByRole("alert").count()).toBe(2) // the two <Alert>s, no error view
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(results, "gallery-light.png") })

    await send(page, { event: "theme", theme: "dark" })
    await frame.locator("html.dark").waitFor({ state: "attached" })
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(results, "gallery-dark.png") })

    await frame.getByTestId("menu").click()
    await frame.getByRole("menuitem", { name: "Settings" }).waitFor()
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(results, "gallery-menu-dark.png") })
    await page.keyboard.press("Escape")

    await frame.getByTestId("dialog").click()
    await frame.getByRole("dialog").waitFor()
    await page.waitForTimeout(400)
    await page.screenshot({ path: join(results, "gallery-dialog-dark.png") })
    await page.keyboard.press("Escape")

    await frame.getByRole("button", { name: "Toast" }).click()
    await frame.getByText("The note was saved.").waitFor()

    expect(problems).toEqual([])
    await page.close()
  })

  it("shows an allowlist error of the first widget too", async () => {
    const { page, frame } = await openPane(leftPad, "dark")
    await expect
      .poll(() => frame.getByRole("alert").textContent())
      .toContain("is not in the cowork webapp allowlist")
    await page.close()
  })
})
