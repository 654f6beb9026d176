//! Accounts: password accounts (argon2id), who an account is (`Me`), sign-in by password with its
//! rate limits, and the first admin's one-time setup code.

use crate::crypto;
use crate::db::{flag, new_id, now_ms, Db};
use crate::error::{is_unique_violation, HubErr};
use crate::limits;
use crate::state::Hub;
use cowork_wire::hub::{Account, HubErrorName, Me, NewAccount, OrgRef, User};
use sqlx::any::AnyRow;
use sqlx::Row;

/// An account as the hub holds it.
#[derive(Clone, Debug)]
pub struct UserRow {
    /// The account's id (`uid` in tokens and on every client).
    pub id: String,
    /// Its email address, unique on the hub.
    pub email: String,
    /// The name the person gave.
    pub display_name: String,
    /// Whether it administers the hub itself.
    pub hub_admin: bool,
    /// Its argon2id password hash; `None` for an account without a password.
    pub password_hash: Option<String>,
}

impl UserRow {
    /// Reads an account from a row of `users`.
    pub fn from_row(row: &AnyRow) -> Result<UserRow, sqlx::Error> {
        Ok(UserRow {
            id: row.try_get("id")?,
            email: row.try_get("email")?,
            display_name: row.try_get("display_name")?,
            hub_admin: flag(row, "hub_admin")?,
            password_hash: row.try_get("password_hash")?,
        })
    }

    /// The account as the wire shows it: never its password hash.
    pub fn user(&self) -> User {
        User {
            uid: self.id.clone(),
            email: self.email.clone(),
            display_name: self.display_name.clone(),
        }
    }
}

const USER_COLUMNS: &str = "id, email, display_name, hub_admin, password_hash";

/// An email as the hub keys it: trimmed, lower case.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

fn check_email(email: &str) -> Result<(), HubErr> {
    let ok = email.len() <= 254
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !domain.starts_with('.')
        })
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if ok {
        Ok(())
    } else {
        Err(HubErr::bad_request(format!("failed to read {email:?} as an email address"))
            .hint("give an address like ana@example.com"))
    }
}

fn check_password(password: &str) -> Result<(), HubErr> {
    if password.chars().count() < 8 || password.len() > 1024 {
        return Err(HubErr::bad_request(
            "failed to accept the password: it needs 8 to 1,024 characters",
        )
        .hint("choose a longer password (a passphrase of a few words works well)"));
    }
    Ok(())
}

/// The account with this email.
pub async fn by_email(db: &Db, email: &str) -> Result<Option<UserRow>, HubErr> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE email = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(normalize_email(email))
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(UserRow::from_row).transpose()?)
}

/// The account with this uid.
pub async fn by_id(db: &Db, id: &str) -> Result<Option<UserRow>, HubErr> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(db.pool()).await?;
    Ok(row.as_ref().map(UserRow::from_row).transpose()?)
}

/// The account with this email, or `NotFound` naming it.
pub async fn require_email(db: &Db, email: &str) -> Result<UserRow, HubErr> {
    by_email(db, email).await?.ok_or_else(|| {
        HubErr::not_found(format!("failed to find an account with the email {email:?}"))
            .hint("they need an account on this hub first (a hub admin creates it)")
    })
}

/// Make a password account. The first account of a hub is its admin whatever `hub_admin` says.
pub async fn create(db: &Db, new: &NewAccount) -> Result<Account, HubErr> {
    let email = normalize_email(&new.email);
    check_email(&email)?;
    check_password(&new.password)?;
    let phc = crypto::hash_password(&new.password)
        .map_err(|error| HubErr::internal("failed to hash the password", &error))?;
    let display_name = new
        .display_name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| email.split('@').next().unwrap_or(&email).to_string());
    let id = new_id();
    let now = now_ms();
    let mut tx = db.begin().await?;
    let first = sqlx::query("SELECT COUNT(*) FROM users")
        .fetch_one(&mut *tx)
        .await?
        .try_get::<i64, _>(0)?
        == 0;
    let admin = new.hub_admin || first;
    let inserted = sqlx::query(
        "INSERT INTO users (id, email, display_name, password_hash, hub_admin, created_at, rev) VALUES ($1, $2, $3, $4, $5, $6, 0)",
    )
    .bind(&id)
    .bind(&email)
    .bind(&display_name)
    .bind(&phc)
    .bind(i64::from(admin))
    .bind(now)
    .execute(&mut *tx)
    .await;
    match inserted {
        Err(error) if is_unique_violation(&error) => {
            return Err(HubErr::new(
                HubErrorName::AlreadyExists,
                format!("failed to create the account {email:?}: it already exists"),
            )
            .hint("sign in with it, or choose another email"));
        }
        other => {
            other?;
        }
    }
    tx.commit().await?;
    Ok(Account { user: User { uid: id, email, display_name }, hub_admin: admin, created_at: now })
}

/// Check an email and password against the limits and the stored hash. `address` is the
/// caller's network address (the per-address limit).
pub async fn check_password_sign_in(
    hub: &Hub,
    email: &str,
    password: &str,
    address: &str,
) -> Result<UserRow, HubErr> {
    let email = normalize_email(email);
    let limits = hub.config.limits;
    let account_key = format!("account:{email}");
    let address_key = format!("address:{address}");
    limits::check(
        &hub.db,
        &account_key,
        limits.per_account,
        limits.window,
        "sign-in attempts for this account",
    )
    .await?;
    limits::check(
        &hub.db,
        &address_key,
        limits.per_address,
        limits.window,
        "sign-in attempts from this address",
    )
    .await?;
    let user = by_email(&hub.db, &email).await?;
    let phc = user.as_ref().and_then(|u| u.password_hash.clone());
    let password = password.to_string();
    let ok =
        tokio::task::spawn_blocking(move || crypto::verify_password(&password, phc.as_deref()))
            .await
            .map_err(|error| HubErr::internal("failed to check the password", &error))?;
    match user {
        Some(user) if ok => {
            limits::clear(&hub.db, &account_key).await?;
            Ok(user)
        }
        _ => {
            limits::hit(&hub.db, &account_key, limits.window).await?;
            limits::hit(&hub.db, &address_key, limits.window).await?;
            Err(HubErr::new(
                HubErrorName::InvalidCredentials,
                "failed to sign in: wrong email or password",
            )
            .hint("check both; after too many tries the hub makes you wait"))
        }
    }
}

/// Who an account is, for a session.
pub async fn me(
    db: &Db,
    user: &UserRow,
    session_id: &str,
    device_id: Option<String>,
) -> Result<Me, HubErr> {
    let rows = sqlx::query(
        "SELECT o.id, o.slug, o.name, m.role FROM org_members m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = $1 ORDER BY m.joined_at, o.slug",
    )
    .bind(&user.id)
    .fetch_all(db.pool())
    .await?;
    let mut organization = None;
    let mut manages = Vec::new();
    for row in rows {
        let org = OrgRef {
            id: row.try_get("id")?,
            slug: row.try_get("slug")?,
            name: row.try_get("name")?,
        };
        let role: String = row.try_get("role")?;
        if role == "owner" || role == "admin" {
            manages.push(org.clone());
        }
        if organization.is_none() {
            organization = Some(org);
        }
    }
    Ok(Me {
        user: user.user(),
        organization,
        manages,
        hub_admin: user.hub_admin,
        session_id: session_id.to_string(),
        device_id,
    })
}

/// Whether the hub has any account yet.
pub async fn any(db: &Db) -> Result<bool, HubErr> {
    Ok(sqlx::query("SELECT COUNT(*) FROM users")
        .fetch_one(db.pool())
        .await?
        .try_get::<i64, _>(0)?
        > 0)
}

/// A one-time setup code for the first admin, valid an hour; only its hash is stored.
pub async fn new_setup_code(db: &Db) -> Result<String, HubErr> {
    let code = crypto::secret();
    let now = now_ms();
    sqlx::query("INSERT INTO setup_codes (code_hash, created_at, expires_at) VALUES ($1, $2, $3)")
        .bind(crypto::hash(&code))
        .bind(now)
        .bind(now + 3_600_000)
        .execute(db.pool())
        .await?;
    Ok(code)
}

/// Use a setup code: the first admin's account, made once. A code used, expired or unknown, or a
/// hub that already has an account, is refused.
pub async fn use_setup_code(db: &Db, code: &str, new: &NewAccount) -> Result<Account, HubErr> {
    let now = now_ms();
    let used = sqlx::query(
        "UPDATE setup_codes SET used_at = $1 WHERE code_hash = $2 AND used_at IS NULL AND expires_at > $1",
    )
    .bind(now)
    .bind(crypto::hash(code))
    .execute(db.pool())
    .await?;
    if used.rows_affected() != 1 || any(db).await? {
        return Err(HubErr::new(HubErrorName::InvalidToken, "failed to use the setup link: it was used, expired, or is not this hub's")
            .hint("restart the hub with an empty database for a new link, or sign in with the admin account"));
    }
    create(db, &NewAccount { hub_admin: true, ..new.clone() }).await
}
