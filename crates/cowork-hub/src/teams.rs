//! Team servers: who may see one, its members and roles, join requests, and the revision stamps
//! the updates poll reads. Every route's role is decided here, by [`access`] and the `require_*`
//! methods of [`Access`] — never by a handler:
//!
//! - a server is visible to its members, to whoever asked to join it, to everyone when public, and
//!   when private to the members of the groups it is opened to (and its organization's admins);
//!   to anyone else it does not exist (`NotFound`, the same answer as a wrong slug);
//! - members read (members, store); admins manage members and requests and read run reports;
//!   the owner alone deletes it and reads its audit log.
//!
//! Each change runs in one transaction that also writes its audit line and stamps the server (and
//! each account whose membership changed) with the next revision (`db::next_rev`).

use crate::accounts::{self, UserRow};
use crate::audit;
use crate::db::{flag, new_id, next_rev, now_ms, Backend, Db, Tx};
use crate::error::{is_unique_violation, HubErr};
use cowork_wire::hub::{
    AuditAction, HubErrorName, Join, JoinAnswer, JoinRequest, JoinStatus, LeaveAnswer, LeaveStatus,
    Member, MemberAdd, MemberList, NewTeamServer, OrgRef, Role, TeamServer, User, Visibility,
};
use sqlx::any::AnyRow;
use sqlx::Row;

/// A team server's row.
#[derive(Clone, Debug)]
pub struct Ts {
    /// The team server's id.
    pub id: String,
    /// Its short name in addresses, unique on the hub.
    pub slug: String,
    /// Its name as people read it.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Who may see it: `public` (anyone with an account) or `private` (its members, and the groups it is opened to).
    pub visibility: Visibility,
    /// Joining needs an admin's approval.
    pub requires_approval: bool,
    /// The organization it belongs to, when it belongs to one.
    pub org_id: Option<String>,
    /// When it was made (ms since the epoch).
    pub created_at: i64,
}

const TS_COLUMNS: &str =
    "id, slug, name, description, visibility, requires_approval, org_id, created_at";

fn ts_from(row: &AnyRow) -> Result<Ts, sqlx::Error> {
    Ok(Ts {
        id: row.try_get("id")?,
        slug: row.try_get("slug")?,
        name: row.try_get("name")?,
        description: row.try_get("description")?,
        visibility: Visibility::parse(&row.try_get::<String, _>("visibility")?).unwrap_or_default(),
        requires_approval: flag(row, "requires_approval")?,
        org_id: row.try_get("org_id")?,
        created_at: row.try_get("created_at")?,
    })
}

/// What the caller may do with one team server.
#[derive(Clone, Debug)]
pub struct Access {
    /// The team server.
    pub ts: Ts,
    /// The caller's role in it; `None` when not a member.
    pub role: Option<Role>,
    /// The caller, not a member, has asked to join.
    pub requested: bool,
    /// The group through which a private server is open to the caller.
    pub group: Option<String>,
}

fn invisible(slug: &str) -> HubErr {
    HubErr::not_found(format!("failed to find the team server {slug:?}"))
        .hint("check the slug with `cowork team-server list`; a private team server is visible to its members only")
}

impl Access {
    /// A member (any role).
    pub fn require_member(&self) -> Result<Role, HubErr> {
        self.role.ok_or_else(|| {
            HubErr::new(
                HubErrorName::NotMember,
                format!("failed to read the team server {:?}: you are not a member", self.ts.slug),
            )
            .hint(format!("join it first: cowork team-server join {}", self.ts.slug))
        })
    }

    /// An admin or the owner.
    pub fn require_admin(&self) -> Result<Role, HubErr> {
        let role = self.require_member()?;
        if role.manages() {
            Ok(role)
        } else {
            Err(HubErr::new(
                HubErrorName::NotAdmin,
                // Reads too (join requests, run reports): not "change".
                format!(
                    "failed to do that on the team server {:?}: only its admins may",
                    self.ts.slug
                ),
            )
            .hint("ask one of its admins (cowork team-server members list)"))
        }
    }

    /// The owner.
    pub fn require_owner(&self) -> Result<(), HubErr> {
        if self.require_member()? == Role::Owner {
            Ok(())
        } else {
            Err(HubErr::new(
                HubErrorName::NotOwner,
                format!(
                    "failed to do that on the team server {:?}: only its owner may",
                    self.ts.slug
                ),
            )
            .hint("ask its owner"))
        }
    }
}

/// A page of the team server's audit log: its owner only.
pub async fn audit(
    db: &Db,
    user: &UserRow,
    slug: &str,
    before: Option<&str>,
    limit: Option<u32>,
) -> Result<cowork_wire::hub::AuditPage, HubErr> {
    let access = access(db, slug, user).await?;
    access.require_owner()?;
    audit::page(db, &access.ts.id, before, limit).await
}

/// The team server `slug` as `user` may see it, or `NotFound` when they may not see it at all.
pub async fn access(db: &Db, slug: &str, user: &UserRow) -> Result<Access, HubErr> {
    let sql = format!("SELECT {TS_COLUMNS} FROM team_servers WHERE slug = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(slug).fetch_optional(db.pool()).await?;
    let ts = match row {
        Some(row) => ts_from(&row)?,
        None => return Err(invisible(slug)),
    };
    let role = sqlx::query("SELECT role FROM members WHERE team_server_id = $1 AND user_id = $2")
        .bind(&ts.id)
        .bind(&user.id)
        .fetch_optional(db.pool())
        .await?
        .map(|r| r.try_get::<String, _>(0))
        .transpose()?
        .and_then(|r| Role::parse(&r));
    let requested = role.is_none()
        && sqlx::query("SELECT 1 FROM join_requests WHERE team_server_id = $1 AND user_id = $2")
            .bind(&ts.id)
            .bind(&user.id)
            .fetch_optional(db.pool())
            .await?
            .is_some();
    let group = sqlx::query(
        "SELECT g.group_name FROM ts_groups g JOIN group_members gm ON gm.org_id = g.org_id AND gm.group_name = g.group_name \
         WHERE g.team_server_id = $1 AND gm.user_id = $2 ORDER BY g.group_name LIMIT 1",
    )
    .bind(&ts.id)
    .bind(&user.id)
    .fetch_optional(db.pool())
    .await?
    .map(|r| r.try_get::<String, _>(0))
    .transpose()?;
    let org_admin = match &ts.org_id {
        Some(org) => crate::org_roles::role_in(db, org, &user.id).await?.is_some_and(Role::manages),
        None => false,
    };
    let visible = role.is_some()
        || requested
        || ts.visibility == Visibility::Public
        || group.is_some()
        || org_admin;
    if !visible {
        return Err(invisible(slug));
    }
    Ok(Access { ts, role, requested, group })
}

/// Stamp the server and the accounts whose membership changed with the next revision.
pub async fn bump(tx: &mut Tx, ts_id: &str, users: &[&str]) -> Result<i64, HubErr> {
    let rev = next_rev(tx).await?;
    sqlx::query("UPDATE team_servers SET rev = $1 WHERE id = $2")
        .bind(rev)
        .bind(ts_id)
        .execute(&mut **tx)
        .await?;
    for user in users {
        sqlx::query("UPDATE users SET rev = $1 WHERE id = $2")
            .bind(rev)
            .bind(*user)
            .execute(&mut **tx)
            .await?;
    }
    Ok(rev)
}

/// A slug from a display name: lower case letters, digits and dashes, at most 40.
pub fn slugify(name: &str) -> String {
    let mut slug = String::new();
    for c in name.trim().chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() >= 40 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-').to_string();
    if slug.len() < 2 {
        "team".into()
    } else {
        slug
    }
}

fn suffix() -> String {
    const LETTERS: &[u8] = b"abcdefghjkmnpqrstvwxyz23456789";
    rand::random::<[u8; 4]>()
        .iter()
        .map(|b| LETTERS[usize::from(*b) % LETTERS.len()] as char)
        .collect()
}

fn check_text(what: &str, value: &str, max: usize) -> Result<(), HubErr> {
    if value.trim().is_empty() || value.chars().count() > max || value.chars().any(char::is_control)
    {
        return Err(HubErr::bad_request(format!(
            "failed to accept the {what} {value:?}: it needs 1 to {max} characters, one line"
        )));
    }
    Ok(())
}

/// Create a team server; the caller is its owner. The slug is minted from the name.
pub async fn create(db: &Db, user: &UserRow, new: &NewTeamServer) -> Result<TeamServer, HubErr> {
    check_text("name", &new.name, 100)?;
    if let Some(description) = &new.description {
        if description.chars().count() > 500 {
            return Err(HubErr::bad_request(
                "failed to accept the description: at most 500 characters",
            ));
        }
    }
    let org = match &new.org {
        Some(slug) => {
            let org = crate::org_roles::require_manager(db, slug, user).await?;
            for group in &new.open_to_groups {
                crate::org_roles::require_group(db, &org.id, group).await?;
            }
            Some(org)
        }
        None if !new.open_to_groups.is_empty() => {
            return Err(HubErr::bad_request("failed to open the team server to groups: name the organization they belong to (org)"));
        }
        None => None,
    };
    let base = slugify(&new.name);
    let now = now_ms();
    for attempt in 0..8 {
        let slug = if attempt == 0 { base.clone() } else { format!("{base}-{}", suffix()) };
        let id = new_id();
        let mut tx = db.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO team_servers (id, slug, name, description, visibility, requires_approval, org_id, owner_id, created_at, rev, store_rev) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, 0)",
        )
        .bind(&id)
        .bind(&slug)
        .bind(new.name.trim())
        .bind(new.description.clone())
        .bind(new.visibility.as_str())
        .bind(i64::from(new.requires_approval))
        .bind(org.as_ref().map(|o| o.id.clone()))
        .bind(&user.id)
        .bind(now)
        .execute(&mut *tx)
        .await;
        match inserted {
            Err(error) if is_unique_violation(&error) => {
                tx.rollback().await?;
                continue;
            }
            other => {
                other?;
            }
        }
        sqlx::query("INSERT INTO members (team_server_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', $3)")
            .bind(&id)
            .bind(&user.id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        if let Some(org) = &org {
            for group in &new.open_to_groups {
                sqlx::query("INSERT INTO ts_groups (team_server_id, org_id, group_name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
                    .bind(&id)
                    .bind(&org.id)
                    .bind(group)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        bump(&mut tx, &id, &[&user.id]).await?;
        audit::record(&mut tx, &id, Some(user), AuditAction::TeamServerCreate, Some(&slug), None)
            .await?;
        tx.commit().await?;
        let access = Access {
            ts: Ts {
                id,
                slug,
                name: new.name.trim().to_string(),
                description: new.description.clone(),
                visibility: new.visibility,
                requires_approval: new.requires_approval,
                org_id: org.map(|o| o.id),
                created_at: now,
            },
            role: Some(Role::Owner),
            requested: false,
            group: None,
        };
        return to_wire(db, &access).await;
    }
    Err(HubErr::internal("failed to mint a free slug", &base))
}

/// The wire form of a team server as `access` sees it.
pub async fn to_wire(db: &Db, access: &Access) -> Result<TeamServer, HubErr> {
    let ts = &access.ts;
    let count = |sql: &'static str| async move {
        Ok::<u64, HubErr>(
            u64::try_from(
                sqlx::query(sql).bind(&ts.id).fetch_one(db.pool()).await?.try_get::<i64, _>(0)?,
            )
            .unwrap_or(0),
        )
    };
    let members = count("SELECT COUNT(*) FROM members WHERE team_server_id = $1").await?;
    let items = count(
        "SELECT COUNT(*) FROM store_items WHERE team_server_id = $1 AND unpublished_at IS NULL",
    )
    .await?;
    let pending_requests = if access.role.is_some_and(Role::manages) {
        count("SELECT COUNT(*) FROM join_requests WHERE team_server_id = $1").await?
    } else {
        0
    };
    let open_to_groups = sqlx::query(
        "SELECT group_name FROM ts_groups WHERE team_server_id = $1 ORDER BY group_name",
    )
    .bind(&ts.id)
    .fetch_all(db.pool())
    .await?
    .iter()
    .map(|r| r.try_get::<String, _>(0))
    .collect::<Result<Vec<_>, _>>()?;
    let org = match &ts.org_id {
        Some(id) => crate::org_roles::org_ref(db, id).await?,
        None => None::<OrgRef>,
    };
    Ok(TeamServer {
        slug: ts.slug.clone(),
        name: ts.name.clone(),
        description: ts.description.clone(),
        visibility: ts.visibility,
        requires_approval: ts.requires_approval,
        org,
        role: access.role,
        requested: access.requested,
        members,
        pending_requests,
        items,
        open_to_groups,
        created_at: ts.created_at,
    })
}

/// The caller's team servers: those they belong to or asked to join.
pub async fn list_mine(db: &Db, user: &UserRow) -> Result<Vec<TeamServer>, HubErr> {
    let rows = sqlx::query(
        "SELECT t.slug FROM team_servers t WHERE t.id IN (SELECT team_server_id FROM members WHERE user_id = $1) \
         OR t.id IN (SELECT team_server_id FROM join_requests WHERE user_id = $1) ORDER BY t.slug",
    )
    .bind(&user.id)
    .fetch_all(db.pool())
    .await?;
    let mut list = Vec::with_capacity(rows.len());
    for row in rows {
        let slug: String = row.try_get(0)?;
        list.push(to_wire(db, &access(db, &slug, user).await?).await?);
    }
    Ok(list)
}

/// Delete a team server for everyone (the owner). Its members' next poll drops it.
pub async fn delete(db: &Db, user: &UserRow, slug: &str) -> Result<(), HubErr> {
    let access = access(db, slug, user).await?;
    access.require_owner()?;
    let mut tx = db.begin().await?;
    let rev = next_rev(&mut tx).await?;
    sqlx::query("UPDATE users SET rev = $1 WHERE id IN (SELECT user_id FROM members WHERE team_server_id = $2)")
        .bind(rev)
        .bind(&access.ts.id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM team_servers WHERE id = $1")
        .bind(&access.ts.id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Join (or ask to join) a team server the caller can see.
pub async fn join(db: &Db, user: &UserRow, slug: &str, join: &Join) -> Result<JoinAnswer, HubErr> {
    let mut access = access(db, slug, user).await?;
    if access.role.is_some() {
        return Ok(JoinAnswer {
            status: JoinStatus::Joined,
            team_server: to_wire(db, &access).await?,
        });
    }
    if access.requested {
        return Ok(JoinAnswer {
            status: JoinStatus::Requested,
            team_server: to_wire(db, &access).await?,
        });
    }
    if access.ts.visibility == Visibility::Private && access.group.is_none() {
        // An org admin sees it but was not invited: a private server is joined by invitation.
        return Err(HubErr::new(
            HubErrorName::NotMember,
            format!("failed to join the team server {slug:?}: it is private"),
        )
        .hint("ask one of its admins to add you (cowork team-server members add)"));
    }
    let note = join.note.as_deref().map(str::trim).filter(|n| !n.is_empty());
    if note.is_some_and(|n| n.chars().count() > 500) {
        return Err(HubErr::bad_request("failed to accept the note: at most 500 characters"));
    }
    let now = now_ms();
    let mut tx = db.begin().await?;
    let status = if access.ts.requires_approval {
        let done = sqlx::query(
            "INSERT INTO join_requests (team_server_id, user_id, note, requested_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(&access.ts.id)
        .bind(&user.id)
        .bind(note.map(str::to_owned))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            bump(&mut tx, &access.ts.id, &[]).await?;
            audit::record(
                &mut tx,
                &access.ts.id,
                Some(user),
                AuditAction::MemberRequest,
                Some(&user.email),
                note,
            )
            .await?;
        }
        access.requested = true;
        JoinStatus::Requested
    } else {
        let via =
            if access.ts.visibility == Visibility::Public { None } else { access.group.clone() };
        let done = sqlx::query(
            "INSERT INTO members (team_server_id, user_id, role, joined_at, via_group) VALUES ($1, $2, 'member', $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(&access.ts.id)
        .bind(&user.id)
        .bind(now)
        .bind(via)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            bump(&mut tx, &access.ts.id, &[&user.id]).await?;
            audit::record(
                &mut tx,
                &access.ts.id,
                Some(user),
                AuditAction::MemberJoin,
                Some(&user.email),
                None,
            )
            .await?;
        }
        access.role = Some(Role::Member);
        JoinStatus::Joined
    };
    tx.commit().await?;
    Ok(JoinAnswer { status, team_server: to_wire(db, &access).await? })
}

/// Leave a team server (or withdraw a join request). The owner cannot leave.
pub async fn leave(db: &Db, user: &UserRow, slug: &str) -> Result<LeaveAnswer, HubErr> {
    let access = access(db, slug, user).await?;
    let mut tx = db.begin().await?;
    if access.requested {
        sqlx::query("DELETE FROM join_requests WHERE team_server_id = $1 AND user_id = $2")
            .bind(&access.ts.id)
            .bind(&user.id)
            .execute(&mut *tx)
            .await?;
        bump(&mut tx, &access.ts.id, &[]).await?;
        tx.commit().await?;
        return Ok(LeaveAnswer { status: LeaveStatus::Withdrawn });
    }
    if access.require_member()? == Role::Owner {
        return Err(HubErr::new(
            HubErrorName::Conflict,
            format!("failed to leave the team server {slug:?}: you own it"),
        )
        .hint(format!("delete it instead (cowork team-server delete {slug} --yes)")));
    }
    drop_member(&mut tx, &access.ts.id, user, user, AuditAction::MemberLeave).await?;
    tx.commit().await?;
    Ok(LeaveAnswer { status: LeaveStatus::Left })
}

fn member_from(row: &AnyRow) -> Result<Member, sqlx::Error> {
    Ok(Member {
        user: User {
            uid: row.try_get("id")?,
            email: row.try_get("email")?,
            display_name: row.try_get("display_name")?,
        },
        role: Role::parse(&row.try_get::<String, _>("role")?).unwrap_or(Role::Member),
        joined_at: row.try_get("joined_at")?,
    })
}

/// The listing's order: the owner, then admins, then members, each by email.
macro_rules! members_order {
    () => {
        " ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u.email"
    };
}

/// Postgres: a row per member, encoded by serde here.
const MEMBERS_ROWS: &str = concat!(
    "SELECT u.id, u.email, u.display_name, m.role, m.joined_at FROM members m JOIN users u ON u.id = m.user_id \
     WHERE m.team_server_id = $1",
    members_order!()
);

/// SQLite: one text value, the `members` array as JSON — exactly the bytes serde writes for it
/// (same key order, no spaces; `json_quote` escapes `"`, `\`, `\b \f \n \r \t` and other control
/// characters as `\u00xx`, as serde_json does), and an unknown stored role reads as `member`, as
/// `member_from` reads it. Through the Any driver, 10,000 rows cost each value copied into an
/// `AnyValue` and each row handed over a channel from sqlx-sqlite's worker thread: 53 ms of CPU
/// per listing against 24 ms for the one value (BENCHMARKS.md, "Team hub"). Not on Postgres:
/// there `to_json` per field and `string_agg` cost the shared database more CPU than the rows
/// cost a replica, for no faster answer.
const MEMBERS_SQLITE_JSON: &str = concat!(
    "SELECT group_concat('{\"user\":{\"uid\":' || json_quote(u.id) || ',\"email\":' || json_quote(u.email) \
     || ',\"displayName\":' || json_quote(u.display_name) \
     || '},\"role\":\"' || CASE m.role WHEN 'owner' THEN 'owner' WHEN 'admin' THEN 'admin' ELSE 'member' END \
     || '\",\"joinedAt\":' || CAST(m.joined_at AS TEXT) || '}', ','",
    members_order!(),
    ") FROM members m JOIN users u ON u.id = m.user_id WHERE m.team_server_id = $1"
);

/// Who is in a team server (members read it): the owner, then admins, then members, by email —
/// as the JSON body of `GET /api/team-servers/{slug}/members` (a `MemberList`), which the route
/// sends as it is.
pub async fn members_json(db: &Db, user: &UserRow, slug: &str) -> Result<String, HubErr> {
    let access = access(db, slug, user).await?;
    access.require_member()?;
    if db.backend() == Backend::Postgres {
        let rows = sqlx::query(MEMBERS_ROWS).bind(&access.ts.id).fetch_all(db.pool()).await?;
        let members = rows.iter().map(member_from).collect::<Result<_, _>>()?;
        return serde_json::to_string(&MemberList { members })
            .map_err(|error| HubErr::internal("failed to encode the members list", &error));
    }
    let row = sqlx::query(MEMBERS_SQLITE_JSON).bind(&access.ts.id).fetch_one(db.pool()).await?;
    // No rows aggregate to NULL (a team server always has its owner; this keeps the shape).
    let list: Option<String> = row.try_get(0)?;
    Ok(format!("{{\"members\":[{}]}}", list.unwrap_or_default()))
}

/// Add someone by email (admins). `admin` makes them an admin (the owner only).
pub async fn add_member(
    db: &Db,
    user: &UserRow,
    slug: &str,
    add: &MemberAdd,
) -> Result<Member, HubErr> {
    let access = access(db, slug, user).await?;
    let mine = access.require_admin()?;
    // As with removing one: an admin is made only by the owner, so an admin cannot grow a
    // following of admins the owner then has to remove one by one.
    if add.admin && mine != Role::Owner {
        return Err(HubErr::new(
            HubErrorName::NotOwner,
            format!(
                "failed to make {:?} an admin of {slug:?}: only the owner makes admins",
                add.email
            ),
        )
        .hint("add them as a member, and ask the owner to make them an admin"));
    }
    let target = accounts::require_email(db, &add.email).await?;
    let role = if add.admin { Role::Admin } else { Role::Member };
    let now = now_ms();
    let mut tx = db.begin().await?;
    let done = sqlx::query(
        "INSERT INTO members (team_server_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    )
    .bind(&access.ts.id)
    .bind(&target.id)
    .bind(role.as_str())
    .bind(now)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        // Already in: only a promotion to admin changes anything.
        let promoted = if add.admin {
            sqlx::query("UPDATE members SET role = 'admin' WHERE team_server_id = $1 AND user_id = $2 AND role = 'member'")
                .bind(&access.ts.id)
                .bind(&target.id)
                .execute(&mut *tx)
                .await?
                .rows_affected()
        } else {
            0
        };
        if promoted == 0 {
            return Err(HubErr::new(
                HubErrorName::AlreadyExists,
                format!("failed to add {:?}: already a member of {slug:?}", target.email),
            ));
        }
    }
    sqlx::query("DELETE FROM join_requests WHERE team_server_id = $1 AND user_id = $2")
        .bind(&access.ts.id)
        .bind(&target.id)
        .execute(&mut *tx)
        .await?;
    bump(&mut tx, &access.ts.id, &[&target.id]).await?;
    audit::record(
        &mut tx,
        &access.ts.id,
        Some(user),
        AuditAction::MemberAdd,
        Some(&target.email),
        Some(role.as_str()),
    )
    .await?;
    tx.commit().await?;
    Ok(Member { user: target.user(), role, joined_at: now })
}

/// Remove someone (admins; an admin only by the owner; never the owner).
pub async fn remove_member(db: &Db, user: &UserRow, slug: &str, email: &str) -> Result<(), HubErr> {
    let access = access(db, slug, user).await?;
    let mine = access.require_admin()?;
    let target = accounts::require_email(db, email).await?;
    let mut tx = db.begin().await?;
    let role = sqlx::query("SELECT role FROM members WHERE team_server_id = $1 AND user_id = $2")
        .bind(&access.ts.id)
        .bind(&target.id)
        .fetch_optional(&mut *tx)
        .await?
        .map(|r| r.try_get::<String, _>(0))
        .transpose()?
        .and_then(|r| Role::parse(&r))
        .ok_or_else(|| {
            HubErr::not_found(format!(
                "failed to remove {:?}: not a member of {slug:?}",
                target.email
            ))
            .hint(format!("see who is in it: cowork team-server members {slug}"))
        })?;
    if role == Role::Owner {
        return Err(HubErr::new(
            HubErrorName::Conflict,
            format!("failed to remove {:?}: the owner cannot be removed", target.email),
        ));
    }
    if role == Role::Admin && mine != Role::Owner {
        return Err(HubErr::new(
            HubErrorName::NotOwner,
            format!("failed to remove {:?}: only the owner removes an admin", target.email),
        ));
    }
    drop_member(&mut tx, &access.ts.id, &target, user, AuditAction::MemberRemove).await?;
    tx.commit().await?;
    Ok(())
}

/// Take `member` out of the team server in `tx`: the row, the revision stamps, the audit line.
async fn drop_member(
    tx: &mut Tx,
    ts_id: &str,
    member: &UserRow,
    actor: &UserRow,
    action: AuditAction,
) -> Result<(), HubErr> {
    sqlx::query("DELETE FROM members WHERE team_server_id = $1 AND user_id = $2")
        .bind(ts_id)
        .bind(&member.id)
        .execute(&mut **tx)
        .await?;
    bump(tx, ts_id, &[&member.id]).await?;
    audit::record(tx, ts_id, Some(actor), action, Some(&member.email), None).await
}

/// Who waits to join (admins), oldest first.
pub async fn requests(db: &Db, user: &UserRow, slug: &str) -> Result<Vec<JoinRequest>, HubErr> {
    let access = access(db, slug, user).await?;
    access.require_admin()?;
    let rows = sqlx::query(
        "SELECT u.id, u.email, u.display_name, r.note, r.requested_at FROM join_requests r JOIN users u ON u.id = r.user_id \
         WHERE r.team_server_id = $1 ORDER BY r.requested_at, u.email",
    )
    .bind(&access.ts.id)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| {
            Ok(JoinRequest {
                user: User {
                    uid: row.try_get("id")?,
                    email: row.try_get("email")?,
                    display_name: row.try_get("display_name")?,
                },
                note: row.try_get("note")?,
                requested_at: row.try_get("requested_at")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(HubErr::from)
}

/// Settle a join request (admins): approve makes a member, deny drops it. Settled once: a second
/// admin settling the same request at the same moment gets `NotFound`.
pub async fn settle(
    db: &Db,
    user: &UserRow,
    slug: &str,
    email: &str,
    approve: bool,
) -> Result<Option<Member>, HubErr> {
    let access = access(db, slug, user).await?;
    access.require_admin()?;
    let target = accounts::require_email(db, email).await?;
    let now = now_ms();
    let mut tx = db.begin().await?;
    let done = sqlx::query("DELETE FROM join_requests WHERE team_server_id = $1 AND user_id = $2")
        .bind(&access.ts.id)
        .bind(&target.id)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() != 1 {
        return Err(HubErr::not_found(format!(
            "failed to find a join request from {:?} to {slug:?}",
            target.email
        ))
        .hint(format!("see who waits with: cowork team-server requests {slug}")));
    }
    let member = if approve {
        sqlx::query("INSERT INTO members (team_server_id, user_id, role, joined_at) VALUES ($1, $2, 'member', $3) ON CONFLICT DO NOTHING")
            .bind(&access.ts.id)
            .bind(&target.id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        bump(&mut tx, &access.ts.id, &[&target.id]).await?;
        audit::record(
            &mut tx,
            &access.ts.id,
            Some(user),
            AuditAction::MemberApprove,
            Some(&target.email),
            None,
        )
        .await?;
        Some(Member { user: target.user(), role: Role::Member, joined_at: now })
    } else {
        bump(&mut tx, &access.ts.id, &[]).await?;
        audit::record(
            &mut tx,
            &access.ts.id,
            Some(user),
            AuditAction::MemberDeny,
            Some(&target.email),
            None,
        )
        .await?;
        None
    };
    tx.commit().await?;
    Ok(member)
}
