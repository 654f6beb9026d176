//! Who may do what in an organization: a member's role, the org by id or slug as its members see
//! it, and the checks the org's own routes and the team servers opened to its groups both make.
//! A leaf below `orgs` and `teams`, so neither has to ask the other.

use crate::accounts::UserRow;
use crate::db::Db;
use crate::error::HubErr;
use cowork_wire::hub::{HubErrorName, OrgRef, Role};
use sqlx::Row;

/// The role `user_id` has in the org `org_id`.
pub async fn role_in(db: &Db, org_id: &str, user_id: &str) -> Result<Option<Role>, HubErr> {
    Ok(sqlx::query("SELECT role FROM org_members WHERE org_id = $1 AND user_id = $2")
        .bind(org_id)
        .bind(user_id)
        .fetch_optional(db.pool())
        .await?
        .map(|r| r.try_get::<String, _>(0))
        .transpose()?
        .and_then(|r| Role::parse(&r)))
}

/// An org by id.
pub async fn org_ref(db: &Db, id: &str) -> Result<Option<OrgRef>, HubErr> {
    let row = sqlx::query("SELECT id, slug, name FROM orgs WHERE id = $1")
        .bind(id)
        .fetch_optional(db.pool())
        .await?;
    Ok(match row {
        Some(row) => Some(OrgRef {
            id: row.try_get("id")?,
            slug: row.try_get("slug")?,
            name: row.try_get("name")?,
        }),
        None => None,
    })
}

fn invisible(slug: &str) -> HubErr {
    HubErr::not_found(format!("failed to find the organization {slug:?}"))
        .hint("check the slug with `cowork org`; an organization is visible to its members only")
}

/// The org `slug` and the caller's role, when they belong to it.
pub async fn require_member(db: &Db, slug: &str, user: &UserRow) -> Result<(OrgRef, Role), HubErr> {
    let row = sqlx::query("SELECT id, slug, name FROM orgs WHERE slug = $1")
        .bind(slug)
        .fetch_optional(db.pool())
        .await?;
    let Some(row) = row else { return Err(invisible(slug)) };
    let org =
        OrgRef { id: row.try_get("id")?, slug: row.try_get("slug")?, name: row.try_get("name")? };
    let role = role_in(db, &org.id, &user.id).await?.ok_or_else(|| invisible(slug))?;
    Ok((org, role))
}

/// The org `slug` when the caller manages it (owner or admin).
pub async fn require_manager(db: &Db, slug: &str, user: &UserRow) -> Result<OrgRef, HubErr> {
    let (org, role) = require_member(db, slug, user).await?;
    if role.manages() {
        Ok(org)
    } else {
        Err(HubErr::new(
            HubErrorName::NotAdmin,
            format!("failed to manage the organization {slug:?}: only its admins may"),
        )
        .hint("ask one of its admins"))
    }
}

/// That the group exists in the org.
pub async fn require_group(db: &Db, org_id: &str, name: &str) -> Result<(), HubErr> {
    let found = sqlx::query("SELECT 1 FROM org_groups WHERE org_id = $1 AND name = $2")
        .bind(org_id)
        .bind(name)
        .fetch_optional(db.pool())
        .await?;
    found.map(|_| ()).ok_or_else(|| {
        HubErr::not_found(format!("failed to find the group {name:?}"))
            .hint("list them with: cowork org groups")
    })
}
