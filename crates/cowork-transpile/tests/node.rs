//! The output runs: routines as ES modules under Node 20 (which cannot strip types itself),
//! widgets through `new Function("require", "module", "exports", code)` with a fake `require`.

use std::fs;
use std::path::Path;
use std::process::Command;

use cowork_transpile::{transpile, Flavor, Import, ImportKind};

const ROUTINE: &str = include_str!("fixtures/routine.ts");
const HELPER: &str = include_str!("fixtures/helper.ts");
const WIDGET: &str = include_str!("fixtures/widget.tsx");

/// Writes `script` into `dir` and runs it with `node`, returning what it printed.
fn node(dir: &Path, script_name: &str, script: &str) -> String {
    fs::write(dir.join(script_name), script).unwrap();
    let run = Command::new("node")
        .arg(script_name)
        .current_dir(dir)
        .output()
        .expect("these tests run the output: put Node 20 on PATH");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "node {script_name} failed:\n{stderr}");
    String::from_utf8(run.stdout).unwrap().trim().to_owned()
}

/// The routine runner's rule in small: a sibling `./x` or `./x.ts` is `./x.mjs` in the mirror
/// folder, a package name stays as written.
fn mirror(import: &Import) -> Result<Option<String>, String> {
    if !import.is_relative() {
        return Ok(None);
    }
    let stem = import.specifier.strip_suffix(".ts").unwrap_or(&import.specifier);
    Ok(Some(format!("{stem}.mjs")))
}

/// 1-based line of the first line holding `needle`.
fn line_of(source: &str, needle: &str) -> u32 {
    let index = source.lines().position(|line| line.contains(needle)).expect(needle);
    u32::try_from(index).unwrap() + 1
}

#[test]
fn routine_with_types_enums_classes_and_a_sibling_import_runs_under_node() {
    let dir = tempfile::tempdir().unwrap();
    let helper = transpile(HELPER, "helper.ts", Flavor::Routine, &mut mirror).unwrap();
    fs::write(dir.path().join("helper.mjs"), helper.code).unwrap();
    let routine = transpile(ROUTINE, "routines/board.ts", Flavor::Routine, &mut mirror).unwrap();
    fs::write(dir.path().join("routine.mjs"), &routine.code).unwrap();

    let printed = node(
        dir.path(),
        "run.mjs",
        r#"import run, { version } from "./routine.mjs";
const logs = [];
const result = await run(
  { tasks: [{ title: "a", priority: "High" }, { title: "b" }, { title: "c", done: true }] },
  { workspaceRoot: "/ws", log: (...parts) => logs.push(parts) },
);
console.log(JSON.stringify({ version, result, logs }));
"#,
    );
    assert_eq!(
        printed,
        r#"{"version":2,"result":{"count":2,"urgent":1,"file":"tasks.md","titles":["a","b"],"same":true},"logs":[["summarized",2]]}"#
    );

    assert!(routine.has_default_export);
    let imports: Vec<_> =
        routine.imports.iter().map(|i| (i.specifier.as_str(), i.line, i.kind)).collect();
    assert_eq!(
        imports,
        [
            ("node:path", 2, ImportKind::Static),
            // The `import type` on line 3 is gone with the types.
            ("./helper.ts", 4, ImportKind::Static),
            ("./helper.ts", line_of(ROUTINE, "await import("), ImportKind::Dynamic),
        ]
    );
}

/// A fake React and shadcn set: `jsx` calls function components at once, so the result is a
/// tree of plain `{ type, props }` objects; hooks return their initial values.
const FAKE_MODULES: &str = r#"
const fs = require("fs");
const element = (type) => (props) => ({ type, props });
const jsx = (type, props) => (typeof type === "function" ? type(props) : { type, props });
const modules = {
  "react/jsx-runtime": { jsx, jsxs: jsx, Fragment: "Fragment" },
  react: { useState: (v) => [v, () => {}], useMemo: (f) => f(), useEffect: () => {} },
  "@/components/ui/badge": { Badge: element("Badge") },
  "@/components/ui/button": { Button: element("Button") },
  "@/components/ui/card": {
    Card: element("Card"), CardContent: element("CardContent"),
    CardHeader: element("CardHeader"), CardTitle: element("CardTitle"),
  },
  "@/lib/utils": { cn: (...classes) => classes.filter(Boolean).join(" ") },
  "lucide-react": { CheckCircle: element("CheckCircle"), Circle: element("Circle"), RefreshCw: element("RefreshCw") },
};
function load(file, extra = {}) {
  const all = { ...modules, ...extra };
  const require = (name) => {
    if (!(name in all)) throw new Error(`${name} is not in the cowork webapp allowlist`);
    return all[name];
  };
  const module = { exports: {} };
  new Function("require", "module", "exports", fs.readFileSync(file, "utf8"))(require, module, module.exports);
  return module.exports;
}
const children = (node) => [node?.props?.children].flat(Infinity).filter((c) => c != null && c !== false);
const text = (node) => (typeof node === "object" ? children(node).map(text).join("") : String(node));
function findAll(node, test, found = []) {
  if (node && typeof node === "object") {
    if (test(node)) found.push(node);
    children(node).forEach((child) => findAll(child, test, found));
  }
  return found;
}
"#;

#[test]
fn widget_renders_through_a_fake_require() {
    let dir = tempfile::tempdir().unwrap();
    let widget = transpile(WIDGET, "widgets/board.tsx", Flavor::Widget, &mut |_| Ok(None)).unwrap();
    fs::write(dir.path().join("widget.js"), &widget.code).unwrap();

    let script = format!(
        r#"{FAKE_MODULES}
const Board = load("widget.js").default;
const tree = Board({{ initial: [
  {{ id: "t1", title: "Write spec", priority: "high", done: false, due: "2025-01-10", tags: ["docs"] }},
  {{ id: "t2", title: "Fix bug", priority: "normal", done: false, tags: [] }},
  {{ id: "t3", title: "Ship", priority: "high", done: true, tags: [] }},
  {{ id: "t4", title: "Archive", priority: "low", done: false, tags: [] }},
] }});
console.log(JSON.stringify({{
  root: tree.type,
  title: text(findAll(tree, (n) => n.type === "CardTitle")[0]),
  rows: findAll(tree, (n) => n.type === "li").map((li) => li.props["data-task"]),
  headings: findAll(tree, (n) => n.type === "h3").map(text),
  overdue: findAll(tree, (n) => n.props?.className === "text-xs text-destructive").map(text),
  summary: text(findAll(tree, (n) => n.type === "p").at(-1)),
}}));
"#
    );
    assert_eq!(
        node(dir.path(), "render.cjs", &script),
        r#"{"root":"Card","title":"Tasks","rows":["t1","t2","t4"],"headings":["high","normal","low"],"overdue":["overdue"],"summary":"3 open · 1 done · 25%"}"#
    );

    assert!(widget.has_default_export);
    let imports: Vec<_> = widget.imports.iter().map(|i| (i.specifier.as_str(), i.line)).collect();
    assert_eq!(
        imports,
        [
            ("react", 3),
            ("@/components/ui/badge", 4),
            ("@/components/ui/button", 5),
            ("@/components/ui/card", 6),
            ("@/lib/utils", 7),
            ("lucide-react", 8),
            // Added by the JSX transform; it has no place in the source.
            ("react/jsx-runtime", 1),
        ]
    );
}

#[test]
fn widget_module_rules_hold_at_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let source = r#"import Plain from "plain";
import Marked, { named as renamed } from "marked";
import * as everything from "plain";
import { default as alsoMarked } from "marked";
export let counter = 0;
export function bump() { counter += 1; }
export { early as later };
const early = "early";
export * from "star";
export { named as fromMarked } from "marked";
export * as namespace from "plain";
export const [first, { second }] = [1, { second: 2 }];
export default function () { return [Plain, Marked, renamed, everything.kind, alsoMarked]; }
export const lazy = () => import("plain");
"#;
    let widget = transpile(source, "rules.jsx", Flavor::Widget, &mut |_| Ok(None)).unwrap();
    fs::write(dir.path().join("rules.js"), &widget.code).unwrap();

    let script = format!(
        r#"{FAKE_MODULES}
const exported = load("rules.js", {{
  plain: {{ kind: "plain module" }},
  marked: {{ __esModule: true, default: "marked default", named: "marked named" }},
  star: {{ fromStar: "star", counter: "shadowed", default: "not re-exported" }},
}});
const before = exported.counter;
exported.bump();
exported.lazy().then((lazy) => console.log(JSON.stringify({{
  defaults: exported.default(),
  live: [before, exported.counter],
  later: exported.later,
  star: [exported.fromStar, typeof exported.default],
  fromMarked: exported.fromMarked,
  namespace: exported.namespace.kind,
  destructured: [exported.first, exported.second],
  lazy: lazy.kind,
  keys: Object.keys(exported).sort(),
}})));
"#
    );
    assert_eq!(
        node(dir.path(), "rules.cjs", &script),
        concat!(
            r#"{"defaults":[{"kind":"plain module"},"marked default","marked named","plain module","marked default"],"#,
            r#""live":[0,1],"later":"early","star":["star","function"],"fromMarked":"marked named","#,
            r#""namespace":"plain module","destructured":[1,2],"lazy":"plain module","#,
            r#""keys":["bump","counter","default","first","fromMarked","fromStar","later","lazy","namespace","second"]}"#
        )
    );
}
