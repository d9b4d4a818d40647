//! Shared helpers: the dev set, a local gateway and runner, agents served on loopback.

#![allow(dead_code)]

use axum::Router;
use mcpbench_gateway::GatewayConfig;
use mcpbench_runner::{AgentTarget, LocalGateway, Runner};
use mcpbench_tasks::Task;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub fn dev_tasks() -> Vec<Arc<Task>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    mcpbench_tasks::load_dir(&dir)
        .expect("the dev set loads")
        .into_iter()
        .map(Arc::new)
        .collect()
}

pub fn dev_task(id_prefix: &str) -> Arc<Task> {
    dev_tasks()
        .into_iter()
        .find(|t| t.id.starts_with(id_prefix))
        .expect("a dev task with that prefix")
}

pub async fn runner(budget: Duration) -> (LocalGateway, Arc<Runner>) {
    let gateway = LocalGateway::start(GatewayConfig::default())
        .await
        .expect("gateway starts");
    let runner = Arc::new(Runner::new(
        gateway.gateway.clone(),
        &gateway.base_url,
        budget,
        "dev",
    ));
    (gateway, runner)
}

/// Serves `app` on a loopback port; returns its URL.
pub async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        use axum::serve::ListenerExt;
        let _ = axum::serve(listener.tap_io(mcpbench_runner::no_delay), app).await;
    });
    url
}

pub fn target(url: &str, secret: &[u8]) -> AgentTarget {
    AgentTarget {
        label: "test".into(),
        url: url.into(),
        signing_secret: secret.to_vec(),
        sandbox_gateway: None,
    }
}

/// An MCP client session on one of a run's servers, as an agent opens it from the request.
pub async fn connect(
    server: &mcpbench_runner::McpServerRef,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let token = server.headers["Authorization"]
        .strip_prefix("Bearer ")
        .expect("a bearer token")
        .to_string();
    let config =
        StreamableHttpClientTransportConfig::with_uri(server.url.clone()).auth_header(token);
    ().serve(StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        config,
    ))
    .await
    .expect("the run's server answers initialize")
}
