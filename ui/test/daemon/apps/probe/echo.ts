// probe-echo: what it was asked, so a widget sees its call went through; `{"wait": ms}` first
// takes that long (a run to watch while it runs).
export default async (args: { wait?: number } | undefined) => {
  if (args?.wait) await new Promise((resolve) => setTimeout(resolve, args.wait))
  return { echo: args }
}
