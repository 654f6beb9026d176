//! The workbench's TypeScript wire types (`ui/src/workbench/wire/`), generated from the types of
//! this module that the daemon serializes, so `ui/src/workbench/api.ts` cannot drift from what the
//! daemon sends. The files are checked in; a test fails when one is stale, with the command that
//! refreshes it.
//!
//! Three files, by the crate that owns the types: `daemon.ts` (this module's), `core.ts` (core's
//! that the answers carry: problems, the rail, grants, digests), `queue.ts` (the task store's
//! answers, from `cowork-queue`, a dependency of this crate's tests only).

use super::account::{AccountInfo, AccountTeamServer, AccountUser, SignInStarted};
use super::agents::{AgentSummary, AgentsInfo, NewAgent};
use super::events::Event;
use super::notifications::{Badges, Notification};
use super::panes::{
    OpenedPane, PreparedWidget, Widget, WidgetError, WidgetErrorName, WidgetImport,
};
use super::runs::{FinishedRun, PaneRun, RunningRun, RunsPage};
use super::runtime::{BunInstall, FoundRuntime, RuntimeInfo};
use super::triggers::{FiredBy, LastRun, Switched, TriggeredRoutine, TriggeredRun, Workflows};
use super::workbench::{
    App, FileEntry, FileRoute, FileText, Routine, StatusBarAnswer, WorkbenchInfo, WorkspaceName,
};
use super::{Answer, Changed, ErrorBody};
use ts_rs::{Config, TS};

/// Where the generated files live, relative to the repository.
const DAEMON_FILE: &str = "ui/src/workbench/wire/daemon.ts";
const CORE_FILE: &str = "ui/src/workbench/wire/core.ts";
const QUEUE_FILE: &str = "ui/src/workbench/wire/queue.ts";

const REFRESH: &str = "COWORK_WRITE_TS=1 cargo test -p cowork-wire --lib typescript";

fn daemon_header() -> String {
    format!(
        "\
// Generated from cowork-wire's daemon types (crates/cowork-wire/src/daemon/typescript.rs): do not
// edit. Refresh: {REFRESH}
import type {{ StatusBarItem, WireError }} from \"@/frame/protocol\"

import type {{ Digest, Display, Problem, RailFolder, Risk, RouteConflict, RoutineGrants, Source }} from \"./core\"
"
    )
}

fn header(what: &str) -> String {
    format!(
        "\
// Generated from {what} (crates/cowork-wire/src/daemon/typescript.rs): do not
// edit. Refresh: {REFRESH}
"
    )
}

/// `u64` counts (a file's size, a badge) fit a JavaScript number.
fn config() -> Config {
    Config::new().with_large_int("number")
}

/// `daemon.ts`: what the daemon answers and streams.
fn render_daemon() -> String {
    let cfg = config();
    let decls = [
        WorkbenchInfo::decl(&cfg),
        WorkspaceName::decl(&cfg),
        App::decl(&cfg),
        Routine::decl(&cfg),
        OpenedPane::decl(&cfg),
        Widget::decl(&cfg),
        PreparedWidget::decl(&cfg),
        WidgetImport::decl(&cfg),
        WidgetError::decl(&cfg),
        WidgetErrorName::decl(&cfg),
        Answer::<String, String>::decl(&cfg),
        PaneRun::decl(&cfg),
        StatusBarAnswer::decl(&cfg),
        FileEntry::decl(&cfg),
        FileText::decl(&cfg),
        FileRoute::decl(&cfg),
        Changed::decl(&cfg),
        ErrorBody::decl(&cfg),
        Notification::decl(&cfg),
        Badges::decl(&cfg),
        Event::decl(&cfg),
        Workflows::decl(&cfg),
        TriggeredRoutine::decl(&cfg),
        LastRun::decl(&cfg),
        TriggeredRun::decl(&cfg),
        FiredBy::decl(&cfg),
        Switched::decl(&cfg),
        AgentsInfo::decl(&cfg),
        AgentSummary::decl(&cfg),
        NewAgent::decl(&cfg),
        RunsPage::decl(&cfg),
        FinishedRun::decl(&cfg),
        RunningRun::decl(&cfg),
        RuntimeInfo::decl(&cfg),
        FoundRuntime::decl(&cfg),
        BunInstall::decl(&cfg),
        AccountInfo::decl(&cfg),
        AccountUser::decl(&cfg),
        AccountTeamServer::decl(&cfg),
        SignInStarted::decl(&cfg),
    ];
    join(&daemon_header(), decls)
}

/// `core.ts`: the shapes core owns that cross the daemon's wire.
fn render_core() -> String {
    use cowork_core::manifest::{Display, Risk};
    let cfg = config();
    let decls = [
        Display::decl(&cfg),
        Risk::decl(&cfg),
        cowork_core::schema::Problem::decl(&cfg),
        cowork_core::workspace_json::RailFolder::decl(&cfg),
        cowork_core::registry::RouteConflict::decl(&cfg),
        cowork_core::agents::Setting::decl(&cfg),
        cowork_core::agents::Answer::decl(&cfg),
        cowork_core::agents::RoutineGrants::decl(&cfg),
        cowork_core::triggers::arming::Digest::decl(&cfg),
        cowork_core::audit::Source::decl(&cfg),
    ];
    join(&header("core's Rust types"), decls)
}

/// `queue.ts`: what the task store answers the Tasks view and Manage Workspace's tables.
fn render_queue() -> String {
    use cowork_queue::{Counts, Entry, FileInfo, QueueInfo, Settings, Status, Task, View};
    let cfg = config();
    let decls = [
        QueueInfo::decl(&cfg),
        Settings::decl(&cfg),
        Counts::decl(&cfg),
        Status::decl(&cfg),
        View::decl(&cfg),
        Task::decl(&cfg),
        Entry::decl(&cfg),
        FileInfo::decl(&cfg),
        cowork_queue::tables::TableFile::decl(&cfg),
    ];
    join(&header("cowork-queue's Rust types"), decls)
}

/// `header`, then each declaration, exported.
fn join(header: &str, decls: impl IntoIterator<Item = String>) -> String {
    let mut out = String::from(header);
    for decl in decls {
        out.push_str("\nexport ");
        out.push_str(&decl);
        out.push('\n');
    }
    out
}

#[test]
fn the_checked_in_typescript_wire_types_are_fresh() {
    for (file, fresh) in
        [(DAEMON_FILE, render_daemon()), (CORE_FILE, render_core()), (QUEUE_FILE, render_queue())]
    {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(file);
        if std::env::var_os("COWORK_WRITE_TS").is_some() {
            std::fs::write(&path, &fresh).unwrap();
            continue;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == fresh,
            "{file} is stale: the Rust types it is generated from changed. Refresh it with\n  {REFRESH}"
        );
    }
}
