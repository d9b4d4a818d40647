//! The API's one error type, rendered as `application/problem+json` (RFC 9457).
//!
//! `type` is a stable URI reference (`/problems/<slug>`), `title` a fixed phrase per type,
//! `detail` a sentence for the user. Internal errors are logged with their cause and answered
//! with a generic text: no SQL, path or stack reaches a client.

use axum::Json;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use mcpbench_core::CoreError;
use mcpbench_db::DbError;
use mcpbench_sets::SetError;
use serde::Serialize;
use utoipa::ToSchema;

/// An RFC 9457 problem document.
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    /// A stable identifier of the kind of problem, such as `/problems/not-found`.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
}

pub const PROBLEM_JSON: &str = "application/problem+json";

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    slug: &'static str,
    title: &'static str,
    detail: String,
    /// Seconds to wait before trying again (`Retry-After`), for 429 and 503 answers.
    retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, slug: &'static str, title: &'static str, detail: String) -> Self {
        Self {
            status,
            slug,
            title,
            detail,
            retry_after: None,
        }
    }

    /// Too many requests of one kind from one client: try again in `retry_after`.
    pub fn rate_limited(detail: impl Into<String>, retry_after: std::time::Duration) -> Self {
        Self {
            // Whole seconds, rounded up, and never 0: a client told 0 would retry at once.
            retry_after: Some(retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0)),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate-limited",
                "Too many requests",
                detail.into(),
            )
        }
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "bad-request",
            "Bad request",
            detail.into(),
        )
    }

    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "Unauthorized",
            detail.into(),
        )
    }

    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "Forbidden",
            detail.into(),
        )
    }

    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "not-found",
            "Not found",
            detail.into(),
        )
    }

    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", "Conflict", detail.into())
    }

    pub fn too_large(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too-large",
            "Request body too large",
            detail.into(),
        )
    }

    pub fn unsupported_media(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported-media-type",
            "Unsupported media type",
            detail.into(),
        )
    }

    /// Well-formed but unacceptable: an unsafe endpoint, an unsupported kind, a closed set.
    pub fn unprocessable(slug: &'static str, detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            slug,
            "Unprocessable submission",
            detail.into(),
        )
    }

    /// A submission quota used up: try again in `retry_after_secs` (sent as `Retry-After`).
    pub fn quota(detail: impl Into<String>, retry_after_secs: u64) -> Self {
        Self {
            retry_after: Some(retry_after_secs.max(1)),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "quota-exceeded",
                "Submission quota exceeded",
                detail.into(),
            )
        }
    }

    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "Service unavailable",
            detail.into(),
        )
    }

    /// Logs `cause` (with its sources, for the operators) and answers 500 with a text that
    /// reveals nothing of it.
    pub fn internal(cause: impl std::fmt::Debug) -> Self {
        tracing::error!(error = ?cause, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal error",
            "something went wrong on our side; it has been logged".into(),
        )
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The fixed phrase of its kind, as a page heads it.
    pub(crate) fn title(&self) -> &'static str {
        self.title
    }

    /// The sentence for the user (never an internal cause).
    pub(crate) fn detail(&self) -> &str {
        &self.detail
    }
}

impl From<DbError> for ApiError {
    fn from(e: DbError) -> Self {
        match e {
            DbError::NotFound => Self::not_found("no such resource"),
            DbError::Conflict(m) => Self::conflict(m),
            DbError::Invalid(m) => Self::unprocessable("invalid-submission", m),
            DbError::Quota {
                message,
                retry_after_secs,
            } => Self::quota(message, retry_after_secs),
            e @ (DbError::Migrate(_) | DbError::Sqlx(_)) => Self::internal(e),
        }
    }
}

impl From<CoreError> for ApiError {
    fn from(e: CoreError) -> Self {
        match e {
            CoreError::NotFound(m) => Self::not_found(m),
            CoreError::Invalid(m) => Self::bad_request(m),
            CoreError::Conflict(m) => Self::conflict(m),
            CoreError::Db(e) => e.into(),
        }
    }
}

impl From<SetError> for ApiError {
    fn from(e: SetError) -> Self {
        match e {
            SetError::NotFound(_) => Self::not_found(e.to_string()),
            SetError::Invalid(m) => Self::unprocessable("invalid-set", m),
            SetError::Conflict(m) => Self::conflict(m),
            SetError::Unconfigured(m) => Self::unavailable(m),
            e @ (SetError::Vault(_) | SetError::Db(_)) => Self::internal(e),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Problem {
            kind: format!("/problems/{}", self.slug),
            title: self.title.into(),
            status: self.status.as_u16(),
            detail: self.detail,
        };
        let mut response = (self.status, Json(body)).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if let Some(secs) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer error=\"invalid_token\""),
            );
        }
        response
    }
}
