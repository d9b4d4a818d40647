//! Sets as the public sees them: their state, the commitment signed at go-live, the reveal
//! bundle once retired, and the key that signs checkpoints.

use crate::AppState;
use crate::answers::NotFound;
use crate::body::AppJson;
use crate::error::ApiError;
use crate::extract::Path;
use crate::params::requested_set;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::header;
use mcpbench_db::sets;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// Where the verifier key is published.
pub const KEY_PATH: &str = "/.well-known/mcpbench-checkpoint-key";

#[derive(Serialize, ToSchema)]
pub struct SetView {
    pub id: String,
    pub state: mcpbench_db::SetState,
    /// Whether its tasks are browsable at `GET /tasks`.
    pub public: bool,
    pub tasks: i64,
    /// Of a retired set: how many of its tasks are still withheld (shown in its bundle by
    /// their commitment alone) because a live set holds them; each is revealed when the last
    /// set holding it retires.
    pub withheld: Option<i64>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub activated_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub retired_at: Option<OffsetDateTime>,
    /// `Historical-YYYY-MM` once a committed set retired and opened.
    pub tag: Option<String>,
    /// The set it was rotated from, and the share of tasks replaced.
    pub rotated_from: Option<String>,
    pub rotation_replace: Option<f64>,
    /// The rotation's seed (hex of 8 little-endian bytes), once the set retired: with the
    /// revealed set it was rotated from, `plan_rotation` redoes this set exactly.
    pub rotation_seed: Option<String>,
    /// The tasks of the set it was rotated from that had been exposed (sent to a vendor's own
    /// machine) when the rotation was made, which it replaced first; once the set retired, a
    /// further input of `plan_rotation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_exposed: Option<Vec<String>>,
    /// The signed checkpoint (C2SP signed note: origin, size, root), from go-live on.
    pub checkpoint: Option<String>,
    /// The verifier key that opens the checkpoint.
    pub signing_key: Option<String>,
    /// Where the checkpoint and, once retired, the reveal bundle download.
    pub checkpoint_url: Option<String>,
    pub bundle_url: Option<String>,
}

impl From<sets::SetInfo> for SetView {
    fn from(s: sets::SetInfo) -> Self {
        let committed = s.checkpoint.is_some();
        let revealed = committed && s.tag.is_some();
        Self {
            checkpoint_url: committed.then(|| format!("/sets/{}/checkpoint", s.id)),
            bundle_url: revealed.then(|| format!("/sets/{}/bundle", s.id)),
            withheld: revealed.then_some(s.sealed),
            id: s.id,
            state: s.state,
            public: s.public,
            tasks: s.tasks,
            created_at: s.created_at,
            activated_at: s.activated_at,
            retired_at: s.retired_at,
            tag: s.tag,
            rotated_from: s.rotated_from,
            rotation_replace: s.rotation_replace,
            rotation_seed: s.rotation_seed_revealed.map(hex::encode),
            rotation_exposed: s.rotation_exposed_revealed,
            checkpoint: s.checkpoint,
            signing_key: s.signing_key,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SetList {
    pub sets: Vec<SetView>,
}

/// One set, with the commitment to each task (hex, in set order) once it is committed.
#[derive(Serialize, ToSchema)]
pub struct SetDetail {
    #[serde(flatten)]
    pub set: SetView,
    pub commitments: Vec<String>,
    /// Of a private set: how many of its tasks were sent to a vendor's hosted endpoint (which
    /// receives every goal it runs), so are known outside the sandbox; absent for public sets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exposed: Option<i64>,
}

/// Every set, newest first.
#[utoipa::path(get, path = "/sets", tag = "public", operation_id = "list_sets", responses((status = 200, body = SetList)))]
pub async fn list(State(state): State<AppState>) -> Result<AppJson<SetList>, ApiError> {
    let rows = sets::list(state.pool(), 500).await?;
    Ok(AppJson(SetList {
        sets: rows.into_iter().map(Into::into).collect(),
    }))
}

/// The set a path names (`dev`: the deployment's current public set); 404 for an unknown one.
pub(crate) async fn find(state: &AppState, id: &str) -> Result<sets::SetInfo, ApiError> {
    let id = requested_set("id", Some(id), &state.config().default_set)?;
    sets::get(state.pool(), &id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("there is no set {id:?}")))
}

/// One set, and its commitment.
#[utoipa::path(get, path = "/sets/{id}", tag = "public", operation_id = "get_set", params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")),
    responses((status = 200, body = SetDetail),
        NotFound))]
pub async fn get(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<AppJson<SetDetail>, ApiError> {
    let set = find(&state, &id).await?;
    let commitments = if set.checkpoint.is_some() {
        sets::commitments(state.pool(), &set.id)
            .await?
            .iter()
            .map(hex::encode)
            .collect()
    } else {
        Vec::new()
    };
    let exposed = if set.public {
        None
    } else {
        Some(mcpbench_db::exposures::exposed_tasks(state.pool(), &set.id).await?)
    };
    Ok(AppJson(SetDetail {
        set: set.into(),
        commitments,
        exposed,
    }))
}

pub(crate) fn download(content_type: &'static str, filename: String, body: Vec<u8>) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ),
            (header::CACHE_CONTROL, "public, max-age=300".into()),
        ],
        body,
    )
        .into_response()
}

/// The checkpoint signed when the set went live, as a file to keep.
#[utoipa::path(get, path = "/sets/{id}/checkpoint", tag = "public", params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")),
    responses((status = 200, body = String, content_type = "text/plain"),
        NotFound))]
pub async fn checkpoint(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let set = find(&state, &id).await?;
    let note = set
        .checkpoint
        .ok_or_else(|| ApiError::not_found(format!("set {:?} is not committed", set.id)))?;
    Ok(download(
        "text/plain; charset=utf-8",
        format!("mcpbench-{}.checkpoint", set.id),
        note.into_bytes(),
    ))
}

/// The reveal of a retired set: its tasks, salts and inclusion proofs (docs/attestations.md);
/// check it with `mcpbench verify`.
#[utoipa::path(get, path = "/sets/{id}/bundle", tag = "public", params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")),
    responses((status = 200, description = "the reveal bundle", content_type = "application/json"),
        NotFound))]
pub async fn bundle(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let set = find(&state, &id).await?;
    if set.tag.is_none() || set.checkpoint.is_none() {
        return Err(ApiError::not_found(format!(
            "set {:?} has no reveal: a committed set publishes one when it retires",
            set.id
        )));
    }
    let bytes = mcpbench_sets::reveal_bundle(state.pool(), &set.id).await?;
    Ok(download(
        "application/json",
        format!("mcpbench-{}.bundle.json", set.id),
        bytes,
    ))
}

/// The verifier key of the key that signs checkpoints: `<name>+<key id>+<base64 key>`.
#[utoipa::path(get, path = "/.well-known/mcpbench-checkpoint-key", tag = "public",
    responses((status = 200, body = String, content_type = "text/plain"),
        NotFound))]
pub async fn key(State(state): State<AppState>) -> Result<Response, ApiError> {
    let key = state
        .config()
        .custody
        .verifier_key()
        .ok_or_else(|| ApiError::not_found("this deployment signs no checkpoints"))?;
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{key}\n"),
    )
        .into_response())
}
