//! The store in the workbench (issue 42, "The UI"): the owner's `/api/store/…` routes behind
//! Manage Workspace (each app's source, version, pin, "update available", edits; install, the four
//! update choices, pin, remove), the Team Servers page (a store's cards and versions), the Create
//! menu (templates of the built-in `cowork` store and the team servers', scaffolded) and the
//! Academy (subscribed courses, progress). The route table and the shapes are in
//! `cowork_wire::store`; each handler calls one `cowork-store` (or hub client) function, as the
//! CLI's `app`/`template` verbs do, and a refusal keeps the library's error name.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use crate::workbench::workspace;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use cowork_account::{AccountError, Session};
use cowork_core::audit::Source;
use cowork_store::audit::Actor;
use cowork_store::builtin::{self, Builtin};
use cowork_store::hub::HubRemote;
use cowork_store::install::{self, InstallOptions};
use cowork_store::place::Place;
use cowork_store::remote::Remote;
use cowork_store::update::{self, Choice};
use cowork_store::{clean, pin, spec, StoreError};
use cowork_wire::hub::{
    CourseProgress, HubErrorName, ItemKind, ItemVersions, Subscriptions, Version,
};
use cowork_wire::store::*;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A store refusal as the daemon answers it: the library's name, message and hint, with the
/// status a caller expects of it.
impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let status = match &error {
            _ if error.is_not_found() => StatusCode::NOT_FOUND,
            StoreError::NotFound { .. } => StatusCode::NOT_FOUND,
            StoreError::BadSpec { .. }
            | StoreError::BadFlag { .. }
            | StoreError::Invalid { .. } => StatusCode::BAD_REQUEST,
            StoreError::Exists { .. }
            | StoreError::NameTaken { .. }
            | StoreError::Edited { .. }
            | StoreError::NotInstalled { .. }
            | StoreError::UpdateFirst { .. } => StatusCode::CONFLICT,
            StoreError::Unverified { .. } | StoreError::TamperedBlob { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            StoreError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            StoreError::NoTarget { .. } | StoreError::UnknownTeamServer { .. } => {
                StatusCode::FORBIDDEN
            }
            StoreError::Account(error) => account_status(error),
            StoreError::Program { .. } => StatusCode::BAD_GATEWAY,
            StoreError::Io { .. } => {
                return ApiError::internal("failed to read or write the workspace", &error)
            }
        };
        let mut answer = ApiError::named(status, error.name(), error.to_string());
        if let Some(hint) = error.hint() {
            answer = answer.with_hint(hint);
        }
        answer
    }
}

/// The status of an account or hub failure: refusals as the hub gave them, anything else a
/// gateway failure (the hub did not answer).
fn account_status(error: &AccountError) -> StatusCode {
    match error.hub_name() {
        Some(HubErrorName::NotFound) => StatusCode::NOT_FOUND,
        Some(HubErrorName::BadRequest) => StatusCode::BAD_REQUEST,
        Some(HubErrorName::Conflict | HubErrorName::AlreadyExists) => StatusCode::CONFLICT,
        Some(_) => StatusCode::FORBIDDEN,
        None if matches!(error, AccountError::Hub(_)) => StatusCode::BAD_GATEWAY,
        None => StatusCode::FORBIDDEN,
    }
}

/// The workspace a request names, as the store library handles it; the owner acts as the CLI
/// would (the audit's source `cli`, no agent).
fn place(state: &AppState, named: Option<&Path>) -> Result<Place, ApiError> {
    let ws = workspace(state, named)?;
    let canonical = ws.root().canonicalize().map_err(|e| {
        ApiError::new(StatusCode::NOT_FOUND, format!("failed to open the workspace: {e}"))
    })?;
    let root = state.engine.root();
    Ok(Place::new(root, &canonical, Actor::of(root, Source::Cli, None)))
}

fn session(state: &AppState) -> Arc<Session> {
    state.account.session().clone()
}

/// Team server `slug`'s store on the signed-in hub.
fn remote(state: &AppState, slug: &str) -> Result<HubRemote, ApiError> {
    Ok(HubRemote::new(session(state), slug)?)
}

/// The installed app folder `app` names (a local app, or an unknown one, is refused by name).
fn installed(place: &Place, app: &str) -> Result<String, ApiError> {
    spec::installed_folder(place, app)
        .ok_or_else(|| StoreError::NotInstalled { dir: app.to_string() }.into())
}

/// Runs a store operation that downloads on a blocking thread of its own, driven by this
/// runtime: the library's download stream holds a borrow across an await, so its futures are not
/// `Send`, which an axum handler's future must be.
async fn off_thread<T, F, Fut>(make: F) -> Result<T, ApiError>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<T, StoreError>>,
    T: Send + 'static,
{
    let handle = tokio::runtime::Handle::current();
    let joined = tokio::task::spawn_blocking(move || handle.block_on(make())).await;
    match joined {
        Ok(result) => Ok(result?),
        Err(error) => Err(ApiError::internal("a store operation failed", &error)),
    }
}

#[derive(Deserialize)]
pub struct WorkspaceQuery {
    workspace: Option<PathBuf>,
}

/// `GET /api/store/apps`: every app of the workspace with where it came from. The latest
/// versions come from each team server's store (one call per store); a store that does not
/// answer is named, and its apps show no update.
pub async fn apps(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<InstalledApps>, ApiError> {
    let ws = workspace(&state, query.workspace.as_deref())?;
    let place = place(&state, query.workspace.as_deref())?;
    let registry = ws.registry();
    let receipts: Vec<_> = registry
        .apps
        .iter()
        .map(|app| {
            let folder = Path::new(&app.dir).file_name().and_then(|f| f.to_str()).unwrap_or("");
            let receipt = place
                .receipts
                .read(folder)
                .ok()
                .flatten()
                .filter(|r| r.store.is_some() && r.dir == app.dir);
            (app, folder.to_string(), receipt)
        })
        .collect();
    let mut latest: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut unreachable = Vec::new();
    let slugs: std::collections::BTreeSet<String> =
        receipts.iter().filter_map(|(_, _, r)| r.as_ref()?.store.clone()).collect();
    for slug in slugs {
        let answer = match HubRemote::new(session(&state), &slug) {
            Ok(remote) => remote.store().await,
            Err(error) => Err(error),
        };
        match answer {
            Ok(store) => {
                let items = store.items.into_iter().map(|i| (i.name, i.version)).collect();
                latest.insert(slug, items);
            }
            Err(error) => {
                unreachable.push(Unreachable { team_server: slug, message: error.to_string() })
            }
        }
    }
    let mut apps = Vec::new();
    for (app, folder, receipt) in receipts {
        let Some(receipt) = receipt else {
            apps.push(InstalledApp {
                dir: app.dir.clone(),
                name: app.manifest.name.clone(),
                source: "local".into(),
                team_server: None,
                version: app.manifest.version.clone(),
                pinned: false,
                latest: None,
                update_available: false,
                edited: Vec::new(),
                verified: false,
            });
            continue;
        };
        let slug = receipt.store.clone().unwrap_or_default();
        let version = receipt.version.clone().unwrap_or_default();
        let newest = latest.get(&slug).and_then(|items| items.get(&receipt.name)).cloned();
        let update_available = newest.as_deref().is_some_and(|newest| {
            match (Version::parse(newest), Version::parse(&version)) {
                (Some(newest), Some(installed)) => newest.newer_than(&installed),
                _ => newest != version,
            }
        });
        let edited = clean::check(&place.receipts, &folder, &receipt)?.edited();
        apps.push(InstalledApp {
            dir: app.dir.clone(),
            name: app.manifest.name.clone(),
            source: format!("{slug}@{version}"),
            team_server: Some(slug),
            version,
            pinned: receipt.pinned,
            latest: newest,
            update_available,
            edited,
            verified: receipt.verified,
        });
    }
    let edited = apps.iter().filter(|a| !a.edited.is_empty()).count() as u64;
    Ok(Json(InstalledApps { apps, edited, unreachable }))
}

/// `POST /api/store/install`: `<team-server>/<app>[@X.Y.Z]` into `.cowork/apps/<app>/`.
pub async fn install_app(
    State(state): State<AppState>,
    Body(body): Body<InstallRequest>,
) -> Result<Json<InstallAnswer>, ApiError> {
    let item = spec::parse(&body.item)?;
    let place = place(&state, body.workspace.as_deref())?;
    let remote = remote(&state, &item.slug)?;
    let options =
        InstallOptions { version: item.version.clone(), allow_unverified: body.allow_unverified };
    let name = item.name.clone();
    let done =
        off_thread(move || async move { install::install(&place, &remote, &name, &options).await })
            .await?;
    workspace(&state, body.workspace.as_deref())?.reload();
    Ok(Json(InstallAnswer {
        dir: done.dir,
        name: done.name,
        team_server: item.slug,
        version: done.version,
        pinned: done.pinned,
        verified: done.verified,
        files: done.files as u64,
        blobs: done.fetched.blobs as u64,
    }))
}

/// `POST /api/store/update`: the latest now (unpins); an edited app needs one of the choices.
pub async fn update_app(
    State(state): State<AppState>,
    Body(body): Body<UpdateRequest>,
) -> Result<Json<UpdateAnswer>, ApiError> {
    let place = place(&state, body.workspace.as_deref())?;
    let folder = installed(&place, &body.app)?;
    let receipt = place
        .receipts
        .read(&folder)?
        .ok_or_else(|| StoreError::NotInstalled { dir: Place::dir_of(&folder) })?;
    let slug = receipt.store.clone().unwrap_or_default();
    let remote = remote(&state, &slug)?;
    let choice = match body.choice {
        None => Choice::Named,
        Some(UpdateChoice::Replace) => Choice::Replace,
        Some(UpdateChoice::KeepBoth) => Choice::KeepBoth,
        Some(UpdateChoice::AiMerge) => Choice::AiMerge,
        Some(UpdateChoice::Skip) => Choice::Skip,
    };
    let allow = body.allow_unverified;
    let outcome =
        off_thread(
            move || async move { update::update(&place, &remote, &folder, choice, allow).await },
        )
        .await?;
    workspace(&state, body.workspace.as_deref())?.reload();
    Ok(Json(UpdateAnswer { dir: receipt.dir, team_server: slug, outcome }))
}

/// `POST /api/store/pin`: pin (or unpin) an installed app at the version it has.
pub async fn set_pin(
    State(state): State<AppState>,
    Body(body): Body<PinRequest>,
) -> Result<Json<PinAnswer>, ApiError> {
    let place = place(&state, body.workspace.as_deref())?;
    let folder = installed(&place, &body.app)?;
    let receipt = pin::set(&place, &folder, body.pinned)?;
    Ok(Json(PinAnswer {
        dir: receipt.dir,
        version: receipt.version.unwrap_or_default(),
        pinned: receipt.pinned,
    }))
}

/// `POST /api/store/remove`: deletes what is still as installed, keeps what the person changed
/// or added.
pub async fn remove_app(
    State(state): State<AppState>,
    Body(body): Body<AppRequest>,
) -> Result<Json<RemoveAnswer>, ApiError> {
    let place = place(&state, body.workspace.as_deref())?;
    let folder = installed(&place, &body.app)?;
    let removed = cowork_store::remove::remove(&place, &folder)?;
    workspace(&state, body.workspace.as_deref())?.reload();
    Ok(Json(RemoveAnswer {
        dir: removed.dir,
        deleted: removed.deleted,
        edited: removed.edited,
        added: removed.added,
        folder_removed: removed.folder_removed,
    }))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreQuery {
    team_server: String,
    workspace: Option<PathBuf>,
}

/// `GET /api/store/items`: a team server's store as cards, each with this workspace's copy.
pub async fn items(
    State(state): State<AppState>,
    Query(query): Query<StoreQuery>,
) -> Result<Json<StoreCards>, ApiError> {
    let place = place(&state, query.workspace.as_deref()).ok();
    let store = remote(&state, &query.team_server)?.store().await?;
    let mut copies: BTreeMap<String, InstalledCopy> = BTreeMap::new();
    if let Some(place) = &place {
        for folder in place.receipts.folders().unwrap_or_default() {
            let Some(r) = place.receipts.read(&folder).ok().flatten() else { continue };
            if r.store.as_deref() == Some(query.team_server.as_str()) {
                let copy = InstalledCopy {
                    dir: r.dir,
                    version: r.version.unwrap_or_default(),
                    pinned: r.pinned,
                };
                copies.entry(r.name).or_insert(copy);
            }
        }
    }
    let cards = store
        .items
        .into_iter()
        .map(|item| StoreCard { installed: copies.remove(&item.name), item })
        .collect();
    Ok(Json(StoreCards { team_server: query.team_server, cards }))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemQuery {
    team_server: String,
    name: String,
}

/// `GET /api/store/versions`: one item and the versions its store keeps, newest first.
pub async fn versions(
    State(state): State<AppState>,
    Query(query): Query<ItemQuery>,
) -> Result<Json<ItemVersions>, ApiError> {
    if query.team_server == builtin::SLUG {
        return Ok(Json(Builtin::new().item(&query.name).await?));
    }
    Ok(Json(remote(&state, &query.team_server)?.item(&query.name).await?))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotQuery {
    team_server: String,
    name: String,
    /// Its place on the card, from 0.
    n: usize,
}

/// `GET /api/store/screenshot`: screenshot `n` of an item's store card as an image (the Team
/// Servers cards show it). The blob is checked against the SHA-256 the card names before a byte
/// is served, and only as a raster image it is: an SVG (it can carry script) or anything else is
/// refused rather than served under a guessed type.
pub async fn screenshot(
    State(state): State<AppState>,
    Query(query): Query<ScreenshotQuery>,
) -> Result<axum::response::Response, ApiError> {
    use axum::http::header;
    use axum::response::IntoResponse;
    use sha2::Digest;
    if !cowork_wire::hub::is_item_name(&query.name) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("failed to show a screenshot: {:?} is not an item name", query.name),
        )
        .with_hint("an item's name is lowercase letters, digits and -"));
    }
    let remote = remote(&state, &query.team_server)?;
    let card = remote.item(&query.name).await?.item;
    let Some(sha) = card.screenshots.get(query.n).cloned() else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "failed to show a screenshot: {} has {} on its card, not a number {}",
                query.name,
                card.screenshots.len(),
                query.n + 1
            ),
        ));
    };
    let bytes = remote.blob(&sha).await?;
    let actual = hex::encode(sha2::Sha256::digest(&bytes));
    if actual != sha {
        return Err(StoreError::TamperedBlob {
            item: query.name.clone(),
            path: format!("screenshot {}", query.n + 1),
            why: StoreError::hash_mismatch(&sha, &actual),
        }
        .into());
    }
    let Some(kind) = cowork_store::publish::image_type(&bytes) else {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "failed to show a screenshot of {}: it is not a PNG, JPEG, GIF or WebP image",
                query.name
            ),
        ));
    };
    Ok((
        [
            (header::CONTENT_TYPE, kind),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            // Content-addressed: the same URL may name another blob after a card change.
            (header::CACHE_CONTROL, "no-cache"),
        ],
        bytes,
    )
        .into_response())
}

/// `GET /api/store/templates`: the built-in store's templates (always there, no network), then
/// each of the account's team servers' (one that does not answer is named).
pub async fn templates(State(state): State<AppState>) -> Result<Json<Templates>, ApiError> {
    let builtin = Builtin::new();
    let mut templates: Vec<TemplateCard> = builtin
        .store()
        .await?
        .items
        .into_iter()
        .map(|item| TemplateCard { store: builtin::SLUG.into(), item })
        .collect();
    let mut unreachable = Vec::new();
    let session = session(&state);
    if session.signed_in().ok().flatten().is_some() {
        let slugs = session
            .call(|hub| async move { hub.team_servers().await })
            .await
            .map(|list| list.team_servers.into_iter().map(|t| t.slug).collect::<Vec<_>>());
        match slugs {
            Ok(slugs) => {
                for slug in slugs {
                    match remote(&state, &slug)?.store().await {
                        Ok(store) => templates.extend(
                            store
                                .items
                                .into_iter()
                                .filter(|i| i.kind == ItemKind::Template)
                                .map(|item| TemplateCard { store: slug.clone(), item }),
                        ),
                        Err(error) => unreachable
                            .push(Unreachable { team_server: slug, message: error.to_string() }),
                    }
                }
            }
            Err(error) => unreachable
                .push(Unreachable { team_server: String::new(), message: error.to_string() }),
        }
    }
    Ok(Json(Templates { templates, unreachable }))
}

/// `POST /api/store/templates/scaffold`: `cowork template install <store>/<template> --name`.
pub async fn scaffold(
    State(state): State<AppState>,
    Body(body): Body<ScaffoldRequest>,
) -> Result<Json<ScaffoldAnswer>, ApiError> {
    let item = spec::parse(&body.template)?;
    if item.version.is_some() {
        return Err(StoreError::BadSpec {
            spec: body.template,
            why: "a template is scaffolded from its latest version".into(),
        }
        .into());
    }
    let place = place(&state, body.workspace.as_deref())?;
    let options = cowork_store::template::Scaffold { component: body.name, ..Default::default() };
    let remote = (item.slug != builtin::SLUG).then(|| remote(&state, &item.slug)).transpose()?;
    let name = item.name.clone();
    let done = off_thread(move || async move {
        match remote {
            Some(remote) => {
                cowork_store::template::scaffold(&place, &remote, &name, &options).await
            }
            None => {
                cowork_store::template::scaffold(&place, &Builtin::new(), &name, &options).await
            }
        }
    })
    .await?;
    workspace(&state, body.workspace.as_deref())?.reload();
    Ok(Json(ScaffoldAnswer {
        dir: done.dir,
        subtype: done.subtype,
        files: done.files,
        missing: done.missing,
    }))
}

/// `GET /api/store/courses`: the account's course subscriptions.
pub async fn courses(State(state): State<AppState>) -> Result<Json<Subscriptions>, ApiError> {
    let list = session(&state).call(|hub| async move { hub.subscriptions().await }).await;
    Ok(Json(list.map_err(StoreError::from)?))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CourseQuery {
    team_server: String,
    course: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CourseViewQuery {
    team_server: String,
    course: String,
    workspace: Option<PathBuf>,
}

/// `GET /api/store/course`: a course's latest version, verified and read, lessons in order.
pub async fn course(
    State(state): State<AppState>,
    Query(query): Query<CourseViewQuery>,
) -> Result<Json<CourseView>, ApiError> {
    let place = place(&state, query.workspace.as_deref())?;
    let remote = remote(&state, &query.team_server)?;
    let name = query.course.clone();
    let read =
        off_thread(
            move || async move { cowork_store::academy::read(&place, &remote, &name).await },
        )
        .await?;
    Ok(Json(CourseView {
        team_server: query.team_server,
        course: read.name,
        version: read.version,
        title: read.title,
        level: read.level,
        description: read.description,
        lessons: read
            .lessons
            .into_iter()
            .map(|l| LessonView {
                id: l.id,
                title: l.title,
                minutes: l.minutes,
                video: l.video,
                body: l.body,
            })
            .collect(),
    }))
}

/// `GET /api/store/progress`: the lessons this account has done in a course.
pub async fn progress(
    State(state): State<AppState>,
    Query(query): Query<CourseQuery>,
) -> Result<Json<CourseProgress>, ApiError> {
    let CourseQuery { team_server, course } = query;
    let answer = session(&state)
        .call(|hub| {
            let (team_server, course) = (team_server.clone(), course.clone());
            async move { hub.course_progress(&team_server, &course).await }
        })
        .await;
    Ok(Json(answer.map_err(StoreError::from)?))
}

/// `POST /api/store/progress`: a lesson marked done (or not); progress is kept by the hub.
pub async fn set_progress(
    State(state): State<AppState>,
    Body(body): Body<LessonDoneRequest>,
) -> Result<Json<CourseProgress>, ApiError> {
    let LessonDoneRequest { team_server, course, lesson, done } = body;
    let answer = session(&state)
        .call(|hub| {
            let (team_server, course, lesson) =
                (team_server.clone(), course.clone(), lesson.clone());
            async move { hub.set_lesson(&team_server, &course, &lesson, done).await }
        })
        .await;
    Ok(Json(answer.map_err(StoreError::from)?))
}

/// `POST /api/store/subscription`: subscribe to a course of a team server's store (or not); the
/// answer is the account's subscriptions after it, what the Academy lists.
pub async fn set_subscription(
    State(state): State<AppState>,
    Body(body): Body<SubscriptionRequest>,
) -> Result<Json<Subscriptions>, ApiError> {
    let SubscriptionRequest { team_server, course, subscribed } = body;
    if !cowork_wire::hub::is_item_name(&course) {
        return Err(StoreError::BadSpec {
            spec: format!("{team_server}/{course}"),
            why: "a course's name is lowercase letters, digits and -".into(),
        }
        .into());
    }
    let session = session(&state);
    let changed = session
        .call(|hub| {
            let (team_server, course) = (team_server.clone(), course.clone());
            async move {
                match subscribed {
                    true => hub.subscribe(&team_server, &course).await.map(drop),
                    false => hub.unsubscribe(&team_server, &course).await,
                }
            }
        })
        .await;
    changed.map_err(StoreError::from)?;
    let list = session.call(|hub| async move { hub.subscriptions().await }).await;
    Ok(Json(list.map_err(StoreError::from)?))
}

/// `GET /api/store/workspace-courses`: the workspace's courses and lessons as files, each
/// course's problems named with their file (Manage Workspace › Components).
pub async fn workspace_courses(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<WorkspaceCourses>, ApiError> {
    let ws = workspace(&state, query.workspace.as_deref())?;
    let root = ws.root().to_path_buf();
    let (courses, loose) = tokio::task::spawn_blocking(move || {
        let rel = |p: &Path| p.strip_prefix(&root).unwrap_or(p).display().to_string();
        let lesson = |l: cowork_store::course::Lesson| WorkspaceLesson {
            path: rel(&l.dir.join("lesson.md")),
            id: l.id,
            title: l.title,
            minutes: l.minutes,
            video: l.video,
        };
        let (courses, loose) = cowork_store::course::list(&root);
        let courses = courses
            .into_iter()
            .map(|listed| WorkspaceCourse {
                path: format!(".cowork/courses/{}/course.md", listed.course.name),
                name: listed.course.name,
                title: listed.course.title,
                level: listed.course.level,
                lessons: listed.course.lessons.into_iter().map(lesson).collect(),
                problems: listed
                    .problems
                    .into_iter()
                    .map(|p| CourseProblem { file: p.file, message: p.message })
                    .collect(),
            })
            .collect::<Vec<_>>();
        (courses, loose.into_iter().map(lesson).collect::<Vec<_>>())
    })
    .await
    .map_err(|e| ApiError::internal("failed to list the workspace's courses", &e))?;
    Ok(Json(WorkspaceCourses { courses, lessons: loose }))
}

/// The store's routes, merged into the owner's router (its gate applies to them).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/api/store/apps", get(apps))
        .route("/api/store/install", post(install_app))
        .route("/api/store/update", post(update_app))
        .route("/api/store/pin", post(set_pin))
        .route("/api/store/remove", post(remove_app))
        .route("/api/store/items", get(items))
        .route("/api/store/versions", get(versions))
        .route("/api/store/screenshot", get(screenshot))
        .route("/api/store/templates", get(templates))
        .route("/api/store/templates/scaffold", post(scaffold))
        .route("/api/store/courses", get(courses))
        .route("/api/store/course", get(course))
        .route("/api/store/progress", get(progress).post(set_progress))
        .route("/api/store/subscription", post(set_subscription))
        .route("/api/store/workspace-courses", get(workspace_courses))
}
