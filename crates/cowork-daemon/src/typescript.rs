//! The workbench's TypeScript wire types, generated from the answer types the daemon serializes,
//! so `ui/src/workbench/api.ts` cannot drift from what the daemon sends. The file is checked in;
//! a test fails when it is stale, with the command that refreshes it.
//!
//! Fields whose types the engine and core own (problems, badges, notifications, the widget a pane
//! runs) are named here by the TypeScript type the UI declares for them, imported at the top.

use crate::error::ErrorBody;
use crate::panes::{OpenedPane, SdkAnswer};
use crate::wire::Changed;
use crate::workbench::{
    FileEntry, FileRoute, FileText, RoutineSummary, StatusBarAnswer, WorkbenchApp, WorkbenchInfo,
    WorkspaceName,
};
use ts_rs::{Config, TS};

/// Where the generated file lives, relative to the repository.
const FILE: &str = "ui/src/workbench/wire/daemon.ts";

const HEADER: &str = "\
// Generated from the daemon's Rust answer types (crates/cowork-daemon/src/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-daemon typescript
import type { StatusBarItem, Widget, WireError } from \"@/frame/protocol\"

import type { Badges, DaemonNotification, Display, Problem, RailFolder, Risk, RouteConflict } from \"./engine\"
";

/// The file's text.
fn render() -> String {
    // `u64` counts (a file's size, a badge) fit a JavaScript number.
    let cfg = Config::new().with_large_int("number");
    let decls = [
        WorkbenchInfo::decl(&cfg),
        WorkspaceName::decl(&cfg),
        WorkbenchApp::decl(&cfg),
        RoutineSummary::decl(&cfg),
        OpenedPane::decl(&cfg),
        SdkAnswer::decl(&cfg),
        StatusBarAnswer::decl(&cfg),
        FileEntry::decl(&cfg),
        FileText::decl(&cfg),
        FileRoute::decl(&cfg),
        Changed::decl(&cfg),
        ErrorBody::decl(&cfg),
    ];
    let mut out = String::from(HEADER);
    for decl in decls {
        out.push_str("\nexport ");
        out.push_str(&decl);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_typescript_wire_types_are_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(FILE);
        let fresh = render();
        if std::env::var_os("COWORK_WRITE_TS").is_some() {
            std::fs::write(&path, &fresh).unwrap();
            return;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == fresh,
            "{FILE} is stale: the daemon's answer types changed. Refresh it with\n  COWORK_WRITE_TS=1 cargo test -p cowork-daemon typescript"
        );
    }
}
