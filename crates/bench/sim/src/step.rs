//! The small value types a task is made of: categories, difficulties, calls, faults.

use crate::error::ErrorKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// One call of the right tool with the right arguments.
    SingleTool,
    /// Several calls, often across two or three servers, with data flowing between them.
    Composition,
    /// An injected fault must be noticed and worked around.
    Recovery,
}

impl Category {
    pub const ALL: [Category; 3] = [Self::SingleTool, Self::Composition, Self::Recovery];
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SingleTool => "single-tool",
            Self::Composition => "composition",
            Self::Recovery => "recovery",
        }
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
}

impl Difficulty {
    pub const ALL: [Difficulty; 3] = [Self::Easy, Self::Medium, Self::Hard];
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Easy => "easy",
            Self::Medium => "medium",
            Self::Hard => "hard",
        }
    }
}

/// One tool call: `tool` is qualified by its server (`filesystem.move_file`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Call {
    pub tool: String,
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub arguments: Value,
}

/// One step of a reference solution: a tool call, or the final answer the agent gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Step {
    Call(Call),
    Answer {
        /// The final text answer, for tasks that ask for information.
        answer: String,
    },
}

impl Step {
    pub fn as_call(&self) -> Option<&Call> {
        match self {
            Step::Call(c) => Some(c),
            Step::Answer { .. } => None,
        }
    }
}

/// An error injected into a run: calls `on_call .. on_call + times` (1-based, counted per tool)
/// of `tool` fail with `error` without touching the state, or (`landed`) after the call was
/// carried out: the change happened though the agent is told it failed, so a blind retry
/// makes it twice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// The qualified tool name, `server.tool`.
    pub tool: String,
    /// Which call of that tool fails first, counting from 1.
    #[schemars(range(min = 1, max = 100))]
    pub on_call: u32,
    /// How many consecutive calls of that tool fail.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 100))]
    pub times: u32,
    pub error: ErrorKind,
    /// The text the agent reads after the error kind.
    pub message: String,
    /// The call is carried out before the error answers (extension, benchmark version 3).
    #[serde(default, skip_serializing_if = "is_false")]
    pub landed: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn one() -> u32 {
    1
}

impl Fault {
    /// Whether the `n`-th call (1-based) of `tool` is hit by this fault.
    pub fn hits(&self, tool: &str, n: u32) -> bool {
        self.tool == tool && n >= self.on_call && n < self.on_call.saturating_add(self.times)
    }
}
