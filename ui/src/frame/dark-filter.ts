/**
 * Page 04: "A hardcoded-light UI gets an automatic dark filter on dark themes." On the dark
 * theme, a widget whose surface stays light (`bg-white`, `#fff` — not the `bg-background` token),
 * or that has no surface and dark text (`text-black` on the dark page), is inverted as a whole
 * with its hues kept; its pictures are inverted back so photos look right.
 */

/** Above this relative luminance a surface is light; below `DARK` a text colour is dark. */
const LIGHT = 0.6
const DARK = 0.2
/** How deep into the widget's first elements its surface is looked for. */
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
    if (root.classList.contains(FILTER_CLASS) !== filtered) root.classList.toggle(FILTER_CLASS, filtered)
  }
  // The widget renders, Tailwind compiles its classes into <head>, the theme class flips: each
  // may change the answer, so every change schedules one check per frame.
  new MutationObserver(() => {
    if (scheduled) return
    scheduled = true
    requestAnimationFrame(check)
  }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true })
}

/** Whether the widget's surface is light, or it has none and its text is dark. */
function hardCodedLight(root: HTMLElement) {
  let element = root.firstElementChild
  let last: Element | null = null
  for (let depth = 0; element && depth < DEPTH; depth++, element = element.firstElementChild) {
    const background = rgba(getComputedStyle(element).backgroundColor)
    if (background[3] > 0.5) return luminance(background) > LIGHT
    last = element
  }
  return last !== null && luminance(rgba(getComputedStyle(last).color)) < DARK
}

/**
 * A computed colour as [r, g, b, alpha]: a 1×1 canvas paints it, since the browser writes the
 * tokens and Tailwind's palette as oklch(…), not rgb(…).
 */
let pixel: CanvasRenderingContext2D | null = null
function rgba(css: string): [number, number, number, number] {
  pixel ??= Object.assign(document.createElement("canvas"), { width: 1, height: 1 }).getContext("2d", {
    willReadFrequently: true,
  })!
  pixel.clearRect(0, 0, 1, 1)
  pixel.fillStyle = "transparent"
  pixel.fillStyle = css
  pixel.fillRect(0, 0, 1, 1)
  const [r, g, b, a] = pixel.getImageData(0, 0, 1, 1).data
  return [r!, g!, b!, a! / 255]
}

function luminance([r, g, b]: number[]) {
  const linear = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
  return 0.2126 * linear(r!) + 0.7152 * linear(g!) + 0.0722 * linear(b!)
}
