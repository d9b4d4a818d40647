//! The `mcpbench/1` agent protocol, specified in docs/protocol.md.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
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

/// `sha256=<hex HMAC-SHA256 of body with secret>`, the `X-MCPBench-Signature` header.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn signature_matches_rfc_4231_test_case_2() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        assert_eq!(
            super::sign(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
