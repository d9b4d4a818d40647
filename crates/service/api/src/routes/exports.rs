//! A set's data to take away: its result matrix, and once retired its published traces as one
//! archive. (The board's own export is `GET /leaderboard?format=csv`.)

use crate::AppState;
use crate::answers::{BadRequest, Conflict, NotFound, TooMany, Unavailable};
use crate::auth::MaybeCaller;
use crate::body::AppJson;
use crate::csv;
use crate::error::ApiError;
use crate::extract::{Path, Query};
use crate::limits::ClientAddr;
use crate::routes::public::Format;
use crate::routes::sets::find;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::header;
use mcpbench_core::results::{self, Results};
use mcpbench_db::SetState;
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResultsParams {
    /// `json` (the default: a row per task, a cell per submission) or `csv` (a row per task
    /// and submission).
    pub format: Option<Format>,
}

/// Every task's result per submission: trials, passes, mean claims coverage and mean tool
/// calls, for the set's ranked submissions whose runs the caller may see (published ones, and
/// the caller's own). A public set at any time, a private one once retired (its withheld
/// tasks left out); a live private set is a conflict (409).
#[utoipa::path(get, path = "/sets/{id}/results", tag = "public",
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$"), ResultsParams),
    responses((status = 200, description = "JSON, or CSV with `format=csv`",
            content((Results = "application/json"), (String = "text/csv"))),
        BadRequest, NotFound, Conflict))]
pub async fn results(
    State(state): State<AppState>,
    MaybeCaller(caller): MaybeCaller,
    Path(id): Path<String>,
    Query(p): Query<ResultsParams>,
) -> Result<Response, ApiError> {
    let set = find(&state, &id).await?;
    let matrix = results::results(state.pool(), &set, caller.map(|c| c.vendor_id)).await?;
    Ok(match p.format.unwrap_or_default() {
        Format::Json => AppJson(matrix).into_response(),
        Format::Csv => csv::attachment(
            &format!("mcpbench-{}-results.csv", set.id),
            csv::results(&matrix),
        ),
    })
}

/// The published traces of a retired set as one tar archive, streamed as it is read: per
/// submission its description, each run's trace (`<task>.<trial>.jsonl`), the list of its runs
/// and a `SHA256SUMS` file (docs/data.md). Tasks a live set still holds are left out. A few
/// archives stream at once (429 past two to one address, 503 past eight in all).
#[utoipa::path(get, path = "/sets/{id}/traces", tag = "public",
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$")),
    responses((status = 200, description = "a tar archive", content_type = "application/x-tar"),
        BadRequest, NotFound, Conflict, TooMany, Unavailable))]
pub async fn traces(
    State(state): State<AppState>,
    addr: ClientAddr,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let set = find(&state, &id).await?;
    if set.state != SetState::Retired {
        return Err(ApiError::conflict(format!(
            "set {:?} is {}: its traces are archived once it retires (a run's trace is at \
             GET /runs/{{id}} once published)",
            set.id, set.state
        )));
    }
    let place = state.limits().archives.take(addr)?;
    let body = crate::archive::stream(state.clone(), set.id.clone(), place);
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-tar".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"mcpbench-{}-traces.tar\"", set.id),
            ),
        ],
        body,
    )
        .into_response())
}
