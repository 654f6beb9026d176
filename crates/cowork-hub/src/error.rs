//! [`HubErr`]: every refusal and failure of the hub, named (`cowork_wire::hub::HubErrorName`), with
//! the status that goes with the name, a message for the person and a hint. `/api` routes answer it
//! as `{ "error": { name, message, hint? } }`; the OAuth endpoints as RFC 6749's `{ error,
//! error_description }` (`HubErr::oauth`); the pages as a page (pages.rs). Failures inside the hub
//! (a query that broke) are logged with their details and answered generically.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cowork_wire::hub::{ErrorBody, HubError, HubErrorName, OAuthErrorBody, OAuthErrorCode};

/// A refusal or failure, ready to answer.
#[derive(Debug, Clone)]
pub struct HubErr {
    pub status: StatusCode,
    pub name: HubErrorName,
    pub message: String,
    pub hint: Option<String>,
    /// Seconds, on `RateLimited`.
    pub retry_after: Option<u64>,
    /// Set on the OAuth endpoints: answered in RFC 6749's shape with this code.
    pub oauth: Option<OAuthErrorCode>,
}

impl std::fmt::Display for HubErr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for HubErr {}

fn status_of(name: HubErrorName) -> StatusCode {
    match name {
        HubErrorName::BadRequest | HubErrorName::Unknown => StatusCode::BAD_REQUEST,
        HubErrorName::NotSignedIn
        | HubErrorName::InvalidToken
        | HubErrorName::SessionExpired
        | HubErrorName::SessionRevoked
        | HubErrorName::InvalidCredentials => StatusCode::UNAUTHORIZED,
        HubErrorName::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        HubErrorName::CsrfMismatch
        | HubErrorName::NotMember
        | HubErrorName::NotAdmin
        | HubErrorName::NotOwner => StatusCode::FORBIDDEN,
        HubErrorName::NotFound => StatusCode::NOT_FOUND,
        HubErrorName::AlreadyExists
        | HubErrorName::Conflict
        | HubErrorName::VersionTaken
        | HubErrorName::VersionBehind
        | HubErrorName::MissingBlobs => StatusCode::CONFLICT,
        HubErrorName::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
        HubErrorName::PreconditionRequired => StatusCode::PRECONDITION_REQUIRED,
        HubErrorName::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        HubErrorName::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        HubErrorName::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
    }
}

impl HubErr {
    /// A refusal with its name's status.
    pub fn new(name: HubErrorName, message: impl Into<String>) -> HubErr {
        HubErr {
            status: status_of(name),
            name,
            message: message.into(),
            hint: None,
            retry_after: None,
            oauth: None,
        }
    }

    /// The same with what to do about it.
    pub fn hint(mut self, hint: impl Into<String>) -> HubErr {
        self.hint = Some(hint.into());
        self
    }

    pub fn bad_request(message: impl Into<String>) -> HubErr {
        HubErr::new(HubErrorName::BadRequest, message)
    }

    pub fn not_found(message: impl Into<String>) -> HubErr {
        HubErr::new(HubErrorName::NotFound, message)
    }

    /// Too many attempts; try again in `seconds`.
    pub fn rate_limited(what: &str, seconds: u64) -> HubErr {
        let mut error = HubErr::new(
            HubErrorName::RateLimited,
            format!("too many {what}: try again in {seconds} s"),
        )
        .hint("wait, then try again; an admin can see the attempts in the hub's log");
        error.retry_after = Some(seconds.max(1));
        error
    }

    /// An OAuth endpoint's refusal.
    pub fn oauth(code: OAuthErrorCode, description: impl Into<String>) -> HubErr {
        let status = match code {
            OAuthErrorCode::InvalidClient => StatusCode::UNAUTHORIZED,
            OAuthErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            _ => StatusCode::BAD_REQUEST,
        };
        HubErr {
            status,
            name: HubErrorName::BadRequest,
            message: description.into(),
            hint: None,
            retry_after: None,
            oauth: Some(code),
        }
    }

    /// This refusal, answered in the OAuth shape (a rate limit keeps its Retry-After).
    pub fn as_oauth(mut self) -> HubErr {
        if self.oauth.is_none() {
            let code = match self.name {
                HubErrorName::RateLimited => OAuthErrorCode::RateLimited,
                HubErrorName::Internal | HubErrorName::Unavailable => return self,
                HubErrorName::BadRequest => OAuthErrorCode::InvalidRequest,
                _ => OAuthErrorCode::InvalidGrant,
            };
            self.oauth = Some(code);
            if code == OAuthErrorCode::InvalidGrant {
                self.status = StatusCode::BAD_REQUEST;
            }
        }
        self
    }

    /// A failure inside the hub: details to the log, a generic message to the caller.
    pub fn internal(what: &str, error: &dyn std::fmt::Display) -> HubErr {
        tracing::error!(%error, "{what}");
        HubErr::new(HubErrorName::Internal, format!("{what} (see the hub's log)"))
    }

    /// A back end that did not answer.
    pub fn unavailable(what: impl Into<String>, error: impl std::fmt::Display) -> HubErr {
        let what = what.into();
        tracing::error!(%error, "{what}");
        HubErr::new(HubErrorName::Unavailable, format!("{what}: {error}"))
            .hint("check that the database / object store is up and reachable from the hub")
    }

    /// A start-up problem: bad flags, a folder that cannot be made.
    pub fn config(message: impl Into<String>, hint: impl Into<String>) -> HubErr {
        HubErr::new(HubErrorName::BadRequest, message).hint(hint)
    }
}

impl From<sqlx::Error> for HubErr {
    fn from(error: sqlx::Error) -> HubErr {
        match &error {
            sqlx::Error::PoolTimedOut | sqlx::Error::Io(_) | sqlx::Error::PoolClosed => {
                HubErr::unavailable("failed to reach the database", error)
            }
            _ => HubErr::internal("failed to query the database", &error),
        }
    }
}

/// Whether a database error is a unique-constraint violation (a concurrent insert won).
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => db.is_unique_violation(),
        _ => false,
    }
}

impl IntoResponse for HubErr {
    fn into_response(self) -> Response {
        let mut response = match self.oauth {
            Some(code) => (
                self.status,
                Json(OAuthErrorBody { error: code, error_description: Some(self.message) }),
            )
                .into_response(),
            None => (
                self.status,
                Json(ErrorBody {
                    error: HubError { name: self.name, message: self.message, hint: self.hint },
                }),
            )
                .into_response(),
        };
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"cowork-hub\""),
            );
        }
        response
    }
}
