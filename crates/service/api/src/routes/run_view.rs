//! A recorded run as the API shows it, to its owner (`GET /submissions/{id}/runs`) and to
//! the public (`GET /runs/{id}`): its counts whole, its duration exact or, while its task is
//! sealed, only a range (see [`crate::access`]).

use mcpbench_core::disclosure::{ShownDuration, analysis_shown, shown_duration};
use mcpbench_db::runs;
use mcpbench_scoring::{RunAnalysis, RunCounts, RunReason};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Serialize, ToSchema)]
pub struct RunView {
    pub id: Uuid,
    pub task_id: String,
    pub trial: i32,
    pub passed: bool,
    pub reason: RunReason,
    pub detail: Option<String>,
    #[serde(flatten)]
    pub counts: RunCounts,
    /// The run's wall time; absent while its task is sealed (a live private set, or a retired
    /// set that withholds it), when only `duration_range_ms` is given.
    pub duration_ms: Option<i64>,
    /// While the task is sealed: the bucket the duration falls in (exact times would be a
    /// channel out of a sandboxed run).
    pub duration_range_ms: Option<DurationRange>,
    /// What the trace shows beyond the verdict (docs/metrics.md, section 3): claims held, how
    /// the calls fared, the closest reference, the failure group. A failure's evidence is
    /// withheld while the task is sealed. Absent for runs recorded before analyses existed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<RunAnalysis>,
    /// How many times the run's job was run: 1, unless our side failed (a harness error, a
    /// worker lost) and it ran again. What an agent causes is its own failure, scored at the
    /// first attempt.
    pub attempts: u32,
}

/// A duration known only to fall in `[at_least_ms, below_ms)`.
#[derive(Serialize, ToSchema)]
pub struct DurationRange {
    pub at_least_ms: i64,
    /// Absent for the last bucket.
    pub below_ms: Option<i64>,
}

impl From<&runs::Run> for RunView {
    fn from(r: &runs::Run) -> Self {
        let (duration_ms, duration_range_ms) = match shown_duration(r.duration_ms, r.task_open) {
            ShownDuration::Exact(ms) => (Some(ms), None),
            ShownDuration::Within(at_least_ms, below_ms) => (
                None,
                Some(DurationRange {
                    at_least_ms,
                    below_ms,
                }),
            ),
        };
        Self {
            id: r.id,
            task_id: r.task_id.clone(),
            trial: r.trial,
            passed: r.passed,
            reason: r.reason,
            detail: r.detail.clone(),
            counts: r.counts,
            duration_ms,
            duration_range_ms,
            analysis: r.analysis.clone().map(|a| analysis_shown(a, r.task_open)),
            attempts: r.attempts,
        }
    }
}
