//! Organizations and their groups. A group edit carries the `etag` it was read at (`If-Match`);
//! the update that checks it also takes the group's row, so of two concurrent saves one wins and
//! the other is `PreconditionFailed` — re-read and re-applied by the client, never lost. Deleting a
//! group closes the team servers opened to it for the members who came in through it.

use crate::accounts::{self, UserRow};
use crate::audit;
use crate::db::{new_id, next_rev, now_ms, Db};
use crate::error::{is_unique_violation, HubErr};
use crate::org_roles::{require_manager, require_member};
use crate::teams::slugify;
use cowork_wire::hub::{
    AuditAction, Group, GroupSet, HubErrorName, NewGroup, NewOrg, Org, OrgInfo, OrgMember,
    OrgMemberAdd, OrgRef, Role,
};
use sqlx::Row;

/// Create an organization; the caller owns it.
pub async fn create(db: &Db, user: &UserRow, new: &NewOrg) -> Result<Org, HubErr> {
    let name = new.name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(HubErr::bad_request(
            "failed to accept the organization's name: 1 to 100 characters",
        ));
    }
    let slug = match &new.slug {
        Some(slug) if slugify(slug) != *slug => {
            return Err(HubErr::bad_request(format!(
                "failed to accept the slug {slug:?}: lower case letters, digits and dashes"
            ))
            .hint(format!("try {:?}", slugify(slug))));
        }
        Some(slug) => slug.clone(),
        None => slugify(name),
    };
    let id = new_id();
    let now = now_ms();
    let mut tx = db.begin().await?;
    let inserted =
        sqlx::query("INSERT INTO orgs (id, slug, name, created_at) VALUES ($1, $2, $3, $4)")
            .bind(&id)
            .bind(&slug)
            .bind(name)
            .bind(now)
            .execute(&mut *tx)
            .await;
    match inserted {
        Err(error) if is_unique_violation(&error) => {
            return Err(HubErr::new(
                HubErrorName::AlreadyExists,
                format!("failed to create the organization {slug:?}: the slug is taken"),
            )
            .hint("choose another slug"));
        }
        other => {
            other?;
        }
    }
    sqlx::query(
        "INSERT INTO org_members (org_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', $3)",
    )
    .bind(&id)
    .bind(&user.id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Org { org: OrgRef { id, slug, name: name.to_string() }, role: Role::Owner })
}

/// The organization, its members, and the team servers of it the caller can see.
pub async fn info(db: &Db, user: &UserRow, slug: &str) -> Result<OrgInfo, HubErr> {
    let (org, role) = require_member(db, slug, user).await?;
    let rows = sqlx::query(
        "SELECT u.id, u.email, u.display_name, m.role FROM org_members m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 ORDER BY u.email",
    )
    .bind(&org.id)
    .fetch_all(db.pool())
    .await?;
    let members = rows
        .iter()
        .map(|row| {
            Ok(OrgMember {
                user: cowork_wire::hub::User {
                    uid: row.try_get("id")?,
                    email: row.try_get("email")?,
                    display_name: row.try_get("display_name")?,
                },
                role: Role::parse(&row.try_get::<String, _>("role")?).unwrap_or(Role::Member),
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let slugs = sqlx::query("SELECT slug FROM team_servers WHERE org_id = $1 ORDER BY slug")
        .bind(&org.id)
        .fetch_all(db.pool())
        .await?;
    let mut team_servers = Vec::new();
    for row in slugs {
        let slug: String = row.try_get(0)?;
        if let Ok(access) = crate::teams::access(db, &slug, user).await {
            team_servers.push(crate::teams::to_wire(db, &access).await?);
        }
    }
    Ok(OrgInfo { org: Org { org, role }, members, team_servers })
}

/// Add an account to the organization (its admins).
pub async fn add_member(
    db: &Db,
    user: &UserRow,
    slug: &str,
    add: &OrgMemberAdd,
) -> Result<OrgMember, HubErr> {
    let org = require_manager(db, slug, user).await?;
    let target = accounts::require_email(db, &add.email).await?;
    let done = sqlx::query("INSERT INTO org_members (org_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING")
        .bind(&org.id)
        .bind(&target.id)
        .bind(add.role.as_str())
        .bind(now_ms())
        .execute(db.pool())
        .await?;
    if done.rows_affected() == 0 {
        return Err(HubErr::new(
            HubErrorName::AlreadyExists,
            format!("failed to add {:?}: already in {slug:?}", target.email),
        ));
    }
    Ok(OrgMember { user: target.user(), role: add.role })
}

async fn group_of(db: &Db, org_id: &str, name: &str) -> Result<Option<Group>, HubErr> {
    let row =
        sqlx::query("SELECT etag, updated_at FROM org_groups WHERE org_id = $1 AND name = $2")
            .bind(org_id)
            .bind(name)
            .fetch_optional(db.pool())
            .await?;
    let Some(row) = row else { return Ok(None) };
    let members = sqlx::query(
        "SELECT u.email FROM group_members g JOIN users u ON u.id = g.user_id WHERE g.org_id = $1 AND g.group_name = $2 ORDER BY u.email",
    )
    .bind(org_id)
    .bind(name)
    .fetch_all(db.pool())
    .await?
    .iter()
    .map(|r| r.try_get::<String, _>(0))
    .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(Group {
        name: name.to_string(),
        members,
        etag: row.try_get("etag")?,
        updated_at: row.try_get("updated_at")?,
    }))
}

/// The org's groups (its admins).
pub async fn groups(db: &Db, user: &UserRow, slug: &str) -> Result<Vec<Group>, HubErr> {
    let org = require_manager(db, slug, user).await?;
    let names = sqlx::query("SELECT name FROM org_groups WHERE org_id = $1 ORDER BY name")
        .bind(&org.id)
        .fetch_all(db.pool())
        .await?;
    let mut list = Vec::new();
    for row in names {
        let name: String = row.try_get(0)?;
        if let Some(group) = group_of(db, &org.id, &name).await? {
            list.push(group);
        }
    }
    Ok(list)
}

/// One group (its admins).
pub async fn group(db: &Db, user: &UserRow, slug: &str, name: &str) -> Result<Group, HubErr> {
    let org = require_manager(db, slug, user).await?;
    group_of(db, &org.id, name).await?.ok_or_else(|| no_group(slug, name))
}

fn no_group(slug: &str, name: &str) -> HubErr {
    HubErr::not_found(format!("failed to find the group {name:?} in {slug:?}"))
        .hint(format!("list them with: cowork org groups --org {slug}"))
}

/// The uids of `emails`, each of whom must be in the org.
async fn org_members_by_email(
    db: &Db,
    org_id: &str,
    emails: &[String],
) -> Result<Vec<String>, HubErr> {
    let mut ids = Vec::new();
    let mut outside = Vec::new();
    for email in emails {
        let email = accounts::normalize_email(email);
        let row = sqlx::query("SELECT u.id FROM users u JOIN org_members m ON m.user_id = u.id WHERE m.org_id = $1 AND u.email = $2")
            .bind(org_id)
            .bind(&email)
            .fetch_optional(db.pool())
            .await?;
        match row {
            Some(row) => {
                let id: String = row.try_get(0)?;
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            None => outside.push(email),
        }
    }
    if !outside.is_empty() {
        return Err(HubErr::not_found(format!(
            "failed to find {} among the organization's members",
            outside.join(", ")
        ))
        .hint("a group's members are people already in its organization: check the emails"));
    }
    Ok(ids)
}

fn check_group_name(name: &str) -> Result<(), HubErr> {
    if name.trim().is_empty()
        || name.chars().count() > 64
        || name.contains('/')
        || name.chars().any(char::is_control)
    {
        return Err(HubErr::bad_request(format!(
            "failed to accept the group name {name:?}: 1 to 64 characters, no '/'"
        )));
    }
    Ok(())
}

/// Create a group (its admins).
pub async fn create_group(
    db: &Db,
    user: &UserRow,
    slug: &str,
    new: &NewGroup,
) -> Result<Group, HubErr> {
    let org = require_manager(db, slug, user).await?;
    check_group_name(&new.name)?;
    let ids = org_members_by_email(db, &org.id, &new.members).await?;
    let mut tx = db.begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO org_groups (org_id, name, etag, updated_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(&org.id)
    .bind(&new.name)
    .bind(new_id())
    .bind(now_ms())
    .execute(&mut *tx)
    .await;
    match inserted {
        Err(error) if is_unique_violation(&error) => {
            return Err(HubErr::new(
                HubErrorName::AlreadyExists,
                format!("failed to create the group {:?}: it exists", new.name),
            )
            .hint("change it with: cowork org group set"));
        }
        other => {
            other?;
        }
    }
    for id in &ids {
        sqlx::query("INSERT INTO group_members (org_id, group_name, user_id) VALUES ($1, $2, $3)")
            .bind(&org.id)
            .bind(&new.name)
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    group_of(db, &org.id, &new.name)
        .await?
        .ok_or_else(|| HubErr::internal("failed to read the group back", &new.name))
}

/// Replace a group's members, if it is still in the state `if_match` names.
pub async fn set_group(
    db: &Db,
    user: &UserRow,
    slug: &str,
    name: &str,
    set: &GroupSet,
    if_match: Option<&str>,
) -> Result<Group, HubErr> {
    let org = require_manager(db, slug, user).await?;
    let Some(if_match) = if_match else {
        return Err(HubErr::new(
            HubErrorName::PreconditionRequired,
            "failed to change the group: If-Match is missing",
        )
        .hint("read the group first and send its ETag as If-Match"));
    };
    let if_match = if_match.trim().trim_start_matches("W/").trim_matches('"');
    let ids = org_members_by_email(db, &org.id, &set.members).await?;
    let mut tx = db.begin().await?;
    let done = sqlx::query("UPDATE org_groups SET etag = $1, updated_at = $2 WHERE org_id = $3 AND name = $4 AND etag = $5")
        .bind(new_id())
        .bind(now_ms())
        .bind(&org.id)
        .bind(name)
        .bind(if_match)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() != 1 {
        tx.rollback().await?;
        return Err(match group_of(db, &org.id, name).await? {
            Some(_) => HubErr::new(
                HubErrorName::PreconditionFailed,
                format!("failed to change the group {name:?}: someone saved it since you read it"),
            )
            .hint("read it again and re-apply your change"),
            None => no_group(slug, name),
        });
    }
    sqlx::query("DELETE FROM group_members WHERE org_id = $1 AND group_name = $2")
        .bind(&org.id)
        .bind(name)
        .execute(&mut *tx)
        .await?;
    for id in &ids {
        sqlx::query("INSERT INTO group_members (org_id, group_name, user_id) VALUES ($1, $2, $3)")
            .bind(&org.id)
            .bind(name)
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    group_of(db, &org.id, name)
        .await?
        .ok_or_else(|| HubErr::internal("failed to read the group back", &name))
}

/// Delete a group: the team servers opened to it close to the members who joined through it.
pub async fn delete_group(db: &Db, user: &UserRow, slug: &str, name: &str) -> Result<(), HubErr> {
    let org = require_manager(db, slug, user).await?;
    let mut tx = db.begin().await?;
    let gone = sqlx::query("DELETE FROM org_groups WHERE org_id = $1 AND name = $2")
        .bind(&org.id)
        .bind(name)
        .execute(&mut *tx)
        .await?;
    if gone.rows_affected() != 1 {
        return Err(no_group(slug, name));
    }
    let servers =
        sqlx::query("SELECT team_server_id FROM ts_groups WHERE org_id = $1 AND group_name = $2")
            .bind(&org.id)
            .bind(name)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<Vec<_>, _>>()?;
    let rev = next_rev(&mut tx).await?;
    for ts in servers {
        let closed = sqlx::query("SELECT m.user_id, u.email FROM members m JOIN users u ON u.id = m.user_id WHERE m.team_server_id = $1 AND m.via_group = $2 AND m.role = 'member'")
            .bind(&ts)
            .bind(name)
            .fetch_all(&mut *tx)
            .await?;
        for row in closed {
            let (uid, email): (String, String) = (row.try_get(0)?, row.try_get(1)?);
            sqlx::query("DELETE FROM members WHERE team_server_id = $1 AND user_id = $2")
                .bind(&ts)
                .bind(&uid)
                .execute(&mut *tx)
                .await?;
            sqlx::query("UPDATE users SET rev = $1 WHERE id = $2")
                .bind(rev)
                .bind(&uid)
                .execute(&mut *tx)
                .await?;
            audit::record(
                &mut tx,
                &ts,
                Some(user),
                AuditAction::MemberGroupClosed,
                Some(&email),
                Some(name),
            )
            .await?;
        }
        sqlx::query(
            "DELETE FROM ts_groups WHERE team_server_id = $1 AND org_id = $2 AND group_name = $3",
        )
        .bind(&ts)
        .bind(&org.id)
        .bind(name)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE team_servers SET rev = $1 WHERE id = $2")
            .bind(rev)
            .bind(&ts)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}
