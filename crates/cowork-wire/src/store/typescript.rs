//! `ui/src/workbench/wire/store.ts`: the store routes' types for the workbench, generated from the
//! Rust types above (and the hub's types they carry), checked in; this test fails when it is
//! stale, with the command that refreshes it.

use super::*;
use crate::hub::{
    CourseProgress, Host, ItemKind, ItemVersions, LessonDone, StoreVersion, Subscription,
    Subscriptions,
};
use ts_rs::{Config, TS};

const FILE: &str = "ui/src/workbench/wire/store.ts";

const HEADER: &str = "\
// Generated from cowork-wire's Rust types (crates/cowork-wire/src/store/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test --workspace --lib -- store::typescript
";

fn render() -> String {
    // `u64` counts (files, blobs, bytes) fit a JavaScript number.
    let cfg = Config::new().with_large_int("number");
    let decls = [
        InstalledApps::decl(&cfg),
        InstalledApp::decl(&cfg),
        Unreachable::decl(&cfg),
        InstallRequest::decl(&cfg),
        InstallAnswer::decl(&cfg),
        UpdateChoice::decl(&cfg),
        UpdateRequest::decl(&cfg),
        UpdateOutcome::decl(&cfg),
        UpdateAnswer::decl(&cfg),
        PinRequest::decl(&cfg),
        PinAnswer::decl(&cfg),
        AppRequest::decl(&cfg),
        RemoveAnswer::decl(&cfg),
        StoreCards::decl(&cfg),
        StoreCard::decl(&cfg),
        InstalledCopy::decl(&cfg),
        Templates::decl(&cfg),
        TemplateCard::decl(&cfg),
        ScaffoldRequest::decl(&cfg),
        ScaffoldAnswer::decl(&cfg),
        LessonDoneRequest::decl(&cfg),
        CourseView::decl(&cfg),
        LessonView::decl(&cfg),
        WorkspaceCourses::decl(&cfg),
        WorkspaceCourse::decl(&cfg),
        WorkspaceLesson::decl(&cfg),
        CourseProblem::decl(&cfg),
        SubscriptionRequest::decl(&cfg),
        // The hub's shapes these carry.
        StoreItem::decl(&cfg),
        StoreVersion::decl(&cfg),
        ItemVersions::decl(&cfg),
        ItemKind::decl(&cfg),
        TemplateSubtype::decl(&cfg),
        Host::decl(&cfg),
        Subscriptions::decl(&cfg),
        Subscription::decl(&cfg),
        CourseProgress::decl(&cfg),
        LessonDone::decl(&cfg),
    ];
    crate::typescript_file::join(HEADER, decls)
}

#[test]
fn the_checked_in_store_typescript_is_fresh() {
    let refresh = "COWORK_WRITE_TS=1 cargo test --workspace --lib -- store::typescript";
    crate::typescript_file::check(env!("CARGO_MANIFEST_DIR"), FILE, &render(), refresh);
}
