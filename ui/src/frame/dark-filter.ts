/**
 * docs/guides/widgets.md: a widget drawn in fixed light colours gets an automatic dark filter on a
 * dark theme. On the dark theme, a widget whose surface stays light (`bg-white`, `#fff` — not the
 * `bg-background` token), or that has no surface and dark text (`text-black` on the dark page), is
 * inverted as a whole with its hues kept; its pictures are inverted back so photos look right. The
 * surface is what covers the pane: a white card or swatch inside a themed widget is content, and
 * decides nothing.
 */

/** Above this relative luminance a surface is light; below `DARK` a text colour is dark. */
const LIGHT = 0.6
const DARK = 0.2
/** How deep into the widget's outermost elements (each covering the pane) its surface is looked for. */
const DEPTH = 3

const FILTER_CLASS = "cowork-dark-filter"
const STYLE = `.${FILTER_CLASS}{filter:invert(1) hue-rotate(180deg)}
.${FILTER_CLASS} :is(img,video,picture,canvas){filter:invert(1) hue-rotate(180deg)}`

/** Keeps `root` filtered exactly while the page is dark and the widget is hard-coded light. */
export function watchDarkFilter(root: HTMLElement) {
  const style = document.createElement("style")
  style.textContent = STYLE
  document.head.append(style)
  let scheduled = false
  const check = () => {
    scheduled = false
    const dark = document.documentElement.classList.contains("dark")
    const filtered = dark && hardCodedLight(root)
    if (root.classList.contains(FILTER_CLASS) !== filtered)
      root.classList.toggle(FILTER_CLASS, filtered)
  }
  // The widget renders, the workbench's stylesheet for its classes arrives, the theme class
  // flips: each may change the answer, so every change schedules one check per frame.
  new MutationObserver(() => {
    if (scheduled) return
    scheduled = true
    requestAnimationFrame(check)
  }).observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  })
}

/**
 * Whether the pane's surface is light, or the widget paints none (the page's themed background
 * shows) and its text is dark. The surface is the widget's outermost element's background, else
 * that of an element inside it covering the pane (a `h-full` wrapper's `h-full bg-white` child).
 */
function hardCodedLight(root: HTMLElement) {
  const pane = root.getBoundingClientRect()
  let element = root.firstElementChild
  const outermost = element
  for (let depth = 0; element && depth < DEPTH; depth++) {
    const background = rgba(getComputedStyle(element).backgroundColor)
    if (background[3] > 0.5) return luminance(background) > LIGHT
    element = element.firstElementChild
    if (element && !covers(element.getBoundingClientRect(), pane)) break
  }
  return outermost !== null && luminance(rgba(getComputedStyle(outermost).color)) < DARK
}

/** Whether a box is the pane's surface: from the pane's top-left corner, its whole width, most of its height. */
function covers(box: DOMRect, pane: DOMRect) {
  const near = (a: number, b: number) => Math.abs(a - b) <= 1
  return (
    near(box.left, pane.left) &&
    near(box.top, pane.top) &&
    box.width >= pane.width - 1 &&
    box.height >= pane.height / 2
  )
}

/**
 * A computed colour as [r, g, b, alpha]: a 1×1 canvas paints it, since the browser writes the
 * tokens and Tailwind's palette as oklch(…), not rgb(…).
 */
let pixel: CanvasRenderingContext2D | null = null
function rgba(css: string): [number, number, number, number] {
  pixel ??= Object.assign(document.createElement("canvas"), { width: 1, height: 1 }).getContext(
    "2d",
    {
      willReadFrequently: true,
    },
  )!
  pixel.clearRect(0, 0, 1, 1)
  pixel.fillStyle = "transparent"
  pixel.fillStyle = css
  pixel.fillRect(0, 0, 1, 1)
  const [r, g, b, a] = pixel.getImageData(0, 0, 1, 1).data
  return [r!, g!, b!, a! / 255]
}

function luminance([r, g, b]: number[]) {
  const linear = (c: number) => {
    const v = c / 255
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * linear(r!) + 0.7152 * linear(g!) + 0.0722 * linear(b!)
}
