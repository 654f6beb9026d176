// The day a digest is about: `YYYY-MM-DD` in this computer's time zone.

export function localDate(moment: Date | string = new Date()): string {
  const d = new Date(moment);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** `args.date`, checked, or today. */
export function dayOf(ctx: CoworkRoutineContext, date: unknown): string {
  if (date === undefined) return localDate();
  if (typeof date !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) {
    throw ctx.error("BadRequest", `date is a day as YYYY-MM-DD, not ${JSON.stringify(date)}.`);
  }
  return date;
}
