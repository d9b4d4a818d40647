//! The states the database keeps as text, as types: the service compares these, never the
//! strings. Each maps to its column's text (`#[sqlx(type_name = "text")]`, lower case, as the
//! columns' CHECK constraints list them) and serializes the same way.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a task set is in its life: `draft` -> `active` -> `retired`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, sqlx::Type)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[sqlx(type_name = "text", rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum SetState {
    /// Generated (and for a private set sealed), not yet committed or open to submissions.
    Draft,
    /// Open to submissions; a private one is committed and its tasks stay sealed.
    Active,
    /// Closed; a private one is revealed, save the tasks a live set still holds.
    Retired,
}

impl SetState {
    pub fn as_str(self) -> &'static str {
        match self {
            SetState::Draft => "draft",
            SetState::Active => "active",
            SetState::Retired => "retired",
        }
    }
}

impl fmt::Display for SetState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a submission is: `queued` -> `running` -> `completed`, or `failed` / `cancelled`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, sqlx::Type)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[sqlx(type_name = "text", rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum SubmissionStatus {
    Queued,
    Running,
    /// Every run recorded and the scores computed.
    Completed,
    /// Stopped by an error of the harness (the reason is kept with it).
    Failed,
    /// Stopped by its owner.
    Cancelled,
}

impl SubmissionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SubmissionStatus::Queued => "queued",
            SubmissionStatus::Running => "running",
            SubmissionStatus::Completed => "completed",
            SubmissionStatus::Failed => "failed",
            SubmissionStatus::Cancelled => "cancelled",
        }
    }

    /// Queued or running: it may still change.
    pub fn is_open(self) -> bool {
        matches!(self, SubmissionStatus::Queued | SubmissionStatus::Running)
    }
}

impl fmt::Display for SubmissionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a submission's agent is reached: a hosted HTTP endpoint, a Docker image run in the
/// sandbox, (the standard track) our own `llm` agent driving the vendor's model endpoint, or
/// one of our reference agents run inside the worker (a baseline, which the service submits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, sqlx::Type)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[sqlx(type_name = "text", rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    Endpoint,
    Docker,
    Model,
    Baseline,
}

impl AgentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Endpoint => "endpoint",
            AgentKind::Docker => "docker",
            AgentKind::Model => "model",
            AgentKind::Baseline => "baseline",
        }
    }
}

impl AgentKind {
    /// Whether the vendor's own machine receives each goal it runs (a hosted agent, the model
    /// the standard track's agent asks, or the model an image calls, `calls_model`): a private
    /// task sent there is exposed. An image without a model keeps it in the sandbox, and a
    /// baseline never leaves the worker.
    pub fn sees_goals(self, calls_model: bool) -> bool {
        match self {
            AgentKind::Docker => calls_model,
            AgentKind::Baseline => false,
            AgentKind::Endpoint | AgentKind::Model => true,
        }
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an anomaly flag says of a set's results (the analysis is in docs/metrics.md): a
/// reason to look closer, not a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[sqlx(type_name = "text", rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum AnomalyKind {
    /// A model's success rate jumped against its own earlier months.
    ScoreJump,
    /// A submission did better on the tasks kept from earlier months than on fresh ones.
    KeptFreshGap,
    /// A submission did better on the tasks its vendor had been sent before.
    ExposedGap,
    /// One task's success rate rose sharply against the month it was kept from.
    TaskSpike,
}

impl AnomalyKind {
    pub const ALL: [AnomalyKind; 4] = [
        AnomalyKind::ScoreJump,
        AnomalyKind::KeptFreshGap,
        AnomalyKind::ExposedGap,
        AnomalyKind::TaskSpike,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AnomalyKind::ScoreJump => "score_jump",
            AnomalyKind::KeptFreshGap => "kept_fresh_gap",
            AnomalyKind::ExposedGap => "exposed_gap",
            AnomalyKind::TaskSpike => "task_spike",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

impl fmt::Display for AnomalyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where one job (one task run of a submission) is in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, sqlx::Type)]
#[sqlx(type_name = "text", rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    Queued,
    Running,
    /// Its run is recorded.
    Done,
    /// It ran out of attempts.
    Failed,
    /// Its submission was cancelled.
    Cancelled,
}

/// Why a run ended as it did: the runner's own type, stored as its text.
pub use mcpbench_scoring::RunReason;
