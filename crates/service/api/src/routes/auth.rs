//! `POST /auth/token` and `POST /auth/keys/rotate`.

use crate::AppState;
use crate::answers::{BadRequest, Unauthorized};
use crate::auth::Caller;
use crate::body::AppJson;
use crate::error::{ApiError, Problem};
use crate::limits::ClientAddr;
use axum::extract::State;
use http::StatusCode;
use mcpbench_db::vendors;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
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

#[derive(Serialize, ToSchema)]
pub struct RotatedKey {
    /// The new key: shown only here, once (only its hash is stored).
    pub api_key: String,
    /// When the keys it replaces stop working, and the tokens made from them: until then both
    /// work, so whatever holds the old key can move to the new one without a gap.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub old_keys_end_at: OffsetDateTime,
    /// How many keys end then.
    pub old_keys: u64,
}

/// Rotates the caller's API keys: a new key now, and the vendor's other live keys keep
/// working for the deployment's grace period (`MCPBENCH_KEY_GRACE_SECS`, a day by default),
/// then stop. A key already ending sooner keeps its end; an operator's revocation ends them
/// all at once.
#[utoipa::path(post, path = "/auth/keys/rotate", tag = "auth", operation_id = "rotate_key",
    security(("bearer" = [])),
    responses((status = 201, body = RotatedKey)))]
pub async fn rotate(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<(StatusCode, AppJson<RotatedKey>), ApiError> {
    let grace = i64::try_from(state.config().key_grace.as_secs()).unwrap_or(i64::MAX);
    let (api_key, old_keys_end_at, old_keys) =
        vendors::rotate_key(state.pool(), caller.vendor_id, grace).await?;
    tracing::info!(vendor = %caller.name, old_keys, "API key rotated");
    Ok((
        StatusCode::CREATED,
        AppJson(RotatedKey {
            api_key,
            old_keys_end_at,
            old_keys,
        }),
    ))
}
