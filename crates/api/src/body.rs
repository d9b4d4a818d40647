//! `AppJson`: JSON request bodies with bounded size and problem+json rejections.
//!
//! The size bound is the router's `DefaultBodyLimit` ([`crate::MAX_BODY_BYTES`]); a larger
//! body is 413 before it is read in full. Malformed JSON is 400 naming the line, column and
//! field path; a wrong content type is 415.

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};
use serde::de::DeserializeOwned;

/// A JSON body; responds as `axum::Json` does.
pub struct AppJson<T>(pub T);

impl<T, S> FromRequest<S> for AppJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return Err(ApiError::unsupported_media(
                "send the body as JSON with Content-Type: application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::too_large(format!(
                    "the body is larger than {} bytes",
                    crate::MAX_BODY_BYTES
                ))
            } else {
                ApiError::bad_request("the body could not be read")
            }
        })?;
        let de = &mut serde_json::Deserializer::from_slice(&bytes);
        let value = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let at = if path == "." {
                String::new()
            } else {
                format!(" at {path}")
            };
            ApiError::bad_request(format!("malformed JSON{at}: {inner}"))
        })?;
        Ok(AppJson(value))
    }
}

impl<T: serde::Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}
