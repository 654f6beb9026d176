//! Reading a store (members): its items, an item's versions, signed manifests — one, or many in
//! one call.

use super::card::{list, Card};
use super::check_name;
use crate::accounts::UserRow;
use crate::db::Db;
use crate::error::HubErr;
use crate::teams;
use cowork_wire::hub::{
    ItemKind, ItemVersions, ManifestRequest, Manifests, SignedManifest, Store, StoreItem,
    StoreVersion, TemplateSubtype, Version, VersionManifest, LATEST, MAX_MANIFESTS,
};
use sqlx::any::AnyRow;
use sqlx::{Any, Executor, Row};

const ITEM_COLUMNS: &str = "i.name, i.kind, i.subtype, i.latest_version, i.title, i.description, i.tags, i.icon, i.banner, i.screenshots, i.requires, i.created_at, i.updated_at, \
     (SELECT COUNT(*) FROM store_versions v WHERE v.team_server_id = i.team_server_id AND v.name = i.name) AS versions";

const VERSION_COLUMNS: &str =
    "version, published_at, published_by, files, size, withdrawn_at, manifest, signature, kid";

fn bad_row(what: &str, value: &str) -> sqlx::Error {
    sqlx::Error::Decode(format!("{what} {value:?} in the store's tables").into())
}

fn item_from(row: &AnyRow) -> Result<StoreItem, sqlx::Error> {
    let kind: String = row.try_get("kind")?;
    let subtype: Option<String> = row.try_get("subtype")?;
    let card = Card::from_row(row)?;
    Ok(StoreItem {
        name: row.try_get("name")?,
        kind: ItemKind::parse(&kind).ok_or_else(|| bad_row("the kind", &kind))?,
        subtype: subtype.as_deref().and_then(TemplateSubtype::parse),
        version: row.try_get("latest_version")?,
        title: card.title,
        description: card.description,
        tags: card.tags,
        icon: card.icon,
        banner: card.banner,
        screenshots: card.screenshots,
        requires: list(row.try_get("requires")?),
        versions: u64::try_from(row.try_get::<i64, _>("versions")?).unwrap_or(0),
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

fn version_from(row: &AnyRow) -> Result<StoreVersion, sqlx::Error> {
    Ok(StoreVersion {
        version: row.try_get("version")?,
        published_at: row.try_get("published_at")?,
        published_by: row.try_get("published_by")?,
        files: u64::try_from(row.try_get::<i64, _>("files")?).unwrap_or(0),
        size: u64::try_from(row.try_get::<i64, _>("size")?).unwrap_or(0),
        withdrawn_at: row.try_get("withdrawn_at")?,
    })
}

fn manifest_from(name: &str, row: &AnyRow) -> Result<VersionManifest, sqlx::Error> {
    let text = String::from_utf8(row.try_get::<Vec<u8>, _>("manifest")?)
        .map_err(|_| bad_row("a manifest that is not UTF-8 for", name))?;
    Ok(VersionManifest {
        name: name.to_string(),
        version: version_from(row)?,
        signed: SignedManifest {
            manifest: text,
            signature: row.try_get("signature")?,
            kid: row.try_get::<Option<String>, _>("kid")?.unwrap_or_default(),
        },
    })
}

/// The live item `name` of the team server `ts_id` (not unpublished), through `executor`.
pub async fn item<'e, E>(executor: E, ts_id: &str, name: &str) -> Result<Option<StoreItem>, HubErr>
where
    E: Executor<'e, Database = Any>,
{
    let sql = format!(
        "SELECT {ITEM_COLUMNS} FROM store_items i WHERE i.team_server_id = $1 AND i.name = $2 AND i.unpublished_at IS NULL"
    );
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(ts_id)
        .bind(name)
        .fetch_optional(executor)
        .await?;
    Ok(row.as_ref().map(item_from).transpose()?)
}

/// One version's row with its manifest, through `executor`.
pub async fn version<'e, E>(
    executor: E,
    ts_id: &str,
    name: &str,
    version: &str,
) -> Result<Option<VersionManifest>, HubErr>
where
    E: Executor<'e, Database = Any>,
{
    let sql = format!(
        "SELECT {VERSION_COLUMNS} FROM store_versions WHERE team_server_id = $1 AND name = $2 AND version = $3"
    );
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(ts_id)
        .bind(name)
        .bind(version)
        .fetch_optional(executor)
        .await?;
    Ok(row.as_ref().map(|r| manifest_from(name, r)).transpose()?)
}

fn no_item(slug: &str, name: &str) -> HubErr {
    HubErr::not_found(format!("failed to find {name:?} in the store of {slug:?}"))
        .hint(format!("see what it publishes: cowork team-server store {slug}"))
}

/// `GET store` (members): every live item, by name.
pub async fn store(db: &Db, user: &UserRow, slug: &str) -> Result<Store, HubErr> {
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    let sql = format!(
        "SELECT {ITEM_COLUMNS} FROM store_items i WHERE i.team_server_id = $1 AND i.unpublished_at IS NULL ORDER BY i.name"
    );
    let rows =
        sqlx::query(sqlx::AssertSqlSafe(sql)).bind(&access.ts.id).fetch_all(db.pool()).await?;
    let items = rows.iter().map(item_from).collect::<Result<_, _>>()?;
    Ok(Store { items })
}

/// `GET store/items/{name}` (members): the item and the versions kept, newest first.
pub async fn versions(
    db: &Db,
    user: &UserRow,
    slug: &str,
    name: &str,
) -> Result<ItemVersions, HubErr> {
    check_name("an item", name)?;
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    let item = item(db.pool(), &access.ts.id, name).await?.ok_or_else(|| no_item(slug, name))?;
    let rows = sqlx::query(
        "SELECT version, published_at, published_by, files, size, withdrawn_at FROM store_versions \
         WHERE team_server_id = $1 AND name = $2 ORDER BY published_at DESC, version DESC",
    )
    .bind(&access.ts.id)
    .bind(name)
    .fetch_all(db.pool())
    .await?;
    let versions = rows.iter().map(version_from).collect::<Result<_, _>>()?;
    Ok(ItemVersions { item, versions })
}

/// The manifest of `name` at `version` (`latest` or none: its latest), or `None`.
async fn find(
    connection: &mut sqlx::AnyConnection,
    ts_id: &str,
    name: &str,
    wanted: Option<&str>,
) -> Result<Option<VersionManifest>, HubErr> {
    let wanted = wanted.filter(|v| *v != LATEST);
    let latest = match wanted {
        Some(_) => None,
        None => {
            let row = sqlx::query(
                "SELECT latest_version FROM store_items WHERE team_server_id = $1 AND name = $2 AND unpublished_at IS NULL",
            )
            .bind(ts_id)
            .bind(name)
            .fetch_optional(&mut *connection)
            .await?;
            match row {
                Some(row) => Some(row.try_get::<String, _>(0)?),
                None => return Ok(None),
            }
        }
    };
    let Some(wanted) = wanted.or(latest.as_deref()) else { return Ok(None) };
    version(&mut *connection, ts_id, name, wanted).await
}

fn check_version(name: &str, version: &str) -> Result<(), HubErr> {
    if version == LATEST || Version::parse(version).is_some() {
        Ok(())
    } else {
        Err(HubErr::bad_request(format!("failed to read {version:?} as a version of {name:?}"))
            .hint("X.Y.Z (cowork.json's version), or latest"))
    }
}

/// `GET store/items/{name}/versions/{version}` (members): one signed manifest.
pub async fn manifest(
    db: &Db,
    user: &UserRow,
    slug: &str,
    name: &str,
    version: &str,
) -> Result<VersionManifest, HubErr> {
    check_name("an item", name)?;
    check_version(name, version)?;
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    let mut connection = db.pool().acquire().await?;
    find(&mut connection, &access.ts.id, name, Some(version)).await?.ok_or_else(|| {
        HubErr::not_found(format!("failed to find {name}@{version} in the store of {slug:?}")).hint(
            format!("the store keeps the newest 10 versions: cowork app versions {slug}/{name}"),
        )
    })
}

/// `POST store/manifests` (members): many manifests in one call; what the store does not keep is
/// listed, not refused.
pub async fn manifests(
    db: &Db,
    user: &UserRow,
    slug: &str,
    request: &ManifestRequest,
) -> Result<Manifests, HubErr> {
    if request.items.len() > MAX_MANIFESTS {
        return Err(HubErr::new(
            cowork_wire::hub::HubErrorName::TooLarge,
            format!(
                "failed to read {} manifests at once: at most {MAX_MANIFESTS}",
                request.items.len()
            ),
        ));
    }
    for wanted in &request.items {
        check_name("an item", &wanted.name)?;
        if let Some(version) = &wanted.version {
            check_version(&wanted.name, version)?;
        }
    }
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    let mut connection = db.pool().acquire().await?;
    let mut answer = Manifests { manifests: Vec::new(), missing: Vec::new() };
    for wanted in &request.items {
        match find(&mut connection, &access.ts.id, &wanted.name, wanted.version.as_deref()).await? {
            Some(found) => answer.manifests.push(found),
            None => answer.missing.push(wanted.clone()),
        }
    }
    Ok(answer)
}
