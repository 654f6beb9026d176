// probe-status: the footer item exactly as the test wrote it to footer.json, with how many times
// it was drawn in its tooltip; a click with {"action": "fail"} throws.
export default async (args: { action?: string }, ctx: CoworkRoutineContext) => {
  if (args.action === "fail") throw ctx.error("NotConnected", "the probe lost its cable")
  const drawn = ctx.data.read("drawn.json", 0) + 1
  ctx.data.write("drawn.json", drawn)
  const footer = ctx.data.read<{ text: string; fail?: string }>("footer.json", {
    text: "Probe ready",
  })
  if (footer.fail) throw ctx.error("Offline", footer.fail)
  return { tooltip: `drawn ${drawn} times`, ...footer }
}
