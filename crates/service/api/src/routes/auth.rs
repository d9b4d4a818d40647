//! `POST /auth/token`.

use crate::AppState;
use crate::answers::{BadRequest, Unauthorized};
use crate::body::AppJson;
use crate::error::{ApiError, Problem};
use crate::limits::ClientAddr;
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

/// Exchanges an API key for a short-lived bearer token. Failed exchanges are rate-limited per
/// client address and per key: past the limit the answer is 429 with `Retry-After`, whatever
/// the key.
#[utoipa::path(post, path = "/auth/token", tag = "auth", request_body = TokenRequest,
    responses(
        (status = 200, body = TokenResponse),
        Unauthorized,
        BadRequest,
        (status = 429, body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ))]
pub async fn token(
    State(state): State<AppState>,
    addr: ClientAddr,
    AppJson(req): AppJson<TokenRequest>,
) -> Result<AppJson<TokenResponse>, ApiError> {
    Ok(AppJson(TokenResponse {
        access_token: issue(&state, addr, &req.api_key).await?,
        token_type: "Bearer",
        expires_in: state.tokens().ttl().as_secs(),
    }))
}

/// A token for the vendor holding `api_key`, when the key is known and live (the website's
/// sign-in takes the same path). A key that fails counts against its address and prefix (429
/// once either failed too often lately); a live key always passes.
pub(crate) async fn issue(
    state: &AppState,
    addr: ClientAddr,
    api_key: &str,
) -> Result<String, ApiError> {
    let refused = || ApiError::unauthorized("the API key is unknown or revoked");
    // The prefix names the key (and so its vendor) without its secret; a bounded one only.
    let prefix = vendors::key_prefix(api_key).filter(|p| p.len() <= 32);
    let failed = || state.limits().auth_failed(state, addr, prefix, refused());
    if api_key.len() > 200 {
        return Err(failed());
    }
    let vendor = vendors::by_key(state.pool(), api_key)
        .await?
        .ok_or_else(failed)?;
    let kid = prefix.ok_or_else(failed)?;
    Ok(state.tokens().issue(vendor.id, kid))
}
