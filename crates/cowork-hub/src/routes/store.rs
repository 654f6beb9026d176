//! The store's routes (see `crate::store` for who may call each): thin handlers, each one call
//! into the store's modules. Publishes, manifests and blob lists may be large (thousands of files
//! in one body), so this sub-router has its own body limits.

use super::{Answer, Body};
use crate::blobs::Fetch;
use crate::error::HubErr;
use crate::guard::Caller;
use crate::state::Hub;
use crate::store::{blobs, courses, items, keys, publish};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use cowork_wire::hub::*;

/// The largest JSON body of a store route: a publish of [`MAX_FILES`] files, a blob list of
/// [`MAX_BLOB_QUERY`] hashes.
const MAX_STORE_BODY: usize = 8 * 1024 * 1024;

/// The store's routes.
pub fn router() -> Router<Hub> {
    let ts = "/api/team-servers/{slug}";
    let json = Router::new()
        .route(&format!("{ts}/store"), get(store))
        .route(
            &format!("{ts}/store/items/{{name}}"),
            get(item).patch(update_card).delete(unpublish),
        )
        .route(&format!("{ts}/store/items/{{name}}/versions"), post(publish))
        .route(
            &format!("{ts}/store/items/{{name}}/versions/{{version}}"),
            get(manifest).delete(withdraw),
        )
        .route(&format!("{ts}/store/manifests"), post(manifests))
        .route(&format!("{ts}/store/keys"), get(store_keys))
        .route(&format!("{ts}/store/keys/rotate"), post(rotate_key))
        .route(&format!("{ts}/blobs/missing"), post(missing_blobs))
        .route(&format!("{ts}/courses/{{course}}/subscription"), put(subscribe).delete(unsubscribe))
        .route(&format!("{ts}/courses/{{course}}/progress"), get(progress))
        .route(&format!("{ts}/courses/{{course}}/progress/{{lesson}}"), put(set_lesson))
        .route("/api/subscriptions", get(subscriptions))
        .layer(DefaultBodyLimit::max(MAX_STORE_BODY));
    let bytes = Router::new()
        .route(&format!("{ts}/blobs/{{sha}}"), put(put_blob).get(get_blob))
        .layer(DefaultBodyLimit::max(blobs::MAX_BLOB));
    json.merge(bytes)
}

async fn store(State(hub): State<Hub>, caller: Caller, Path(slug): Path<String>) -> Answer<Store> {
    Ok(Json(items::store(&hub.db, &caller.user, &slug).await?))
}

async fn item(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, name)): Path<(String, String)>,
) -> Answer<ItemVersions> {
    Ok(Json(items::versions(&hub.db, &caller.user, &slug, &name).await?))
}

async fn publish(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, name)): Path<(String, String)>,
    Body(body): Body<Publish>,
) -> Answer<Published> {
    Ok(Json(publish::publish(&hub.db, &caller.user, &slug, &name, &body).await?))
}

async fn update_card(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, name)): Path<(String, String)>,
    Body(body): Body<CardUpdate>,
) -> Answer<StoreItem> {
    Ok(Json(publish::update_card(&hub.db, &caller.user, &slug, &name, &body).await?))
}

async fn unpublish(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, name)): Path<(String, String)>,
) -> Result<StatusCode, HubErr> {
    publish::unpublish(&hub.db, &caller.user, &slug, &name).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn manifest(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, name, version)): Path<(String, String, String)>,
) -> Answer<VersionManifest> {
    Ok(Json(items::manifest(&hub.db, &caller.user, &slug, &name, &version).await?))
}

async fn withdraw(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, name, version)): Path<(String, String, String)>,
) -> Result<StatusCode, HubErr> {
    publish::withdraw(&hub.db, &caller.user, &slug, &name, &version).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn manifests(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
    Body(body): Body<ManifestRequest>,
) -> Answer<Manifests> {
    Ok(Json(items::manifests(&hub.db, &caller.user, &slug, &body).await?))
}

async fn store_keys(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Answer<StoreKeys> {
    Ok(Json(keys::chain(&hub.db, &caller.user, &slug).await?))
}

async fn rotate_key(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Answer<StoreKeys> {
    Ok(Json(keys::rotate(&hub.db, &caller.user, &slug).await?))
}

async fn missing_blobs(
    State(hub): State<Hub>,
    caller: Caller,
    Path(slug): Path<String>,
    Body(body): Body<BlobList>,
) -> Answer<MissingBlobs> {
    Ok(Json(blobs::missing(&hub.db, &caller.user, &slug, &body.sha256).await?))
}

async fn put_blob(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, sha)): Path<(String, String)>,
    bytes: Bytes,
) -> Answer<BlobStored> {
    Ok(Json(blobs::put(&hub, &caller.user, &slug, &sha, bytes.to_vec()).await?))
}

async fn get_blob(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, sha)): Path<(String, String)>,
) -> Result<Response, HubErr> {
    Ok(match blobs::get(&hub, &caller.user, &slug, &sha).await? {
        Fetch::Bytes(bytes) => {
            ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response()
        }
        Fetch::Redirect(url) => Redirect::to(&url).into_response(),
    })
}

async fn subscribe(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, course)): Path<(String, String)>,
) -> Answer<Subscription> {
    Ok(Json(courses::subscribe(&hub.db, &caller.user, &slug, &course).await?))
}

async fn unsubscribe(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, course)): Path<(String, String)>,
) -> Result<StatusCode, HubErr> {
    courses::unsubscribe(&hub.db, &caller.user, &slug, &course).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn progress(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, course)): Path<(String, String)>,
) -> Answer<CourseProgress> {
    Ok(Json(courses::progress(&hub.db, &caller.user, &slug, &course).await?))
}

async fn set_lesson(
    State(hub): State<Hub>,
    caller: Caller,
    Path((slug, course, lesson)): Path<(String, String, String)>,
    Body(body): Body<LessonProgress>,
) -> Answer<CourseProgress> {
    Ok(Json(courses::set_lesson(&hub.db, &caller.user, &slug, &course, &lesson, body.done).await?))
}

async fn subscriptions(State(hub): State<Hub>, caller: Caller) -> Answer<Subscriptions> {
    Ok(Json(courses::subscriptions(&hub.db, &caller.user).await?))
}
