//! `POST /auth/token`.

use crate::AppState;
use crate::body::AppJson;
use crate::error::{ApiError, Problem};
use axum::extract::State;
use mcpbench_db::vendors;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    /// The key `mcpbench admin create-vendor` printed.
    pub api_key: String,
}

#[derive(Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until the token expires (at most 3600).
    pub expires_in: u64,
}

/// Exchanges an API key for a short-lived bearer token.
#[utoipa::path(post, path = "/auth/token", tag = "auth", request_body = TokenRequest,
    responses(
        (status = 200, body = TokenResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 400, body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn token(
    State(state): State<AppState>,
    AppJson(req): AppJson<TokenRequest>,
) -> Result<AppJson<TokenResponse>, ApiError> {
    Ok(AppJson(TokenResponse {
        access_token: issue(&state, &req.api_key).await?,
        token_type: "Bearer",
        expires_in: state.tokens().ttl().as_secs(),
    }))
}

/// A token for the vendor holding `api_key`, when the key is known and live (the website's
/// sign-in takes the same path).
pub(crate) async fn issue(state: &AppState, api_key: &str) -> Result<String, ApiError> {
    let refused = || ApiError::unauthorized("the API key is unknown or revoked");
    if api_key.len() > 200 {
        return Err(refused());
    }
    let vendor = vendors::by_key(state.pool(), api_key)
        .await?
        .ok_or_else(refused)?;
    let kid = vendors::key_prefix(api_key).ok_or_else(refused)?;
    Ok(state.tokens().issue(vendor.id, kid))
}
