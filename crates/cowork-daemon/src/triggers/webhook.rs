//! `POST /hooks/<workspace key>/<routine id>`: a routine's webhook, answered here in either mode.
//!
//! No owner token (the caller is another program, maybe on another machine through a tunnel):
//! what guards it is the owner's arming, the routine's own `--hook-token` (from the secret store,
//! compared in constant time) and its `corsOrigin`. The JSON body is the run's args (an empty body
//! is `{}`); the answer is the run's, as `POST /api/routines/run` gives it. Every refusal after the
//! routine is known — token, origin, not armed, switched off, not JSON — is answered with a named
//! 4xx and written to the workspace's audit log as a denied `webhook` call.

use crate::error::ApiError;
use crate::guard::same_token;
use crate::routines::RunAnswer;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cowork_core::arming::{self, Arming};
use cowork_core::audit::{Context, Outcome, Record, RecordedError, Status};
use cowork_core::deployments::{self, Deployment, Trigger};
use cowork_core::paths::Root;
use cowork_engine::{RunRequest, Source, Workspace};
use serde_json::Value;
use std::sync::Arc;

/// The header a caller sends the hook token in.
pub const TOKEN_HEADER: &str = "x-cowork-hook-token";

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
            cowork_engine::ErrorName::NotFound,
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

    /// Refuses a missing or wrong token when the hook asks for one.
    fn check_token(&self, state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
        if !self.deployment.hook_token {
            return Ok(());
        }
        let name = deployments::hook_token_secret(self.ws.root(), &self.id);
        let expected = state.engine.secrets()?.get(&name)?;
        let given = headers.get(TOKEN_HEADER).and_then(|v| v.to_str().ok());
        match (given, expected) {
            (Some(given), Some(expected)) if same_token(given, &expected) => Ok(()),
            _ => Err(ApiError::own(
                StatusCode::FORBIDDEN,
                "Forbidden",
                format!("missing or wrong {TOKEN_HEADER} header"),
            )),
        }
    }

    /// Refuses a routine whose webhook is not armed here, or that is switched off.
    fn check_armed(&self) -> Result<(), ApiError> {
        let armed = Arming::new(&self.root, self.ws.root()).read().unwrap_or_default();
        if !armed.fires(&self.id, &Trigger::Webhook) {
            return Err(ApiError::own(
                StatusCode::CONFLICT,
                "NotArmed",
                format!("the webhook of {} is not armed on this machine (its owner runs `cowork routine active {} on`)", self.id, self.id),
            ));
        }
        if self.ws.registry().routine(&self.id).is_none_or(|r| r.disabled) {
            return Err(ApiError::own(
                StatusCode::CONFLICT,
                "RoutineDisabled",
                format!("{} is switched off in this workspace", self.id),
            ));
        }
        Ok(())
    }

    /// Writes a refused call to the audit log: a denied `webhook` line naming the refusal.
    fn audit_refusal(&self, error: &ApiError) {
        let (name, message) = error.name_and_message();
        let identity = self.ws.identity();
        let context = Context {
            execution_id: hex::encode(rand::random::<[u8; 16]>()),
            user_id: identity.user_id(),
            organization_id: identity.organization_id(),
            device_id: self.root.device_id(),
            workspace: self.ws.display(),
            source: "webhook".into(),
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
        if let Err(error) = self.ws.audit().append(&record) {
            tracing::error!(%error, routine = %self.id, "a refused webhook call was not audited");
        }
    }
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

/// `POST /hooks/{key}/{id}`: runs the routine with the body as its args.
pub async fn call(
    State(state): State<AppState>,
    Path((key, id)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let hook = find(&state, &key, &id)?;
    let checked = hook.allow_origin(origin(&headers)).and_then(|allow| {
        hook.check_token(&state, &headers)?;
        hook.check_armed()?;
        Ok((allow, args_of(&body)?))
    });
    let (allow, args) = match checked {
        Ok(checked) => checked,
        Err(error) => {
            hook.audit_refusal(&error);
            return Err(error);
        }
    };
    let ws = hook.ws.clone();
    let request = RunRequest::new(hook.id, args, Source::Webhook);
    // Detached, as `routines::run`: a caller that hangs up does not stop the run or its audit line.
    let outcome = tokio::spawn(async move { ws.run(request).await })
        .await
        .map_err(|error| ApiError::internal("the run failed inside the daemon", &error))?;
    let status = match &outcome {
        Ok(_) => StatusCode::OK,
        Err(failure) if failure.name.as_str() == "TooManyRoutines" => StatusCode::TOO_MANY_REQUESTS,
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let answer: RunAnswer = outcome.into();
    Ok(with_origin((status, Json(answer)).into_response(), allow))
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
