//! A routine's `ctx.db` is answered by the daemon, outside the routine's Landlock domain: its
//! SQL and its path must reach no further than the routine itself could (issue 38's follow-up).
//! Each escape a confined routine could try through it gets a named error and writes nothing
//! outside the workspace; a routine that uses `ctx.db` as page 03 promises still works.

use crate::support::*;
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;

const MANIFEST: &str = r#"{ "name": "crm", "version": "0.1.0", "kind": "app",
  "routines": { "crm-escape": "escape.ts", "crm-migrate": "migrate.ts",
    "crm-endless": { "file": "endless.ts", "timeout": 1 } } }"#;

/// A statement that never ends by itself.
const ENDLESS: &str = r#"export default (_a: any, ctx: any) =>
  ctx.db("own.db").query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c");
"#;

/// Tries every way out through `ctx.db`, each as `[e.name, e.message]` (or "ran"). The links are
/// planted by the routine itself, in its own workspace, where a confined routine may write.
const ESCAPE: &str = r#"import fs from "node:fs";
import path from "node:path";
const attempt = (f: () => unknown) => { try { f(); return "ran"; } catch (e: any) { return [e.name, e.message]; } };
export default async (args: any, ctx: any) => {
  const ws = ctx.workspaceRoot, outside = args.outside;
  fs.symlinkSync(path.join(outside, "victim.db"), path.join(ws, "linked.db"));
  fs.symlinkSync(path.join(outside, "new.db"), path.join(ws, "dangling.db"));
  fs.symlinkSync(outside, path.join(ws, "out"));
  const keys = path.join(outside, "authorized_keys");
  const db = ctx.db("own.db");
  db.exec("CREATE TABLE t (x)");
  return {
    vacuumInto: attempt(() => db.exec(`VACUUM INTO '${keys}'`)),
    vacuumIntoByQuery: attempt(() => db.query(`VACUUM INTO '${keys}'`)),
    attach: attempt(() => db.exec(`ATTACH '${keys}' AS keys`)),
    loadExtension: attempt(() => db.query("SELECT load_extension('/tmp/evil.so')")),
    tempStoreDirectory: attempt(() => db.exec(`PRAGMA temp_store_directory = '${outside}'`)),
    writableSchema: attempt(() => db.exec("PRAGMA writable_schema = ON")),
    linkedFile: attempt(() => ctx.db("linked.db").exec("CREATE TABLE planted (x)")),
    danglingLink: attempt(() => ctx.db("dangling.db").exec("CREATE TABLE planted (x)")),
    linkedFolder: attempt(() => ctx.db("out/new.db").exec("CREATE TABLE planted (x)")),
  };
};
"#;

/// What page 03 promises: migrations by `user_version`, transactions that commit or roll back,
/// and the file's own PRAGMAs.
const MIGRATE: &str = r#"const MIGRATIONS = [
  "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL)",
  "CREATE TABLE notes (person INTEGER NOT NULL REFERENCES people (id), text TEXT); CREATE INDEX notes_by_person ON notes (person)",
];
export default async (args: any, ctx: any) => {
  const db = ctx.db(".cowork/data/crm/crm.db");
  await db.exec("PRAGMA foreign_keys = ON");
  await db.exec("PRAGMA synchronous = NORMAL");
  const from = (await db.query("PRAGMA user_version"))[0].user_version;
  for (let v = from; v < MIGRATIONS.length; v++) {
    db.transaction(() => { db.exec(MIGRATIONS[v]); db.exec(`PRAGMA user_version = ${v + 1}`); });
  }
  db.transaction(() => {
    const { lastInsertRowid } = db.exec("INSERT INTO people (name) VALUES (?)", [args.name]);
    db.exec("INSERT INTO notes VALUES (:person, :text)", { person: lastInsertRowid, text: "met" });
  });
  let rolledBack = "committed";
  try {
    db.transaction(() => { db.exec("INSERT INTO people (name) VALUES ('ghost')"); throw ctx.error("ChangedMind", "no"); });
  } catch (e: any) { rolledBack = e.name; }
  let orphan = "inserted";
  try { db.exec("INSERT INTO notes VALUES (999, 'orphan')"); } catch (e: any) { orphan = e.name; }
  return {
    from,
    version: db.query("PRAGMA user_version")[0].user_version,
    journal: db.query("PRAGMA journal_mode")[0].journal_mode,
    people: db.query("SELECT name FROM people ORDER BY id").map((r: any) => r.name),
    notes: db.query("SELECT count(*) AS n FROM notes")[0].n,
    rolledBack,
    orphan,
  };
};
"#;

/// A workspace holding the app `crm` and its three routines.
fn crm() -> Env {
    let env = Env::new(runtimes()[0]);
    let files = [("escape.ts", ESCAPE), ("migrate.ts", MIGRATE), ("endless.ts", ENDLESS)];
    env.app("crm", MANIFEST, &files);
    env
}

/// Every file under `dir` (links not followed), with its bytes.
fn contents(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            (path.display().to_string(), std::fs::read(&path).unwrap_or_default())
        })
        .collect();
    found.sort();
    found
}

#[test]
fn a_routine_s_ctx_db_cannot_reach_past_its_file_or_out_of_the_workspace() {
    let env = crm();
    // Outside the workspace and the routine's reach: a database it must not write into.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("victim.db"), "").unwrap(); // SQLite takes it for a db
    let before = contents(outside.path());
    // The daemon answers ctx.db, as in the review: it is not confined.
    let _daemon = env.daemon(&[]);
    let result = env.ok("crm-escape", json!({ "outside": outside.path() }));
    let escapes = result.as_object().unwrap();
    assert_eq!(escapes.len(), 9, "{result}");
    for (escape, outcome) in escapes {
        assert_eq!(outcome[0], "Forbidden", "{escape}: {outcome}");
    }
    let message = |escape: &str| result[escape][1].as_str().unwrap().to_string();
    assert!(message("attach").starts_with("ctx.db(\"own.db\"): ATTACH is refused"), "{result}");
    assert!(
        message("tempStoreDirectory").starts_with(&format!(
            "ctx.db(\"own.db\"): PRAGMA temp_store_directory = {} is refused",
            outside.path().display()
        )),
        "{result}"
    );
    let victim = outside.path().canonicalize().unwrap().join("victim.db");
    assert!(
        message("linkedFile").starts_with(&format!(
            "ctx.db(\"linked.db\"): the path leads outside the workspace, to {}",
            victim.display()
        )),
        "{result}"
    );
    assert!(
        message("danglingLink")
            .starts_with("ctx.db(\"dangling.db\"): dangling.db is a link to a file or folder"),
        "{result}"
    );
    assert_eq!(contents(outside.path()), before, "a file outside the workspace was written");
}

#[test]
fn a_routine_s_ctx_db_still_migrates_with_user_version_and_runs_transactions() {
    let env = crm();
    let first = env.ok("crm-migrate", json!({ "name": "Ada" }));
    assert_eq!(
        first,
        json!({ "from": 0, "version": 2, "journal": "wal", "people": ["Ada"], "notes": 1,
                "rolledBack": "ChangedMind", "orphan": "SqliteError" })
    );
    let second = env.ok("crm-migrate", json!({ "name": "Grace" }));
    assert_eq!(second["from"], Value::from(2), "{second}");
    assert_eq!(second["people"], json!(["Ada", "Grace"]), "{second}");
}

/// The daemon answers a routine's ctx.db on one of its threads while the routine waits, so the
/// run's timer cannot end a statement that never ends: SQLite must stop it at the deadline.
#[test]
fn a_routine_s_endless_statement_ends_at_its_time_limit_and_frees_the_daemon() {
    let env = crm();
    let _daemon = env.daemon(&[]);
    let mut run = env
        .cmd(&["routine", "run", "crm-endless", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // A 1 s limit; 30 s is for a busy machine, not for the statement.
    let ended = eventually(Duration::from_secs(30), || run.try_wait().unwrap().is_some());
    if !ended {
        let _ = run.kill();
    }
    let out = run.wait_with_output().unwrap();
    assert!(ended, "the run did not end at its time limit");
    let outcome: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(outcome["error"]["name"], "Timeout", "{outcome}");
    // The daemon's thread was handed back: the next run is answered.
    assert_eq!(env.ok("crm-migrate", json!({ "name": "Ada" }))["people"], json!(["Ada"]));
}
