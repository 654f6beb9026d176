/**
 * Runs `then` once what was rendered has been painted: a frame's callbacks run before it is drawn,
 * a timer after them once it has been. A page in a hidden window draws no frames, so `then` also
 * runs `latestMs` after the call. Returns a cancel.
 */
export function afterPaint(then: () => void, latestMs: number): () => void {
  let done = false
  const once = () => {
    if (done) return
    done = true
    then()
  }
  let timer = 0
  const frame = requestAnimationFrame(() => {
    timer = window.setTimeout(once)
  })
  const latest = window.setTimeout(once, latestMs)
  return () => {
    done = true
    cancelAnimationFrame(frame)
    clearTimeout(timer)
    clearTimeout(latest)
  }
}
