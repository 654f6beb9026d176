//! Team servers, members, requests, roles, groups, updates, run reports and the audit log.

use crate::support::*;
use cowork_wire::hub::*;

fn new_ts(name: &str, visibility: Visibility, requires_approval: bool) -> NewTeamServer {
    NewTeamServer {
        name: name.into(),
        description: Some("for tests".into()),
        visibility,
        requires_approval,
        org: None,
        open_to_groups: vec![],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_user_creates_a_team_server_adds_a_second_account_and_both_see_it() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        let (bo, _) = account(&hub, "bo@example.com").await;
        let ts =
            ana.create_team_server(&new_ts("Acme Apps", Visibility::Private, false)).await.unwrap();
        assert_eq!(ts.slug, "acme-apps");
        assert_eq!(ts.role, Some(Role::Owner));
        let twin =
            ana.create_team_server(&new_ts("Acme Apps", Visibility::Private, false)).await.unwrap();
        assert_ne!(twin.slug, ts.slug, "{backend:?}: display names are not unique, slugs are");
        assert!(twin.slug.starts_with("acme-apps-"));
        // Private: Bo cannot see it before being added.
        assert_eq!(name(bo.team_server("acme-apps").await), HubErrorName::NotFound, "{backend:?}");
        assert_eq!(name(bo.join("acme-apps", &Join::default()).await), HubErrorName::NotFound);
        ana.add_member("acme-apps", &MemberAdd { email: "bo@example.com".into(), admin: false })
            .await
            .unwrap();
        let mine = bo.team_servers().await.unwrap().team_servers;
        assert_eq!(mine.len(), 1);
        assert_eq!(
            (mine[0].slug.as_str(), mine[0].role, mine[0].members),
            ("acme-apps", Some(Role::Member), 2)
        );
        let members = ana.members("acme-apps").await.unwrap().members;
        let emails: Vec<_> = members.iter().map(|m| (m.user.email.as_str(), m.role)).collect();
        assert_eq!(
            emails,
            [("ana@example.com", Role::Owner), ("bo@example.com", Role::Member)],
            "{backend:?}"
        );
        assert_eq!(bo.store("acme-apps").await.unwrap().items, vec![]);
        hub.running.stop().await;
    }
}

/// The members listing is JSON the database writes (one value instead of a row per member): the
/// body must be exactly what serde writes for the same `MemberList` — keys, order, escapes of
/// names with quotes, backslashes, control characters and non-ASCII — in the listing's order
/// (the owner, then admins, then members, each by email), on both back ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_members_listing_is_the_json_serde_writes_in_role_then_email_order() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, token) = account(&hub, "ana@example.com").await;
        ana.create_team_server(&new_ts("Names", Visibility::Private, false)).await.unwrap();
        let people = [
            ("zoe@example.com", true, "Zo\u{eb} \u{1f600} \"the admin\""),
            ("cy@example.com", true, "back\\slash / it's"),
            ("eli@example.com", false, "new\nline\ttab\r\u{8}\u{c}\u{1}\u{1f}\u{7f}"),
            ("bea@example.com", false, "Bea"),
            ("dan@example.com", false, "\u{2028}<script>&amp;</script>"),
        ];
        for (email, admin, display_name) in people {
            account(&hub, email).await;
            sqlx::query("UPDATE users SET display_name = $1 WHERE email = $2")
                .bind(display_name)
                .bind(email)
                .execute(hub.running.hub.db.pool())
                .await
                .unwrap();
            ana.add_member("names", &MemberAdd { email: email.into(), admin }).await.unwrap();
        }
        let answer = reqwest::Client::new()
            .get(format!("{}/api/team-servers/names/members", hub.url))
            .bearer_auth(&token.access_token)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), reqwest::StatusCode::OK, "{backend:?}");
        assert_eq!(answer.headers()["content-type"], "application/json", "{backend:?}");
        let body = answer.text().await.unwrap();
        let list: MemberList = serde_json::from_str(&body).unwrap();
        assert_eq!(serde_json::to_string(&list).unwrap(), body, "{backend:?}: not serde's bytes");
        let seen: Vec<_> = list
            .members
            .iter()
            .map(|m| (m.user.email.as_str(), m.role, m.user.display_name.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                ("ana@example.com", Role::Owner, "ana"),
                ("cy@example.com", Role::Admin, people[1].2),
                ("zoe@example.com", Role::Admin, people[0].2),
                ("bea@example.com", Role::Member, "Bea"),
                ("dan@example.com", Role::Member, people[4].2),
                ("eli@example.com", Role::Member, people[2].2),
            ],
            "{backend:?}"
        );
        assert!(list.members.iter().all(|m| m.joined_at > 0 && m.user.uid.len() == 32));
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_are_enforced_on_every_route() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        let (bo, _) = account(&hub, "bo@example.com").await;
        let (cy, _) = account(&hub, "cy@example.com").await;
        ana.create_team_server(&new_ts("Team", Visibility::Private, false)).await.unwrap();
        ana.add_member("team", &MemberAdd { email: "bo@example.com".into(), admin: false })
            .await
            .unwrap();
        ana.add_member("team", &MemberAdd { email: "cy@example.com".into(), admin: true })
            .await
            .unwrap();
        let add = MemberAdd { email: "cy@example.com".into(), admin: false };
        // A member cannot admin.
        assert_eq!(name(bo.add_member("team", &add).await), HubErrorName::NotAdmin, "{backend:?}");
        assert_eq!(name(bo.remove_member("team", "cy@example.com").await), HubErrorName::NotAdmin);
        assert_eq!(name(bo.requests("team").await), HubErrorName::NotAdmin);
        assert_eq!(name(bo.runs("team", &RunQuery::default()).await), HubErrorName::NotAdmin);
        assert_eq!(name(bo.delete_team_server("team").await), HubErrorName::NotOwner);
        assert_eq!(name(bo.audit("team", None, None).await), HubErrorName::NotOwner);
        // An admin manages members but not admins, and neither deletes nor reads the audit.
        assert_eq!(name(cy.audit("team", None, None).await), HubErrorName::NotOwner, "{backend:?}");
        assert_eq!(name(cy.delete_team_server("team").await), HubErrorName::NotOwner);
        assert!(cy.requests("team").await.is_ok());
        // … and makes no admin: neither a new one nor by promoting a member (the owner does).
        account(&hub, "di@example.com").await;
        let admin = |email: &str| MemberAdd { email: email.into(), admin: true };
        assert_eq!(
            name(cy.add_member("team", &admin("di@example.com")).await),
            HubErrorName::NotOwner
        );
        assert_eq!(
            name(cy.add_member("team", &admin("bo@example.com")).await),
            HubErrorName::NotOwner
        );
        let members = ana.members("team").await.unwrap().members;
        let role_of = |email: &str| members.iter().find(|m| m.user.email == email).map(|m| m.role);
        assert_eq!(
            (role_of("di@example.com"), role_of("bo@example.com")),
            (None, Some(Role::Member))
        );
        assert_eq!(
            ana.add_member("team", &admin("di@example.com")).await.unwrap().role,
            Role::Admin
        );
        assert_eq!(
            name(ana.remove_member("team", "ana@example.com").await),
            HubErrorName::Conflict,
            "the owner stays"
        );
        assert_eq!(name(ana.leave("team").await), HubErrorName::Conflict, "the owner cannot leave");
        assert_eq!(
            name(
                ana.add_member("team", &MemberAdd { email: "bo@example.com".into(), admin: false })
                    .await
            ),
            HubErrorName::AlreadyExists
        );
        assert_eq!(
            name(
                ana.add_member(
                    "team",
                    &MemberAdd { email: "nobody@example.com".into(), admin: false }
                )
                .await
            ),
            HubErrorName::NotFound
        );
        // A removed member reads nothing.
        cy.remove_member("team", "bo@example.com").await.unwrap();
        assert_eq!(name(bo.members("team").await), HubErrorName::NotFound, "{backend:?}");
        assert_eq!(name(bo.store("team").await), HubErrorName::NotFound);
        assert!(bo.team_servers().await.unwrap().team_servers.is_empty());
        // The owner deletes it for everyone.
        ana.delete_team_server("team").await.unwrap();
        assert_eq!(name(cy.team_server("team").await), HubErrorName::NotFound);
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn join_requests_wait_for_an_admin_and_everything_is_audited() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        let (bo, _) = account(&hub, "bo@example.com").await;
        let (cy, _) = account(&hub, "cy@example.com").await;
        ana.create_team_server(&new_ts("Open", Visibility::Public, true)).await.unwrap();
        ana.create_team_server(&new_ts("Free", Visibility::Public, false)).await.unwrap();
        assert_eq!(
            cy.join("free", &Join::default()).await.unwrap().status,
            JoinStatus::Joined,
            "{backend:?}"
        );
        let asked = bo.join("open", &Join { note: Some("from sales".into()) }).await.unwrap();
        assert_eq!(asked.status, JoinStatus::Requested);
        assert!(asked.team_server.requested);
        assert_eq!(
            bo.join("open", &Join::default()).await.unwrap().status,
            JoinStatus::Requested,
            "asking twice is one request"
        );
        assert_eq!(
            name(bo.members("open").await),
            HubErrorName::NotMember,
            "{backend:?}: public, but not a member yet"
        );
        cy.join("open", &Join::default()).await.unwrap();
        let waiting = ana.requests("open").await.unwrap().requests;
        assert_eq!(
            waiting.iter().map(|r| r.user.email.as_str()).collect::<Vec<_>>(),
            ["bo@example.com", "cy@example.com"]
        );
        assert_eq!(waiting[0].note.as_deref(), Some("from sales"));
        assert_eq!(ana.team_server("open").await.unwrap().pending_requests, 2);
        let member = ana.approve("open", "bo@example.com").await.unwrap();
        assert_eq!(member.role, Role::Member);
        assert_eq!(
            name(ana.approve("open", "bo@example.com").await),
            HubErrorName::NotFound,
            "{backend:?}: settled once"
        );
        ana.deny("open", "cy@example.com").await.unwrap();
        assert!(bo.members("open").await.is_ok());
        assert_eq!(name(cy.members("open").await), HubErrorName::NotMember);
        bo.leave("open").await.unwrap();
        let actions: Vec<(AuditAction, Option<String>)> = ana
            .audit("open", None, None)
            .await
            .unwrap()
            .entries
            .into_iter()
            .rev()
            .map(|e| (e.action, e.target))
            .collect();
        let bo_email = Some("bo@example.com".to_string());
        let cy_email = Some("cy@example.com".to_string());
        assert_eq!(
            actions,
            [
                (AuditAction::TeamServerCreate, Some("open".into())),
                (AuditAction::MemberRequest, bo_email.clone()),
                (AuditAction::MemberRequest, cy_email.clone()),
                (AuditAction::MemberApprove, bo_email.clone()),
                (AuditAction::MemberDeny, cy_email),
                (AuditAction::MemberLeave, bo_email),
            ],
            "{backend:?}"
        );
        let page = ana.audit("open", None, Some(2)).await.unwrap();
        assert_eq!(page.entries.len(), 2);
        let rest = ana.audit("open", page.next.as_deref(), Some(10)).await.unwrap();
        assert_eq!(rest.entries.len(), 4);
        assert!(rest.next.is_none());
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_answer_304_until_something_changes_and_drop_a_removed_server() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        let (bo, _) = account(&hub, "bo@example.com").await;
        let first = bo.updates(None).await.unwrap().expect("a first answer");
        assert!(first.team_servers.is_empty());
        assert_eq!(
            bo.updates(Some(&first.cursor)).await.unwrap(),
            None,
            "{backend:?}: nothing changed → 304"
        );
        for name in ["One", "Two", "Three", "Four", "Five"] {
            ana.create_team_server(&new_ts(name, Visibility::Private, false)).await.unwrap();
        }
        assert_eq!(
            bo.updates(Some(&first.cursor)).await.unwrap(),
            None,
            "{backend:?}: others' servers are not Bo's news"
        );
        ana.add_member("two", &MemberAdd { email: "bo@example.com".into(), admin: false })
            .await
            .unwrap();
        ana.add_member("four", &MemberAdd { email: "bo@example.com".into(), admin: true })
            .await
            .unwrap();
        let added = bo.updates(Some(&first.cursor)).await.unwrap().expect("membership changed");
        let slugs: Vec<_> = added.team_servers.iter().map(|t| (t.slug.as_str(), t.role)).collect();
        assert_eq!(slugs, [("four", Role::Admin), ("two", Role::Member)]);
        assert_eq!(bo.updates(Some(&added.cursor)).await.unwrap(), None);
        // A change inside a server Bo belongs to (a new member) moves his cursor too.
        let (_cy, _) = account(&hub, "cy@example.com").await;
        ana.add_member("two", &MemberAdd { email: "cy@example.com".into(), admin: false })
            .await
            .unwrap();
        let moved = bo.updates(Some(&added.cursor)).await.unwrap().expect("two changed");
        let two = moved.team_servers.iter().find(|t| t.slug == "two").unwrap();
        assert!(two.rev > added.team_servers.iter().find(|t| t.slug == "two").unwrap().rev);
        ana.remove_member("two", "bo@example.com").await.unwrap();
        let dropped = bo.updates(Some(&moved.cursor)).await.unwrap().expect("removed");
        assert_eq!(
            dropped.team_servers.iter().map(|t| t.slug.as_str()).collect::<Vec<_>>(),
            ["four"],
            "{backend:?}"
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_orgs_private_server_is_invisible_and_groups_open_and_close_servers() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        let (bo, _) = account(&hub, "bo@example.com").await;
        let (cy, _) = account(&hub, "cy@example.com").await;
        let (eve, _) = account(&hub, "eve@example.com").await;
        ana.create_org(&NewOrg { name: "Acme".into(), slug: None }).await.unwrap();
        eve.create_org(&NewOrg { name: "Globex".into(), slug: None }).await.unwrap();
        for email in ["bo@example.com", "cy@example.com"] {
            ana.add_org_member("acme", &OrgMemberAdd { email: email.into(), role: Role::Member })
                .await
                .unwrap();
        }
        assert_eq!(name(bo.groups("acme").await), HubErrorName::NotAdmin, "{backend:?}");
        assert_eq!(name(eve.org("acme").await), HubErrorName::NotFound);
        let outsider = NewGroup { name: "sales".into(), members: vec!["eve@example.com".into()] };
        assert_eq!(
            name(ana.create_group("acme", &outsider).await),
            HubErrorName::NotFound,
            "{backend:?}: members must be in the org (eve is not found among them)"
        );
        ana.create_group(
            "acme",
            &NewGroup { name: "sales".into(), members: vec!["bo@example.com".into()] },
        )
        .await
        .unwrap();
        let ts = NewTeamServer {
            org: Some("acme".into()),
            open_to_groups: vec!["sales".into()],
            ..new_ts("Sales Apps", Visibility::Private, false)
        };
        ana.create_team_server(&ts).await.unwrap();
        // Bo (in the group) sees and joins it; Cy (in the org, not the group) and Eve (another org) do not see it.
        assert_eq!(bo.team_server("sales-apps").await.unwrap().role, None);
        assert_eq!(
            bo.join("sales-apps", &Join::default()).await.unwrap().status,
            JoinStatus::Joined,
            "{backend:?}"
        );
        assert_eq!(name(cy.team_server("sales-apps").await), HubErrorName::NotFound);
        assert_eq!(
            name(eve.team_server("sales-apps").await),
            HubErrorName::NotFound,
            "{backend:?}"
        );
        assert_eq!(name(eve.join("sales-apps", &Join::default()).await), HubErrorName::NotFound);
        let me = bo.me().await.unwrap();
        assert_eq!(me.organization.as_ref().map(|o| o.slug.as_str()), Some("acme"));
        assert!(me.manages.is_empty());
        assert_eq!(
            ana.me().await.unwrap().manages.iter().map(|o| o.slug.as_str()).collect::<Vec<_>>(),
            ["acme"]
        );
        let info = bo.org("acme").await.unwrap();
        assert_eq!(
            info.team_servers.iter().map(|t| t.slug.as_str()).collect::<Vec<_>>(),
            ["sales-apps"]
        );
        // Deleting the group closes the server to those who came in through it.
        let cursor = bo.updates(None).await.unwrap().unwrap().cursor;
        ana.delete_group("acme", "sales").await.unwrap();
        assert_eq!(name(bo.members("sales-apps").await), HubErrorName::NotFound, "{backend:?}");
        assert!(bo.updates(Some(&cursor)).await.unwrap().unwrap().team_servers.is_empty());
        let closed = ana.audit("sales-apps", None, None).await.unwrap().entries;
        assert_eq!(closed[0].action, AuditAction::MemberGroupClosed);
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_edits_need_the_latest_etag() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        for email in ["bo@example.com", "cy@example.com"] {
            account(&hub, email).await;
        }
        ana.create_org(&NewOrg { name: "Acme".into(), slug: Some("acme".into()) }).await.unwrap();
        for email in ["bo@example.com", "cy@example.com"] {
            ana.add_org_member("acme", &OrgMemberAdd { email: email.into(), role: Role::Member })
                .await
                .unwrap();
        }
        let created = ana
            .create_group("acme", &NewGroup { name: "ops".into(), members: vec![] })
            .await
            .unwrap();
        let read = ana.group("acme", "ops").await.unwrap();
        assert_eq!(read.etag, created.etag);
        let saved = ana
            .set_group(
                "acme",
                "ops",
                &GroupSet { members: vec!["bo@example.com".into()] },
                &read.etag,
            )
            .await
            .unwrap();
        assert_ne!(saved.etag, read.etag);
        let stale = ana
            .set_group(
                "acme",
                "ops",
                &GroupSet { members: vec!["cy@example.com".into()] },
                &read.etag,
            )
            .await;
        assert_eq!(name(stale), HubErrorName::PreconditionFailed, "{backend:?}");
        assert_eq!(
            ana.group("acme", "ops").await.unwrap().members,
            ["bo@example.com"],
            "the stale save changed nothing"
        );
        let status = reqwest::Client::new()
            .put(format!("{}/api/orgs/acme/groups/ops", hub.url))
            .bearer_auth(ana_token(&hub).await)
            .json(&GroupSet { members: vec![] })
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, reqwest::StatusCode::PRECONDITION_REQUIRED, "{backend:?}: no If-Match");
        hub.running.stop().await;
    }
}

async fn ana_token(hub: &TestHub) -> String {
    sign_in(hub, "ana@example.com").await.1.access_token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_reports_keep_no_credentials_and_only_admins_read_them() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        let (bo, _) = account(&hub, "bo@example.com").await;
        let (eve, _) = account(&hub, "eve@example.com").await;
        ana.create_team_server(&new_ts("Team", Visibility::Private, false)).await.unwrap();
        ana.add_member("team", &MemberAdd { email: "bo@example.com".into(), admin: false })
            .await
            .unwrap();
        let report = |run: &str, status: RunStatus, device: &str| RunReport {
            run_id: run.into(),
            app: "gmail".into(),
            app_version: Some("1.2.3".into()),
            routine: "gmail-fetch".into(),
            device_id: format!("{device}-id"),
            device: device.into(),
            status,
            duration_ms: 812,
            ts: 1_700_000_000_000,
            error: (status == RunStatus::Error).then(|| RunError {
                name: "Failed".into(),
                message: "login with password=hunter2hunter2 refused".into(),
            }),
            log_tail: Some("fetching\nAuthorization: Bearer abcdefghijklmnop1234\ndone".into()),
        };
        bo.report_run("team", &report("r1", RunStatus::Ok, "laptop")).await.unwrap();
        bo.report_run("team", &report("r2", RunStatus::Error, "server")).await.unwrap();
        bo.report_run("team", &report("r2", RunStatus::Error, "server")).await.unwrap();
        assert_eq!(
            name(eve.report_run("team", &report("r3", RunStatus::Ok, "x")).await),
            HubErrorName::NotFound,
            "{backend:?}"
        );
        assert_eq!(name(bo.runs("team", &RunQuery::default()).await), HubErrorName::NotAdmin);
        let all = ana.runs("team", &RunQuery::default()).await.unwrap();
        assert_eq!(all.runs.len(), 2, "{backend:?}: a run reported twice is kept once");
        let failed = ana
            .runs("team", &RunQuery { status: Some(RunStatus::Error), ..RunQuery::default() })
            .await
            .unwrap()
            .runs;
        assert_eq!(failed.len(), 1);
        let run = &failed[0];
        assert_eq!(run.user, "bo@example.com");
        let tail = run.report.log_tail.as_deref().unwrap();
        assert!(
            !tail.contains("abcdefghijklmnop1234") && tail.contains("fetching"),
            "{backend:?}: {tail}"
        );
        let message = &run.report.error.as_ref().unwrap().message;
        assert!(!message.contains("hunter2hunter2"), "{message}");
        let ok = ana
            .runs("team", &RunQuery { device: Some("laptop".into()), ..RunQuery::default() })
            .await
            .unwrap()
            .runs;
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].report.log_tail, None, "{backend:?}: an ok run keeps no log lines");
        let first =
            ana.runs("team", &RunQuery { limit: Some(1), ..RunQuery::default() }).await.unwrap();
        let second = ana
            .runs(
                "team",
                &RunQuery { limit: Some(1), before: first.next.clone(), ..RunQuery::default() },
            )
            .await
            .unwrap();
        assert_ne!(first.runs[0].report.run_id, second.runs[0].report.run_id);
        hub.running.stop().await;
    }
}
