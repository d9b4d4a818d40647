//! Servers on loopback: free ports, a router, a worker in process.

use mcpbench_db::PgPool;
use mcpbench_storage::TraceStore;
use mcpbench_telemetry::Metrics;
use std::sync::Arc;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// A port nobody listens on at the moment of asking.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Serves `app` on a free loopback port until the runtime ends; its base URL, with a
/// trailing slash.
pub async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback listener");
    let url = format!("http://{}/", listener.local_addr().expect("its address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// A worker in process, its gateway on a free loopback port, until `stopped` turns true.
pub async fn worker(
    pool: PgPool,
    store: TraceStore,
    metrics: Arc<Metrics>,
    config: mcpbench_worker::Config,
    stopped: watch::Receiver<bool>,
) -> JoinHandle<Result<(), String>> {
    let gateway = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback listener for the gateway");
    let gateway_url = format!("http://{}", gateway.local_addr().expect("its address"));
    tokio::spawn(async move {
        mcpbench_worker::run_with_gateway(
            pool,
            store,
            metrics,
            gateway,
            &gateway_url,
            config,
            stopped,
        )
        .await
    })
}
