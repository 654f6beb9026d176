//! `POST /hooks/<workspace key>/<routine id>`: a routine's webhook, answered here in either mode.
//!
//! No owner token (the caller is another program, maybe on another machine through a tunnel):
//! what guards it is the owner's arming, the routine's own `--hook-token` (from the secret store,
//! compared in constant time) and its `corsOrigin`. The JSON body is the run's args (an empty body
//! is `{}`); the answer is the run's, as `POST /api/routines/run` gives it. Every refusal after the
//! routine is known — token, origin, not armed, switched off, not JSON — is answered with a named
//! 4xx and written to the workspace's audit log as a denied `webhook` call (bounded: one full line
//! and one summary line a minute per hook, see `AuditLog::append_refusal`).
//!
//! The order of the checks: the hook (404), its origin, its token, its arming — all from the
//! request's head — and only then is the body read. A caller who may not run the routine never
//! gets the daemon to take in a body.
//!
//! While every slot is busy the call waits in the webhook line (`cowork_engine::slots`); a full
//! line, or 30 s in it, is a 429 `TooManyRoutines` with `Retry-After` (audited by the engine).

use crate::error::ApiError;
use crate::guard::same_token;
use crate::state::AppState;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cowork_core::audit::{Context, Outcome, Record, RecordedError, Refusal, Status};
use cowork_core::paths::Root;
use cowork_core::triggers::arming::{self, Armed, Arming};
use cowork_core::triggers::deployments::{self, Deployment};
use cowork_engine::{run_answer, ErrorName, RunRequest, SlotWait, Source, Workspace};
use cowork_wire::daemon::runs::{RunAnswer, RunError};
use serde_json::Value;
use std::sync::Arc;

/// The header a caller sends the hook token in.
pub const TOKEN_HEADER: &str = "x-cowork-hook-token";

/// The largest body a call may send (its args), as axum's default for a JSON body.
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// A webhook that exists: its workspace, routine and deployment.
struct Hook {
    root: Root,
    ws: Arc<Workspace>,
    id: String,
    deployment: Deployment,
}

/// Finds the webhook of routine `id` in the workspace whose key is `key`; a workspace never armed
/// on this machine, or a routine without a webhook, is 404.
fn find(state: &AppState, key: &str, id: &str) -> Result<Hook, ApiError> {
    let not_found = || {
        ApiError::named(
            StatusCode::NOT_FOUND,
            ErrorName::NotFound,
            format!("no webhook \"{id}\" here: `cowork deploy hooks` prints the URLs this machine answers"),
        )
    };
    let workspace = arming::workspace_of_key(state.engine.root(), key).ok_or_else(not_found)?;
    let ws = state.engine.workspace(&workspace).map_err(|_| not_found())?;
    let deployment = deployments::of(&ws.registry().config)
        .remove(id)
        .filter(|d| d.webhook)
        .ok_or_else(not_found)?;
    Ok(Hook { root: state.engine.root().clone(), ws, id: id.to_owned(), deployment })
}

impl Hook {
    /// The `Access-Control-Allow-Origin` this hook answers a request from `origin` with, or a
    /// refusal when the origin is not the one it allows.
    fn allow_origin(&self, origin: Option<&str>) -> Result<Option<HeaderValue>, ApiError> {
        let allowed = self.deployment.cors_origin.as_deref().unwrap_or("*");
        let Some(origin) = origin else { return Ok(None) };
        if allowed == "*" {
            return Ok(Some(HeaderValue::from_static("*")));
        }
        if origin == allowed {
            return Ok(HeaderValue::from_str(origin).ok());
        }
        Err(ApiError::own(
            StatusCode::FORBIDDEN,
            "OriginNotAllowed",
            format!("this webhook answers pages from {allowed} only, not {origin}"),
        ))
    }

    /// Refuses a missing or wrong token when the hook asks for one — in `workspace.json` or as
    /// its owner armed it: a token taken off the file since is still asked for (and the hook is
    /// refused as changed since armed after that).
    fn check_token(
        &self,
        state: &AppState,
        armed: &Armed,
        headers: &HeaderMap,
    ) -> Result<(), ApiError> {
        let armed_with_token = armed
            .routines
            .get(&self.id)
            .and_then(|s| s.digest.as_ref())
            .is_some_and(|d| d.hook_token);
        if !self.deployment.hook_token && !armed_with_token {
            return Ok(());
        }
        let name = deployments::hook_token_secret(self.ws.root(), &self.id);
        let expected = state.engine.secrets()?.get(&name)?;
        let given = headers.get(TOKEN_HEADER).and_then(|v| v.to_str().ok());
        match (given, expected) {
            (Some(given), Some(expected)) if same_token(given, &expected) => Ok(()),
            _ => Err(ApiError::named(
                StatusCode::FORBIDDEN,
                ErrorName::Forbidden,
                format!("missing or wrong {TOKEN_HEADER} header"),
            )),
        }
    }

    /// Refuses a routine whose webhook is not armed here (or no longer as it was armed), or that
    /// is switched off.
    fn check_armed(&self, armed: &Armed) -> Result<(), ApiError> {
        if let Some(change) = armed.change(&self.id, &self.deployment) {
            return Err(ApiError::own(
                StatusCode::CONFLICT,
                "NotArmed",
                format!("the triggers of {} changed since its owner armed them ({change}): nothing fires until they confirm it with `cowork routine active {} on`", self.id, self.id),
            ));
        }
        if !armed.fires(&self.id, &self.deployment) {
            return Err(ApiError::own(
                StatusCode::CONFLICT,
                "NotArmed",
                format!("the webhook of {} is not armed on this machine (its owner runs `cowork routine active {} on`)", self.id, self.id),
            ));
        }
        if self.ws.registry().routine(&self.id).is_none_or(|r| r.disabled) {
            return Err(ApiError::named(
                StatusCode::CONFLICT,
                ErrorName::RoutineDisabled,
                format!("{} is switched off in this workspace", self.id),
            ));
        }
        Ok(())
    }

    /// Writes a refused call to the audit log: a denied `webhook` line naming the refusal, or
    /// counted into the minute's summary line, which a task writes when the minute ends (or the
    /// daemon stops).
    fn audit_refusal(&self, state: &AppState, error: &ApiError) {
        let (name, message) = error.name_and_message();
        let identity = self.ws.identity();
        let context = Context {
            run_id: hex::encode(rand::random::<[u8; 16]>()),
            user_id: identity.user_id(),
            organization_id: identity.organization_id(),
            device_id: self.root.device_id(),
            workspace: self.ws.display(),
            source: Source::Webhook,
            principal: None,
            agent: None,
            task_id: None,
            app_id: None,
            app_version: None,
            kind: None,
            caller: None,
        };
        let outcome = Outcome {
            status: Status::Denied,
            error: Some(RecordedError { name, message }),
            result: None,
            log_lines: &[],
            unchanged: false,
            mask: None,
        };
        let now = time::OffsetDateTime::now_utc();
        let record = Record::finish(now, &self.id, &Value::Null, 0, context, outcome);
        match self.ws.audit().append_refusal(&record) {
            Ok(Refusal::Counted { first: true, flush_at }) => {
                let ws = self.ws.clone();
                let mut stopping = state.stopping.clone();
                let wait = (flush_at - time::OffsetDateTime::now_utc()).max(time::Duration::ZERO);
                let wait = std::time::Duration::try_from(wait).unwrap_or_default();
                tokio::spawn(async move {
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        _ = stopping.wait_for(|stopping| *stopping) => {}
                    }
                    let now = time::OffsetDateTime::now_utc().max(flush_at);
                    if let Err(error) = ws.audit().flush_refusals(Some(now)) {
                        tracing::error!(%error, "refused webhook calls were not summarized in the audit log");
                    }
                });
            }
            Ok(_) => {}
            Err(error) => {
                tracing::error!(%error, routine = %self.id, "a refused webhook call was not audited");
            }
        }
    }
}

/// Reads the body (at most [`BODY_LIMIT`]: a larger `Content-Length` is refused unread) and makes
/// it the call's args.
async fn read_args(headers: &HeaderMap, body: Body) -> Result<Value, ApiError> {
    use futures_util::StreamExt;
    let too_large = || {
        ApiError::named(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorName::TooLarge,
            format!("the body is larger than {} MiB: send smaller args", BODY_LIMIT / 1024 / 1024),
        )
    };
    let announced =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if announced.is_some_and(|length| length > BODY_LIMIT as u64) {
        return Err(too_large());
    }
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|error| {
            ApiError::named(
                StatusCode::BAD_REQUEST,
                ErrorName::BadRequest,
                format!(
                    "failed to read the body ({error}): send the routine's args as a JSON value"
                ),
            )
        })?;
        if bytes.len() + chunk.len() > BODY_LIMIT {
            return Err(too_large());
        }
        bytes.extend_from_slice(&chunk);
    }
    args_of(&bytes)
}

/// The args of a call: the JSON body, `{}` when it is empty.
fn args_of(body: &[u8]) -> Result<Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(body).map_err(|e| {
        ApiError::own(
            StatusCode::BAD_REQUEST,
            "InvalidJson",
            format!("the body is not JSON ({e}): send the routine's args as a JSON value, or nothing for {{}}"),
        )
    })
}

fn with_origin(mut response: Response, allow: Option<HeaderValue>) -> Response {
    if let Some(allow) = allow {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allow);
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    response
}

fn origin(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::ORIGIN).and_then(|v| v.to_str().ok())
}

/// `POST /hooks/{key}/{id}`: runs the routine with the body as its args. The body is read only
/// once the request's head passed every check.
pub async fn call(
    State(state): State<AppState>,
    Path((key, id)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let hook = find(&state, &key, &id)?;
    let armed = Arming::new(&hook.root, hook.ws.root()).read().unwrap_or_default();
    let head = hook.allow_origin(origin(&headers)).and_then(|allow| {
        hook.check_token(&state, &armed, &headers)?;
        hook.check_armed(&armed)?;
        Ok(allow)
    });
    let checked = match head {
        Ok(allow) => read_args(&headers, body).await.map(|args| (allow, args)),
        Err(error) => Err(error),
    };
    let (allow, args) = match checked {
        Ok(checked) => checked,
        Err(error) => {
            hook.audit_refusal(&state, &error);
            return Err(error);
        }
    };
    let ws = hook.ws.clone();
    let mut request = RunRequest::new(hook.id, args, Source::Webhook);
    request.slot_wait = SlotWait::Webhook;
    // Detached, as `routines::run`: a caller that hangs up does not stop the run or its audit line.
    let outcome = tokio::spawn(async move { ws.run(request).await })
        .await
        .map_err(|error| ApiError::internal("the run failed inside the daemon", &error))?;
    let answer = match outcome {
        Err(failure) if failure.name == ErrorName::TooManyRoutines => {
            return Ok(with_origin(too_many(failure), allow));
        }
        Ok(_) => (StatusCode::OK, Json(run_answer(outcome))),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, Json(run_answer(outcome))),
    };
    Ok(with_origin(answer.into_response(), allow))
}

/// A call that got no slot: 429 with `Retry-After`, so a caller that retries comes back once
/// runs had time to end.
fn too_many(failure: cowork_engine::RunFailure) -> Response {
    let retry = cowork_engine::slots::RETRY_AFTER.as_secs();
    let hint = format!("send the call again after {retry} s (the Retry-After header); its owner can raise `cowork start --slots` or `--queue`");
    let answer = RunAnswer::Failed {
        ok: cowork_wire::daemon::Flag,
        error: RunError { failure, hint: Some(hint) },
    };
    let mut response = (StatusCode::TOO_MANY_REQUESTS, Json(answer)).into_response();
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry));
    response
}

/// `OPTIONS /hooks/{key}/{id}`: the CORS preflight, for the allowed origin only.
pub async fn preflight(
    State(state): State<AppState>,
    Path((key, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let hook = find(&state, &key, &id)?;
    let allow = hook.allow_origin(origin(&headers))?;
    let mut response = StatusCode::NO_CONTENT.into_response();
    let h = response.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("POST"));
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("content-type, x-cowork-hook-token"),
    );
    h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    Ok(with_origin(response, allow))
}
