//! `cowork team-server …` and `cowork routine runs --team-server`: team servers on the signed-in
//! account's hub. Every role is the hub's to enforce; a refusal is printed with its name.

use super::account::{failure, session, tell_daemon};
use crate::cli::{
    MembersArgs, MembersCommand, RunsArgs, StatusFilter, TeamServerCommand, VisibilityArg,
};
use crate::exit::{CommandResult, Exit, Failure};
use crate::table;
use cowork_account::Session;
use cowork_core::shell;
use cowork_wire::hub::client::{ClientError, HubClient};
use cowork_wire::hub::{
    Join, JoinStatus, LeaveStatus, MemberAdd, NewTeamServer, RunQuery, RunStatus, TeamServer,
    Visibility,
};
use serde::Serialize;
use serde_json::json;
use std::future::Future;

pub async fn run(command: TeamServerCommand) -> CommandResult {
    let session = session();
    match command {
        TeamServerCommand::List { json } => list(&session, json).await,
        TeamServerCommand::Create { name, desc, visibility, requires_approval, json } => {
            let new = NewTeamServer {
                name: name.clone(),
                description: desc,
                visibility: match visibility {
                    Some(VisibilityArg::Public) => Visibility::Public,
                    Some(VisibilityArg::Private) | None => Visibility::Private,
                },
                requires_approval,
                org: None,
                open_to_groups: Vec::new(),
            };
            let created = call(&session, &format!("create the team server {name:?}"), |hub| {
                let new = new.clone();
                async move { hub.create_team_server(&new).await }
            })
            .await?;
            tell_daemon().await;
            if json {
                outln!("{}", json!(created));
            } else {
                outln!("Created the team server {} ({}, {}{}). Add people: cowork team-server members add {} <email>", created.slug, created.name, created.visibility.as_str(), if created.requires_approval { ", joins need approval" } else { "" }, created.slug);
            }
            Ok(Exit::Ok)
        }
        TeamServerCommand::Info { team_server, json } => {
            let ts = call(&session, &format!("read the team server {team_server:?}"), |hub| {
                let slug = team_server.clone();
                async move { hub.team_server(&slug).await }
            })
            .await?;
            if json {
                outln!("{}", json!(ts));
            } else {
                info(&ts);
            }
            Ok(Exit::Ok)
        }
        TeamServerCommand::Join { team_server, note, json } => {
            let joined = call(&session, &format!("join the team server {team_server:?}"), |hub| {
                let (slug, join) = (team_server.clone(), Join { note: note.clone() });
                async move { hub.join(&slug, &join).await }
            })
            .await?;
            tell_daemon().await;
            if json {
                outln!("{}", json!(joined));
            } else {
                match joined.status {
                    JoinStatus::Joined => {
                        outln!("Joined {} ({}).", joined.team_server.slug, joined.team_server.name)
                    }
                    JoinStatus::Requested => outln!(
                        "Asked to join {}: one of its admins approves the request.",
                        joined.team_server.slug
                    ),
                }
            }
            Ok(Exit::Ok)
        }
        TeamServerCommand::Leave { team_server, json } => {
            let left = call(&session, &format!("leave the team server {team_server:?}"), |hub| {
                let slug = team_server.clone();
                async move { hub.leave(&slug).await }
            })
            .await?;
            tell_daemon().await;
            let said = match left.status {
                LeaveStatus::Left => format!("Left {team_server}."),
                LeaveStatus::Withdrawn => format!("Withdrew your request to join {team_server}."),
            };
            done(
                json,
                json!({ "ok": true, "teamServer": team_server, "status": left.status }),
                format_args!("{said}"),
            );
            Ok(Exit::Ok)
        }
        TeamServerCommand::Members(args) => members(&session, args).await,
        TeamServerCommand::Requests { team_server, json } => {
            let list =
                call(&session, &format!("list the join requests of {team_server:?}"), |hub| {
                    let slug = team_server.clone();
                    async move { hub.requests(&slug).await }
                })
                .await?;
            if json {
                outln!("{}", json!(list));
                return Ok(Exit::Ok);
            }
            if list.requests.is_empty() {
                outln!("Nobody is waiting to join {team_server}.");
                return Ok(Exit::Ok);
            }
            let rows: Vec<Vec<String>> = list
                .requests
                .iter()
                .map(|r| {
                    vec![
                        r.user.email.clone(),
                        r.user.display_name.clone(),
                        table::date(r.requested_at),
                        r.note.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            table::print(&["EMAIL", "NAME", "ASKED (UTC)", "NOTE"], &rows);
            outln!("Settle each: cowork team-server members approve|deny {team_server} <email>");
            Ok(Exit::Ok)
        }
        TeamServerCommand::Install { spec, dir, allow_unverified, json } => {
            super::store::team_server_install(&spec, dir.as_deref(), allow_unverified, json).await
        }
        TeamServerCommand::Store { team_server, json } => {
            // `cowork` is the built-in store of templates: listed with no hub, as it installs.
            let store = if team_server == cowork_store::builtin::SLUG {
                use cowork_store::remote::Remote;
                let builtin = cowork_store::builtin::Builtin::new();
                builtin.store().await.map_err(super::store::failure)?
            } else {
                call(&session, &format!("read the store of {team_server:?}"), |hub| {
                    let slug = team_server.clone();
                    async move { hub.store(&slug).await }
                })
                .await?
            };
            if json {
                outln!("{}", json!(store));
                return Ok(Exit::Ok);
            }
            if store.items.is_empty() {
                outln!("{team_server} publishes nothing yet.");
                return Ok(Exit::Ok);
            }
            let rows: Vec<Vec<String>> = store
                .items
                .iter()
                .map(|i| {
                    vec![
                        i.name.clone(),
                        i.kind.to_string(),
                        i.version.clone(),
                        table::date(i.updated_at),
                        i.title.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            table::print(&["NAME", "TYPE", "VERSION", "UPDATED (UTC)", "TITLE"], &rows);
            Ok(Exit::Ok)
        }
        TeamServerCommand::Delete { team_server, yes, json } => {
            if !yes {
                return Err(Failure::new(Exit::Usage, format!("failed to delete the team server {team_server:?}: it needs --yes"))
                    .hint(format!("it is deleted for everyone, its members and store with it: `cowork team-server delete {team_server} --yes`")));
            }
            call(&session, &format!("delete the team server {team_server:?}"), |hub| {
                let slug = team_server.clone();
                async move { hub.delete_team_server(&slug).await }
            })
            .await?;
            tell_daemon().await;
            done(
                json,
                json!({ "ok": true, "teamServer": team_server }),
                format_args!("Deleted {team_server} for everyone."),
            );
            Ok(Exit::Ok)
        }
    }
}

/// What a verb that changes something prints: `answer` as one JSON line, or `text`.
fn done(as_json: bool, answer: serde_json::Value, text: std::fmt::Arguments<'_>) {
    if as_json {
        outln!("{answer}");
    } else {
        outln!("{text}");
    }
}

/// One hub call with the session; a failure reads `failed to <doing>: …`.
async fn call<T, F, Fut>(session: &Session, doing: &str, f: F) -> Result<T, Failure>
where
    F: Fn(HubClient) -> Fut,
    Fut: Future<Output = Result<T, ClientError>>,
{
    session.call(f).await.map_err(|e| failure(doing, e))
}

async fn list(session: &Session, as_json: bool) -> CommandResult {
    let list =
        call(session, "list your team servers", |hub| async move { hub.team_servers().await })
            .await?;
    if as_json {
        outln!("{}", json!(list));
        return Ok(Exit::Ok);
    }
    if list.team_servers.is_empty() {
        outln!("You belong to no team server yet: `cowork team-server create <name>`, or `cowork team-server join <team-server>`.");
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = list
        .team_servers
        .iter()
        .map(|t| {
            vec![
                t.slug.clone(),
                t.name.clone(),
                match (t.role, t.requested) {
                    (Some(role), _) => role.as_str().to_string(),
                    (None, true) => "asked to join".into(),
                    (None, false) => "-".into(),
                },
                t.members.to_string(),
                t.pending_requests.to_string(),
                t.items.to_string(),
                t.visibility.as_str().to_string(),
            ]
        })
        .collect();
    table::print(&["SLUG", "NAME", "ROLE", "MEMBERS", "REQUESTS", "ITEMS", "VISIBILITY"], &rows);
    Ok(Exit::Ok)
}

fn info(ts: &TeamServer) {
    outln!("slug:        {}", ts.slug);
    outln!("name:        {}", ts.name);
    if let Some(description) = &ts.description {
        outln!("description: {description}");
    }
    outln!(
        "visibility:  {}{}",
        ts.visibility.as_str(),
        if ts.requires_approval { ", joins need an admin's approval" } else { "" }
    );
    if let Some(org) = &ts.org {
        outln!("org:         {} ({})", org.name, org.slug);
    }
    outln!(
        "your role:   {}",
        match (ts.role, ts.requested) {
            (Some(role), _) => role.as_str(),
            (None, true) => "asked to join, waiting for an admin",
            (None, false) => "not a member",
        }
    );
    outln!("members:     {}", ts.members);
    if ts.role.is_some_and(|r| r.manages()) {
        outln!("requests:    {}", ts.pending_requests);
    }
    outln!("store:       {} items", ts.items);
    if !ts.open_to_groups.is_empty() {
        outln!("open to:     {}", ts.open_to_groups.join(", "));
    }
    outln!("created:     {} UTC", table::date(ts.created_at));
}

async fn members(session: &Session, args: MembersArgs) -> CommandResult {
    let (team_server, json) = match args.command {
        None => match args.team_server {
            Some(ts) => (ts, args.json),
            None => {
                return Err(Failure::new(
                    Exit::Usage,
                    "failed to list members: name the team server",
                )
                .hint("cowork team-server members <team-server>"))
            }
        },
        Some(MembersCommand::List { team_server, json }) => (team_server, json || args.json),
        Some(MembersCommand::Add { team_server, email, admin, json }) => {
            let member = call(session, &format!("add {email} to {team_server:?}"), |hub| {
                let (slug, add) = (team_server.clone(), MemberAdd { email: email.clone(), admin });
                async move { hub.add_member(&slug, &add).await }
            })
            .await?;
            done(
                json,
                json!(member),
                format_args!(
                    "Added {} to {team_server} as {}.",
                    member.user.email,
                    member.role.as_str()
                ),
            );
            return Ok(Exit::Ok);
        }
        Some(MembersCommand::Remove { team_server, email, json }) => {
            call(session, &format!("remove {email} from {team_server:?}"), |hub| {
                let (slug, email) = (team_server.clone(), email.clone());
                async move { hub.remove_member(&slug, &email).await }
            })
            .await?;
            done(json, json!({ "ok": true, "teamServer": team_server, "email": email }), format_args!("Removed {email} from {team_server}: their Cowork drops it at its next updates poll."));
            return Ok(Exit::Ok);
        }
        Some(MembersCommand::Approve { team_server, email, json }) => {
            let member = call(
                session,
                &format!("approve {email}'s request to join {team_server:?}"),
                |hub| {
                    let (slug, email) = (team_server.clone(), email.clone());
                    async move { hub.approve(&slug, &email).await }
                },
            )
            .await?;
            done(
                json,
                json!(member),
                format_args!("{} is a member of {team_server} now.", member.user.email),
            );
            return Ok(Exit::Ok);
        }
        Some(MembersCommand::Deny { team_server, email, json }) => {
            call(session, &format!("deny {email}'s request to join {team_server:?}"), |hub| {
                let (slug, email) = (team_server.clone(), email.clone());
                async move { hub.deny(&slug, &email).await }
            })
            .await?;
            done(
                json,
                json!({ "ok": true, "teamServer": team_server, "email": email }),
                format_args!("Turned down {email}'s request to join {team_server}."),
            );
            return Ok(Exit::Ok);
        }
    };
    let list = call(session, &format!("list the members of {team_server:?}"), |hub| {
        let slug = team_server.clone();
        async move { hub.members(&slug).await }
    })
    .await?;
    if json {
        outln!("{}", json!(list));
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = list
        .members
        .iter()
        .map(|m| {
            vec![
                m.user.email.clone(),
                m.user.display_name.clone(),
                m.role.as_str().to_string(),
                table::date(m.joined_at),
            ]
        })
        .collect();
    table::print(&["EMAIL", "NAME", "ROLE", "JOINED (UTC)"], &rows);
    Ok(Exit::Ok)
}

/// `cowork routine runs --team-server <ts>`: what every runner reported to it (owners and admins).
pub async fn runs(team_server: String, args: RunsArgs) -> CommandResult {
    let session = session();
    let query = RunQuery {
        app: args.app.clone(),
        device: args.device.clone(),
        status: args.status.map(|s| match s {
            StatusFilter::Ok => RunStatus::Ok,
            StatusFilter::Error => RunStatus::Error,
            StatusFilter::Denied => RunStatus::Denied,
        }),
        limit: Some(args.limit),
        before: args.before.clone(),
    };
    let page = call(&session, &format!("read the runs reported to {team_server:?}"), |hub| {
        let (slug, query) = (team_server.clone(), query.clone());
        async move { hub.runs(&slug, &query).await }
    })
    .await?;
    if args.json {
        #[derive(Serialize)]
        struct Page<'a> {
            runs: &'a [cowork_wire::hub::ReportedRun],
            next: &'a Option<String>,
        }
        outln!("{}", json!(Page { runs: &page.runs, next: &page.next }));
        return Ok(Exit::Ok);
    }
    if page.runs.is_empty() {
        outln!(
            "No runs reported to {team_server}{}.",
            if query.before.is_some() { " before that cursor" } else { "" }
        );
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = page
        .runs
        .iter()
        .map(|r| {
            let report = &r.report;
            vec![
                report.run_id.chars().take(8).collect(),
                table::date(report.ts),
                report.app.clone(),
                report.routine.clone(),
                report.device.clone(),
                r.user.clone(),
                report.status.as_str().to_string(),
                format!("{} ms", report.duration_ms),
                report
                    .error
                    .as_ref()
                    .map(|e| format!("{}: {}", e.name, e.message))
                    .unwrap_or_default(),
            ]
        })
        .collect();
    table::print(
        &["RUN", "STARTED (UTC)", "APP", "ROUTINE", "DEVICE", "BY", "STATUS", "TOOK", "ERROR"],
        &rows,
    );
    if let Some(next) = &page.next {
        let mut command = format!(
            "cowork routine runs --team-server {} --before {}",
            shell::quote(&team_server),
            shell::quote(next)
        );
        for (flag, value) in [
            ("--app", query.app.as_deref()),
            ("--device", query.device.as_deref()),
            ("--status", query.status.map(RunStatus::as_str)),
        ] {
            if let Some(value) = value {
                command.push_str(&format!(" {flag} {}", shell::quote(value)));
            }
        }
        if args.limit != 50 {
            command.push_str(&format!(" --limit {}", args.limit));
        }
        outln!("next page: {command}");
    }
    Ok(Exit::Ok)
}
