//! The MCP face of the gateway: one rmcp `StreamableHttpService` for every run, which finds
//! the run and server of each request from its path (`/mcp/{run}/{server}`, checked by the
//! guard before rmcp sees the request).

use crate::guard::guard;
use crate::registry::{Answer, Gateway, LiveRun, kept_name};
use axum::Router;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult,
    Implementation, InitializeRequestParams, InitializeResult, JsonObject, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, ServerHandler};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// The largest MCP request body accepted.
const MAX_REQUEST_BYTES: usize = 1 << 20;

#[derive(Clone)]
struct McpHandler {
    gateway: Arc<Gateway>,
}

impl McpHandler {
    /// The run and server a request addresses, and the protocol revision it speaks.
    fn target(
        &self,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(Arc<LiveRun>, String, Option<String>), McpError> {
        let parts = ctx
            .extensions
            .get::<http::request::Parts>()
            .ok_or_else(|| McpError::internal_error("request without HTTP parts", None))?;
        let mut segments = parts.uri.path().trim_start_matches('/').split('/').skip(1);
        let (run_id, server) = (
            segments.next().unwrap_or_default(),
            segments.next().unwrap_or_default(),
        );
        let run = self
            .gateway
            .get(run_id)
            .ok_or_else(|| McpError::invalid_request("this run has ended", None))?;
        let header = parts
            .headers
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let protocol = header.or_else(|| ctx.meta.protocol_version().map(|v| v.to_string()));
        Ok((run, server.to_string(), protocol))
    }
}

fn render(value: &Value) -> CallToolResult {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if value.is_object() {
        result.structured_content = Some(value.clone());
    }
    result
}

/// The MCP revisions the gateway offers (docs/protocol.md).
const REVISIONS: &[ProtocolVersion] =
    &[ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// The MCP revisions the gateway offers, as a run's conditions record them.
pub fn offered_revisions() -> Vec<String> {
    REVISIONS.iter().map(|r| r.to_string()).collect()
}

impl ServerHandler for McpHandler {
    /// The two revisions of docs/protocol.md; the older ones rmcp also knows are not offered
    /// (an `initialize` asking for one is answered with 2025-11-25).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(REVISIONS)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("mcpbench-gateway", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        let (run, server, _) = self.target(&ctx)?;
        let asked = kept_name(&request.protocol_version.to_string());
        let mut pending = run.begin(&server, "initialize", None);
        ctx.peer.set_peer_info(request.clone());
        let result = self.negotiate_initialize(&request);
        // The event's revision is the one agreed on (what the agent then speaks, and what the
        // trace header lists); what the client proposed is kept as the event's result.
        pending.protocol = Some(
            result
                .as_ref()
                .map_or(asked.clone(), |r| r.protocol_version.to_string()),
        );
        run.record(
            pending,
            Some(Value::String(format!("client asked for {asked}"))),
        )
        .map_err(|why| McpError::invalid_request(why, None))?;
        result
    }

    async fn discover(&self, ctx: RequestContext<RoleServer>) -> Result<DiscoverResult, McpError> {
        let (run, server, protocol) = self.target(&ctx)?;
        let pending = run.begin(&server, "server/discover", protocol);
        (run.record(pending, None)).map_err(|why| McpError::invalid_request(why, None))?;
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let (run, server, protocol) = self.target(&ctx)?;
        let pending = run.begin(&server, "tools/list", protocol);
        let specs = run.tools(&server);
        let tools: Vec<Tool> = specs
            .iter()
            .map(|t| {
                let schema: JsonObject = t.input_schema.as_object().cloned().unwrap_or_default();
                Tool::new(t.name, run.description(&server, t), Arc::new(schema))
            })
            .collect();
        run.record(
            pending,
            Some(Value::from(
                specs.iter().map(|t| t.name).collect::<Vec<_>>(),
            )),
        )
        .map_err(|why| McpError::invalid_request(why, None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let (run, server, protocol) = self.target(&ctx)?;
        let pending = run.begin(&server, "tools/call", protocol);
        let args = Value::Object(request.arguments.unwrap_or_default());
        match run.call(pending, &request.name, args) {
            Answer::Result(v) => Ok(render(&v).into()),
            Answer::ToolError(m) => Ok(CallToolResult::error(vec![ContentBlock::text(m)]).into()),
            Answer::Refused(m) => Err(McpError::invalid_params(m, None)),
        }
    }
}

pub(crate) fn router(gateway: Arc<Gateway>) -> Router {
    let handler = McpHandler {
        gateway: gateway.clone(),
    };
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let mut config = config;
    config.max_request_body_bytes = MAX_REQUEST_BYTES;
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        gateway.sessions().clone(),
        config,
    );
    Router::new()
        .route_service("/mcp/{run}/{server}", service)
        .layer(axum::middleware::from_fn(session_end))
        .layer(axum::middleware::from_fn_with_state(
            gateway.clone(),
            crate::sessions::bound,
        ))
        .layer(axum::middleware::from_fn_with_state(gateway, guard))
}

/// A session ended by `DELETE` is answered `204 No Content`: the service says `202`, which
/// the official Python SDK reports as a failed termination ("Session termination failed:
/// 202") at the end of every run.
async fn session_end(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if delete && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
        *response.body_mut() = axum::body::Body::empty();
        response
            .headers_mut()
            .remove(axum::http::header::CONTENT_LENGTH);
        response
            .headers_mut()
            .remove(axum::http::header::CONTENT_TYPE);
    }
    response
}
