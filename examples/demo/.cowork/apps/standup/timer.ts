// What the standup routines share: the focus timer's state, kept in `.cowork/data/standup/timer.json`.

export type Session = { start: string; end: string; minutes: number; planned: number; overran: boolean };
export type Timer = { minutes: number; startedAt: string | null; sessions: Session[] };

export const DEFAULT_MINUTES = 25;
/** Sessions kept for the reports; older ones are dropped. */
const KEEP = 200;

export const loadTimer = (ctx: CoworkRoutineContext): Timer =>
  ({ minutes: DEFAULT_MINUTES, startedAt: null, sessions: [], ...ctx.data.read("timer.json", {}) });

export function saveTimer(ctx: CoworkRoutineContext, timer: Timer) {
  ctx.data.write("timer.json", { ...timer, sessions: timer.sessions.slice(-KEEP) });
}

/** `YYYY-MM-DD` of a moment in this computer's time zone. */
export function localDate(moment: Date | string = new Date()): string {
  const d = new Date(moment);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** `MM:SS` of a number of seconds. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}
