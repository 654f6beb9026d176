//! The daemon's one error answer: cowork-wire's `ErrorBody` (`{ "error": { "name", "message",
//! "hint"? } }`) with the HTTP status, built from each library's error by a `From` impl so
//! handlers use `?`; and [`Body`], the JSON extractor whose refusal is that same answer, naming the
//! field that did not parse.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use cowork_engine::{CtxError, ErrorName};
use cowork_wire::daemon::ErrorBody;

/// A request the daemon cannot serve: the status, the name a caller branches on, and a message
/// for the person.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    error: CtxError,
}

impl ApiError {
    /// An error named after its status, so a caller can branch on the name alone: `NotFound`
    /// (404), `Forbidden` (401, 403), `TooLarge` (413), `Busy` (409: something else holds it),
    /// `Unavailable` (503); `BadRequest` otherwise.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        let name = match status {
            StatusCode::NOT_FOUND => ErrorName::NotFound,
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => ErrorName::Forbidden,
            StatusCode::PAYLOAD_TOO_LARGE => ErrorName::TooLarge,
            StatusCode::CONFLICT => ErrorName::Busy,
            StatusCode::SERVICE_UNAVAILABLE => ErrorName::Unavailable,
            _ => ErrorName::BadRequest,
        };
        ApiError::named(status, name, message)
    }

    /// An error with a name of its own (`NotHere`, `TooLarge`).
    pub fn named(status: StatusCode, name: ErrorName, message: impl Into<String>) -> Self {
        ApiError { status, error: CtxError::new(name, message) }
    }

    /// The same error with what to do about it.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.error.hint = Some(hint.into());
        self
    }

    /// A name Cowork's [`ErrorName`] does not list, used by one route only (`Binary`).
    pub fn own(status: StatusCode, name: &str, message: impl Into<String>) -> Self {
        ApiError::named(status, ErrorName::Other(name.to_string()), message)
    }

    /// The same error with what to do about it.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.error = self.error.with_hint(hint);
        self
    }

    /// The name and message, as an audit line records a refusal.
    pub fn name_and_message(&self) -> (ErrorName, String) {
        (self.error.name.clone(), self.error.message.clone())
    }

    /// A failure inside the daemon: the details go to its log, the caller gets a generic message.
    pub fn internal(what: &str, error: &dyn std::fmt::Display) -> Self {
        tracing::error!(%error, "{what}");
        ApiError::own(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal",
            format!("{what} (see its log)"),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(ErrorBody { error: self.error })).into_response()
    }
}

/// A workspace that cannot be opened: the caller named it wrong.
impl From<cowork_engine::EngineError> for ApiError {
    fn from(error: cowork_engine::EngineError) -> Self {
        match &error {
            cowork_engine::EngineError::Symlinked(link) => {
                let name = ErrorName::SymlinkedFolder;
                ApiError::named(StatusCode::FORBIDDEN, name, error.to_string())
                    .with_hint(link.hint())
            }
            _ => ApiError::new(StatusCode::BAD_REQUEST, error.to_string()),
        }
    }
}

/// The secret store cannot be reached now (its key is missing or locked).
impl From<cowork_secrets::SecretError> for ApiError {
    fn from(error: cowork_secrets::SecretError) -> Self {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, error.to_string())
    }
}

/// A key that does not fit its connection's fields, or a connection nobody declared.
impl From<cowork_engine::credentials::CredentialError> for ApiError {
    fn from(error: cowork_engine::credentials::CredentialError) -> Self {
        let status = match error {
            cowork_engine::credentials::CredentialError::Unknown(_) => StatusCode::NOT_FOUND,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, error.to_string())
    }
}

/// A switch the person's `workspace.json` refused: invalid against the schema, or an edit of
/// theirs (not JSON, a key holding something else) that comes first.
impl From<cowork_core::workspace_json::WorkspaceJsonError> for ApiError {
    fn from(error: cowork_core::workspace_json::WorkspaceJsonError) -> Self {
        match error {
            cowork_core::workspace_json::WorkspaceJsonError::Invalid { .. } => {
                ApiError::own(StatusCode::BAD_REQUEST, "InvalidWorkspaceJson", error.to_string())
            }
            _ => ApiError::own(StatusCode::CONFLICT, "InvalidWorkspaceJson", error.to_string()),
        }
    }
}

/// A body that is not JSON, or misses or mistypes a field: axum's message names the field
/// (`Failed to deserialize the JSON body into the target type: id: missing field ...`).
impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        ApiError::new(rejection.status(), rejection.body_text())
    }
}

/// `axum::Json` as an extractor whose refusal is an [`ApiError`] (JSON naming the field), not
/// axum's plain text.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let Json(value) = Json::<T>::from_request(request, state).await?;
        Ok(Body(value))
    }
}
