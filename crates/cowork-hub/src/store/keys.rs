//! Each team server's store signing keys (Ed25519, ring), kept in `store_keys`: one current key
//! (a partial unique index holds it to one), made on the store's first use (a publish, or a
//! member reading the key chain to pin it). A rotation makes a new key, has the old one sign its
//! [`KeyStatement`], wipes the old private key, and re-signs every version the store keeps, in
//! one transaction.

use crate::accounts::UserRow;
use crate::audit;
use crate::db::{now_ms, Db, Tx};
use crate::error::HubErr;
use crate::teams;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use cowork_wire::hub::verify::key_id;
use cowork_wire::hub::{
    AuditAction, KeyEndorsement, KeyStatement, Manifest, StoreKey, StoreKeys, KEY_STATEMENT_FORMAT,
};
use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair};
use sqlx::Row;

/// The key that signs now.
pub struct SigningKey {
    /// The key's id, as manifests it signs name it.
    pub kid: String,
    pair: Ed25519KeyPair,
}

impl SigningKey {
    /// The Ed25519 signature of `bytes`, base64url without padding.
    pub fn sign(&self, bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(self.pair.sign(bytes).as_ref())
    }

    fn public_key(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.pair.public_key().as_ref())
    }
}

fn generate() -> Result<(Vec<u8>, SigningKey), HubErr> {
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
        .map_err(|_| HubErr::internal("failed to make a store key", &"ring"))?;
    let key = read(pkcs8.as_ref())?;
    Ok((pkcs8.as_ref().to_vec(), key))
}

fn read(pkcs8: &[u8]) -> Result<SigningKey, HubErr> {
    let pair = Ed25519KeyPair::from_pkcs8(pkcs8)
        .map_err(|_| HubErr::internal("failed to read a store key", &"ring"))?;
    Ok(SigningKey { kid: key_id(pair.public_key().as_ref()), pair })
}

/// Make a team server's first key on its first use (a publish, or a member reading the chain to
/// pin it), unless it has a current one: the team server itself knows nothing of its store.
pub async fn create_first(tx: &mut Tx, ts_id: &str) -> Result<(), HubErr> {
    let (pkcs8, key) = generate()?;
    sqlx::query(
        "INSERT INTO store_keys (team_server_id, kid, pkcs8, public_key, created_at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (team_server_id) WHERE retired_at IS NULL DO NOTHING",
    )
    .bind(ts_id)
    .bind(&key.kid)
    .bind(pkcs8)
    .bind(key.public_key())
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The key that signs now, its row locked until `tx` ends (a rotation waits for a publish that
/// holds it, and the other way round).
///
/// On Postgres an ask that waited on a rotation finds nothing: the row it waited for is retired
/// when the lock comes free, and the rotation's new key is newer than the statement that asked.
/// The next ask sees it, unless yet another rotation took it first: each empty answer means a
/// rotation finished in between, so only eight rotations in a row, each ending while this one
/// waits, run it out.
pub async fn current(tx: &mut Tx, ts_id: &str) -> Result<SigningKey, HubErr> {
    for _ in 0..ASKS {
        let row = sqlx::query(
            "UPDATE store_keys SET created_at = created_at WHERE team_server_id = $1 AND retired_at IS NULL RETURNING pkcs8",
        )
        .bind(ts_id)
        .fetch_optional(&mut **tx)
        .await?;
        match row {
            Some(row) => return read(&row.try_get::<Vec<u8>, _>(0)?),
            None => create_first(tx, ts_id).await?,
        }
    }
    Err(HubErr::internal("failed to find the store's key", &ts_id))
}

/// How many times [`current`] asks for the key before it gives up.
const ASKS: usize = 8;

/// Every key of the team server `ts_id`, oldest first, following each key's `previous_kid`.
async fn chain_of<'e, E>(executor: E, ts_id: &str) -> Result<StoreKeys, HubErr>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let rows = sqlx::query(
        "SELECT kid, public_key, created_at, previous_kid, statement, signature FROM store_keys WHERE team_server_id = $1",
    )
    .bind(ts_id)
    .fetch_all(executor)
    .await?;
    let mut keys = Vec::with_capacity(rows.len());
    for row in &rows {
        let previous: Option<String> = row.try_get("previous_kid")?;
        let statement: Option<String> = row.try_get("statement")?;
        let signature: Option<String> = row.try_get("signature")?;
        keys.push(StoreKey {
            kid: row.try_get("kid")?,
            public_key: row.try_get("public_key")?,
            created_at: row.try_get("created_at")?,
            endorsement: match (previous, statement, signature) {
                (Some(previous_kid), Some(statement), Some(signature)) => {
                    Some(KeyEndorsement { previous_kid, statement, signature })
                }
                _ => None,
            },
        });
    }
    // The first key has no endorsement; each next one names the one before it.
    let mut ordered = Vec::with_capacity(keys.len());
    let mut next = keys.iter().position(|k| k.endorsement.is_none());
    while let Some(at) = next {
        let key = keys.swap_remove(at);
        next = keys
            .iter()
            .position(|k| k.endorsement.as_ref().is_some_and(|e| e.previous_kid == key.kid));
        ordered.push(key);
    }
    Ok(StoreKeys { keys: ordered })
}

/// `GET store/keys` (members): the key chain, made first for a team server that has none.
pub async fn chain(db: &Db, user: &UserRow, slug: &str) -> Result<StoreKeys, HubErr> {
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    let keys = chain_of(db.pool(), &access.ts.id).await?;
    if !keys.keys.is_empty() {
        return Ok(keys);
    }
    let mut tx = db.begin().await?;
    create_first(&mut tx, &access.ts.id).await?;
    tx.commit().await?;
    chain_of(db.pool(), &access.ts.id).await
}

/// `POST store/keys/rotate` (the owner): a new key, endorsed by the old one; every kept version
/// re-signed with it; the old private key wiped.
pub async fn rotate(db: &Db, user: &UserRow, slug: &str) -> Result<StoreKeys, HubErr> {
    let access = teams::access(db, slug, user).await?;
    access.require_owner()?;
    let ts_id = &access.ts.id;
    let mut tx = db.begin().await?;
    let old = current(&mut tx, ts_id).await?;
    let (pkcs8, new) = generate()?;
    let now = now_ms();
    let statement = serde_json::to_string(&KeyStatement {
        format: KEY_STATEMENT_FORMAT,
        team_server: access.ts.slug.clone(),
        previous_kid: old.kid.clone(),
        kid: new.kid.clone(),
        public_key: new.public_key(),
        created_at: now,
    })
    .map_err(|e| HubErr::internal("failed to write a key statement", &e))?;
    let signature = old.sign(statement.as_bytes());
    sqlx::query(
        "UPDATE store_keys SET retired_at = $1, pkcs8 = $2 WHERE team_server_id = $3 AND kid = $4",
    )
    .bind(now)
    .bind(Vec::<u8>::new())
    .bind(ts_id)
    .bind(&old.kid)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO store_keys (team_server_id, kid, pkcs8, public_key, created_at, previous_kid, statement, signature) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(ts_id)
    .bind(&new.kid)
    .bind(pkcs8)
    .bind(new.public_key())
    .bind(now)
    .bind(&old.kid)
    .bind(&statement)
    .bind(&signature)
    .execute(&mut *tx)
    .await?;
    let versions =
        sqlx::query("SELECT name, version, manifest FROM store_versions WHERE team_server_id = $1")
            .bind(ts_id)
            .fetch_all(&mut *tx)
            .await?;
    for row in versions {
        let (name, version): (String, String) = (row.try_get("name")?, row.try_get("version")?);
        let text = String::from_utf8(row.try_get::<Vec<u8>, _>("manifest")?)
            .map_err(|e| HubErr::internal("failed to read a stored manifest", &e))?;
        let mut manifest: Manifest = serde_json::from_str(&text)
            .map_err(|e| HubErr::internal("failed to read a stored manifest", &e))?;
        manifest.kid = new.kid.clone();
        let text = serde_json::to_string(&manifest)
            .map_err(|e| HubErr::internal("failed to write a manifest", &e))?;
        sqlx::query(
            "UPDATE store_versions SET manifest = $1, signature = $2, kid = $3 WHERE team_server_id = $4 AND name = $5 AND version = $6",
        )
        .bind(text.as_bytes().to_vec())
        .bind(new.sign(text.as_bytes()))
        .bind(&new.kid)
        .bind(ts_id)
        .bind(&name)
        .bind(&version)
        .execute(&mut *tx)
        .await?;
    }
    audit::record(
        &mut tx,
        ts_id,
        Some(user),
        AuditAction::StoreKeyRotate,
        Some(&new.kid),
        Some(&old.kid),
    )
    .await?;
    super::stamp(&mut tx, ts_id).await?;
    let keys = chain_of(&mut *tx, ts_id).await?;
    tx.commit().await?;
    Ok(keys)
}
