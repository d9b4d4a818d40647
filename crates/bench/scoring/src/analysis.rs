//! [`RunAnalysis`]: what the trace of one run shows beyond its verdict (claims held, how its
//! calls fared, how close they came to a reference solution, why it failed). It is computed
//! from the task and the stored trace alone (`mcpbench-analysis`), so it can be recomputed at
//! any time; scoring only aggregates it.

use serde::{Deserialize, Serialize};

/// The share of claims at or above which a failed run counts as "mostly done" (MCP-Atlas).
pub const MOSTLY_DONE: f64 = 0.75;
/// MCPToolBench++'s thresholds: a run is *resolved* against its closest reference when its
/// tool selection is at least this ...
pub const SELECTION_MIN: f64 = 0.8;
/// ... its parameter accuracy at least this ...
pub const PARAMETERS_MIN: f64 = 0.7;
/// ... and it made at most this many times the reference's calls.
pub const CALL_RATIO_MAX: f64 = 1.5;
/// mcptest's default gate: distractor accuracy (0 to 100) at or above it passes.
pub const DISTRACTOR_GATE: f64 = 50.0;

/// One run's analysis. Serialized the same in `report.json`, the database and the API.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunAnalysis {
    /// The task's claims: the parts of its check's top-level `all` (an `all` inside it split
    /// further) that do not hold before the agent acts; each answer fact is one. A check that
    /// is not an `all` is one part.
    pub claims: u32,
    /// Claims that hold on the final state and answer.
    pub claims_held: u32,
    /// Guards the run broke: parts that held before it acted and no longer do; each counts as
    /// one more claim missed.
    pub guards_broken: u32,
    pub calls: CallTally,
    /// The reference solution closest to the run's calls; absent when the task has none with
    /// a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceMatch>,
    /// Why a failed run failed; absent on a passed run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The task's shape: `serial` when a call of its shortest reference needs an earlier
    /// call's answer, else `parallel` (docs/metrics.md, "Accuracy against distractor count").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
}

impl RunAnalysis {
    /// `claims_held / (claims + guards_broken)`; `None` for a check without claims.
    pub fn coverage(&self) -> Option<f64> {
        let den = self.claims + self.guards_broken;
        (den > 0).then(|| f64::from(self.claims_held) / f64::from(den))
    }
}

/// How a run's `tools/call` requests fared, each number a subset of the one before it
/// except the last two, which are subsets of `named`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CallTally {
    /// Calls within the step budget (the later ones were refused unjudged).
    pub judged: u32,
    /// Of those, calls of a tool listed for the task.
    pub named: u32,
    /// Of those, calls whose arguments fit the tool's input schema.
    pub well_formed: u32,
    /// Of those, calls the tool itself answered (not one of the task's injected faults).
    pub executed: u32,
    /// Of those, calls answered without an error.
    pub succeeded: u32,
    /// Of `named`, calls of a tool that some reference solution calls.
    pub relevant: u32,
    /// Of `named`, calls of a tool of a distractor server (one the task does not need).
    pub distractor: u32,
}

/// The run's calls against the reference solution closest to them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReferenceMatch {
    /// The reference's place among the task's reference solutions, from 0.
    pub reference: u32,
    /// Its calls.
    pub reference_calls: u32,
    /// Reference calls paired with a call of the same tool, over the reference's calls.
    pub selection: f64,
    /// Mean over the paired reference calls of the share of their arguments the paired call
    /// gave the same value; `0` when nothing paired.
    pub parameters: f64,
    /// The run's calls over the reference's.
    pub call_ratio: f64,
    /// `selection >= 0.8`, `parameters >= 0.7` and `call_ratio <= 1.5` (MCPToolBench++).
    pub resolved: bool,
}

/// The group a failed run falls into, and what shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Failure {
    pub group: FailureGroup,
    /// The call or the missing claim that put the run in its group. Quotes the task, so it is
    /// as private as the task: withheld while a private set is live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// MCP-Atlas's four groups of agent failures, then the harness's three. The rules that choose
/// one are in docs/metrics.md, in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(
    feature = "sqlx",
    derive(sqlx::Type),
    sqlx(type_name = "text", rename_all = "snake_case")
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FailureGroup {
    /// Only answer facts are missing: the work was done, the answer is wrong or absent.
    Response,
    /// No call at all, a call of an unlisted tool or with arguments outside the schema, or a
    /// tool error never followed by a successful call of that tool.
    ToolUsage,
    /// A guard broken, or the right tools called with the wrong values.
    Logic,
    /// Valid calls that did not do what the task asks.
    TaskUnderstanding,
    /// More calls than the task's budget.
    Budget,
    /// No reply within the time budget.
    Timeout,
    /// An error status or a malformed reply.
    AgentError,
}

impl FailureGroup {
    pub const ALL: [FailureGroup; 7] = [
        Self::ToolUsage,
        Self::TaskUnderstanding,
        Self::Response,
        Self::Logic,
        Self::Budget,
        Self::Timeout,
        Self::AgentError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Response => "response",
            Self::ToolUsage => "tool_usage",
            Self::Logic => "logic",
            Self::TaskUnderstanding => "task_understanding",
            Self::Budget => "budget",
            Self::Timeout => "timeout",
            Self::AgentError => "agent_error",
        }
    }
}
