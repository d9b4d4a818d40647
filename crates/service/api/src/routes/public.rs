//! What anyone may read: the leaderboard, public tasks, published traces, sets.

use crate::AppState;
use crate::access::{read_logs, run_json, visible_run};
use crate::answers::{BadRequest, NotFound};
use crate::auth::MaybeCaller;
use crate::board::{self, Form};
use crate::body::AppJson;
use crate::csv;
use crate::error::ApiError;
use crate::extract::{Path, Query};
use crate::params::{
    TaskFilters, category_schema, difficulty_schema, name, requested_set, server_schema,
};
use crate::routes::run_view::RunView;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::header;
use mcpbench_core::about::{Scaffold, Track, Weights, is_label};
use mcpbench_core::board::{Board, Filter, Query as BoardQuery};
use mcpbench_core::disclosure::judgement_shown;
use mcpbench_db::{judgements, sets};
use mcpbench_scoring::Judgement;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

const MAX_TASK_PAGE: i64 = 100;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardParams {
    /// The set. Absent or blank (as a form sends it): the official board, the live private
    /// month (the current public set where no month is live); `dev`: the current public set,
    /// the practice board. The board's `standing` says which it is. An unknown set is 404.
    #[param(pattern = r"^[A-Za-z0-9_-]{0,80}$")]
    pub set: Option<String>,
    /// Rank by the tasks of this server only.
    #[param(schema_with = server_schema)]
    pub server: Option<String>,
    /// Rank by the tasks of this category only (not with `server`).
    #[param(schema_with = category_schema)]
    pub category: Option<String>,
    /// Only entries stating these weights (reference agents stay, as yardsticks).
    pub weights: Option<Weights>,
    /// Only entries stating this scaffold.
    pub scaffold: Option<Scaffold>,
    /// Only entries of this organisation.
    #[param(pattern = r"^[A-Za-z0-9][A-Za-z0-9 ._+/()-]{0,79}$")]
    pub organisation: Option<String>,
    /// Only entries of this track: `standard` (models driven by our own agent) or `open`.
    pub track: Option<Track>,
    /// `json` (the default) or `csv`: one row per entry, the columns of docs/data.md.
    pub format: Option<Format>,
}

/// The formats an export comes in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    #[default]
    Json,
    Csv,
}

/// The leaderboard: entries ranked by success rate, with intervals and the other metrics;
/// `?format=csv` for a spreadsheet. Without a set, the official board (the live private
/// month).
#[utoipa::path(get, path = "/leaderboard", tag = "public", params(BoardParams),
    responses((status = 200, description = "JSON, or CSV with `format=csv`",
            content((Board = "application/json"), (String = "text/csv"))),
        BadRequest, NotFound))]
pub async fn leaderboard(
    State(state): State<AppState>,
    Query(p): Query<BoardParams>,
) -> Result<Response, ApiError> {
    let set = board::board_set(&state, p.set.as_deref()).await?;
    let filters = TaskFilters::parse(p.server, p.category, None)?;
    let (server, category) = (filters.server, filters.category);
    if server.is_some() && category.is_some() {
        return Err(ApiError::bad_request(
            "filter by server or by category, not both",
        ));
    }
    let organisation = match p.organisation {
        Some(o) if !is_label(&o) => {
            return Err(ApiError::bad_request(
                "organisation must be a label: a letter or digit, then letters, digits, spaces \
                 or ._+/()-, at most 80",
            ));
        }
        o => o,
    };
    let query = BoardQuery {
        set,
        server,
        category,
        filter: Filter {
            weights: p.weights,
            scaffold: p.scaffold,
            organisation,
            track: p.track,
        },
    };
    if p.format == Some(Format::Csv) {
        let filename = format!("mcpbench-{}-leaderboard.csv", query.set);
        let body = board::board(&state, query, Form::Csv).await?;
        return Ok(csv::attachment(&filename, body));
    }
    let body = board::board(&state, query, Form::Json).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TasksParams {
    /// A public set; `dev`, blank or absent: the deployment's current public set.
    #[param(pattern = r"^[A-Za-z0-9_-]{0,80}$")]
    pub set: Option<String>,
    /// Tasks after this task id, in set order.
    #[param(pattern = r"^[A-Za-z0-9_-]{1,80}$")]
    pub after: Option<String>,
    /// Only the tasks using this server (`calendar`, `github`, ...).
    #[param(schema_with = server_schema)]
    pub server: Option<String>,
    /// Only the tasks of this category (`single-tool`, `composition`, `recovery`, ...).
    #[param(schema_with = category_schema)]
    pub category: Option<String>,
    /// Only the tasks of this difficulty: `easy`, `medium` or `hard`.
    #[param(schema_with = difficulty_schema)]
    pub difficulty: Option<String>,
    /// At most this many (1 to 100, default 100).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct TaskPage {
    pub set: String,
    /// Tasks in the format of schemas/task.schema.json.
    #[schema(value_type = Vec<Object>)]
    pub tasks: Vec<Value>,
    /// Pass as `after` for the next page; absent on the last.
    pub next_after: Option<String>,
}

/// The tasks of a public set (the dev set, revealed historical sets). Private sets are 404.
#[utoipa::path(get, path = "/tasks", tag = "public", params(TasksParams),
    responses((status = 200, body = TaskPage),
        NotFound))]
pub async fn tasks(
    State(state): State<AppState>,
    Query(p): Query<TasksParams>,
) -> Result<AppJson<TaskPage>, ApiError> {
    let set = requested_set("set", p.set.as_deref(), &state.config().default_set)?;
    let limit = p.limit.unwrap_or(MAX_TASK_PAGE);
    if !(1..=MAX_TASK_PAGE).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_TASK_PAGE}"
        )));
    }
    let after = p.after.as_deref().map(|a| name("after", a)).transpose()?;
    let filters = TaskFilters::parse(p.server, p.category, p.difficulty)?;
    match sets::get(state.pool(), &set).await? {
        Some(info) if info.public => {}
        _ => {
            return Err(ApiError::not_found(format!(
                "there is no public set {set:?}"
            )));
        }
    }
    let tasks =
        sets::public_tasks(state.pool(), &set, filters.as_db(), after.as_deref(), limit).await?;
    let next_after = (tasks.len() as i64 == limit)
        .then(|| {
            tasks
                .last()
                .and_then(|t| t.get("id")?.as_str().map(String::from))
        })
        .flatten();
    Ok(AppJson(TaskPage {
        set,
        tasks,
        next_after,
    }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TaskParams {
    /// A public set; `dev`, blank or absent: the deployment's current public set.
    #[param(pattern = r"^[A-Za-z0-9_-]{0,80}$")]
    pub set: Option<String>,
}

/// One task of a public set; a private task is 404 like an unknown one.
#[utoipa::path(get, path = "/tasks/{id}", tag = "public",
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$"), TaskParams),
    responses((status = 200, body = Object),
        NotFound))]
pub async fn task(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(p): Query<TaskParams>,
) -> Result<AppJson<Value>, ApiError> {
    let set = requested_set("set", p.set.as_deref(), &state.config().default_set)?;
    let id = name("id", &id)?;
    sets::public_task(state.pool(), &set, &id)
        .await?
        .map(AppJson)
        .ok_or_else(|| ApiError::not_found(format!("there is no public task {id:?} in {set:?}")))
}

#[derive(Serialize, ToSchema)]
pub struct RunTrace {
    pub submission_id: Uuid,
    pub set: String,
    pub run: RunView,
    /// The optional rubric judge's reading of the run, apart from its verdict and scores
    /// (docs/metrics.md, "The rubric judge"); absent where no judge ran. While the task is
    /// sealed the items that quote its check keep their scores and lose their text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<Judgement>,
    // The last field: the stored lines are put into the answer as they are (`access::run_json`).
    /// The trace, one JSON object per line of the stored JSON Lines file.
    #[schema(value_type = Vec<Object>)]
    pub trace: Vec<Value>,
}

/// A run and its trace: public once its owner published it and its set is public or retired;
/// the owner may always read runs on public sets.
#[utoipa::path(get, path = "/runs/{id}", tag = "public", params(("id" = Uuid, Path)),
    responses((status = 200, body = RunTrace),
        NotFound))]
pub async fn run(
    State(state): State<AppState>,
    MaybeCaller(caller): MaybeCaller,
    Path(id): Path<Uuid>,
) -> Result<Response, ApiError> {
    let run = visible_run(&state, caller.as_ref(), id).await?;
    let judgement = judgements::of_run(state.pool(), run.id)
        .await?
        .map(|j| judgement_shown(j, run.task_open));
    let head = RunTrace {
        submission_id: run.submission_id,
        set: run.set_id.clone(),
        run: RunView::from(&run),
        judgement,
        trace: Vec::new(),
    };
    let head = serde_json::to_vec(&head).map_err(ApiError::internal)?;
    run_json(&state, &run, head).await
}

/// The output of a Docker-image run's container (stdout and stderr, capped), under the same
/// rules as its trace: it can echo the task, so it stays closed while a private set is live.
#[utoipa::path(get, path = "/runs/{id}/logs", tag = "public", params(("id" = Uuid, Path)),
    responses((status = 200, body = String, content_type = "text/plain"),
        NotFound))]
pub async fn run_logs(
    State(state): State<AppState>,
    MaybeCaller(caller): MaybeCaller,
    Path(id): Path<Uuid>,
) -> Result<Response, ApiError> {
    let run = visible_run(&state, caller.as_ref(), id).await?;
    let logs = read_logs(&state, &run).await?.ok_or_else(|| {
        ApiError::not_found(format!(
            "run {id} has no container logs (not a Docker-image run)"
        ))
    })?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            // The bytes are the agent's; never let a browser treat them as a page.
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        logs,
    )
        .into_response())
}
