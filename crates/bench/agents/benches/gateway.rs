//! `cargo bench -p mcpbench-agents --bench gateway`: the gateway's cost per tool call against calling the same
//! simulated tool in process, and the whole dev set against the oracle over real HTTP on
//! loopback. Figures from one run, side by side; nothing is asserted.

use mcpbench_gateway::GatewayConfig;
use mcpbench_runner::{AgentTarget, EvalOptions, LocalGateway, Runner, evaluate};
use mcpbench_sim::verify::Run;
use mcpbench_tasks::{Task, TaskRun};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const CALLS: usize = 2000;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let tasks: Vec<Arc<Task>> = mcpbench_tasks::load_dir(&dir)
        .expect("dev set")
        .into_iter()
        .map(Arc::new)
        .collect();
    // A filesystem task with a read tool: the call whose cost is all gateway, no work.
    let task = tasks
        .iter()
        .find(|t| {
            t.servers == ["filesystem"]
                && t.available_tools
                    .iter()
                    .any(|x| x == "filesystem.list_directory")
        })
        .expect("a filesystem task listing directories")
        .clone();
    let args = json!({ "path": "/" });

    // A fresh run every `max_steps` calls, so every timed call reaches the tool.
    let mut run = TaskRun::new(task.clone()).expect("world");
    let mut local: Vec<Duration> = (0..CALLS)
        .map(|i| {
            if i > 0 && i % task.max_steps as usize == 0 {
                run = TaskRun::new(task.clone()).expect("world");
            }
            let t = Instant::now();
            let _ = run.call("filesystem.list_directory", &args);
            t.elapsed()
        })
        .collect();
    local.sort();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let gw = LocalGateway::start(GatewayConfig::default()).await.expect("gateway");
        let open = gw.gateway.open_run(task.clone()).expect("run");
        let url = format!("{}/mcp/{}/filesystem", gw.base_url, open.run_id);
        let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(open.token.clone());
        let client = ().serve(StreamableHttpClientTransport::with_client(reqwest::Client::new(), config)).await.expect("client");
        let params = CallToolRequestParams::new("list_directory").with_arguments(args.as_object().cloned().unwrap());
        // The budget of the task would stop us after max_steps calls; the bench measures the
        // path, and over-budget calls take it in full, so that is fine.
        let mut remote = Vec::with_capacity(CALLS);
        for _ in 0..CALLS {
            let t = Instant::now();
            let _ = client.call_tool(params.clone()).await;
            remote.push(t.elapsed());
        }
        remote.sort();
        let _ = client.cancel().await;
        gw.gateway.close_run(&open.run_id);

        let (l50, r50, r99) = (percentile(&local, 0.5), percentile(&remote, 0.5), percentile(&remote, 0.99));
        println!("tool call, {CALLS} sequential calls of filesystem.list_directory:");
        println!("  in process           p50 {:>8.1} us", l50.as_secs_f64() * 1e6);
        println!("  through the gateway  p50 {:>8.1} us   p99 {:>8.1} us", r50.as_secs_f64() * 1e6, r99.as_secs_f64() * 1e6);
        println!(
            "  gateway overhead     p50 {:>8.1} us per call ({:.0}x the in-process call; target under 1000 us)",
            (r50.saturating_sub(l50)).as_secs_f64() * 1e6,
            r50.as_secs_f64() / l50.as_secs_f64().max(1e-9)
        );

        let secret = b"bench";
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let agent_url = format!("http://{}/", listener.local_addr().expect("addr"));
        let app = mcpbench_agents::router(mcpbench_agents::AgentKind::Oracle, &tasks, secret);
        tokio::spawn(async move {
            let _ = mcpbench_agents::serve(listener, app).await;
        });
        let runner = Arc::new(Runner::new(gw.gateway.clone(), &gw.base_url, Duration::from_secs(60), "dev"));
        let agent = AgentTarget { label: "oracle".into(), url: agent_url, signing_secret: secret.to_vec(), sandbox_gateway: None };
        let options = EvalOptions { concurrency: 4, retries: 0 };
        let t = Instant::now();
        let (report, _) = evaluate(runner, tasks.clone(), agent, &options, |_, _, _| {}).await;
        let took = t.elapsed().as_secs_f64();
        println!("dev set against the oracle over HTTP, concurrency 4:");
        println!(
            "  {} tasks, {} passed, {:.2} s, {:.1} tasks/s (target under 10 s: ratio {:.2})",
            report.scores.overall.tasks,
            report.scores.overall.passed,
            took,
            tasks.len() as f64 / took,
            took / 10.0
        );
    });
}
