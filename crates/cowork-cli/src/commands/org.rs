//! `cowork org [me]`, `org groups`, `org group create|set|delete`: the signed-in account's
//! organization on its hub, and the groups of the organizations it manages.

use super::account::{failure, session};
use crate::cli::{GroupCommand, OrgArgs, OrgCommand};
use crate::exit::{CommandResult, Exit, Failure};
use crate::table;
use cowork_account::{AccountError, Session};
use cowork_wire::hub::{Group, GroupSet, HubErrorName, NewGroup, OrgRef};
use serde_json::json;

pub async fn run(args: OrgArgs) -> CommandResult {
    let session = session();
    match args.command {
        None => me(&session, args.json).await,
        Some(OrgCommand::Me { json }) => me(&session, json || args.json).await,
        Some(OrgCommand::Groups { org, json }) => groups(&session, org.as_deref(), json).await,
        Some(OrgCommand::Group(GroupCommand::Create { name, members, org, json })) => {
            let org = managed(&session, org.as_deref(), "create a group").await?;
            let new = NewGroup { name: name.clone(), members: clean(members) };
            let group = session
                .call(|hub| {
                    let (org, new) = (org.slug.clone(), new.clone());
                    async move { hub.create_group(&org, &new).await }
                })
                .await
                .map_err(|e| failure(&format!("create the group {name:?} in {}", org.slug), e))?;
            if json {
                outln!("{}", json!(group));
            } else {
                outln!(
                    "Created the group {} in {} ({}).",
                    group.name,
                    org.slug,
                    count(group.members.len())
                );
            }
            Ok(Exit::Ok)
        }
        Some(OrgCommand::Group(GroupCommand::Set {
            name,
            add_members,
            remove_members,
            org,
            json,
        })) => {
            let org = managed(&session, org.as_deref(), "change a group").await?;
            let change = (clean(add_members), clean(remove_members));
            let group = set(&session, &org, &name, &change.0, &change.1).await?;
            if json {
                outln!("{}", json!(group));
            } else {
                outln!(
                    "{} of {} now has {}: {}",
                    group.name,
                    org.slug,
                    count(group.members.len()),
                    group.members.join(", ")
                );
            }
            Ok(Exit::Ok)
        }
        Some(OrgCommand::Group(GroupCommand::Delete { name, yes, org, json })) => {
            if !yes {
                return Err(Failure::new(Exit::Usage, format!("failed to delete the group {name:?}: it needs --yes"))
                    .hint(format!("the team servers opened to it close to its members: `cowork org group delete {name} --yes`")));
            }
            let org = managed(&session, org.as_deref(), "delete a group").await?;
            session
                .call(|hub| {
                    let (org, name) = (org.slug.clone(), name.clone());
                    async move { hub.delete_group(&org, &name).await }
                })
                .await
                .map_err(|e| failure(&format!("delete the group {name:?} of {}", org.slug), e))?;
            if json {
                outln!("{}", json!({ "ok": true, "org": org.slug, "group": name }));
            } else {
                outln!("Deleted the group {name} of {}: the team servers opened to it are closed to its members.", org.slug);
            }
            Ok(Exit::Ok)
        }
    }
}

/// Emails as given, trimmed, without empties or repeats.
fn clean(emails: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for email in emails.into_iter().map(|e| e.trim().to_string()).filter(|e| !e.is_empty()) {
        if !out.contains(&email) {
            out.push(email);
        }
    }
    out
}

fn count(members: usize) -> String {
    match members {
        1 => "1 member".into(),
        n => format!("{n} members"),
    }
}

/// `cowork org [me]`: the account, its organization and what it lets you install from, the
/// organizations you manage.
async fn me(session: &Session, as_json: bool) -> CommandResult {
    let me = session
        .call(|hub| async move { hub.me().await })
        .await
        .map_err(|e| failure("read your organization", e))?;
    let info = match &me.organization {
        Some(org) => Some(
            session
                .call(|hub| {
                    let slug = org.slug.clone();
                    async move { hub.org(&slug).await }
                })
                .await
                .map_err(|e| failure(&format!("read the organization {}", org.slug), e))?,
        ),
        None => None,
    };
    let team_servers = info.as_ref().map(|i| i.team_servers.clone()).unwrap_or_default();
    if as_json {
        outln!(
            "{}",
            json!({ "user": me.user, "organization": me.organization, "teamServers": team_servers, "manages": me.manages })
        );
        return Ok(Exit::Ok);
    }
    outln!("account:      {} ({})", me.user.email, me.user.display_name);
    match &me.organization {
        Some(org) => outln!("organization: {} ({})", org.name, org.slug),
        None => outln!("organization: none (a hub admin adds you to one)"),
    }
    if me.organization.is_some() {
        if team_servers.is_empty() {
            outln!("team servers it lets you install from: none yet");
        } else {
            outln!("team servers it lets you install from:");
            let rows: Vec<Vec<String>> = team_servers
                .iter()
                .map(|t| {
                    vec![
                        format!("  {}", t.slug),
                        t.name.clone(),
                        t.role.map(|r| r.as_str()).unwrap_or("-").to_string(),
                    ]
                })
                .collect();
            table::print(&["  SLUG", "NAME", "YOUR ROLE"], &rows);
        }
    }
    let manages: Vec<String> = me.manages.iter().map(|o| o.slug.clone()).collect();
    outln!(
        "you manage:   {}",
        if manages.is_empty() { "no organization".to_string() } else { manages.join(", ") }
    );
    Ok(Exit::Ok)
}

/// The organization `--org` names among those the account manages, or the one it manages.
async fn managed(session: &Session, named: Option<&str>, doing: &str) -> Result<OrgRef, Failure> {
    let me =
        session.call(|hub| async move { hub.me().await }).await.map_err(|e| failure(doing, e))?;
    let slugs = || me.manages.iter().map(|o| o.slug.as_str()).collect::<Vec<_>>().join(", ");
    match named {
        Some(slug) => me.manages.iter().find(|o| o.slug == slug).cloned().ok_or_else(|| {
            Failure::new(
                Exit::Failed,
                format!("failed to {doing}: you do not manage the organization {slug:?}"),
            )
            .named(cowork_account::hub_error_name(HubErrorName::NotAdmin))
            .hint(if me.manages.is_empty() {
                "an organization's admins manage its groups".to_string()
            } else {
                format!("you manage: {}", slugs())
            })
        }),
        None => match me.manages.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(Failure::new(
                Exit::Failed,
                format!("failed to {doing}: you manage no organization"),
            )
            .named(cowork_account::hub_error_name(HubErrorName::NotAdmin))
            .hint("an organization's admins manage its groups; `cowork org` shows yours")),
            _ => Err(Failure::new(
                Exit::Usage,
                format!("failed to {doing}: you manage several organizations"),
            )
            .hint(format!("name one with --org <slug> ({})", slugs()))),
        },
    }
}

/// `cowork org groups`.
async fn groups(session: &Session, named: Option<&str>, as_json: bool) -> CommandResult {
    let org = managed(session, named, "list the groups").await?;
    let list = session
        .call(|hub| {
            let slug = org.slug.clone();
            async move { hub.groups(&slug).await }
        })
        .await
        .map_err(|e| failure(&format!("list the groups of {}", org.slug), e))?;
    if as_json {
        outln!("{}", json!({ "org": org, "groups": list.groups }));
        return Ok(Exit::Ok);
    }
    if list.groups.is_empty() {
        outln!(
            "{} has no groups yet (`cowork org group create <name> --members e1,e2`).",
            org.slug
        );
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> =
        list.groups.iter().map(|g| vec![g.name.clone(), g.members.join(", ")]).collect();
    table::print(&["GROUP", "MEMBERS"], &rows);
    Ok(Exit::Ok)
}

/// `cowork org group set`: the change applied to the group as last saved; when another save came
/// between the read and the write (412), read again and apply the change once more.
async fn set(
    session: &Session,
    org: &OrgRef,
    name: &str,
    add: &[String],
    remove: &[String],
) -> Result<Group, Failure> {
    if add.is_empty() && remove.is_empty() {
        return Err(Failure::new(
            Exit::Usage,
            format!("failed to change the group {name:?}: nothing to change"),
        )
        .hint("name members with --add-members e1,e2 and/or --remove-members e3"));
    }
    let doing = format!("change the group {name:?} of {}", org.slug);
    let mut attempt = 0;
    let group = loop {
        attempt += 1;
        let group = session
            .call(|hub| {
                let (slug, name) = (org.slug.clone(), name.to_string());
                async move { hub.group(&slug, &name).await }
            })
            .await
            .map_err(|e| failure(&doing, e))?;
        let mut members: Vec<String> =
            group.members.iter().filter(|m| !remove.contains(m)).cloned().collect();
        for email in add {
            if !members.contains(email) {
                members.push(email.clone());
            }
        }
        let written = session
            .call(|hub| {
                let (slug, name, etag) = (org.slug.clone(), name.to_string(), group.etag.clone());
                let set = GroupSet { members: members.clone() };
                async move { hub.set_group(&slug, &name, &set, &etag).await }
            })
            .await;
        match written {
            Ok(group) => break group,
            Err(error @ AccountError::Hub(_))
                if error.hub_name() == Some(HubErrorName::PreconditionFailed) && attempt == 1 =>
            {
                tracing::debug!("the group changed since it was read: reading it again");
            }
            Err(error) => {
                let mut failure = failure(&doing, error);
                if attempt > 1 {
                    failure = failure.hint(
                        "it changed again while this change was re-applied: run the command again",
                    );
                }
                return Err(failure);
            }
        }
    };
    Ok(group)
}
