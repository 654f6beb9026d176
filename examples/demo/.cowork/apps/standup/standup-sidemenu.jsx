// The standup sidebar — a placeholder until the workbench UI: today's report, kept fresh with
// `cowork.routines.subscribe`, and a button that starts or stops a focus session.
import { useEffect, useRef, useState } from "react";

const routines = window.cowork.routines;

export default function StandupSidemenu() {
  const [report, setReport] = useState(null); // null until the first answer
  const [error, setError] = useState(null);
  const subscription = useRef(null);

  useEffect(() => {
    const s = routines.subscribe("standup-report", {}, {
      interval: 300,
      onData: (data) => {
        setReport(data);
        setError(null);
      },
      onError: setError,
    });
    subscription.current = s;
    return () => s.close();
  }, []);

  async function toggleFocus() {
    setError(null);
    try {
      await routines.run("standup-status", { action: "toggle" });
      subscription.current?.refresh();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <div className="flex h-full flex-col gap-2 overflow-y-auto bg-background p-2 text-foreground">
      <div className="flex items-center justify-between">
        <span className="text-sm font-semibold">Standup</span>
        <button className="rounded bg-primary px-2 py-1 text-xs text-primary-foreground" onClick={toggleFocus}>
          Start / stop focus
        </button>
      </div>
      {error ? (
        <div className="text-xs text-destructive">
          <b>{error.name}</b>: {error.message} {error.runId ? `(run ${error.runId.slice(0, 8)})` : ""}
        </div>
      ) : null}
      {report === null ? (
        <div className="h-24 animate-pulse rounded bg-muted" />
      ) : (
        <pre className="whitespace-pre-wrap rounded border bg-card p-2 text-xs">{report.text}</pre>
      )}
    </div>
  );
}
