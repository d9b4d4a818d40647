//! A submission as the API shows it to its owner: where it is, its scores, and why runs
//! failed (by the runs' reasons and by the failure groups their traces put them in).

use crate::model_track::ModelShown;
use mcpbench_core::about::About;
use mcpbench_db::{AgentKind, DbError, PgPool, SubmissionStatus, judgements, runs, submissions};
use mcpbench_scoring::{JudgeSummary, RunReason, Scores, judge_summary};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Serialize, ToSchema)]
pub struct Progress {
    pub done: i32,
    pub total: i32,
}

/// The failed runs of one reason: how many, and one of them as an example.
#[derive(Serialize, ToSchema)]
pub struct FailureReason {
    /// Why these runs failed (any reason but `passed`).
    pub reason: RunReason,
    pub count: i64,
    pub example_task: String,
    /// What exactly went wrong in the example (the part of the predicate that failed, the
    /// HTTP status, the malformed reply, ...); none for a live private set's predicate.
    pub example_detail: Option<String>,
}

/// One failure group of the submission's failed runs (docs/metrics.md, "Failure diagnosis").
#[derive(Serialize, ToSchema)]
pub struct Diagnosis {
    pub group: mcpbench_scoring::FailureGroup,
    pub count: i64,
    pub example_task: String,
    /// The call or the missing claim that put the example in its group; none while the task
    /// is sealed.
    pub example_evidence: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct SubmissionView {
    pub id: Uuid,
    pub set: String,
    pub name: String,
    pub model: String,
    pub kind: AgentKind,
    pub endpoint_url: Option<String>,
    /// For `docker`: the image that runs (an image id for uploads, else the reference).
    pub image: Option<String>,
    /// For `model` (the standard track): the model our agent drives; never its key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_endpoint: Option<ModelShown>,
    pub status: SubmissionStatus,
    pub progress: Progress,
    pub trials: i32,
    /// What it says of its model and agent (`null`: not stated).
    pub about: About,
    /// The level of extra tools its tasks run at (`0` to `1000` or `all`); absent for the set
    /// as published. A submission at a level is never ranked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distractors: Option<String>,
    /// Why the submission failed, when it did, in words you can act on.
    pub error: Option<String>,
    /// Why runs did not pass, grouped by reason (only in the single view).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<Vec<FailureReason>>,
    /// Why runs did not pass, by failure group with an example each (only in the single view).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnoses: Option<Vec<Diagnosis>>,
    /// The optional rubric judge's reading of the runs (docs/metrics.md, "The rubric judge"):
    /// a model's opinion, apart from the scores and never part of them. Only in the single
    /// view, and only where the deployment runs a judge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeSummary>,
    /// The scores once completed: overall and by server, category and difficulty.
    pub scores: Option<Scores>,
    pub published: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub finished_at: Option<OffsetDateTime>,
    /// When its vendor withdrew it from the board (`POST /submissions/{id}/withdraw`); it is
    /// never ranked again. Absent while it stands.
    #[serde(
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub withdrawn_at: Option<OffsetDateTime>,
    /// The completion webhook, when the submission names one: where, and how its delivery
    /// went so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookView>,
}

/// A submission's completion webhook (docs/protocol.md, section 10).
#[derive(Serialize, ToSchema)]
pub struct WebhookView {
    pub url: String,
    /// Attempts made so far (at most five).
    pub attempts: i32,
    /// When an attempt was answered with a 2xx; absent until then.
    #[serde(
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub delivered_at: Option<OffsetDateTime>,
    /// Why the last attempt failed, while not delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

impl From<submissions::Submission> for SubmissionView {
    fn from(s: submissions::Submission) -> Self {
        let about = About::stored(&s.about());
        let model_endpoint = ModelShown::of(&s);
        Self {
            id: s.id,
            set: s.set_id,
            name: s.name,
            model: s.model,
            kind: s.kind,
            endpoint_url: s.endpoint_url,
            image: s.image,
            model_endpoint,
            status: s.status,
            progress: Progress {
                done: s.tasks_done,
                total: s.tasks_total,
            },
            trials: s.trials,
            about,
            distractors: s.distractors,
            error: s.error,
            failures: None,
            diagnoses: None,
            judge: None,
            scores: s.scores.and_then(|stored| stored.0),
            published: s.published,
            created_at: s.created_at,
            finished_at: s.finished_at,
            withdrawn_at: s.withdrawn_at,
            webhook: s.webhook_url.map(|url| WebhookView {
                url,
                attempts: s.webhook_attempts,
                delivered_at: s.webhook_delivered_at,
                last_error: s.webhook_error,
            }),
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

impl SubmissionView {
    /// Adds why runs failed (the single view only): by reason, and by failure group.
    pub(crate) async fn explain(&mut self, pool: &PgPool, id: Uuid) -> Result<(), DbError> {
        let failures = runs::failures(pool, id).await?;
        let diagnoses = runs::diagnoses(pool, id).await?;
        let judged = judgements::of_submission(pool, id).await?;
        self.judge = (!judged.is_empty())
            .then(|| judge_summary(judged.iter().map(|(passed, j)| (*passed, j))));
        self.failures = Some(
            failures
                .into_iter()
                .map(|f| FailureReason {
                    reason: f.reason,
                    count: f.count,
                    example_task: f.example_task,
                    example_detail: f.example_detail,
                })
                .collect(),
        );
        self.diagnoses = Some(
            diagnoses
                .into_iter()
                .map(|d| Diagnosis {
                    group: d.group,
                    count: d.count,
                    example_task: d.example_task,
                    example_evidence: d.example_evidence,
                })
                .collect(),
        );
        Ok(())
    }
}
