//! Vendors' submissions: create, list, read, cancel, publish, and their runs.

use crate::AppState;
use crate::answers::{
    BadRequest, Conflict, NotFound, TooLarge, TooMany, Unauthorized, Unprocessable, UnsupportedType,
};
use crate::auth::Caller;
use crate::body::AppJson;
use crate::error::ApiError;
use crate::extract::{Path, Query};
use crate::intake::Intake;
use crate::limits::ClientAddr;
use crate::model_track::ModelRequest;
use crate::params::name;
use crate::routes::run_view::RunView;
use crate::routes::submission_checks::{admit, checked_webhook, require_docker};
use crate::routes::submission_view::{SubmissionPage, SubmissionView};
use crate::routes::upload;
use axum::extract::{FromRequest, Request, State};
use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};
use mcpbench_core::about::About;
use mcpbench_db::{runs, submissions};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

const MAX_PAGE: i64 = 100;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An agent served over HTTPS at `endpoint_url`.
    Endpoint,
    /// An agent in a container image: `image` pinned by digest (`name@sha256:...`), or a
    /// `docker save` archive uploaded as `multipart/form-data`.
    Docker,
    /// The standard track: a model at `model_endpoint`, driven by our own `llm` agent.
    Model,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSubmission {
    /// A name for this submission, 1 to 100 characters.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    /// The model behind the agent, 1 to 100 characters.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub model: String,
    pub kind: Kind,
    /// For `endpoint`: where the agent takes `mcpbench/1` requests.
    pub endpoint_url: Option<String>,
    /// For `docker`: a registry reference pinned by digest, `name@sha256:<64 hex>`. Leave it
    /// out when uploading the image (multipart part `image`).
    pub image: Option<String>,
    /// For `model`: the OpenAI-compatible endpoint, the model's name there, its key (sealed,
    /// never shown again) and its prices. For `docker`, optionally: the model the image calls
    /// (docs/protocol.md, section 6), without prices.
    pub model_endpoint: Option<ModelRequest>,
    /// The set to run against; the deployment's default set when absent.
    #[schema(pattern = r"^[A-Za-z0-9_-]{1,80}$")]
    pub set: Option<String>,
    /// Runs per task, 1 to 10 (default 1).
    #[schema(minimum = 1, maximum = 10)]
    #[serde(default, deserialize_with = "crate::body::whole_opt")]
    pub trials: Option<u32>,
    /// Run the set at a level of extra tools the tasks do not need, from 0 to 1000 or `all`
    /// (docs/metrics.md, "Accuracy against distractor count"): near-duplicates of the needed
    /// tools first, then whole unrelated servers. Such a submission is scored like any other
    /// and is never ranked. Absent: the set as published.
    #[schema(pattern = r"^(all|[0-9]|[1-9][0-9]{1,2}|1000)$")]
    pub distractors: Option<String>,
    /// What the submission says of its model and agent, shown on the board and filtered
    /// on; each field optional.
    #[serde(default)]
    pub about: Option<About>,
    /// Where to POST when the submission ends, completed or failed (docs/protocol.md,
    /// section 10): signed as requests to the agent are, with the same secret; tried again
    /// after a growing wait, up to five times. Checked against SSRF like an endpoint.
    #[schema(max_length = 2048)]
    pub webhook_url: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Created {
    pub id: Uuid,
    /// Always `queued`.
    pub status: mcpbench_db::SubmissionStatus,
    /// The secret requests to the agent are signed with (docs/protocol.md, section 2):
    /// `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`
    /// keyed with this text's bytes. Shown only here, once.
    pub signing_secret: String,
    /// Where to watch the submission.
    pub url: String,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only submissions created before this instant (RFC 3339).
    #[param(format = DateTime)]
    pub before: Option<String>,
    /// At most this many (1 to 100, default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// Submits an agent: JSON for an endpoint or a digest-pinned image, or `multipart/form-data`
/// with the parts `submission` (the same JSON) and `image` (a `docker save` archive, up to the
/// deployment's cap). Endpoints are checked against SSRF now and again on every call.
#[utoipa::path(post, path = "/submissions", tag = "submissions", operation_id = "create_submission",
    request_body(content(
        (NewSubmission = "application/json"),
        (ImageUpload = "multipart/form-data"),
    )),
    security(("bearer" = [])),
    responses(
        (status = 202, body = Created),
        BadRequest,
        Unauthorized,
        TooLarge,
        UnsupportedType,
        Unprocessable,
        TooMany,
    ))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    addr: ClientAddr,
    request: Request,
) -> Result<Response, ApiError> {
    // Counted before a byte of the body is read: a refused attempt costs us nothing more.
    state.limits().submission(&state, addr, caller.vendor_id)?;
    let (req, received) = if upload::is_multipart(&request) {
        // Refused before a byte of a possibly large archive is kept.
        if let Err(refusal) = require_docker(&state).await {
            upload::linger(request).await;
            return Err(refusal);
        }
        let (req, received) = upload::receive(&state, caller.vendor_id, request).await?;
        (req, Some(received))
    } else {
        let AppJson(req) = AppJson::<NewSubmission>::from_request(request, &state).await?;
        (req, None)
    };
    let intake = Intake::check(req, received, &state.config().default_set)?;
    let kind = intake.agent.kind();
    let admitted = admit(&state, caller.vendor_id, &intake.set, intake.agent).await?;
    let webhook = match &intake.webhook_url {
        Some(url) => Some(checked_webhook(&state, url).await?),
        None => None,
    };
    let mut random = [0u8; 32];
    getrandom::fill(&mut random).map_err(ApiError::internal)?;
    // The key is the text itself (its bytes), as `mcpbench eval --signing-secret` and the
    // agent templates take it.
    let secret = hex::encode(random);
    let id = submissions::create(
        state.pool(),
        &submissions::NewSubmission {
            vendor_id: caller.vendor_id,
            set_id: &intake.set,
            name: &intake.name,
            model: &intake.model,
            agent: admitted.agent(),
            signing_secret: secret.as_bytes(),
            trials: intake.trials as i32,
            max_attempts: state.config().max_attempts,
            monthly_quota: state.config().monthly_quota,
            max_open: state.config().admission.max_open_submissions,
            distractors: intake.distractors.as_deref(),
            about: &intake.about,
            webhook_url: webhook.as_deref(),
        },
    )
    .await?;
    tracing::info!(submission = %id, vendor = %caller.name, set = %intake.set, kind = ?kind, "submission queued");
    let url = format!("/submissions/{id}");
    let body = Created {
        id,
        status: mcpbench_db::SubmissionStatus::Queued,
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

/// The multipart form of `POST /submissions`: these two parts and no other.
// Only its schema is used (`upload::receive` reads the parts); `Deserialize` is derived so that
// utoipa sees `deny_unknown_fields` and writes `additionalProperties: false`, which it has no
// struct-level attribute for.
#[derive(ToSchema, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct ImageUpload {
    /// The submission's JSON (kind `docker`, no `image`).
    #[schema(value_type = NewSubmission)]
    submission: String,
    /// A `docker save` archive of one linux/amd64 image.
    #[schema(value_type = String, format = Binary)]
    image: Vec<u8>,
}

/// Your submissions, newest first.
#[utoipa::path(get, path = "/submissions", tag = "submissions", operation_id = "list_submissions", params(ListQuery),
    security(("bearer" = [])),
    responses((status = 200, body = SubmissionPage),
        Unauthorized))]
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
#[utoipa::path(get, path = "/submissions/{id}", tag = "submissions", operation_id = "get_submission",
    params(("id" = Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = SubmissionView),
        NotFound))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<AppJson<SubmissionView>, ApiError> {
    let submission = owned(&state, id, &caller).await?;
    let mut view = SubmissionView::from(submission);
    view.explain(state.pool(), id).await?;
    Ok(AppJson(view))
}

/// Cancels one of your submissions that is still queued or running.
#[utoipa::path(post, path = "/submissions/{id}/cancel", tag = "submissions",
    params(("id" = Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = SubmissionView),
        NotFound,
        Conflict))]
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
        NotFound))]
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

/// Withdraws one of your completed submissions from the board: its row leaves the board (and
/// the result matrix and the traces' archive), and it is never ranked again. The submission
/// itself stays, as a record, with when it was withdrawn.
#[utoipa::path(post, path = "/submissions/{id}/withdraw", tag = "submissions",
    params(("id" = Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = SubmissionView),
        NotFound,
        Conflict))]
pub async fn withdraw(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<AppJson<SubmissionView>, ApiError> {
    let submission = owned(&state, id, &caller).await?;
    if !submissions::withdraw(state.pool(), id, caller.vendor_id).await? {
        return Err(ApiError::conflict(match submission.withdrawn_at {
            Some(_) => "the submission was withdrawn already".to_string(),
            None => format!(
                "the submission is {}; only a completed one can be withdrawn (cancel one \
                 that is queued or running)",
                submission.status
            ),
        }));
    }
    Ok(AppJson(owned(&state, id, &caller).await?.into()))
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
    #[param(pattern = r"^[A-Za-z0-9_-]{1,80}:-?[0-9]+$")]
    pub after: Option<String>,
    /// At most this many (1 to 100, default 100).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// A trial number as `after` may write it (`-?[0-9]+`, as the schema says): one past the
/// range of trials is before or after them all.
fn trial_number(text: &str) -> Option<i32> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse::<i32>().unwrap_or(if text.starts_with('-') {
        i32::MIN
    } else {
        i32::MAX
    }))
}

/// The runs of one of your submissions, in task order.
#[utoipa::path(get, path = "/submissions/{id}/runs", tag = "submissions",
    params(("id" = Uuid, Path), RunsQuery), security(("bearer" = [])),
    responses((status = 200, body = RunPage),
        NotFound))]
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
                .and_then(|(t, n)| Some((name("after", t).ok()?, trial_number(n)?)))
                .ok_or_else(|| ApiError::bad_request("after must be task_id:trial"))?;
            Some((task, trial))
        }
    };
    let rows = runs::list(
        state.pool(),
        id,
        after.as_ref().map(|(t, n)| (t.as_str(), *n)),
        limit,
    )
    .await?;
    let next_after = (rows.len() as i64 == limit)
        .then(|| rows.last().map(|r| format!("{}:{}", r.task_id, r.trial)))
        .flatten();
    Ok(AppJson(RunPage {
        runs: rows.iter().map(RunView::from).collect(),
        next_after,
    }))
}
