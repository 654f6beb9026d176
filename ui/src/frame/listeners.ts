/**
 * A set of callbacks: `add` returns the unsubscribe, `emit` calls each, `clear` drops them all.
 * A callback that throws is reported and does not stop the others.
 */
export function listeners<Args extends unknown[]>() {
  const set = new Set<(...args: Args) => void>()
  return {
    add(callback: (...args: Args) => void) {
      set.add(callback)
      return () => void set.delete(callback)
    },
    emit(...args: Args) {
      for (const callback of [...set]) {
        try {
          callback(...args)
        } catch (error) {
          report(error)
        }
      }
    },
    clear() {
      set.clear()
    },
  }
}

/** Reports an error the way an uncaught one is (the frame forwards those to the host's log). */
export function report(error: unknown) {
  if (typeof globalThis.reportError === "function") globalThis.reportError(error)
  else console.error(error)
}
