//! What anyone may read: the leaderboard, public tasks, published traces, sets.

use crate::AppState;
use crate::auth::MaybeCaller;
use crate::board::{self, Board, Query as BoardQuery};
use crate::body::AppJson;
use crate::error::{ApiError, Problem};
use crate::extract::{Path, Query};
use crate::routes::submissions::RunView;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::header;
use mcpbench_db::{runs, sets};
use mcpbench_tasks::{Category, Difficulty, SERVERS};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

const MAX_TASK_PAGE: i64 = 100;

/// Names in queries: short, and of the characters ids are made of.
pub(crate) fn name(field: &str, value: &str) -> Result<String, ApiError> {
    let ok = !value.is_empty()
        && value.len() <= 80
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok {
        return Err(ApiError::bad_request(format!(
            "{field} must be 1 to 80 letters, digits, '-' or '_'"
        )));
    }
    Ok(value.to_owned())
}

/// A set named by its id, or by its tag once revealed: `Historical-2026-11` is set `2026-11`
/// (a committed set is named by its month, and its tag follows from it).
pub(crate) fn set_name(field: &str, value: &str) -> Result<String, ApiError> {
    let value = name(field, value)?;
    Ok(match value.strip_prefix("Historical-") {
        Some(month) if mcpbench_attest::bundle::is_month(month) => month.to_string(),
        _ => value,
    })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardParams {
    /// The set; the deployment's default set when absent.
    #[param(pattern = r"^[A-Za-z0-9_-]{1,80}$")]
    pub set: Option<String>,
    /// Rank by the tasks of this server only.
    #[param(schema_with = server_schema)]
    pub server: Option<String>,
    /// Rank by the tasks of this category only (not with `server`).
    #[param(schema_with = category_schema)]
    pub category: Option<String>,
}

/// The leaderboard: entries ranked by success rate, with intervals and the other metrics.
#[utoipa::path(get, path = "/leaderboard", tag = "public", params(BoardParams),
    responses((status = 200, body = Board),
        (status = 400, body = Problem, content_type = "application/problem+json")))]
pub async fn leaderboard(
    State(state): State<AppState>,
    Query(p): Query<BoardParams>,
) -> Result<Response, ApiError> {
    let set = match p.set.as_deref() {
        Some(s) => set_name("set", s)?,
        None => state.config().default_set.clone(),
    };
    let filters = TaskFilters::parse(p.server, p.category, None)?;
    let (server, category) = (filters.server, filters.category);
    if server.is_some() && category.is_some() {
        return Err(ApiError::bad_request(
            "filter by server or by category, not both",
        ));
    }
    let body = board::board(
        &state,
        BoardQuery {
            set,
            server,
            category,
        },
    )
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TasksParams {
    /// A public set; the deployment's default set when absent.
    #[param(pattern = r"^[A-Za-z0-9_-]{1,80}$")]
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

/// A listing's filter value: blank is none; anything else must be one of `all` (a clear 400
/// naming them otherwise).
pub(crate) fn one_of(
    field: &str,
    value: Option<String>,
    all: &[&str],
) -> Result<Option<String>, ApiError> {
    match value.filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) if all.contains(&v.as_str()) => Ok(Some(v)),
        Some(_) => Err(ApiError::bad_request(format!(
            "{field} must be one of {}",
            all.join(", ")
        ))),
    }
}

/// A string schema whose values are `values`: the query filters' choices, from the task crate.
/// The empty value means "any", as the website's forms send it.
fn choices(values: Vec<&'static str>) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(std::iter::once("").chain(values)))
        .build()
}

fn server_schema() -> utoipa::openapi::Object {
    choices(SERVERS.to_vec())
}

fn category_schema() -> utoipa::openapi::Object {
    choices(Category::ALL.iter().map(|c| c.as_str()).collect())
}

fn difficulty_schema() -> utoipa::openapi::Object {
    choices(Difficulty::ALL.iter().map(|d| d.as_str()).collect())
}

/// The filters of a task listing, each checked against the servers, categories and
/// difficulties that exist.
#[derive(Default)]
pub(crate) struct TaskFilters {
    pub server: Option<String>,
    pub category: Option<String>,
    pub difficulty: Option<String>,
}

impl TaskFilters {
    pub(crate) fn parse(
        server: Option<String>,
        category: Option<String>,
        difficulty: Option<String>,
    ) -> Result<Self, ApiError> {
        let categories: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        let difficulties: Vec<&str> = Difficulty::ALL.iter().map(|d| d.as_str()).collect();
        Ok(Self {
            server: one_of("server", server, SERVERS)?,
            category: one_of("category", category, &categories)?,
            difficulty: one_of("difficulty", difficulty, &difficulties)?,
        })
    }

    pub(crate) fn as_db(&self) -> sets::TaskFilter<'_> {
        sets::TaskFilter {
            server: self.server.as_deref(),
            category: self.category.as_deref(),
            difficulty: self.difficulty.as_deref(),
        }
    }
}

/// The tasks of a public set (the dev set, revealed historical sets). Private sets are 404.
#[utoipa::path(get, path = "/tasks", tag = "public", params(TasksParams),
    responses((status = 200, body = TaskPage),
        (status = 404, body = Problem, content_type = "application/problem+json")))]
pub async fn tasks(
    State(state): State<AppState>,
    Query(p): Query<TasksParams>,
) -> Result<AppJson<TaskPage>, ApiError> {
    let set = match p.set.as_deref() {
        Some(s) => set_name("set", s)?,
        None => state.config().default_set.clone(),
    };
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
    /// A public set; the deployment's default set when absent.
    #[param(pattern = r"^[A-Za-z0-9_-]{1,80}$")]
    pub set: Option<String>,
}

/// One task of a public set; a private task is 404 like an unknown one.
#[utoipa::path(get, path = "/tasks/{id}", tag = "public",
    params(("id" = String, Path, pattern = r"^[A-Za-z0-9_-]{1,80}$"), TaskParams),
    responses((status = 200, body = Object),
        (status = 404, body = Problem, content_type = "application/problem+json")))]
pub async fn task(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(p): Query<TaskParams>,
) -> Result<AppJson<Value>, ApiError> {
    let set = match p.set.as_deref() {
        Some(s) => set_name("set", s)?,
        None => state.config().default_set.clone(),
    };
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
    /// The trace, one JSON object per line of the stored JSON Lines file.
    #[schema(value_type = Vec<Object>)]
    pub trace: Vec<Value>,
}

/// A run and its trace: public once its owner published it and its set is public or retired;
/// the owner may always read runs on public sets.
#[utoipa::path(get, path = "/runs/{id}", tag = "public", params(("id" = Uuid, Path)),
    responses((status = 200, body = RunTrace),
        (status = 404, body = Problem, content_type = "application/problem+json")))]
pub async fn run(
    State(state): State<AppState>,
    MaybeCaller(caller): MaybeCaller,
    Path(id): Path<Uuid>,
) -> Result<AppJson<RunTrace>, ApiError> {
    let run = visible_run(&state, caller.as_ref(), id).await?;
    let trace = read_trace(&state, &run).await?;
    Ok(AppJson(RunTrace {
        submission_id: run.submission_id,
        set: run.set_id.clone(),
        run: RunView::from(&run),
        trace,
    }))
}

/// The lines of a run's stored trace (opened when sealed); none when it has no trace.
pub(crate) async fn read_trace(state: &AppState, run: &runs::Run) -> Result<Vec<Value>, ApiError> {
    let Some(key) = &run.trace_key else {
        return Ok(Vec::new());
    };
    let keyring = state.config().custody.keyring.as_ref();
    let Some(stored) = state.store().get(key).await.map_err(ApiError::internal)? else {
        return Ok(Vec::new());
    };
    let bytes = mcpbench_vault::open_file(keyring, key, stored).map_err(ApiError::internal)?;
    Ok(bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect())
}

/// The output of a Docker-image run's container, when it has one (opened when sealed).
pub(crate) async fn read_logs(
    state: &AppState,
    run: &runs::Run,
) -> Result<Option<Vec<u8>>, ApiError> {
    let Some(trace) = run.trace_key.as_deref() else {
        return Ok(None);
    };
    let key = mcpbench_storage::logs_key(trace);
    let Some(stored) = state.store().get(&key).await.map_err(ApiError::internal)? else {
        return Ok(None);
    };
    let keyring = state.config().custody.keyring.as_ref();
    let logs = mcpbench_vault::open_file(keyring, &key, stored).map_err(ApiError::internal)?;
    Ok(Some(logs))
}

/// Whether a run's record (its verdict, not its trace) is public: its owner published it and
/// its set is open (public, or retired and revealed).
pub(crate) fn run_public(run: &runs::Run) -> bool {
    run.published && (run.set_public || run.set_state == "retired")
}

/// Whether a run's trace may be read: the run is public, or the reader is its owner and the
/// set is public. Either way its task must be in clear: a trace holds the goal and what the
/// tools answered, so a task a retired set withholds (a live set still holds it) keeps its
/// traces closed too.
pub(crate) fn trace_readable(run: &runs::Run, owner: bool) -> bool {
    run.task_open && (run_public(run) || (owner && run.set_public))
}

/// Where a coarse duration may fall: bucket bounds in milliseconds.
const DURATION_BUCKETS_MS: [i64; 11] = [
    0, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000,
];

/// A run's duration as it may be shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShownDuration {
    Exact(i64),
    /// At least the first bound, below the second (none past the last bucket).
    Within(i64, Option<i64>),
}

/// While a run's task is sealed (its set is live and private, or a retired set withholds it
/// because a live set holds it), its exact duration is a channel out of the sandbox: an image
/// that saw the task could spell bits of it in how long it takes (milliseconds over a
/// time budget carry about 16 bits a run). Only one of eleven buckets is shown then (under
/// 3.5 bits); the exact figure once the task is in clear.
pub(crate) fn shown_duration(run: &runs::Run) -> ShownDuration {
    if run.task_open {
        return ShownDuration::Exact(run.duration_ms);
    }
    let at = DURATION_BUCKETS_MS.partition_point(|b| *b <= run.duration_ms.max(0));
    ShownDuration::Within(
        DURATION_BUCKETS_MS[at.saturating_sub(1)],
        DURATION_BUCKETS_MS.get(at).copied(),
    )
}

/// The run `id` when the caller may read it (see [`run`]); 404 otherwise, the same answer as
/// for a run that does not exist.
pub(crate) async fn visible_run(
    state: &AppState,
    caller: Option<&crate::auth::Caller>,
    id: Uuid,
) -> Result<runs::Run, ApiError> {
    let hidden = || ApiError::not_found(format!("there is no published run {id}"));
    let run = runs::get(state.pool(), id).await?.ok_or_else(hidden)?;
    let owner = caller.is_some_and(|c| c.vendor_id == run.vendor_id);
    if !trace_readable(&run, owner) {
        return Err(hidden());
    }
    Ok(run)
}

/// The output of a Docker-image run's container (stdout and stderr, capped), under the same
/// rules as its trace: it can echo the task, so it stays closed while a private set is live.
#[utoipa::path(get, path = "/runs/{id}/logs", tag = "public", params(("id" = Uuid, Path)),
    responses((status = 200, body = String, content_type = "text/plain"),
        (status = 404, body = Problem, content_type = "application/problem+json")))]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(duration_ms: i64, task_open: bool) -> runs::Run {
        runs::Run {
            id: Uuid::nil(),
            submission_id: Uuid::nil(),
            vendor_id: 1,
            set_id: "2026-11".into(),
            set_public: false,
            set_state: "active".into(),
            task_open,
            published: false,
            task_id: "t".into(),
            trial: 0,
            passed: true,
            reason: "passed".into(),
            detail: None,
            tool_calls: 3,
            hallucinated_calls: 0,
            invalid_calls: 0,
            errors_observed: 0,
            duration_ms,
            trace_key: None,
            created_at: time::OffsetDateTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn a_sealed_tasks_run_shows_only_the_bucket_of_its_duration() {
        use ShownDuration::{Exact, Within};
        assert_eq!(shown_duration(&run(4_321, true)), Exact(4_321));
        let sealed = |ms| shown_duration(&run(ms, false));
        assert_eq!(sealed(0), Within(0, Some(1_000)));
        assert_eq!(sealed(999), Within(0, Some(1_000)));
        assert_eq!(sealed(1_000), Within(1_000, Some(2_000)));
        assert_eq!(sealed(4_321), Within(2_000, Some(5_000)));
        assert_eq!(
            sealed(4_999),
            sealed(2_001),
            "times within a bucket look alike"
        );
        assert_eq!(sealed(599_999), Within(300_000, Some(600_000)));
        assert_eq!(sealed(3_600_000), Within(600_000, None));
        assert_eq!(sealed(-5), Within(0, Some(1_000)));
    }
}
