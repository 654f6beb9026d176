//! Changing a store (admins): publish a version, change a card, withdraw a version, unpublish an
//! item. Each is one transaction holding the item's row from its start (see the lock order in
//! `store.rs`), with its audit line and the team server's store stamp.

use super::card::{self, Card};
use super::{check_name, items, keys, stamp};
use crate::accounts::UserRow;
use crate::audit;
use crate::db::{now_ms, Db, Tx};
use crate::error::HubErr;
use crate::teams::{self, Access};
use cowork_wire::hub::{
    AuditAction, CardUpdate, Host, HubErrorName, ItemKind, Manifest, ManifestFile, Publish,
    PublishOutcome, Published, SignedManifest, StoreItem, StoreVersion, TemplateSubtype, Version,
    VersionManifest, KEEP_VERSIONS, MANIFEST_FORMAT, MAX_COURSE_BYTES, MAX_FILES,
};
use sqlx::Row;
use std::collections::BTreeSet;

/// The item's row, locked until `tx` ends; made (unpublished, no version) when the name is new.
struct Locked {
    kind: ItemKind,
    /// Empty when no version was ever published.
    latest: String,
    live: bool,
    card: Card,
    requires: Vec<Host>,
}

async fn lock(tx: &mut Tx, ts_id: &str, name: &str, kind: ItemKind) -> Result<Locked, HubErr> {
    let now = now_ms();
    sqlx::query(
        "INSERT INTO store_items (team_server_id, name, kind, latest_version, created_at, updated_at, unpublished_at) \
         VALUES ($1, $2, $3, '', $4, $4, $4) ON CONFLICT (team_server_id, name) DO NOTHING",
    )
    .bind(ts_id)
    .bind(name)
    .bind(kind.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    locked(tx, ts_id, name)
        .await?
        .ok_or_else(|| HubErr::internal("failed to lock a store item", &name))
}

/// The existing item's row, locked until `tx` ends.
async fn locked(tx: &mut Tx, ts_id: &str, name: &str) -> Result<Option<Locked>, HubErr> {
    let row = sqlx::query(
        "UPDATE store_items SET updated_at = updated_at WHERE team_server_id = $1 AND name = $2 \
         RETURNING kind, latest_version, unpublished_at, title, description, tags, icon, banner, screenshots, requires",
    )
    .bind(ts_id)
    .bind(name)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let kind: String = row.try_get("kind")?;
    Ok(Some(Locked {
        kind: ItemKind::parse(&kind)
            .ok_or_else(|| HubErr::internal("failed to read a store item's kind", &kind))?,
        latest: row.try_get("latest_version")?,
        live: row.try_get::<Option<i64>, _>("unpublished_at")?.is_none(),
        card: Card::from_row(&row)?,
        requires: card::list(row.try_get("requires")?),
    }))
}

/// The files of a publish, checked and sorted by path.
fn checked_files(
    name: &str,
    kind: ItemKind,
    files: &[ManifestFile],
) -> Result<Vec<ManifestFile>, HubErr> {
    if files.is_empty() {
        return Err(HubErr::bad_request(format!("failed to publish {name:?}: it has no file")));
    }
    if files.len() > MAX_FILES {
        return Err(HubErr::new(
            HubErrorName::TooLarge,
            format!("failed to publish {name:?}: {} files, at most {MAX_FILES}", files.len()),
        ));
    }
    let mut sorted = files.to_vec();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut total: u64 = 0;
    for (i, file) in sorted.iter().enumerate() {
        if !cowork_wire::hub::is_safe_path(&file.path) {
            return Err(HubErr::bad_request(format!(
                "failed to publish {name:?}: the path {:?} could leave the install folder",
                file.path
            ))
            .hint("relative paths with / between names, no empty, . or .. part"));
        }
        if !cowork_wire::hub::is_sha256(&file.sha256) {
            return Err(HubErr::bad_request(format!(
                "failed to publish {name:?}: {:?} names the blob {:?}",
                file.path, file.sha256
            ))
            .hint("64 lower-case hex characters: the SHA-256 of the file's bytes"));
        }
        if i > 0 && sorted[i - 1].path == file.path {
            return Err(HubErr::bad_request(format!(
                "failed to publish {name:?}: {:?} is listed twice",
                file.path
            )));
        }
        total = total.saturating_add(file.size);
    }
    if kind == ItemKind::Course && total > MAX_COURSE_BYTES {
        return Err(HubErr::new(
            HubErrorName::TooLarge,
            format!("failed to publish the course {name:?}: {total} bytes, at most 25 MB"),
        )
        .hint("keep video out of a course: link it from the lesson (video: in lesson.md)"));
    }
    Ok(sorted)
}

fn checked_subtype(
    name: &str,
    kind: ItemKind,
    subtype: Option<TemplateSubtype>,
) -> Result<(), HubErr> {
    match (kind, subtype) {
        (ItemKind::Template, None) => Err(HubErr::bad_request(format!(
            "failed to publish the template {name:?}: it needs a subtype"
        ))
        .hint("--subtype app|routine|skill|workspace")),
        (ItemKind::Template, Some(_)) | (_, None) => Ok(()),
        (_, Some(subtype)) => Err(HubErr::bad_request(format!(
            "failed to publish {name:?} as a {kind} with the subtype {}: only a template has one",
            subtype.as_str()
        ))),
    }
}

/// What the version of a publish is to be.
enum Decision {
    UpToDate(String),
    Publish(String),
}

fn decide(
    slug: &str,
    name: &str,
    locked: &Locked,
    same_files: bool,
    asked: Option<&str>,
) -> Result<Decision, HubErr> {
    let last = Version::parse(&locked.latest);
    let Some(asked) = asked else {
        return Ok(match &last {
            Some(_) if locked.live && same_files => Decision::UpToDate(locked.latest.clone()),
            Some(last) => Decision::Publish(last.next_patch().to_string()),
            None => Decision::Publish("1.0.0".into()),
        });
    };
    let version = Version::parse(asked).ok_or_else(|| {
        HubErr::bad_request(format!("failed to read {asked:?} as the version of {name:?}"))
            .hint("X.Y.Z, as cowork.json's version")
    })?;
    let Some(last) = last else { return Ok(Decision::Publish(asked.to_string())) };
    match version.precedence(&last) {
        std::cmp::Ordering::Greater => Ok(Decision::Publish(asked.to_string())),
        std::cmp::Ordering::Equal if locked.live && same_files && asked == locked.latest => {
            Ok(Decision::UpToDate(locked.latest.clone()))
        }
        std::cmp::Ordering::Equal => Err(HubErr::new(
            HubErrorName::VersionTaken,
            format!("failed to publish {slug}/{name}@{asked}: that version was published with other files"),
        )
        .hint(format!("bump the version past {} and publish again", locked.latest))),
        std::cmp::Ordering::Less => Err(HubErr::new(
            HubErrorName::VersionBehind,
            format!("failed to publish {slug}/{name}@{asked}: the store already has {}", locked.latest),
        )
        .hint(format!("the store is newer than your copy: update first (cowork app update {name})"))),
    }
}

/// The files of the item's latest version, when it is live.
async fn latest_files(
    tx: &mut Tx,
    ts_id: &str,
    name: &str,
    locked: &Locked,
) -> Result<Option<Vec<ManifestFile>>, HubErr> {
    if !locked.live || locked.latest.is_empty() {
        return Ok(None);
    }
    let Some(found) = items::version(&mut **tx, ts_id, name, &locked.latest).await? else {
        return Ok(None);
    };
    let manifest: Manifest = serde_json::from_str(&found.signed.manifest)
        .map_err(|e| HubErr::internal("failed to read a stored manifest", &e))?;
    Ok(Some(manifest.files))
}

/// That every file's blob is held by the team server, at the file's size.
async fn check_blobs(
    tx: &mut Tx,
    ts_id: &str,
    name: &str,
    files: &[ManifestFile],
) -> Result<(), HubErr> {
    let distinct: Vec<&str> =
        files.iter().map(|f| f.sha256.as_str()).collect::<BTreeSet<_>>().into_iter().collect();
    let held = super::blobs::held(tx, ts_id, &distinct, false).await?;
    let missing: Vec<&str> = distinct.iter().copied().filter(|s| !held.contains_key(*s)).collect();
    if let Some(first) = missing.first() {
        let more = match missing.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        return Err(HubErr::new(
            HubErrorName::MissingBlobs,
            format!("failed to publish {name:?}: the store does not hold the blob {first}{more}"),
        )
        .hint("upload what POST blobs/missing lists, then publish again"));
    }
    for file in files {
        let size = held.get(&file.sha256).copied().unwrap_or_default();
        if u64::try_from(size).ok() != Some(file.size) {
            return Err(HubErr::bad_request(format!(
                "failed to publish {name:?}: {:?} is {} bytes, but its blob {} has {size}",
                file.path, file.size, file.sha256
            )));
        }
    }
    Ok(())
}

/// Insert the version, its blobs, and drop the versions beyond the newest [`KEEP_VERSIONS`].
async fn insert_version(
    tx: &mut Tx,
    ts_id: &str,
    manifest: &Manifest,
    signed: &SignedManifest,
    size: u64,
) -> Result<(), HubErr> {
    let name = &manifest.name;
    sqlx::query(
        "INSERT INTO store_versions (team_server_id, name, version, manifest, signature, published_by, published_at, kid, files, size) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(ts_id)
    .bind(name)
    .bind(&manifest.version)
    .bind(signed.manifest.as_bytes().to_vec())
    .bind(&signed.signature)
    .bind(&manifest.published_by)
    .bind(manifest.published_at)
    .bind(&signed.kid)
    .bind(i64::try_from(manifest.files.len()).unwrap_or(i64::MAX))
    .bind(i64::try_from(size).unwrap_or(i64::MAX))
    .execute(&mut **tx)
    .await?;
    let distinct: Vec<&str> = manifest
        .files
        .iter()
        .map(|f| f.sha256.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for chunk in distinct.chunks(200) {
        let mut sql = String::from(
            "INSERT INTO version_blobs (team_server_id, name, version, sha256) VALUES ",
        );
        for i in 0..chunk.len() {
            if i > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("($1, $2, $3, ${})", i + 4));
        }
        let mut query =
            sqlx::query(sqlx::AssertSqlSafe(sql)).bind(ts_id).bind(name).bind(&manifest.version);
        for sha in chunk {
            query = query.bind(*sha);
        }
        query.execute(&mut **tx).await?;
    }
    let kept = sqlx::query(
        "SELECT version FROM store_versions WHERE team_server_id = $1 AND name = $2 ORDER BY published_at DESC, version DESC",
    )
    .bind(ts_id)
    .bind(name)
    .fetch_all(&mut **tx)
    .await?;
    for row in kept.iter().skip(KEEP_VERSIONS) {
        let version: String = row.try_get(0)?;
        drop_version(tx, ts_id, name, &version).await?;
    }
    Ok(())
}

async fn drop_version(tx: &mut Tx, ts_id: &str, name: &str, version: &str) -> Result<(), HubErr> {
    for sql in [
        "DELETE FROM version_blobs WHERE team_server_id = $1 AND name = $2 AND version = $3",
        "DELETE FROM store_versions WHERE team_server_id = $1 AND name = $2 AND version = $3",
    ] {
        sqlx::query(sql).bind(ts_id).bind(name).bind(version).execute(&mut **tx).await?;
    }
    Ok(())
}

/// `POST store/items/{name}/versions` (admins).
pub async fn publish(
    db: &Db,
    user: &UserRow,
    slug: &str,
    name: &str,
    body: &Publish,
) -> Result<Published, HubErr> {
    check_name("an item", name)?;
    let access = teams::access(db, slug, user).await?;
    access.require_admin()?;
    checked_subtype(name, body.kind, body.subtype)?;
    card::check(&body.card)?;
    let files = checked_files(name, body.kind, &body.files)?;
    let ts_id = access.ts.id.clone();
    let mut tx = db.begin().await?;
    let locked = lock(&mut tx, &ts_id, name, body.kind).await?;
    if locked.kind != body.kind {
        return Err(HubErr::new(
            HubErrorName::Conflict,
            format!(
                "failed to publish {slug}/{name} as a {}: it is a {} in this store",
                body.kind, locked.kind
            ),
        )
        .hint("an item's name and kind are its own for good: publish under another name"));
    }
    let same_files =
        latest_files(&mut tx, &ts_id, name, &locked).await?.as_deref() == Some(&files[..]);
    let card = locked.card.merged(&body.card);
    let card_changed = card != locked.card;
    if card_changed {
        card::check_images(&mut tx, &ts_id, &card).await?;
    }
    let mut requires = body.requires.clone().unwrap_or_else(|| locked.requires.clone());
    requires.sort();
    requires.dedup();
    let requires_changed = requires != locked.requires;
    let (outcome, version) = match decide(slug, name, &locked, same_files, body.version.as_deref())?
    {
        Decision::UpToDate(version) => (PublishOutcome::UpToDate, version),
        Decision::Publish(version) => (PublishOutcome::Published, version),
    };
    let now = now_ms();
    let answer_version = if outcome == PublishOutcome::Published {
        if !body.dry_run {
            check_blobs(&mut tx, &ts_id, name, &files).await?;
        }
        let key = keys::current(&mut tx, &ts_id).await?;
        let size = files.iter().map(|f| f.size).fold(0u64, u64::saturating_add);
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            team_server: access.ts.slug.clone(),
            name: name.to_string(),
            kind: body.kind,
            subtype: body.subtype,
            version: version.clone(),
            files,
            published_at: now,
            published_by: user.email.clone(),
            kid: key.kid.clone(),
        };
        let text = serde_json::to_string(&manifest)
            .map_err(|e| HubErr::internal("failed to write a manifest", &e))?;
        let signed = SignedManifest {
            signature: key.sign(text.as_bytes()),
            kid: key.kid.clone(),
            manifest: text,
        };
        insert_version(&mut tx, &ts_id, &manifest, &signed, size).await?;
        sqlx::query(
            "UPDATE store_items SET kind = $1, subtype = $2, latest_version = $3, updated_at = $4, unpublished_at = NULL \
             WHERE team_server_id = $5 AND name = $6",
        )
        .bind(body.kind.as_str())
        .bind(body.subtype.map(TemplateSubtype::as_str))
        .bind(&version)
        .bind(now)
        .bind(&ts_id)
        .bind(name)
        .execute(&mut *tx)
        .await?;
        audit::record(
            &mut tx,
            &ts_id,
            Some(user),
            AuditAction::StorePublish,
            Some(name),
            Some(&format!("v{version}, {} files", manifest.files.len())),
        )
        .await?;
        VersionManifest {
            name: name.to_string(),
            version: StoreVersion {
                version: version.clone(),
                published_at: now,
                published_by: user.email.clone(),
                files: u64::try_from(manifest.files.len()).unwrap_or(0),
                size,
                withdrawn_at: None,
            },
            signed,
        }
    } else {
        let found = items::version(&mut *tx, &ts_id, name, &version).await?;
        found.ok_or_else(|| HubErr::internal("failed to read the latest version", &name))?
    };
    if card_changed || requires_changed {
        card::write(&mut tx, &ts_id, name, &card).await?;
        let requires = serde_json::to_string(&requires).unwrap_or_else(|_| "[]".into());
        sqlx::query("UPDATE store_items SET requires = $1, updated_at = $2 WHERE team_server_id = $3 AND name = $4")
            .bind(requires)
            .bind(now)
            .bind(&ts_id)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        if outcome == PublishOutcome::UpToDate {
            audit::record(&mut tx, &ts_id, Some(user), AuditAction::StoreCard, Some(name), None)
                .await?;
        }
    }
    // A dry run is rolled back: it need not wait for the change counter.
    if !body.dry_run && (outcome == PublishOutcome::Published || card_changed || requires_changed) {
        stamp(&mut tx, &ts_id).await?;
    }
    let item = items::item(&mut *tx, &ts_id, name)
        .await?
        .ok_or_else(|| HubErr::internal("failed to read a published item", &name))?;
    if body.dry_run {
        tx.rollback().await?;
    } else {
        tx.commit().await?;
    }
    Ok(Published { outcome, item, version: answer_version })
}

/// The live item `name`, locked, or `NotFound`.
async fn live(tx: &mut Tx, access: &Access, name: &str) -> Result<Locked, HubErr> {
    match locked(tx, &access.ts.id, name).await? {
        Some(locked) if locked.live && !locked.latest.is_empty() => Ok(locked),
        _ => Err(HubErr::not_found(format!(
            "failed to find {name:?} in the store of {:?}",
            access.ts.slug
        ))
        .hint(format!("see what it publishes: cowork team-server store {}", access.ts.slug))),
    }
}

/// `PATCH store/items/{name}` (admins): the store card only.
pub async fn update_card(
    db: &Db,
    user: &UserRow,
    slug: &str,
    name: &str,
    update: &CardUpdate,
) -> Result<StoreItem, HubErr> {
    check_name("an item", name)?;
    let access = teams::access(db, slug, user).await?;
    access.require_admin()?;
    card::check(update)?;
    let mut tx = db.begin().await?;
    let locked = live(&mut tx, &access, name).await?;
    let card = locked.card.merged(update);
    if card != locked.card {
        card::check_images(&mut tx, &access.ts.id, &card).await?;
        card::write(&mut tx, &access.ts.id, name, &card).await?;
        sqlx::query(
            "UPDATE store_items SET updated_at = $1 WHERE team_server_id = $2 AND name = $3",
        )
        .bind(now_ms())
        .bind(&access.ts.id)
        .bind(name)
        .execute(&mut *tx)
        .await?;
        audit::record(&mut tx, &access.ts.id, Some(user), AuditAction::StoreCard, Some(name), None)
            .await?;
        stamp(&mut tx, &access.ts.id).await?;
    }
    let item = items::item(&mut *tx, &access.ts.id, name)
        .await?
        .ok_or_else(|| HubErr::internal("failed to read a store item", &name))?;
    tx.commit().await?;
    Ok(item)
}

/// `DELETE store/items/{name}/versions/{version}` (admins): withdraw one version, never the
/// latest. Withdrawing one already withdrawn changes nothing.
pub async fn withdraw(
    db: &Db,
    user: &UserRow,
    slug: &str,
    name: &str,
    version: &str,
) -> Result<(), HubErr> {
    check_name("an item", name)?;
    if Version::parse(version).is_none() {
        return Err(HubErr::bad_request(format!(
            "failed to read {version:?} as a version of {name:?}"
        ))
        .hint("X.Y.Z, as `cowork app versions` lists them"));
    }
    let access = teams::access(db, slug, user).await?;
    access.require_admin()?;
    let mut tx = db.begin().await?;
    let locked = live(&mut tx, &access, name).await?;
    if version == locked.latest {
        return Err(HubErr::new(
            HubErrorName::Conflict,
            format!("failed to withdraw {slug}/{name}@{version}: it is the latest version"),
        )
        .hint(format!("publish a fixed version first, then withdraw {version} (or unpublish the whole item: cowork app unpublish {slug}/{name} --yes)")));
    }
    let row = sqlx::query(
        "SELECT withdrawn_at FROM store_versions WHERE team_server_id = $1 AND name = $2 AND version = $3",
    )
    .bind(&access.ts.id)
    .bind(name)
    .bind(version)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| {
        HubErr::not_found(format!("failed to find {name}@{version} in the store of {slug:?}"))
            .hint(format!("see the versions it keeps: cowork app versions {slug}/{name}"))
    })?;
    if row.try_get::<Option<i64>, _>(0)?.is_some() {
        return Ok(());
    }
    sqlx::query("UPDATE store_versions SET withdrawn_at = $1 WHERE team_server_id = $2 AND name = $3 AND version = $4")
        .bind(now_ms())
        .bind(&access.ts.id)
        .bind(name)
        .bind(version)
        .execute(&mut *tx)
        .await?;
    let target = format!("{name}@{version}");
    audit::record(
        &mut tx,
        &access.ts.id,
        Some(user),
        AuditAction::StoreUnpublish,
        Some(&target),
        None,
    )
    .await?;
    stamp(&mut tx, &access.ts.id).await?;
    tx.commit().await?;
    Ok(())
}

/// `DELETE store/items/{name}` (admins): unpublish the whole item. Its versions go; its row stays
/// (kind, last version, card), so the name stays its own and a later publish continues after it.
pub async fn unpublish(db: &Db, user: &UserRow, slug: &str, name: &str) -> Result<(), HubErr> {
    check_name("an item", name)?;
    let access = teams::access(db, slug, user).await?;
    access.require_admin()?;
    let mut tx = db.begin().await?;
    live(&mut tx, &access, name).await?;
    for sql in [
        "DELETE FROM version_blobs WHERE team_server_id = $1 AND name = $2",
        "DELETE FROM store_versions WHERE team_server_id = $1 AND name = $2",
    ] {
        sqlx::query(sql).bind(&access.ts.id).bind(name).execute(&mut *tx).await?;
    }
    let now = now_ms();
    sqlx::query("UPDATE store_items SET unpublished_at = $1, updated_at = $1 WHERE team_server_id = $2 AND name = $3")
        .bind(now)
        .bind(&access.ts.id)
        .bind(name)
        .execute(&mut *tx)
        .await?;
    audit::record(
        &mut tx,
        &access.ts.id,
        Some(user),
        AuditAction::StoreUnpublish,
        Some(name),
        Some("all versions"),
    )
    .await?;
    stamp(&mut tx, &access.ts.id).await?;
    tx.commit().await?;
    Ok(())
}
