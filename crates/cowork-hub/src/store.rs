//! A team server's store (issue 42): items, their versions and signed manifests, the blobs they
//! reference, the store's signing keys, and course subscriptions.
//!
//! **Contract** (the wire types and `HubClient` methods are in `cowork_wire::hub::store`). All
//! routes are under `/api/team-servers/{slug}`; "members" = any role, "admins" = admin or owner; a
//! removed member reads nothing (`NotMember`, or `NotFound` for a private server).
//!
//! | route | who | what |
//! | --- | --- | --- |
//! | `GET store` | members | every live item at its latest version |
//! | `GET store/items/{name}` | members | the item and the versions kept (withdrawn ones marked) |
//! | `POST store/items/{name}/versions` | admins | publish (`VersionTaken`, `VersionBehind`, `MissingBlobs`) |
//! | `GET store/items/{name}/versions/{v or latest}` | members | one signed manifest (a withdrawn one marked) |
//! | `DELETE store/items/{name}/versions/{v}` | admins | withdraw one version, never the latest |
//! | `DELETE store/items/{name}` | admins | unpublish the item (its name, kind and last version stay) |
//! | `PATCH store/items/{name}` | admins | the store card only |
//! | `POST store/manifests` | members | many manifests in one call |
//! | `POST blobs/missing` | admins | which of these hashes the store lacks |
//! | `PUT blobs/{sha256}` / `GET blobs/{sha256}` | admins / members | a blob, checked on upload |
//! | `GET store/keys`, `POST store/keys/rotate` | members, owner | the key chain; a new key |
//! | `PUT`/`DELETE courses/{c}/subscription`, `GET courses/{c}/progress`, `PUT …/progress/{lesson}` | members | courses |
//!
//! **What is signed**: each version's manifest (team server, item, kind, subtype, version, every
//! file's path, size and SHA-256, when and by whom, the key's id), as the exact JSON text stored
//! in `store_versions.manifest`, with the team server's current Ed25519 key (`keys.rs`). A
//! rotation's new key is signed by the old one, and every kept version is re-signed with it.
//!
//! **Blobs** are held per team server (`blob_refs`): uploaded by its admins, checked against their
//! name on upload, served only to its members. A tampered object is served as it is: the client
//! checks every file against the signed manifest.
//!
//! **Choices** where issue 42 left room: a withdrawn version stays listed and its manifest stays
//! readable (marked) while it is among the newest 10, and its blobs stay downloadable with it — a
//! pinned copy needs nothing from the hub to keep working (its files are on its disk), and this
//! lets `app versions` note the withdrawal and a client re-verify its copy; a client refuses a new
//! install of it. An unpublished item keeps a row (its kind, last version and card): publishing
//! its name again continues after its last version, so an old copy never sees a version go
//! backwards, and a course's subscriptions and progress (kept on the hub, per account and lesson
//! id) resume.
//!
//! Lock order, so two replicas never deadlock on Postgres: the item's row, then the team
//! server's current key, then version rows, then the change counter (`db::next_rev`), then the
//! team server's row — the order membership changes take the last two in.

pub mod blobs;
pub mod card;
pub mod courses;
pub mod items;
pub mod keys;
pub mod publish;

use crate::db::{next_rev, Tx};
use crate::error::HubErr;
use cowork_wire::hub::is_item_name;

/// Stamp a team server's store (and so its members' update cursors) with the next revision.
pub async fn stamp(tx: &mut Tx, ts_id: &str) -> Result<i64, HubErr> {
    let rev = next_rev(tx).await?;
    sqlx::query("UPDATE team_servers SET rev = $1, store_rev = $1 WHERE id = $2")
        .bind(rev)
        .bind(ts_id)
        .execute(&mut **tx)
        .await?;
    Ok(rev)
}

/// That `name` may name a store item (or a course, or a lesson).
pub fn check_name(what: &str, name: &str) -> Result<(), HubErr> {
    if is_item_name(name) {
        Ok(())
    } else {
        Err(HubErr::bad_request(format!("failed to read {name:?} as {what}'s name"))
            .hint("lowercase letters, digits and -, at most 63, starting with a letter or digit (not apps, data, courses, local or a Windows device name)"))
    }
}
