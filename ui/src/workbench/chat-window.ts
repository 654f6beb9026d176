/**
 * The Chat log's window: only the entries in view (and a margin around it) are in the page, the
 * rest stand in as two spacers of their height. A conversation of thousands of messages then
 * scrolls as a short one does — the page holds some dozens of entries, not thousands, and a
 * scroll paints those (WebKitGTK's `content-visibility: auto` was tried: it made scrolling
 * slower, 2 fps). Heights are measured once an entry has been in the page, estimated before.
 */
import { type RefObject, useCallback, useLayoutEffect, useReducer, useRef, useState } from "react"

/** The height of an entry not measured yet (one line of text and its gap). */
export const ESTIMATE_PX = 44
/** How far above and below the view entries are kept in the page. */
const MARGIN_PX = 800
/** How far the view moves before the window is worked out again (less than the margin). */
const STEP_PX = 200

export type LogWindow = {
  /** The entries to render: indices [start, end). */
  start: number
  end: number
  /** The heights of the entries before `start` and from `end` on. */
  before: number
  after: number
  /** Give to the log's onScroll. */
  onScroll: () => void
}

/**
 * The window of `keys` (each entry's stable key in conversation `scope`, in order) in the
 * scrolling element `log`. Each rendered entry's element carries `data-key`, so its height is read
 * after each render; a height that changed renders again with the new spacers.
 */
export function useLogWindow(
  log: RefObject<HTMLElement | null>,
  scope: string | null,
  keys: readonly number[],
): LogWindow {
  // Keys are a conversation's seqs: another conversation's entries have heights of their own.
  const measuredFor = useRef(scope)
  const heights = useRef(new Map<number, number>())
  if (measuredFor.current !== scope) {
    measuredFor.current = scope
    heights.current = new Map()
  }
  const [view, setView] = useState({ top: 0, height: 0 })
  const [, measured] = useReducer((n: number) => n + 1, 0)
  // Whether the person is at the end (where a conversation opens): measuring entries there keeps
  // the log at its end, as a growing conversation is followed.
  const atEnd = useRef(true)

  const onScroll = useCallback(() => {
    const el = log.current
    if (!el) return
    atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 4
    // Rendered again only once the view moved a step: the margin covers a step's way.
    const top = Math.floor(el.scrollTop / STEP_PX) * STEP_PX
    const height = el.clientHeight
    setView((view) => (view.top === top && view.height === height ? view : { top, height }))
  }, [log])

  // Before the first scroll the view is the log's height (or the window's, not laid out yet).
  const height = view.height || log.current?.clientHeight || window.innerHeight
  const from = view.top - MARGIN_PX
  const to = view.top + height + MARGIN_PX
  let offset = 0
  let start = keys.length
  let end = keys.length
  let before = 0
  for (let i = 0; i < keys.length; i++) {
    const h = heights.current.get(keys[i]) ?? ESTIMATE_PX
    if (start === keys.length && offset + h > from) {
      start = i
      before = offset
    }
    if (offset >= to) {
      end = i
      break
    }
    offset += h
  }
  let after = 0
  for (let i = end; i < keys.length; i++) after += heights.current.get(keys[i]) ?? ESTIMATE_PX

  useLayoutEffect(() => {
    const el = log.current
    // A hidden Chat (another tab of the side bar) lays nothing out: every height would read 0.
    if (!el || el.clientHeight === 0) return
    let changed = false
    for (const child of el.querySelectorAll<HTMLElement>(":scope > [data-key]")) {
      const key = Number(child.dataset.key)
      const h = child.offsetHeight
      if (heights.current.get(key) !== h) {
        heights.current.set(key, h)
        changed = true
      }
    }
    if (changed) measured()
    else if (atEnd.current && el.scrollTop + el.clientHeight < el.scrollHeight - 4)
      el.scrollTop = el.scrollHeight
  })

  return { start, end, before, after, onScroll }
}
