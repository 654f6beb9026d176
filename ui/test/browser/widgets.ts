/**
 * Widgets as the daemon hands them to a pane: CommonJS bodies for
 * `new Function("require", "module", "exports", code)`, transpiled here by hand, with the import
 * list the transpiler would report.
 */
import type { Widget } from "../../src/frame/protocol"

const imports = (...specifiers: string[]) =>
  specifiers.map((specifier, index) => ({ specifier, line: index + 1, column: 1 }))

/** React alone: the frame should load nothing but its own bundle. */
export const plain: Widget = {
  file: "widgets/plain.jsx",
  imports: imports("react/jsx-runtime"),
  code: `"use strict";
const { jsx } = require("react/jsx-runtime");
exports.default = function Plain() {
  return jsx("p", { "data-testid": "plain", className: "p-6 text-foreground", children: "Only React here" });
};`,
}

/** shadcn parts and an icon, a routine call through window.cowork, a click count kept in state. */
export const greeting: Widget = {
  file: "widgets/greeting.jsx",
  imports: imports(
    "react",
    "react/jsx-runtime",
    "@/components/ui/button",
    "@/components/ui/badge",
    "@/components/ui/card",
    "@/components/ui/input",
    "lucide-react",
  ),
  code: `"use strict";
const React = ((m) => m.__esModule ? m.default : m.default ?? m)(require("react"));
const { jsx, jsxs } = require("react/jsx-runtime");
const { Button } = require("@/components/ui/button");
const { Badge } = require("@/components/ui/badge");
const { Card, CardHeader, CardTitle, CardDescription, CardContent, CardFooter } = require("@/components/ui/card");
const { Input } = require("@/components/ui/input");
const { Sparkles, RefreshCw, Trash2 } = require("lucide-react");

function Greeting() {
  const cowork = window.cowork;
  const [greeting, setGreeting] = React.useState(null);
  const [clicks, setClicks] = React.useState(() => cowork.state.get()?.clicks ?? 0);
  React.useEffect(() => {
    cowork.routines.run("greet", { name: "Ada" }).then(
      (answer) => setGreeting(answer.greeting),
      (error) => setGreeting(error.name + ": " + error.message)
    );
  }, []);
  function click() {
    setClicks(clicks + 1);
    cowork.state.set({ clicks: clicks + 1 });
  }
  return jsx("div", { className: "flex h-full flex-col gap-4 bg-background p-6 text-foreground", children:
    jsxs(Card, { className: "max-w-md", children: [
      jsxs(CardHeader, { children: [
        jsxs(CardTitle, { className: "flex items-center gap-2", children: [
          jsx(Sparkles, { className: "size-4 text-muted-foreground" }), "Greeting"] }),
        jsx(CardDescription, { children: "Answered by the greet routine through window.cowork." }),
      ] }),
      jsxs(CardContent, { className: "flex flex-col gap-3", children: [
        jsx("p", { "data-testid": "greeting", className: "text-2xl font-semibold tracking-tight", children: greeting ?? "…" }),
        jsxs("div", { className: "flex gap-2", children: [
          jsx(Badge, { children: "routine" }),
          jsx(Badge, { variant: "secondary", children: "notes" }),
          jsx(Badge, { variant: "outline", children: clicks + " clicks" }),
        ] }),
        jsx(Input, { placeholder: "Your name" }),
      ] }),
      jsxs(CardFooter, { className: "flex gap-2", children: [
        jsxs(Button, { "data-testid": "click", onClick: click, children: [jsx(RefreshCw, {}), "Click me"] }),
        jsx(Button, { variant: "outline", children: "Outline" }),
        jsx(Button, { variant: "secondary", children: "Secondary" }),
        jsxs(Button, { variant: "destructive", size: "icon", "aria-label": "Delete", children: jsx(Trash2, {}) }),
      ] }),
    ] }),
  });
}
exports.default = Greeting;`,
}

/** New code for the same pane: it shows the state the first version saved. */
export const reloaded: Widget = {
  file: "widgets/greeting.jsx",
  imports: imports("react/jsx-runtime"),
  code: `"use strict";
const { jsx } = require("react/jsx-runtime");
exports.default = function Reloaded() {
  return jsx("p", { "data-testid": "reloaded", className: "p-6", children: "Reloaded with " + JSON.stringify(window.cowork.state.get()) });
};`,
}

/** Throws while rendering: the pane shows the error instead. */
export const crashing: Widget = {
  file: "widgets/crashing.jsx",
  imports: [],
  code: `"use strict";
exports.default = function Crashing() {
  const items = undefined;
  return items.map((item) => item);
};`,
}

/** Imports a package outside the allowlist. */
export const leftPad: Widget = {
  file: "widgets/padded.jsx",
  imports: [{ specifier: "left-pad", line: 2, column: 17 }],
  code: `"use strict";
const pad = require("left-pad");
exports.default = () => pad("x", 3);`,
}

/** The heavy libraries with their stylesheets: a node canvas, a chart, a terminal. */
export const heavy: Widget = {
  file: "widgets/heavy.jsx",
  imports: imports(
    "react",
    "react/jsx-runtime",
    "@xyflow/react",
    "@xterm/xterm",
    "@xterm/addon-fit",
    "recharts",
    "@/components/ui/chart",
  ),
  code: `"use strict";
const React = ((m) => m.__esModule ? m.default : m.default ?? m)(require("react"));
const { jsx, jsxs } = require("react/jsx-runtime");
const { ReactFlow } = require("@xyflow/react");
const { Terminal } = require("@xterm/xterm");
const { FitAddon } = require("@xterm/addon-fit");
const { Bar, BarChart, CartesianGrid, XAxis } = require("recharts");
const { ChartContainer } = require("@/components/ui/chart");

const nodes = [
  { id: "a", position: { x: 0, y: 0 }, data: { label: "Routine" } },
  { id: "b", position: { x: 180, y: 90 }, data: { label: "Widget" } },
];
const edges = [{ id: "ab", source: "a", target: "b" }];
const runs = [{ day: "Mon", runs: 4 }, { day: "Tue", runs: 7 }, { day: "Wed", runs: 3 }, { day: "Thu", runs: 5 }];
const config = { runs: { label: "Runs", color: "var(--chart-1)" } };

function Heavy() {
  const terminal = React.useRef(null);
  React.useEffect(() => {
    const term = new Terminal({ rows: 4, fontSize: 12 });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(terminal.current);
    fit.fit();
    term.write("$ cowork routine run notes-list\\r\\nok");
    return () => term.dispose();
  }, []);
  return jsxs("div", { className: "grid h-full grid-cols-2 gap-4 bg-background p-4 text-foreground", children: [
    jsx("div", { "data-testid": "flow", className: "h-52 rounded-lg border", children: jsx(ReactFlow, { nodes, edges, fitView: true }) }),
    jsx(ChartContainer, { config, className: "h-52 w-full rounded-lg border p-2", children:
      jsxs(BarChart, { data: runs, children: [
        jsx(CartesianGrid, { vertical: false }),
        jsx(XAxis, { dataKey: "day", tickLine: false, axisLine: false }),
        jsx(Bar, { dataKey: "runs", fill: "var(--color-runs)", radius: 4 }),
      ] }) }),
    jsx("div", { ref: terminal, "data-testid": "terminal", className: "col-span-2 h-28 overflow-hidden rounded-lg border bg-black p-2" }),
  ] });
}
exports.default = Heavy;`,
}

/** Code the browser cannot parse (the daemon's transpiler would normally catch it first). */
export const unparsable: Widget = {
  file: "widgets/unparsable.jsx",
  imports: [],
  code: `"use strict";\nexports.default = (;`,
}

/** A widget the daemon refused to transpile: the pane shows the daemon's error and place. */
export const refusedByDaemon: Widget = {
  file: "widgets/broken.tsx",
  error: {
    name: "SyntaxError",
    file: "widgets/broken.tsx",
    message: "Unexpected token `}`",
    line: 12,
    column: 3,
  },
}

/**
 * A class written in the code (`text-lime-700`), which the pane's first stylesheet has, and one
 * made at run time from parts, which Tailwind can only learn from the document.
 */
export const madeUp: Widget = {
  file: "widgets/made-up.jsx",
  imports: imports("react", "react/jsx-runtime"),
  code: `"use strict";
const React = require("react");
const { jsx } = require("react/jsx-runtime");
exports.default = function MadeUp() {
  const [tone, setTone] = React.useState(null);
  React.useEffect(() => setTone(["bg", "sky", "600"].join("-")), []);
  return jsx("p", { "data-testid": "made-up", className: "p-6 text-lime-700 " + (tone ?? ""), children: "Made up" });
};`,
}

/** A widget that makes up more classes than its app's frames may send, in three renders. */
export const flood: Widget = {
  file: "widgets/flood.jsx",
  imports: imports("react", "react/jsx-runtime"),
  code: `"use strict";
const React = require("react");
const { jsx } = require("react/jsx-runtime");
exports.default = function Flood() {
  const [round, setRound] = React.useState(0);
  React.useEffect(() => { if (round < 2) setTimeout(() => setRound(round + 1), 100) }, [round]);
  const names = Array.from({ length: 11000 }, (_, i) => "made-" + round + "-" + i).join(" ");
  return jsx("p", { "data-testid": "flood", "data-round": round, className: names, children: "Flood" });
};`,
}
