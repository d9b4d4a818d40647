//! Why a run ended as it did: decided by the runner, written in the trace's last line, stored
//! with the run, and shown by the API, as one type all the way (its strings are the wire form
//! everywhere: docs/trace-format.md).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a run ended as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(
    feature = "sqlx",
    derive(sqlx::Type),
    sqlx(type_name = "text", rename_all = "snake_case")
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum RunReason {
    Passed,
    /// The agent answered in time and within budget, and the final state fails the task's
    /// check.
    PredicateFalse,
    /// The agent made more tool calls than the task's step budget.
    BudgetExceeded,
    /// The agent did not answer before the deadline.
    Timeout,
    /// The agent could not be reached, or answered with an error status or a malformed reply.
    AgentError,
    /// Our side failed: retried, never counted against the agent.
    HarnessError,
}

impl RunReason {
    pub fn as_str(self) -> &'static str {
        match self {
            RunReason::Passed => "passed",
            RunReason::PredicateFalse => "predicate_false",
            RunReason::BudgetExceeded => "budget_exceeded",
            RunReason::Timeout => "timeout",
            RunReason::AgentError => "agent_error",
            RunReason::HarnessError => "harness_error",
        }
    }
}

impl fmt::Display for RunReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_form_is_the_name_everywhere() {
        for (reason, text) in [
            (RunReason::Passed, "passed"),
            (RunReason::PredicateFalse, "predicate_false"),
            (RunReason::BudgetExceeded, "budget_exceeded"),
            (RunReason::Timeout, "timeout"),
            (RunReason::AgentError, "agent_error"),
            (RunReason::HarnessError, "harness_error"),
        ] {
            assert_eq!(reason.as_str(), text);
            assert_eq!(reason.to_string(), text);
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(serde_json::from_str::<RunReason>(&json).unwrap(), reason);
        }
        assert!(serde_json::from_str::<RunReason>("\"no_such_reason\"").is_err());
    }
}
