//! Admin endpoints for sets: create (generated from a secret seed), activate, rotate, retire,
//! delete a draft. The same operations as `mcpbench admin set`.

use crate::AppState;
use crate::auth::Admin;
use crate::body::AppJson;
use crate::error::{ApiError, Problem};
use crate::routes::public::name;
use crate::routes::sets::{SetDetail, SetView};
use axum::extract::{Path, State};
use http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSet {
    /// A private set is named by its month, `YYYY-MM`.
    pub id: String,
    /// How many tasks to generate from a new secret seed (1 to 5000).
    pub generate: usize,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateSet {
    /// The new draft's id, the next month.
    pub to: String,
    /// The share of tasks replaced by fresh ones (0.05 to 0.5; 0.25 when absent).
    #[serde(default = "quarter")]
    pub replace: f64,
}

fn quarter() -> f64 {
    0.25
}

#[derive(Serialize, ToSchema)]
pub struct Rotated {
    pub set: SetView,
    /// Tasks kept from the set rotated from.
    pub kept: usize,
    /// Tasks replaced by fresh ones.
    pub replaced: usize,
}

async fn view(state: &AppState, id: &str) -> Result<SetView, ApiError> {
    mcpbench_db::sets::get(state.pool(), id)
        .await?
        .map(Into::into)
        .ok_or_else(|| ApiError::not_found(format!("there is no set {id:?}")))
}

/// Creates a private draft from freshly generated tasks, sealed at rest.
#[utoipa::path(post, path = "/admin/sets", tag = "admin", request_body = NewSet,
    security(("bearer" = [])),
    responses((status = 201, body = SetView),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 409, body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json")))]
pub async fn create(
    State(state): State<AppState>,
    Admin(admin): Admin,
    AppJson(req): AppJson<NewSet>,
) -> Result<(StatusCode, AppJson<SetView>), ApiError> {
    let id = name("id", &req.id)?;
    let custody = &state.config().custody;
    mcpbench_sets::generate_draft(state.pool(), custody, &id, req.generate).await?;
    tracing::info!(set = %id, by = %admin.name, tasks = req.generate, "set drafted");
    Ok((StatusCode::CREATED, AppJson(view(&state, &id).await?)))
}

/// Takes a draft live; a private set is committed to and its checkpoint signed.
#[utoipa::path(post, path = "/admin/sets/{id}/activate", tag = "admin",
    params(("id" = String, Path)), security(("bearer" = [])),
    responses((status = 200, body = SetDetail),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, body = Problem, content_type = "application/problem+json")))]
pub async fn activate(
    State(state): State<AppState>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<AppJson<SetDetail>, ApiError> {
    let id = name("id", &id)?;
    mcpbench_sets::activate(state.pool(), &state.config().custody, &id).await?;
    tracing::info!(set = %id, by = %admin.name, "set activated");
    crate::routes::sets::get(State(state), Path(id)).await
}

/// Builds next month's draft from an active set.
#[utoipa::path(post, path = "/admin/sets/{id}/rotate", tag = "admin", request_body = RotateSet,
    params(("id" = String, Path)), security(("bearer" = [])),
    responses((status = 201, body = Rotated),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json")))]
pub async fn rotate(
    State(state): State<AppState>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    AppJson(req): AppJson<RotateSet>,
) -> Result<(StatusCode, AppJson<Rotated>), ApiError> {
    let (from, to) = (name("id", &id)?, name("to", &req.to)?);
    let custody = &state.config().custody;
    let r = mcpbench_sets::rotate(state.pool(), custody, &from, &to, req.replace).await?;
    tracing::info!(from = %from, to = %to, by = %admin.name, kept = r.kept, replaced = r.replaced, "set rotated");
    Ok((
        StatusCode::CREATED,
        AppJson(Rotated {
            set: view(&state, &to).await?,
            kept: r.kept,
            replaced: r.replaced,
        }),
    ))
}

/// Retires an active set; a committed one is revealed and opens as `Historical-YYYY-MM`.
#[utoipa::path(post, path = "/admin/sets/{id}/retire", tag = "admin",
    params(("id" = String, Path)), security(("bearer" = [])),
    responses((status = 200, body = SetView),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, body = Problem, content_type = "application/problem+json")))]
pub async fn retire(
    State(state): State<AppState>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<AppJson<SetView>, ApiError> {
    let id = name("id", &id)?;
    mcpbench_sets::retire(state.pool(), &state.config().custody, &id).await?;
    tracing::info!(set = %id, by = %admin.name, "set retired");
    Ok(AppJson(view(&state, &id).await?))
}

/// Deletes a draft.
#[utoipa::path(delete, path = "/admin/sets/{id}", tag = "admin",
    params(("id" = String, Path)), security(("bearer" = [])),
    responses((status = 204),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, body = Problem, content_type = "application/problem+json")))]
pub async fn delete(
    State(state): State<AppState>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = name("id", &id)?;
    mcpbench_sets::delete(state.pool(), &id).await?;
    tracing::info!(set = %id, by = %admin.name, "draft deleted");
    Ok(StatusCode::NO_CONTENT)
}
