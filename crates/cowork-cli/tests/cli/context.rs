//! The `ctx` a routine gets, member by member, where a person would notice a mistake: `data` names
//! and files, `db` transactions, `notify`, return values, and nested calls — refusals, `uses`.

use crate::support::*;
use serde_json::{json, Value};

/// Calls `args.id` through `ctx.routines.run` and reports how it ended, and how fast.
const CALL: &str = r#"export default async (args: any, ctx: any) => {
  const started = Date.now();
  try {
    return { result: await ctx.routines.run(args.id, {}) };
  } catch (e: any) {
    return { name: e.name, message: e.message, runId: e.runId ?? null, ms: Date.now() - started };
  }
};
"#;

fn kit(env: &Env) {
    env.app(
        "kit",
        r#"{ "name": "kit", "version": "1.0.0", "routines": {
          "kit-names": "names.ts", "kit-broken": "broken.ts", "kit-db": "db.ts", "kit-notify": "notify.ts",
          "kit-function": "function.ts", "kit-symbol": "symbol.ts", "kit-undefined": "undefined.ts",
          "kit-call": "call.ts", "kit-off": "undefined.ts", "kit-wait": "wait.ts" } }"#,
        &[
            (
                "names.ts",
                r#"import fs from "node:fs";
export default (args: any, ctx: any) => {
  ctx.data.write("keep.json", { kept: true });
  const tries: Record<string, string[]> = {};
  for (const op of ["write", "read", "remove", "path", "list"]) {
    tries[op] = args.names.map((name: string) => {
      try { op === "write" ? ctx.data.write(name, 1) : ctx.data[op](name); return "ok"; } catch (e: any) { return e.name; }
    });
  }
  return { tries, folder: fs.statSync(ctx.data.dir).isDirectory(), kept: ctx.data.read("keep.json") };
};
"#,
            ),
            (
                "broken.ts",
                r#"import fs from "node:fs";
export default (_a: any, ctx: any) => {
  ctx.data.write("state.json", {});
  fs.writeFileSync(ctx.data.path("state.json"), "{ half a wri");
  return { broken: ctx.data.read("state.json", "fallback"), missing: ctx.data.read("nope.json") };
};
"#,
            ),
            (
                "db.ts",
                r#"export default (_a: any, ctx: any) => {
  const db = ctx.db(".cowork/data/kit/store.db");
  db.exec("CREATE TABLE IF NOT EXISTS t (v INTEGER)");
  let name = "none";
  try { db.transaction(async () => { db.exec("INSERT INTO t VALUES (1)"); }); } catch (e: any) { name = e.name; }
  return { name, rows: db.query("SELECT COUNT(*) AS n FROM t")[0].n };
};
"#,
            ),
            ("notify.ts", "export default async (_a: any, ctx: any) => { try { await ctx.notify({ body: 'no title' }); return 'sent'; } catch (e: any) { return [e.name, e.message]; } };\n"),
            ("function.ts", "export default () => () => 1;\n"),
            ("symbol.ts", "export default () => Symbol('x');\n"),
            ("undefined.ts", "export default () => {};\n"),
            ("call.ts", CALL),
            ("wait.ts", "export default () => new Promise((r) => setTimeout(() => r('waited'), 1500));\n"),
        ],
    );
    env.workspace_json(r#"{ "disabled": { "routines": ["kit-off"] } }"#);
}

#[test]
fn data_names_must_name_something_inside_the_app_folder() {
    let bad = [
        ".",
        "./",
        "",
        "a//b",
        "a/./b",
        "x/",
        "..",
        "../kit2/x.json",
        "a/..",
        "/etc/passwd",
        "a\\b",
    ];
    for runtime in runtimes() {
        let env = Env::new(runtime);
        kit(&env);
        let out = env.ok("kit-names", json!({ "names": bad }));
        for op in ["write", "read", "remove", "path", "list"] {
            // list("") is the folder itself on purpose: the listing of the app's own data.
            let expected: Vec<&str> = bad
                .iter()
                .map(|n| if op == "list" && n.is_empty() { "ok" } else { "BadRequest" })
                .collect();
            assert_eq!(out["tries"][op], json!(expected), "{runtime}: ctx.data.{op}");
        }
        assert_eq!(
            (out["folder"].clone(), out["kept"].clone()),
            (json!(true), json!({"kept": true})),
            "{runtime}: the folder and its files are untouched"
        );
        assert_eq!(
            std::fs::read_to_string(env.file(".cowork/data/.gitignore")).unwrap(),
            "# Cowork app data (ctx.data): local to this machine\n*\n"
        );
    }
}

#[test]
fn data_read_of_a_broken_file_gives_the_fallback() {
    let env = Env::new(runtimes()[0]);
    kit(&env);
    assert_eq!(env.ok("kit-broken", json!({})), json!({ "broken": "fallback", "missing": null }));
}

#[test]
fn a_db_in_the_data_folder_keeps_it_out_of_git_and_a_promise_transaction_is_refused() {
    let env = Env::new(runtimes()[0]);
    kit(&env);
    assert_eq!(
        env.ok("kit-db", json!({})),
        json!({ "name": "BadRequest", "rows": 0 }),
        "refused and rolled back"
    );
    assert_eq!(
        std::fs::read_to_string(env.file(".cowork/data/.gitignore")).unwrap(),
        "# Cowork app data (ctx.data): local to this machine\n*\n"
    );
}

#[test]
fn notify_without_a_title_is_a_bad_request() {
    let env = Env::new(runtimes()[0]);
    kit(&env);
    let out = env.ok("kit-notify", json!({}));
    assert_eq!(out[0], "BadRequest", "{out}");
}

#[test]
fn a_return_value_json_cannot_hold_is_null_with_a_warning() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        kit(&env);
        for (id, what) in [("kit-function", "a function"), ("kit-symbol", "a symbol")] {
            let out = env.routine(id, "{}");
            assert_eq!(out["result"], Value::Null, "{runtime} {id}: {out}");
            assert_eq!(out["warnings"], json!([format!("the routine's return value is not JSON-serializable ({what}); the caller gets null")]), "{runtime} {id}");
        }
        let nothing = env.routine("kit-undefined", "{}");
        assert_eq!(
            (nothing["result"].clone(), nothing.get("warnings").cloned()),
            (Value::Null, Some(json!([]))),
            "returning nothing is no mistake: {nothing}"
        );
    }
}

#[test]
fn nested_refusals_arrive_at_once_on_every_runtime_through_the_daemon() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        kit(&env);
        let _daemon = env.daemon(&["--slots", "1"]);
        for (id, name) in [
            ("kit-nope", "NotFound"),
            ("kit-off", "RoutineDisabled"),
            ("kit-wait", "TooManyRoutines"),
        ] {
            // With one slot, the caller holds it: the nested run is refused, not queued.
            let out = env.ok("kit-call", json!({ "id": id }));
            assert_eq!(
                (out["name"].as_str(), out["runId"].clone()),
                (Some(name), Value::Null),
                "{runtime} {id}: {out}"
            );
            assert!(
                out["ms"].as_u64().unwrap() < 1000,
                "{runtime} {id}: refused at once, not waited out ({out})"
            );
        }
    }
}

#[test]
fn uses_decides_which_capability_routines_an_app_may_run() {
    let env = Env::new(runtimes()[0]);
    env.app(
        "acme",
        r#"{ "name": "acme", "version": "1.2.0", "kind": "capability", "routines": { "acme-get": "get.ts" } }"#,
        &[("get.ts", "export default () => 'from acme';\n")],
    );
    for (app, uses) in
        [("fan", r#"{ "acme": "1.0.0" }"#), ("stranger", "{}"), ("needy", r#"{ "acme": "2.0.0" }"#)]
    {
        let manifest = format!(
            r#"{{ "name": "{app}", "version": "1.0.0", "uses": {uses}, "routines": {{ "{app}-call": "call.ts" }} }}"#
        );
        env.app(app, &manifest, &[("call.ts", CALL)]);
    }
    assert_eq!(env.ok("fan-call", json!({ "id": "acme-get" })), json!({ "result": "from acme" }));
    let stranger = env.ok("stranger-call", json!({ "id": "acme-get" }));
    assert_eq!(stranger["name"], "Forbidden");
    assert!(stranger["message"].as_str().unwrap().ends_with(r#"which .cowork/apps/stranger/cowork.json does not use — add "uses": {"acme": "1.2.0"}"#), "{stranger}");
    let needy = env.ok("needy-call", json!({ "id": "acme-get" }));
    assert_eq!(
        (needy["name"].as_str(), needy["message"].as_str()),
        (Some("NotFound"), Some("needy needs the capability acme 2.0.0 or a later 2.x, but this workspace has 1.2.0"))
    );
}
