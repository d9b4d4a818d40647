//! Admin endpoints for sets: create (generated from a secret seed), activate, rotate, retire,
//! delete a draft. The same operations as `mcpbench admin set`.

use crate::AppState;
use crate::answers::{Conflict, Forbidden, NotFound, Unprocessable};
use crate::auth::Admin;
use crate::body::AppJson;
use crate::error::ApiError;
use crate::extract::{Path, Query};
use crate::params::name;
use crate::routes::sets::{SetDetail, SetView};
use axum::extract::State;
use http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSet {
    /// A private set is named by its month, `YYYY-MM`.
    pub id: String,
    /// How many tasks to generate from a new secret seed (1 to 5000).
    #[serde(deserialize_with = "crate::body::whole")]
    pub generate: usize,
    /// The share of them drawn from the deployment's private families (0 to 1; 0.75 when absent
    /// and a family is live, else 0).
    #[serde(default)]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub pack_share: Option<f64>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateSet {
    /// The new draft's id, the next month.
    pub to: String,
    /// The share of tasks replaced by fresh ones (0.05 to 0.5; 0.25 when absent).
    #[serde(default = "quarter")]
    pub replace: f64,
    /// The share of the fresh ones drawn from the deployment's private families (0 to 1; 0.75
    /// when absent and a family is live, else 0).
    #[serde(default)]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub pack_share: Option<f64>,
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
#[utoipa::path(post, path = "/admin/sets", tag = "admin", operation_id = "create_set", request_body = NewSet,
    security(("bearer" = [])),
    responses((status = 201, body = SetView),
        Forbidden,
        Conflict,
        Unprocessable))]
pub async fn create(
    State(state): State<AppState>,
    Admin(admin): Admin,
    AppJson(req): AppJson<NewSet>,
) -> Result<(StatusCode, AppJson<SetView>), ApiError> {
    let id = name("id", &req.id)?;
    let custody = &state.config().custody;
    let private =
        mcpbench_sets::generate_draft(state.pool(), custody, &id, req.generate, req.pack_share)
            .await?;
    tracing::info!(set = %id, by = %admin.name, tasks = req.generate, from_private_families = private, "set drafted");
    Ok((StatusCode::CREATED, AppJson(view(&state, &id).await?)))
}

/// Takes a draft live; a private set is committed to and its checkpoint signed.
#[utoipa::path(post, path = "/admin/sets/{id}/activate", tag = "admin",
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")), security(("bearer" = [])),
    responses((status = 200, body = SetDetail),
        NotFound,
        Conflict))]
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
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")), security(("bearer" = [])),
    responses((status = 201, body = Rotated),
        NotFound,
        Conflict,
        Unprocessable))]
pub async fn rotate(
    State(state): State<AppState>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    AppJson(req): AppJson<RotateSet>,
) -> Result<(StatusCode, AppJson<Rotated>), ApiError> {
    let (from, to) = (name("id", &id)?, name("to", &req.to)?);
    let custody = &state.config().custody;
    let r = mcpbench_sets::rotate(
        state.pool(),
        custody,
        &from,
        &to,
        req.replace,
        req.pack_share,
    )
    .await?;
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
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")), security(("bearer" = [])),
    responses((status = 200, body = SetView),
        NotFound,
        Conflict))]
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
#[utoipa::path(delete, path = "/admin/sets/{id}", tag = "admin", operation_id = "delete_set",
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")), security(("bearer" = [])),
    responses((status = 204),
        NotFound,
        Conflict))]
pub async fn delete(
    State(state): State<AppState>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = name("id", &id)?;
    mcpbench_sets::delete(state.pool(), &state.config().custody, &id).await?;
    tracing::info!(set = %id, by = %admin.name, "draft deleted");
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
pub struct AnomalyView {
    pub id: i64,
    pub set: String,
    pub kind: mcpbench_db::AnomalyKind,
    pub submission_id: Option<uuid::Uuid>,
    /// The task, for `task_spike` (admins only: it names a task of the set).
    pub task_id: Option<String>,
    pub summary: String,
    /// The statistic's numbers.
    #[schema(value_type = Object)]
    pub detail: serde_json::Value,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: time::OffsetDateTime,
}

impl From<mcpbench_db::anomalies::Flag> for AnomalyView {
    fn from(f: mcpbench_db::anomalies::Flag) -> Self {
        Self {
            id: f.id,
            set: f.set_id,
            kind: f.kind,
            submission_id: f.submission_id,
            task_id: f.task_id,
            summary: f.summary,
            detail: f.detail,
            created_at: f.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AnomalyList {
    pub anomalies: Vec<AnomalyView>,
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AnomalyParams {
    /// Only this set's flags.
    #[param(pattern = r"^[A-Za-z0-9_-]{1,80}$")]
    pub set: Option<String>,
}

/// Runs the anomaly detector over a set's completed submissions and stores its flags
/// (replacing the set's earlier ones); it also runs when a set retires.
#[utoipa::path(post, path = "/admin/sets/{id}/analyze", tag = "admin",
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")), security(("bearer" = [])),
    responses((status = 200, body = AnomalyList),
        NotFound))]
pub async fn analyze(
    State(state): State<AppState>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<AppJson<AnomalyList>, ApiError> {
    let id = name("id", &id)?;
    let flags = mcpbench_sets::analyze(state.pool(), &id).await?;
    tracing::info!(set = %id, by = %admin.name, flags = flags.len(), "set analysed");
    list_flags(&state, Some(&id)).await
}

/// The anomaly flags, newest first (at most 500).
#[utoipa::path(get, path = "/admin/anomalies", tag = "admin", params(AnomalyParams),
    security(("bearer" = [])),
    responses((status = 200, body = AnomalyList),
        Forbidden))]
pub async fn anomalies(
    State(state): State<AppState>,
    Admin(_admin): Admin,
    Query(params): Query<AnomalyParams>,
) -> Result<AppJson<AnomalyList>, ApiError> {
    let set = params.set.as_deref().map(|s| name("set", s)).transpose()?;
    list_flags(&state, set.as_deref()).await
}

async fn list_flags(state: &AppState, set: Option<&str>) -> Result<AppJson<AnomalyList>, ApiError> {
    let rows = mcpbench_db::anomalies::list(state.pool(), set, 500).await?;
    Ok(AppJson(AnomalyList {
        anomalies: rows.into_iter().map(Into::into).collect(),
    }))
}
