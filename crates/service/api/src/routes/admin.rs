//! Admin endpoints: vendors and their keys.

use crate::AppState;
use crate::answers::{Conflict, Forbidden};
use crate::auth::Admin;
use crate::body::AppJson;
use crate::error::ApiError;
use crate::extract::Path;
use axum::extract::State;
use http::StatusCode;
use mcpbench_db::vendors;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewVendor {
    /// 1 to 100 characters, unique.
    pub name: String,
    /// Grants the admin role.
    #[serde(default)]
    pub admin: bool,
}

#[derive(Serialize, ToSchema)]
pub struct VendorCreated {
    pub id: i64,
    pub name: String,
    /// Shown only here, once; only its hash is stored.
    pub api_key: String,
}

#[derive(Serialize, ToSchema)]
pub struct Revoked {
    /// How many live keys were revoked.
    pub revoked: u64,
}

/// Creates a vendor and its first API key.
#[utoipa::path(post, path = "/admin/vendors", tag = "admin", request_body = NewVendor,
    security(("bearer" = [])),
    responses((status = 201, body = VendorCreated),
        Forbidden,
        Conflict))]
pub async fn create_vendor(
    State(state): State<AppState>,
    Admin(admin): Admin,
    AppJson(req): AppJson<NewVendor>,
) -> Result<(StatusCode, AppJson<VendorCreated>), ApiError> {
    let n = req.name.chars().count();
    if n == 0 || n > 100 || req.name.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            "name must be 1 to 100 printable characters",
        ));
    }
    let (vendor, key) = vendors::create(state.pool(), &req.name, req.admin, false).await?;
    tracing::info!(vendor = %vendor.name, by = %admin.name, "vendor created");
    Ok((
        StatusCode::CREATED,
        AppJson(VendorCreated {
            id: vendor.id,
            name: vendor.name,
            api_key: key,
        }),
    ))
}

/// Revokes every key of a vendor; their tokens stop working at once.
#[utoipa::path(post, path = "/admin/vendors/{name}/revoke", tag = "admin",
    params(("name" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")), security(("bearer" = [])),
    responses((status = 200, body = Revoked),
        Forbidden))]
pub async fn revoke_vendor(
    State(state): State<AppState>,
    Admin(admin): Admin,
    Path(name): Path<String>,
) -> Result<AppJson<Revoked>, ApiError> {
    let revoked = vendors::revoke_keys(state.pool(), &name).await?;
    tracing::info!(vendor = %name, by = %admin.name, revoked, "keys revoked");
    Ok(AppJson(Revoked { revoked }))
}
