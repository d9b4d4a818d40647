//! Vendors' submissions: create, list, read, cancel, publish, and their runs.

use crate::AppState;
use crate::auth::Caller;
use crate::body::AppJson;
use crate::error::{ApiError, Problem};
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};
use mcpbench_db::{runs, submissions};
use mcpbench_egress::{check_resolved, check_url};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

const MAX_PAGE: i64 = 100;
const MAX_TRIALS: u32 = 10;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An agent served over HTTPS at `endpoint_url`.
    Endpoint,
    /// An agent in a container image (not yet available).
    Docker,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSubmission {
    /// A name for this submission, 1 to 100 characters.
    pub name: String,
    /// The model behind the agent, 1 to 100 characters.
    pub model: String,
    pub kind: Kind,
    /// For `endpoint`: where the agent takes `mcpbench/1` requests.
    pub endpoint_url: Option<String>,
    /// For `docker`: the image.
    pub image: Option<String>,
    /// The set to run against; the deployment's default set when absent.
    pub set: Option<String>,
    /// Runs per task, 1 to 10 (default 1).
    pub trials: Option<u32>,
}

#[derive(Serialize, ToSchema)]
pub struct Created {
    pub id: Uuid,
    pub status: String,
    /// The secret requests to the agent are signed with: `X-MCPBench-Signature` is
    /// `sha256=` and the hex HMAC-SHA256 of the body keyed with this text's bytes. Shown only
    /// here, once.
    pub signing_secret: String,
    /// Where to watch the submission.
    pub url: String,
}

#[derive(Serialize, ToSchema)]
pub struct Progress {
    pub done: i32,
    pub total: i32,
}

#[derive(Serialize, ToSchema)]
pub struct FailureGroup {
    /// `predicate_false`, `budget_exceeded`, `timeout` or `agent_error`.
    pub reason: String,
    pub count: i64,
    pub example_task: String,
    /// What exactly went wrong in the example (the HTTP status, the malformed reply, ...).
    pub example_detail: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct SubmissionView {
    pub id: Uuid,
    pub set: String,
    pub name: String,
    pub model: String,
    pub kind: String,
    pub endpoint_url: Option<String>,
    /// `queued`, `running`, `completed`, `failed` or `cancelled`.
    pub status: String,
    pub progress: Progress,
    pub trials: i32,
    /// Why the submission failed, when it did, in words you can act on.
    pub error: Option<String>,
    /// Why runs did not pass, grouped by reason (only in the single view).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<Vec<FailureGroup>>,
    /// The scores once completed: overall and by server, category and difficulty.
    #[schema(value_type = Option<Object>)]
    pub scores: Option<Value>,
    pub published: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub finished_at: Option<OffsetDateTime>,
}

impl From<submissions::Submission> for SubmissionView {
    fn from(s: submissions::Submission) -> Self {
        Self {
            id: s.id,
            set: s.set_id,
            name: s.name,
            model: s.model,
            kind: s.kind,
            endpoint_url: s.endpoint_url,
            status: s.status,
            progress: Progress {
                done: s.tasks_done,
                total: s.tasks_total,
            },
            trials: s.trials,
            error: s.error,
            failures: None,
            scores: s.scores,
            published: s.published,
            created_at: s.created_at,
            finished_at: s.finished_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SubmissionPage {
    pub submissions: Vec<SubmissionView>,
    /// Pass as `before` for the next page; absent on the last.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub next_before: Option<OffsetDateTime>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only submissions created before this instant (RFC 3339).
    pub before: Option<String>,
    /// At most this many (1 to 100, default 20).
    pub limit: Option<i64>,
}

fn check_text(field: &str, value: &str) -> Result<(), ApiError> {
    let n = value.chars().count();
    if n == 0 || n > 100 || value.chars().any(char::is_control) {
        return Err(ApiError::bad_request(format!(
            "{field} must be 1 to 100 printable characters"
        )));
    }
    Ok(())
}

/// Submits an agent. The endpoint is checked against SSRF now and again on every call.
#[utoipa::path(post, path = "/submissions", tag = "submissions", request_body = NewSubmission,
    security(("bearer" = [])),
    responses(
        (status = 202, body = Created),
        (status = 400, body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 413, body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
        (status = 429, body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    AppJson(req): AppJson<NewSubmission>,
) -> Result<Response, ApiError> {
    check_text("name", &req.name)?;
    check_text("model", &req.model)?;
    let trials = req.trials.unwrap_or(1);
    if !(1..=MAX_TRIALS).contains(&trials) {
        return Err(ApiError::bad_request(format!(
            "trials must be between 1 and {MAX_TRIALS}"
        )));
    }
    if req.kind == Kind::Docker {
        return Err(ApiError::unprocessable(
            "unsupported-kind",
            "this deployment cannot run docker submissions yet; submit kind \"endpoint\" with \
             the URL of your agent",
        ));
    }
    if req.image.is_some() {
        return Err(ApiError::bad_request(
            "image belongs to kind \"docker\"; an endpoint submission has endpoint_url only",
        ));
    }
    let url = req.endpoint_url.as_deref().ok_or_else(|| {
        ApiError::unprocessable("invalid-submission", "kind \"endpoint\" needs endpoint_url")
    })?;
    let policy = state.config().egress;
    let parsed = check_url(url, &policy)
        .map_err(|r| ApiError::unprocessable("unsafe-endpoint", r.to_string()))?;
    check_resolved(&parsed, &policy)
        .await
        .map_err(|r| ApiError::unprocessable("unsafe-endpoint", r.to_string()))?;
    let mut random = [0u8; 32];
    getrandom::fill(&mut random).map_err(ApiError::internal)?;
    // The key is the text itself (its bytes), as `mcpbench eval --signing-secret` and the
    // agent templates take it.
    let secret = hex::encode(random);
    let set = req.set.as_deref().unwrap_or(&state.config().default_set);
    let id = submissions::create(
        state.pool(),
        &submissions::NewSubmission {
            vendor_id: caller.vendor_id,
            set_id: set,
            name: &req.name,
            model: &req.model,
            endpoint_url: parsed.as_str(),
            signing_secret: secret.as_bytes(),
            trials: trials as i32,
            max_attempts: state.config().max_attempts,
            monthly_quota: state.config().monthly_quota,
        },
    )
    .await?;
    tracing::info!(submission = %id, vendor = %caller.name, set, "submission queued");
    let url = format!("/submissions/{id}");
    let body = Created {
        id,
        status: "queued".into(),
        signing_secret: secret,
        url: url.clone(),
    };
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, url)],
        AppJson(body),
    )
        .into_response())
}

/// Your submissions, newest first.
#[utoipa::path(get, path = "/submissions", tag = "submissions", params(ListQuery),
    security(("bearer" = [])),
    responses((status = 200, body = SubmissionPage),
        (status = 401, body = Problem, content_type = "application/problem+json")))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<ListQuery>,
) -> Result<AppJson<SubmissionPage>, ApiError> {
    let limit = q.limit.unwrap_or(20);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_PAGE}"
        )));
    }
    let before = q
        .before
        .as_deref()
        .map(|b| OffsetDateTime::parse(b, &time::format_description::well_known::Rfc3339))
        .transpose()
        .map_err(|_| ApiError::bad_request("before must be an RFC 3339 instant"))?;
    let rows = submissions::list(state.pool(), caller.vendor_id, before, limit).await?;
    let next_before = (rows.len() as i64 == limit)
        .then(|| rows.last().map(|s| s.created_at))
        .flatten();
    Ok(AppJson(SubmissionPage {
        submissions: rows.into_iter().map(Into::into).collect(),
        next_before,
    }))
}

async fn owned(
    state: &AppState,
    id: Uuid,
    caller: &Caller,
) -> Result<submissions::Submission, ApiError> {
    submissions::get(state.pool(), id, caller.vendor_id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("you have no submission {id}")))
}

/// One of your submissions: where it is, its scores, and why anything failed.
#[utoipa::path(get, path = "/submissions/{id}", tag = "submissions",
    params(("id" = Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = SubmissionView),
        (status = 404, body = Problem, content_type = "application/problem+json")))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<AppJson<SubmissionView>, ApiError> {
    let submission = owned(&state, id, &caller).await?;
    let failures = runs::failures(state.pool(), id).await?;
    let mut view = SubmissionView::from(submission);
    view.failures = Some(
        failures
            .into_iter()
            .map(|f| FailureGroup {
                reason: f.reason,
                count: f.count,
                example_task: f.example_task,
                example_detail: f.example_detail,
            })
            .collect(),
    );
    Ok(AppJson(view))
}

/// Cancels one of your submissions that is still queued or running.
#[utoipa::path(post, path = "/submissions/{id}/cancel", tag = "submissions",
    params(("id" = Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = SubmissionView),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, body = Problem, content_type = "application/problem+json")))]
pub async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<AppJson<SubmissionView>, ApiError> {
    let submission = owned(&state, id, &caller).await?;
    if !submissions::cancel(state.pool(), id, caller.vendor_id).await? {
        return Err(ApiError::conflict(format!(
            "the submission is {} and can no longer be cancelled",
            submission.status
        )));
    }
    Ok(AppJson(owned(&state, id, &caller).await?.into()))
}

/// Publishes the traces of one of your submissions. They open to the public when the set is
/// public, or once a private set retires.
#[utoipa::path(post, path = "/submissions/{id}/publish", tag = "submissions",
    params(("id" = Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = SubmissionView),
        (status = 404, body = Problem, content_type = "application/problem+json")))]
pub async fn publish(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<AppJson<SubmissionView>, ApiError> {
    if !submissions::publish(state.pool(), id, caller.vendor_id).await? {
        return Err(ApiError::not_found(format!("you have no submission {id}")));
    }
    Ok(AppJson(owned(&state, id, &caller).await?.into()))
}

#[derive(Serialize, ToSchema)]
pub struct RunView {
    pub id: Uuid,
    pub task_id: String,
    pub trial: i32,
    pub passed: bool,
    pub reason: String,
    pub detail: Option<String>,
    pub tool_calls: i32,
    pub hallucinated_calls: i32,
    pub invalid_calls: i32,
    pub errors_observed: i32,
    pub duration_ms: i64,
}

impl From<&runs::Run> for RunView {
    fn from(r: &runs::Run) -> Self {
        Self {
            id: r.id,
            task_id: r.task_id.clone(),
            trial: r.trial,
            passed: r.passed,
            reason: r.reason.clone(),
            detail: r.detail.clone(),
            tool_calls: r.tool_calls,
            hallucinated_calls: r.hallucinated_calls,
            invalid_calls: r.invalid_calls,
            errors_observed: r.errors_observed,
            duration_ms: r.duration_ms,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct RunPage {
    pub runs: Vec<RunView>,
    /// Pass as `after` for the next page (`task_id:trial`); absent on the last.
    pub next_after: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RunsQuery {
    /// Runs after this `task_id:trial`.
    pub after: Option<String>,
    /// At most this many (1 to 100, default 100).
    pub limit: Option<i64>,
}

/// The runs of one of your submissions, in task order.
#[utoipa::path(get, path = "/submissions/{id}/runs", tag = "submissions",
    params(("id" = Uuid, Path), RunsQuery), security(("bearer" = [])),
    responses((status = 200, body = RunPage),
        (status = 404, body = Problem, content_type = "application/problem+json")))]
pub async fn runs(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Query(q): Query<RunsQuery>,
) -> Result<AppJson<RunPage>, ApiError> {
    owned(&state, id, &caller).await?;
    let limit = q.limit.unwrap_or(MAX_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_PAGE}"
        )));
    }
    let after = match q.after.as_deref() {
        None => None,
        Some(a) => {
            let (task, trial) = a
                .rsplit_once(':')
                .and_then(|(t, n)| Some((t, n.parse::<i32>().ok()?)))
                .ok_or_else(|| ApiError::bad_request("after must be task_id:trial"))?;
            Some((task, trial))
        }
    };
    let rows = runs::list(state.pool(), id, after, limit).await?;
    let next_after = (rows.len() as i64 == limit)
        .then(|| rows.last().map(|r| format!("{}:{}", r.task_id, r.trial)))
        .flatten();
    Ok(AppJson(RunPage {
        runs: rows.iter().map(RunView::from).collect(),
        next_after,
    }))
}
