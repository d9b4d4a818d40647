//! Vendors' API keys, used as bearer credentials directly or exchanged for short-lived JWTs,
//! and the extractors that check them.
//!
//! Tokens are HS256 only (the algorithm is pinned: a token naming any other, `none`
//! included, is refused before its signature is looked at), carry `exp`, `iat`, `iss`, `aud`,
//! `sub` (the vendor id) and `kid` (the public prefix of the key it was made from), and live at
//! most [`MAX_TOKEN_TTL`]. Every request also checks that the key is still live, so revoking
//! a key takes effect at once rather than when its tokens expire.

use crate::AppState;
use crate::error::ApiError;
use crate::limits::ClientAddr;
use axum::extract::{FromRef, FromRequestParts};
use http::header;
use http::request::Parts;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use mcpbench_db::{PgPool, vendors};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub const ISSUER: &str = "mcpbench";
pub const AUDIENCE: &str = "mcpbench-api";
/// The longest a token lives.
pub const MAX_TOKEN_TTL: Duration = Duration::from_secs(3600);
/// How far in the future a token's `iat` may lie (clock skew between API replicas).
pub const IAT_LEEWAY: Duration = Duration::from_secs(60);
/// The shortest secret accepted for signing tokens.
pub const MIN_SECRET_BYTES: usize = 32;
/// Longer `Authorization` headers are refused unread.
const MAX_TOKEN_BYTES: usize = 4096;

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    kid: String,
    iss: String,
    aud: String,
    iat: u64,
    exp: u64,
}

/// Signs and checks tokens.
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl Tokens {
    /// Tokens signed with `secret` (at least [`MIN_SECRET_BYTES`]), living `ttl` (capped at
    /// [`MAX_TOKEN_TTL`]).
    pub fn new(secret: &[u8], ttl: Duration) -> Result<Self, String> {
        if secret.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "the JWT secret must be at least {MIN_SECRET_BYTES} bytes"
            ));
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        validation.leeway = 5;
        Ok(Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            ttl: ttl.min(MAX_TOKEN_TTL),
        })
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A token for the vendor `vendor_id` holding the key with prefix `kid`.
    pub fn issue(&self, vendor_id: i64, kid: &str) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let claims = Claims {
            sub: vendor_id.to_string(),
            kid: kid.into(),
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            iat: now,
            exp: now + self.ttl.as_secs(),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing does not fail")
    }

    /// The vendor id and key prefix of a valid token.
    fn check(&self, token: &str) -> Option<(i64, String)> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation).ok()?;
        let claims = data.claims;
        // A lifetime beyond the cap, or issued in the future (past a little clock skew
        // between API replicas): not one of ours.
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        if claims.exp.saturating_sub(claims.iat) > MAX_TOKEN_TTL.as_secs()
            || claims.iat > now + IAT_LEEWAY.as_secs()
        {
            return None;
        }
        Some((claims.sub.parse().ok()?, claims.kid))
    }
}

/// The authenticated vendor of a request.
#[derive(Clone, Debug)]
pub struct Caller {
    pub vendor_id: i64,
    pub name: String,
    pub is_admin: bool,
}

/// A caller with the admin role.
#[derive(Clone, Debug)]
pub struct Admin(pub Caller);

fn bearer(parts: &Parts) -> Result<&str, ApiError> {
    let value = parts.headers.get(header::AUTHORIZATION).ok_or_else(|| {
        ApiError::unauthorized(
            "this endpoint needs a bearer credential: your API key, or a token from POST /auth/token",
        )
    })?;
    if value.len() > MAX_TOKEN_BYTES {
        return Err(invalid());
    }
    let text = value.to_str().map_err(|_| invalid())?;
    let (scheme, token) = text.split_once(' ').ok_or_else(invalid)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(invalid());
    }
    Ok(token.trim())
}

fn invalid() -> ApiError {
    ApiError::unauthorized("the token is invalid or expired; get a new one from POST /auth/token")
}

/// What telling who a caller is takes: the token keys and the database (is the key still
/// live?). The extractors ([`Caller`], [`Admin`], [`MaybeCaller`] and the website's session)
/// take this part of the state, not the whole [`AppState`].
#[derive(Clone)]
pub(crate) struct Verifier {
    tokens: Arc<Tokens>,
    pool: PgPool,
    /// Where failed API keys are counted, per address and key, as failed exchanges are.
    app: AppState,
}

impl FromRef<AppState> for Verifier {
    fn from_ref(state: &AppState) -> Self {
        Self {
            tokens: state.0.config.tokens.clone(),
            pool: state.pool().clone(),
            app: state.clone(),
        }
    }
}

impl Verifier {
    /// The vendor a bearer credential of the request `parts` speaks for: an API key itself
    /// (`mcpb_…`, live), or a token signed by us, unexpired, whose key is still live. Revoking
    /// a key ends both. Failed keys count against their address and key prefix as failed
    /// exchanges do (429 past the limit); a live key always passes.
    pub(crate) async fn caller(&self, token: &str, parts: &Parts) -> Result<Caller, ApiError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(invalid());
        }
        if let Some(prefix) = vendors::key_prefix(token) {
            let prefix = Some(prefix).filter(|p| p.len() <= 32);
            let vendor = vendors::by_key(&self.pool, token).await?.ok_or_else(|| {
                let addr = ClientAddr::of(parts, &self.app);
                let refused = ApiError::unauthorized("the API key is unknown or revoked");
                (self.app.limits()).auth_failed(&self.app, addr, prefix, refused)
            })?;
            return Ok(Caller {
                vendor_id: vendor.id,
                name: vendor.name,
                is_admin: vendor.is_admin,
            });
        }
        let (vendor_id, kid) = self.tokens.check(token).ok_or_else(invalid)?;
        let vendor = vendors::by_key_prefix(&self.pool, &kid)
            .await?
            .filter(|v| v.id == vendor_id)
            .ok_or_else(invalid)?;
        Ok(Caller {
            vendor_id: vendor.id,
            name: vendor.name,
            is_admin: vendor.is_admin,
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller
where
    Verifier: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Verifier::from_ref(state)
            .caller(bearer(parts)?, parts)
            .await
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Admin
where
    Verifier: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let caller = Caller::from_request_parts(parts, state).await?;
        if !caller.is_admin {
            return Err(ApiError::forbidden("this endpoint is for administrators"));
        }
        Ok(Admin(caller))
    }
}

/// An optional caller: `None` without an `Authorization` header, 401 with a bad one.
pub struct MaybeCaller(pub Option<Caller>);

impl<S: Send + Sync> FromRequestParts<S> for MaybeCaller
where
    Verifier: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        if !parts.headers.contains_key(header::AUTHORIZATION) {
            return Ok(MaybeCaller(None));
        }
        Ok(MaybeCaller(Some(
            Caller::from_request_parts(parts, state).await?,
        )))
    }
}
