/**
 * Arrow-key moves along a row or column of controls (the rail's buttons, the editor's tabs), as
 * VS Code's: `back`/`forward` step and wrap, Home and End go to the ends.
 */

/** Where `key` moves the focus from `index` of `count`; undefined for any other key. */
export function moved(
  key: string,
  index: number,
  count: number,
  [back, forward]: [string, string],
): number | undefined {
  const last = count - 1
  if (key === back) return index <= 0 ? last : index - 1
  if (key === forward) return index >= last ? 0 : index + 1
  if (key === "Home") return 0
  if (key === "End") return last
  return undefined
}
