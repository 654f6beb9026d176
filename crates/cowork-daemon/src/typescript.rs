//! The workbench's TypeScript wire types, generated from the answer types the daemon serializes,
//! so `ui/src/workbench/api.ts` cannot drift from what the daemon sends. The file is checked in;
//! a test fails when it is stale, with the command that refreshes it.
//!
//! The types the engine and core own (problems, badges, notifications…) are generated into their
//! own file, `engine.ts`, from those crates' `typescript` feature (on in this crate's tests only,
//! so the library crates stay lean): the daemon's answers name them by their TypeScript name.

use crate::agents::{AgentSummary, AgentsInfo, NewAgent};
use crate::error::ErrorBody;
use crate::panes::{OpenedPane, PaneRun, SdkAnswer};
use crate::triggers::workflows::{LastRun, Switched, TriggeredRun, Workflow, Workflows};
use crate::wire::Changed;
use crate::workbench::{
    FileEntry, FileRoute, FileText, RoutineSummary, StatusBarAnswer, WorkbenchApp, WorkbenchInfo,
    WorkspaceName,
};
use ts_rs::{Config, TS};

/// Where the generated files live, relative to the repository.
const FILE: &str = "ui/src/workbench/wire/daemon.ts";
const ENGINE_FILE: &str = "ui/src/workbench/wire/engine.ts";

const HEADER: &str = "\
// Generated from the daemon's Rust answer types (crates/cowork-daemon/src/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-daemon typescript
import type { StatusBarItem, WireError } from \"@/frame/protocol\"

import type { Badges, DaemonNotification, Digest, Display, PreparedWidget, Problem, RailFolder, Risk, RouteConflict, RoutineGrants, RunningRun, WidgetError } from \"./engine\"
";

const ENGINE_HEADER: &str = "\
// Generated from the engine's and core's Rust types (crates/cowork-daemon/src/typescript.rs): do
// not edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-daemon typescript
";

/// `engine.ts`: the shapes the engine and core own that cross the daemon's wire.
fn render_engine() -> String {
    use cowork_core::manifest::{Display, Risk};
    let cfg = Config::new().with_large_int("number");
    let decls = [
        cowork_engine::hub::Notification::decl(&cfg),
        Display::decl(&cfg),
        Risk::decl(&cfg),
        cowork_core::schema::Problem::decl(&cfg),
        cowork_core::workspace_json::RailFolder::decl(&cfg),
        cowork_core::registry::RouteConflict::decl(&cfg),
        cowork_engine::hub::Badges::decl(&cfg),
        cowork_engine::widgets::PreparedWidget::decl(&cfg),
        cowork_engine::widgets::WidgetImport::decl(&cfg),
        cowork_engine::widgets::WidgetError::decl(&cfg),
        cowork_engine::widgets::WidgetErrorName::decl(&cfg),
        cowork_core::agents::Setting::decl(&cfg),
        cowork_core::agents::Answer::decl(&cfg),
        cowork_core::agents::RoutineGrants::decl(&cfg),
        cowork_engine::running::RunningRun::decl(&cfg),
        cowork_core::arming::Digest::decl(&cfg),
    ];
    join(ENGINE_HEADER, decls)
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

/// `daemon.ts`.
fn render() -> String {
    // `u64` counts (a file's size, a badge) fit a JavaScript number.
    let cfg = Config::new().with_large_int("number");
    let decls = [
        WorkbenchInfo::decl(&cfg),
        WorkspaceName::decl(&cfg),
        WorkbenchApp::decl(&cfg),
        RoutineSummary::decl(&cfg),
        OpenedPane::decl(&cfg),
        crate::panes::Widget::decl(&cfg),
        SdkAnswer::decl(&cfg),
        PaneRun::decl(&cfg),
        StatusBarAnswer::decl(&cfg),
        FileEntry::decl(&cfg),
        FileText::decl(&cfg),
        FileRoute::decl(&cfg),
        Changed::decl(&cfg),
        ErrorBody::decl(&cfg),
        Workflows::decl(&cfg),
        Workflow::decl(&cfg),
        LastRun::decl(&cfg),
        TriggeredRun::decl(&cfg),
        Switched::decl(&cfg),
        AgentsInfo::decl(&cfg),
        AgentSummary::decl(&cfg),
        NewAgent::decl(&cfg),
        crate::executions::Executions::decl(&cfg),
        crate::executions::Execution::decl(&cfg),
        crate::runtime_install::RuntimeInfo::decl(&cfg),
        crate::runtime_install::FoundRuntime::decl(&cfg),
        crate::runtime_install::BunInstall::decl(&cfg),
        crate::account::AccountInfo::decl(&cfg),
        crate::account::AccountUser::decl(&cfg),
        crate::account::AccountTeamServer::decl(&cfg),
        crate::account::SignInStarted::decl(&cfg),
    ];
    join(HEADER, decls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_typescript_wire_types_are_fresh() {
        for (file, fresh) in [(FILE, render()), (ENGINE_FILE, render_engine())] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(file);
            if std::env::var_os("COWORK_WRITE_TS").is_some() {
                std::fs::write(&path, &fresh).unwrap();
                continue;
            }
            let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                checked_in == fresh,
                "{file} is stale: the Rust types it is generated from changed. Refresh it with\n  COWORK_WRITE_TS=1 cargo test -p cowork-daemon typescript"
            );
        }
    }
}
