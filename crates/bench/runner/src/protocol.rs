//! The `mcpbench/1` agent protocol, specified in docs/protocol.md.

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

/// What an agent answers: `200 {"answer": "..."}` (the answer may be absent or null).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentReply {
    #[serde(default)]
    pub answer: Option<String>,
}

impl AgentReply {
    /// Reads a reply body: a JSON object with an optional string `answer`. serde would also
    /// take a struct written as an array (`["text"]`); the protocol does not, so neither do we.
    pub fn parse(body: &[u8]) -> Result<Self, String> {
        let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        if !value.is_object() {
            return Err("the reply is not a JSON object".into());
        }
        serde_json::from_value(value).map_err(|e| e.to_string())
    }
}
