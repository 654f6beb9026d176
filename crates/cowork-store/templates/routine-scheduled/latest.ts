// daily-report-latest: the newest report (a read: nothing changes).

export default async (_args: unknown, ctx: CoworkRoutineContext) => {
  ctx.unchanged();
  const names = ctx.data.list("reports").filter((n: string) => n.endsWith(".json")).sort();
  const newest = names.at(-1);
  return newest ? ctx.data.read(`reports/${newest}`, null) : null;
};
