//! The `mcpbench/1` agent protocol, specified in docs/protocol.md.

use mcpbench_scoring::Usage;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const PROTOCOL: &str = "mcpbench/1";

/// What the harness posts to an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentRequest {
    pub protocol: String,
    pub run_id: String,
    pub goal: String,
    pub max_steps: u32,
    /// RFC 3339, UTC: the agent must have answered by then.
    pub deadline: String,
    pub mcp_servers: Vec<McpServerRef>,
}

/// One MCP endpoint the agent may use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct McpServerRef {
    pub name: String,
    pub url: String,
    pub headers: BTreeMap<String, String>,
}

/// What an agent answers: `200 {"answer": "...", "usage": {...}}` (the answer may be absent
/// or null; `usage` is optional).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentReply {
    #[serde(default)]
    pub answer: Option<String>,
    /// What the agent says the run used (tokens, dollars); `None` when it said nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Why a `usage` that was sent could not be read. A broken usage report costs the run
    /// nothing: its usage is unknown and the trace says why.
    #[serde(skip)]
    pub usage_error: Option<String>,
}

/// The part of a reply the verdict rests on; `usage` is read apart so that a broken usage
/// report cannot fail a run.
#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    answer: Option<String>,
}

impl AgentReply {
    /// Reads a reply body: a JSON object with an optional string `answer` and an optional
    /// `usage` ([`Usage::from_reply`]). serde would also take a struct written as an array
    /// (`["text"]`); the protocol does not, so neither do we.
    pub fn parse(body: &[u8]) -> Result<Self, String> {
        let mut value: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| e.to_string())?;
        let Some(object) = value.as_object_mut() else {
            return Err("the reply is not a JSON object".into());
        };
        let usage = object.remove("usage").unwrap_or_default();
        let Answer { answer } = serde_json::from_value(value).map_err(|e| e.to_string())?;
        let (usage, usage_error) = match Usage::from_reply(&usage) {
            Ok(usage) => (usage, None),
            Err(e) => (None, Some(e)),
        };
        Ok(Self {
            answer,
            usage,
            usage_error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_usage_report_is_set_aside_and_the_answer_kept() {
        let reply = AgentReply::parse(br#"{"answer": "42", "usage": {"cost_usd": "cheap"}}"#)
            .expect("the reply itself is fine");
        assert_eq!(reply.answer.as_deref(), Some("42"));
        assert_eq!(reply.usage, None);
        assert!(reply.usage_error.unwrap().contains("usage.cost_usd"));

        let reply =
            AgentReply::parse(br#"{"answer": null, "usage": {"input_tokens": 7}}"#).unwrap();
        assert_eq!(reply.answer, None);
        assert_eq!(reply.usage.and_then(|u| u.input_tokens), Some(7));
        assert_eq!(reply.usage_error, None);

        assert!(AgentReply::parse(br#"["42"]"#).is_err());
        assert!(AgentReply::parse(br#"{"answer": 42}"#).is_err());
    }
}
