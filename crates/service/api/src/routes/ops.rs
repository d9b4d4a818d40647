//! Health, readiness, metrics, the OpenAPI document, and the 404 of unknown paths.

use crate::AppState;
use crate::answers::Unavailable;
use crate::error::ApiError;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::header;

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "alive", body = String)))]
pub async fn healthz() -> &'static str {
    "ok"
}

/// Readiness: the database and the trace store answer.
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses((status = 200, description = "ready", body = String),
        Unavailable))]
pub async fn readyz(State(state): State<AppState>) -> Result<&'static str, ApiError> {
    let ping = mcpbench_db::ping(state.pool());
    if !matches!(
        tokio::time::timeout(std::time::Duration::from_secs(3), ping).await,
        Ok(Ok(()))
    ) {
        return Err(ApiError::unavailable("the database does not answer"));
    }
    if state.store().check().await.is_err() {
        return Err(ApiError::unavailable("the trace store does not answer"));
    }
    Ok("ready")
}

/// Prometheus metrics in the OpenMetrics text format (which Prometheus reads).
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "metrics", body = String,
        content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8")))]
pub async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(header::CONTENT_TYPE, mcpbench_telemetry::CONTENT_TYPE)],
        state.metrics().render(),
    )
        .into_response()
}

/// This API's OpenAPI 3.1 document.
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "the OpenAPI document", body = Object)))]
pub async fn openapi() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        crate::openapi::openapi_json(),
    )
        .into_response()
}

pub async fn not_found() -> ApiError {
    ApiError::not_found("there is no such endpoint; see /openapi.json")
}
