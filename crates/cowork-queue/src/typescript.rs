//! `ui/src/workbench/wire/queue.ts`: what the task store answers the workbench's Tasks view and
//! Manage Workspace's tables, generated from this crate's types (the daemon passes them through
//! `POST /api/queues` and `GET /api/tables` unchanged). Here rather than in cowork-wire, which sits
//! below this crate and may not depend on it. The file is checked in; this test fails when it is
//! stale, with the command that refreshes it.

use crate::{Counts, Entry, FileInfo, QueueInfo, Settings, Status, Task, View};
use cowork_wire::typescript_file::{check, join};
use ts_rs::{Config, TS};

const FILE: &str = "ui/src/workbench/wire/queue.ts";

const REFRESH: &str = "COWORK_WRITE_TS=1 cargo test -p cowork-queue --lib typescript";

fn render() -> String {
    let cfg = Config::new().with_large_int("number");
    let decls = [
        QueueInfo::decl(&cfg),
        Settings::decl(&cfg),
        Counts::decl(&cfg),
        Status::decl(&cfg),
        View::decl(&cfg),
        Task::decl(&cfg),
        Entry::decl(&cfg),
        FileInfo::decl(&cfg),
        crate::tables::TableFile::decl(&cfg),
    ];
    join(
        &format!(
            "// Generated from cowork-queue's Rust types (crates/cowork-queue/src/typescript.rs): do not\n// edit. Refresh: {REFRESH}\n"
        ),
        decls,
    )
}

#[test]
fn the_checked_in_typescript_of_the_store_answers_is_fresh() {
    check(env!("CARGO_MANIFEST_DIR"), FILE, &render(), REFRESH);
}
