//! A thin MCP client over rmcp's Streamable HTTP transport.

use mcpbench_runner::McpServerRef;
use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion, Tool};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService, ServiceExt,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;

/// The MCP revision a reference agent speaks (docs/protocol.md, section 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Revision {
    /// 2025-11-25: `initialize`, a session per server, its stream of server messages, and its
    /// `DELETE` at the end.
    #[default]
    Sessions,
    /// 2026-07-28: stateless; one `server/discover` per server, then only the calls.
    Stateless,
}

impl std::str::FromStr for Revision {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "2025-11-25" => Ok(Self::Sessions),
            "2026-07-28" => Ok(Self::Stateless),
            other => Err(format!(
                "unknown MCP revision {other:?}; the revisions are 2025-11-25 and 2026-07-28"
            )),
        }
    }
}

pub(crate) struct Session {
    service: RunningService<RoleClient, ()>,
}

impl Session {
    pub(crate) async fn connect(
        http: &reqwest::Client,
        server: &McpServerRef,
        revision: Revision,
    ) -> Result<Self, String> {
        let token = server
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            .and_then(|(_, v)| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        let config =
            StreamableHttpClientTransportConfig::with_uri(server.url.clone()).auth_header(token);
        let transport = StreamableHttpClientTransport::with_client(http.clone(), config);
        let started = match revision {
            Revision::Sessions => ().serve(transport).await,
            Revision::Stateless => {
                let lifecycle = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                };
                ().serve_with_lifecycle(transport, lifecycle).await
            }
        };
        let service = started.map_err(|e| format!("connecting to {}: {e}", server.name))?;
        Ok(Self { service })
    }

    pub(crate) async fn tools(&self) -> Result<Vec<Tool>, String> {
        self.service
            .list_all_tools()
            .await
            .map_err(|e| e.to_string())
    }

    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: &Value,
    ) -> Result<CallToolResult, String> {
        let args = arguments.as_object().cloned().unwrap_or_default();
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        self.service
            .call_tool(params)
            .await
            .map_err(|e| e.to_string())
    }

    pub(crate) async fn close(self) {
        let _ = self.service.cancel().await;
    }
}

/// A session with each server that answers; one that does not is logged and left out.
pub(crate) async fn connect_all(
    http: &reqwest::Client,
    servers: &[McpServerRef],
    revision: Revision,
) -> Vec<(String, Session)> {
    let mut sessions = Vec::new();
    for s in servers {
        match Session::connect(http, s, revision).await {
            Ok(session) => sessions.push((s.name.clone(), session)),
            Err(e) => tracing::warn!(server = %s.name, error = %e, "could not connect"),
        }
    }
    sessions
}
