//! Per-task container overhead: create, start, ready, stop and remove a pod (the proxy and the
//! agent containers), one at a time and four at once, on this machine's Docker engine.
//!
//! `cargo bench -p mcpbench-sandbox` (MCPBENCH_BENCH_PODS sets how many, default 20). Prints
//! the median and the 90th percentile of one pod's overhead, and the throughput of four at
//! once beside the sequential throughput, measured in the same run.

#[path = "../tests/support/images.rs"]
mod images;

use mcpbench_sandbox::{PodSpec, Sandbox, SandboxConfig};
use std::time::{Duration, Instant};

fn main() {
    let pods: usize = std::env::var("MCPBENCH_BENCH_PODS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let mut config = SandboxConfig::new("bench");
        config.deployment = format!("bench-{}", std::process::id());
        let sandbox = Sandbox::connect(config)
            .await
            .expect("the Docker engine answers");
        let image = images::hostile_image("mcpbench-bench-null:1", &["null"]);
        let gateway = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let spec = PodSpec {
            image: image.clone(),
            lifetime: Duration::from_secs(60),
            gateway: gateway.local_addr().unwrap(),
            labels: Vec::new(),
            model: None,
            baseline: None,
        };
        // One warm-up pod: the first start pays for image and page caches.
        one_pod(&sandbox, &spec).await;

        let mut times = Vec::new();
        let started = Instant::now();
        for _ in 0..pods {
            times.push(one_pod(&sandbox, &spec).await);
        }
        let sequential = pods as f64 / started.elapsed().as_secs_f64();
        times.sort();
        let median = times[times.len() / 2];
        let p90 = times[(times.len() * 9 / 10).min(times.len() - 1)];

        let started = Instant::now();
        let mut running = tokio::task::JoinSet::new();
        let mut done = 0;
        let mut next = 0;
        while done < pods {
            while running.len() < 4 && next < pods {
                let (sandbox, spec) = (sandbox.clone(), spec.clone());
                running.spawn(async move { one_pod(&sandbox, &spec).await });
                next += 1;
            }
            running.join_next().await.unwrap().unwrap();
            done += 1;
        }
        let parallel = pods as f64 / started.elapsed().as_secs_f64();
        println!("per-task container overhead, {pods} pods (create, start, ready, stop, remove):");
        println!(
            "  one at a time: median {:.3} s, p90 {:.3} s, {sequential:.2} pods/s",
            median.as_secs_f64(),
            p90.as_secs_f64()
        );
        println!(
            "  four at once:  {parallel:.2} pods/s ({:.2}x one at a time)",
            parallel / sequential
        );
        println!(
            "  target: median <= 1.5 s -> {}",
            if median <= Duration::from_millis(1500) {
                "met"
            } else {
                "NOT met"
            }
        );
        images::remove_image(&image);
    });
}

async fn one_pod(sandbox: &Sandbox, spec: &PodSpec) -> Duration {
    let started = Instant::now();
    let pod = sandbox.start(spec).await.expect("the pod starts");
    pod.ready(Duration::from_secs(30))
        .await
        .expect("the agent listens");
    pod.stop().await;
    started.elapsed()
}
