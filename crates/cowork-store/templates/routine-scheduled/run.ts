// daily-report-run: one report per day in the app's data folder. Run it by hand, or on a schedule:
//   cowork deploy add daily-report-run --schedule "0 9 * * 1-5" && cowork routine active daily-report-run on

type Report = { date: string; written: string; runs: number; notes: string[] };

export default async (args: { note?: string }, ctx: CoworkRoutineContext) => {
  if (args.note !== undefined && typeof args.note !== "string") {
    throw ctx.error("BadRequest", "`note` is a line of text, e.g. {\"note\": \"shipped the demo\"}.");
  }
  const date = new Date().toISOString().slice(0, 10);
  const name = `reports/${date}.json`;
  const report: Report = ctx.data.read(name, { date, written: "", runs: 0, notes: [] });
  report.runs += 1;
  report.written = new Date().toISOString();
  if (args.note?.trim()) report.notes.push(args.note.trim());
  const path = ctx.data.write(name, report);
  ctx.log(`wrote ${path} (run ${report.runs} today)`);
  return { ...report, path };
};
