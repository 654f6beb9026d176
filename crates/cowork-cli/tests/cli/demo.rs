//! The demo workspace (`examples/demo`) through the real `cowork` binary: a fresh copy of it per
//! test and runtime, every app's routines run as a person would run them, and the JSON they print
//! checked. Its README documents the same commands.

use crate::support::*;
use serde_json::{json, Value};

#[test]
fn demo_apps_list_with_no_problems() {
    let demo = Env::demo("node");
    let listed = demo.json(&["app", "list"]);
    let names: Vec<&str> = listed["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["manifest"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["board", "digest", "notes", "standup", "tasks", "terminal"]);
    assert_eq!((&listed["problems"], &listed["broken"]), (&json!([]), &json!([])));
    for app in listed["apps"].as_array().unwrap() {
        assert_eq!(app["problems"], json!([]), "{}", app["dir"]);
    }
    let text = String::from_utf8(demo.run(&["app", "list"]).stdout).unwrap();
    assert!(!text.contains("Problems:") && !text.contains("Not apps"), "{text}");
    let risks: Vec<(String, String)> = demo
        .json(&["routine", "list"])
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().into(), r["risk"].as_str().unwrap().into()))
        .collect();
    for (id, risk) in [
        ("tasks-list", "low"),
        ("tasks-add", "medium"),
        ("tasks-delete", "high"),
        ("tasks-share", "high"),
        ("notes-remove", "high"),
    ] {
        assert!(
            risks.contains(&(id.to_string(), risk.to_string())),
            "{id} should be {risk}: {risks:?}"
        );
    }
}

#[test]
fn notes_save_list_read_remove() {
    for runtime in runtimes() {
        let demo = Env::demo(runtime);
        let first =
            demo.ok("notes-save", json!({"title": "Launch plan", "body": "Ship the demo."}));
        assert_eq!(
            (&first["id"], &first["path"]),
            (&json!("launch-plan"), &json!(".cowork/data/notes/launch-plan.note.json"))
        );
        assert!(demo.file(".cowork/data/notes/launch-plan.note.json").is_file());
        assert_eq!(
            demo.ok("notes-save", json!({"title": "Launch plan"}))["id"],
            "launch-plan-2",
            "ids are made unique"
        );
        let updated = demo.ok(
            "notes-save",
            json!({"id": "launch-plan", "title": "Launch plan", "body": "Ship it Friday."}),
        );
        assert_eq!(
            (&updated["body"], &updated["created"]),
            (&json!("Ship it Friday."), &first["created"])
        );

        let list = demo.ok("notes-list", json!({}));
        let ids: Vec<&str> =
            list["notes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["launch-plan", "launch-plan-2"], "most recently updated first");
        assert_eq!(list["notes"][0]["preview"], "Ship it Friday.");
        assert_eq!(
            demo.ok("notes-list", json!({"query": "friday"}))["notes"].as_array().unwrap().len(),
            1
        );

        assert_eq!(demo.ok("notes-read", json!({"id": "launch-plan"}))["body"], "Ship it Friday.");
        assert_eq!(
            demo.ok("notes-read", json!({"path": ".cowork/data/notes/launch-plan.note.json"}))
                ["title"],
            "Launch plan"
        );
        assert_eq!(
            demo.fails("notes-read", json!({"path": "docs/elsewhere.note.json"})),
            "NotFound"
        );
        assert_eq!(demo.fails("notes-save", json!({"title": " "})), "BadRequest");

        assert_eq!(
            demo.ok("notes-remove", json!({"id": "launch-plan-2"})),
            json!({"removed": {"id": "launch-plan-2", "title": "Launch plan"}})
        );
        assert_eq!(demo.fails("notes-read", json!({"id": "launch-plan-2"})), "NotFound");
        assert_eq!(demo.fails("notes-remove", json!({"id": "launch-plan-2"})), "NotFound");
        assert_eq!(demo.ok("notes-list", json!({}))["notes"].as_array().unwrap().len(), 1);
    }
}

#[test]
fn tasks_add_list_complete_share_delete() {
    for runtime in runtimes() {
        let demo = Env::demo(runtime);
        assert_eq!(demo.ok("tasks-list", json!({})), json!({"tasks": [], "open": 0, "done": 0}));
        assert_eq!(
            demo.ok("tasks-share", json!({})),
            json!({"shared": false, "to": "team", "count": 0})
        );
        let task = demo.ok("tasks-add", json!({"title": "Review the README", "due": "2030-01-31"}));
        assert_eq!(
            (&task["id"], &task["status"], &task["due"]),
            (&json!(1), &json!("open"), &json!("2030-01-31"))
        );
        assert_eq!(demo.fails("tasks-add", json!({"due": "2030-01-31"})), "BadRequest");
        assert_eq!(
            demo.ok("tasks-list", json!({"status": "open"}))["tasks"][0]["title"],
            "Review the README"
        );

        let done = demo.ok("tasks-complete", json!({"id": 1}));
        assert!(done["status"] == "done" && done["completedAt"].is_string(), "{done}");
        assert_eq!(
            demo.ok("tasks-complete", json!({"id": 1}))["completedAt"],
            done["completedAt"],
            "completing twice changes nothing"
        );
        let open = demo.ok("tasks-list", json!({"status": "open"}));
        assert_eq!(
            (&open["tasks"], &open["open"], &open["done"]),
            (&json!([]), &json!(0), &json!(1))
        );

        demo.ok("tasks-add", json!({"title": "Book the room"}));
        let shared = demo.ok("tasks-share", json!({"to": "#team"}));
        assert_eq!(
            (&shared["shared"], &shared["count"], &shared["delivery"]),
            (&json!(true), &json!(1), &json!("delivered"))
        );
        let outbox: Value = serde_json::from_str(
            &std::fs::read_to_string(demo.file(shared["path"].as_str().unwrap())).unwrap(),
        )
        .unwrap();
        assert_eq!(outbox["text"], "Open tasks (1):\n- #2 Book the room");

        assert_eq!(
            demo.ok("tasks-delete", json!({"id": 1}))["deleted"]["title"],
            "Review the README"
        );
        assert_eq!(demo.fails("tasks-delete", json!({"id": 1})), "NotFound");
        assert_eq!(demo.fails("tasks-complete", json!({"id": "2"})), "BadRequest");
        assert_eq!(demo.ok("tasks-list", json!({}))["tasks"].as_array().unwrap().len(), 1);
    }
}

#[test]
fn standup_status_item_counts_open_tasks_and_toggles_the_timer() {
    for runtime in runtimes() {
        let demo = Env::demo(runtime);
        let idle = demo.ok("standup-status", json!({}));
        assert_eq!(
            (&idle["text"], &idle["icon"]),
            (&json!("Focus 25:00 · 0 open"), &json!("play-circle"))
        );
        assert_eq!(idle["click"], json!({"args": {"action": "toggle"}}));
        assert!(idle.get("tone").is_none(), "{idle}");

        demo.ok("tasks-add", json!({"title": "Review the README"}));
        let running = demo.ok("standup-status", json!({"action": "toggle"}));
        assert!(
            running["text"].as_str().unwrap().starts_with("Focus 2")
                && running["text"].as_str().unwrap().ends_with(" · 1 open"),
            "{running}"
        );
        assert_eq!(
            (&running["data"]["running"], &running["data"]["openTasks"]),
            (&json!(true), &json!(1))
        );

        // A session started 30 minutes ago has run over its 25.
        let timer_file = demo.file(".cowork/data/standup/timer.json");
        let mut timer: Value =
            serde_json::from_str(&std::fs::read_to_string(&timer_file).unwrap()).unwrap();
        timer["startedAt"] = json!((time::OffsetDateTime::now_utc() - time::Duration::minutes(30))
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap());
        std::fs::write(&timer_file, timer.to_string()).unwrap();
        let over = demo.ok("standup-status", json!({}));
        assert!(
            over["text"].as_str().unwrap().starts_with("Focus +05:0") && over["tone"] == "warning",
            "{over}"
        );

        let stopped = demo.ok("standup-status", json!({"action": "toggle"}));
        assert_eq!(
            (&stopped["text"], &stopped["data"]["running"]),
            (&json!("Focus 25:00 · 1 open"), &json!(false))
        );
        let report = demo.ok("standup-report", json!({}));
        assert_eq!(
            (&report["focus"]["sessions"], &report["open"][0]["title"]),
            (&json!(1), &json!("Review the README"))
        );
    }
}

#[test]
fn digest_daily_nests_collect_and_the_list_routines() {
    for runtime in runtimes() {
        let demo = Env::demo(runtime);
        assert_eq!(demo.fails("digest-read", json!({})), "NotFound");
        demo.ok("notes-save", json!({"title": "Launch plan"}));
        demo.ok("tasks-add", json!({"title": "Review the README"}));
        demo.ok("tasks-complete", json!({"id": 1}));
        demo.ok("tasks-add", json!({"title": "Book the room"}));

        let digest = demo.ok("digest-daily", json!({}));
        let date = digest["date"].as_str().unwrap();
        assert_eq!(digest["path"], format!(".cowork/data/digest/daily/{date}.json"));
        assert_eq!(
            digest["notes"],
            json!({"total": 1, "updated": [{"id": "launch-plan", "title": "Launch plan", "path": ".cowork/data/notes/launch-plan.note.json"}]})
        );
        assert_eq!(
            digest["tasks"]["done"],
            json!([{"id": 1, "title": "Review the README", "due": null}])
        );
        assert_eq!(
            (&digest["headline"], &digest["problems"]),
            (&json!("1 note updated · 1 task done, 1 open"), &json!([]))
        );
        assert!(demo.file(digest["path"].as_str().unwrap()).is_file());
        assert_eq!(demo.ok("digest-read", json!({}))["headline"], digest["headline"]);

        // The nested runs name their chain in the audit log.
        let runs = demo.json(&["routine", "runs", "--unchanged", "--routine", "notes-list"]);
        assert_eq!(
            runs["runs"][0]["context"]["caller"]["chain"],
            json!(["digest-daily", "digest-collect"])
        );
    }
}
