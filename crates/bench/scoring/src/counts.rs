//! [`RunCounts`]: what a run's scores are made of, as the gateway tallies them. The one type
//! carries them from the gateway through the trace, the runner's report, the worker, the
//! database and the API.

use serde::{Deserialize, Serialize};

/// How a run used its tools. Serialized flat (`tool_calls`, `hallucinated_calls`, ...), the
/// same in a trace's result line, `report.json` and the API.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunCounts {
    /// Every `tools/call`, listed tool or not, within budget or not.
    pub tool_calls: u32,
    /// Calls to a tool that is not among the task's tools.
    pub hallucinated_calls: u32,
    /// Calls whose arguments did not fit the tool's input schema.
    pub invalid_calls: u32,
    /// Calls answered with an error the agent could see (tool errors and refusals).
    pub errors_observed: u32,
    /// A call came after the task's step budget was spent.
    pub budget_exceeded: bool,
}
