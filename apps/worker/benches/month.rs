//! A month's load on one worker, measured: `cargo bench -p mcpbench-worker-app --bench month`.
//!
//! Ten vendors each submit a model-backed agent (the oracle paced like a model: it thinks
//! `MONTH_THINK_MS`, 1000-3000 by default, before each tool call) over the 200 tasks of the dev
//! set, five trials each: 10,000 runs, on one `mcpbench-worker` process with
//! `MONTH_CONCURRENCY` (1,000) slots. Agents reach the gateway through the routing layer, which
//! times every MCP request it carries. The agents run in a second process that takes only the
//! CPU time the service leaves (`MONTH_AGENTS_AT`, `SCHED_IDLE` by default), standing in for
//! the vendors' machines they would run on. It prints:
//!
//! - the wall time beside the agent-bound floor (every run's tool calls times the mean think
//!   time, over the concurrency) and their ratio;
//! - the most runs the worker held in flight at once, and its memory per in-flight run (its
//!   resident memory less what it held idle, over the runs): when the slots first filled, and
//!   the most while they stayed full (by then the allocator holds memory beside the runs'
//!   own); and what it still held after the last run;
//! - the p50 and p99 of an MCP request's time through the routing layer and the worker's
//!   gateway, from the routing layer holding the whole request to it holding the whole answer,
//!   overall and by kind of request (an upper bound on the gateway's overhead: the tools run
//!   in it too, and on two cores the worker, PostgreSQL and the routing layer wait their turns
//!   for one), and of the time the worker's gateway spent on each request once it began
//!   handling it (from the traces' `start_us` and `end_us`);
//! - when the requests over 5 ms came: how few seconds hold half of them, and each process's
//!   CPU and the host's steal (the time it took from this virtual machine's CPUs) in those
//!   seconds against the others (`month/slow.rs`, from a sample taken every second), and with
//!   `MONTH_TIMELINE` set, every second's line.
//!
//! The agents speak MCP 2025-11-25 (a session per server: `initialize`, the stream of server
//! messages, `DELETE`); `MONTH_MCP=2026-07-28` makes them stateless (`server/discover`).
//!
//! The kernel's autogroup (`kernel.sched_autogroup_enabled`) skews the figures where it is on:
//! it schedules each PostgreSQL backend as a group as large as the whole service. Deployments
//! run in cgroups, where it does not apply; the bench says so when it is on.
//!
//! Smaller runs: `MONTH_VENDORS`, `MONTH_TASKS`, `MONTH_TRIALS`. `MONTH_RAMP_SECS` (10, the
//! worker's default) is how long the worker takes to fill its slots. Bounded by `MONTH_LIMIT_SECS`
//! (1,800). Nothing here asserts a time; it prints figures.

#[path = "month/machine.rs"]
mod machine;
#[path = "month/slow.rs"]
mod slow;
#[path = "../tests/support/mod.rs"]
mod support;

use machine::rss_kib;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn think() -> (u64, u64) {
    let text = std::env::var("MONTH_THINK_MS").unwrap_or_else(|_| "1000-3000".into());
    let (lo, hi) = text.split_once('-').unwrap_or((&text, &text));
    (
        lo.parse().expect("MONTH_THINK_MS"),
        hi.parse().expect("MONTH_THINK_MS"),
    )
}

/// The MCP revision the agents speak (`MONTH_MCP`, 2025-11-25 by default), as named and as
/// the agents take it.
fn revision() -> (String, mcpbench_agents::Revision) {
    let named = std::env::var("MONTH_MCP").unwrap_or_else(|_| "2025-11-25".into());
    let revision = named.parse().expect("MONTH_MCP names a revision");
    (named, revision)
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    if std::env::var_os(AGENT_ROLE).is_some() {
        return serve_agents().await;
    }
    let vendors = env("MONTH_VENDORS", 10) as usize;
    let tasks = env("MONTH_TASKS", 200) as usize;
    let trials = env("MONTH_TRIALS", 5) as i32;
    let concurrency = env("MONTH_CONCURRENCY", 1000);
    let ramp = env("MONTH_RAMP_SECS", 10);
    let limit = Duration::from_secs(env("MONTH_LIMIT_SECS", 1800));
    let (think_lo, think_hi) = think();
    let agents_at = std::env::var("MONTH_AGENTS_AT").unwrap_or_else(|_| "idle".into());

    let s = support::setup("month", tasks).await;
    let pool = &s.pool;

    // The routing layer in front of the worker's gateway, timing each request it carries.
    let timings = Arc::new(Mutex::new(Vec::<Timed>::with_capacity(200_000)));
    let recorded = timings.clone();
    let routes = mcpbench_route::router(mcpbench_route::Routes::new(pool.clone())).layer(
        axum::middleware::from_fn(move |req, next: axum::middleware::Next| {
            let recorded = recorded.clone();
            async move { timed(req, next, &recorded).await }
        }),
    );
    // With the API's accept queue (`mcpbench_config::bind`), as the API that mounts it listens.
    let listener = mcpbench_config::bind(mcpbench_config::LOOPBACK).unwrap();
    let gateway = format!("http://{}", listener.local_addr().unwrap());
    // Without Nagle's delay, as the API that mounts this layer serves it.
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, routes).await });

    // The agents, paced like a model, in a process of their own (see `spawn_agents`).
    let (mut agents, endpoint) = spawn_agents(&agents_at);

    let traces = tempfile::tempdir().unwrap();
    let concurrency_text = concurrency.to_string();
    let ramp_text = ramp.to_string();
    let metrics = format!("127.0.0.1:{}", support::free_port());
    let mut worker = support::spawn_worker(
        &s.url,
        traces.path(),
        &[
            ("MCPBENCH_GATEWAY_URL", gateway.as_str()),
            ("MCPBENCH_WORKER_CONCURRENCY", concurrency_text.as_str()),
            ("MCPBENCH_WORKER_RAMP_SECS", ramp_text.as_str()),
            ("MCPBENCH_VENDOR_MAX_RUNNING", "0"),
            ("MCPBENCH_LEASE_SECS", "30"),
            ("MCPBENCH_TIME_BUDGET_SECS", "120"),
            ("MCPBENCH_DOCKER", "off"),
            ("MCPBENCH_METRICS_ADDR", metrics.as_str()),
        ],
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle_kib = rss_kib(worker.id());
    let watched = machine::Watched {
        route: std::process::id(),
        postmaster: machine::postmaster(pool).await,
        worker: worker.id(),
        agents: agents.id(),
    };
    let cpu_before = watched.cpu();

    for v in 0..vendors {
        let (vendor, _) = mcpbench_db::vendors::create(pool, &format!("vendor-{v}"), false, false)
            .await
            .unwrap();
        s.submit(vendor.id, &endpoint, trials, 3).await;
    }
    let runs_total = vendors * tasks * trials as usize;
    println!(
        "month: {vendors} vendors x {tasks} tasks x {trials} trials = {runs_total} runs, think \
         {think_lo}-{think_hi} ms per call, one worker with {concurrency} slots (filled over \
         {ramp} s), the agents at priority {agents_at}, speaking MCP {}",
        revision().0
    );

    let sampler = machine::Sampler::start(watched);
    if machine::autogroup() {
        println!(
            "note: the kernel's autogroup is on, so each PostgreSQL backend is scheduled as a \
             group as large as this whole bench; deployments run in cgroups, where it does not \
             apply. For comparable figures: sysctl kernel.sched_autogroup_enabled=0"
        );
    }
    let started = Instant::now();
    let mut peak = 0;
    let mut peak_kib = idle_kib;
    // The most the worker held while its runs in flight stayed near their most (the
    // allocator's own share included).
    let mut steady_kib = idle_kib;
    let mut last_report = Instant::now();
    // The steady state: from the first moment the slots are all but full to the last at which
    // jobs still wait; its first and last (time, runs done), and the in-flight samples.
    let (mut steady_from, mut steady_to, mut steady_held) = (None, None, Vec::new());
    loop {
        let (in_flight, open): (i64, i64) = sqlx::query_as(
            "SELECT count(*) FILTER (WHERE state = 'running'),
                    count(*) FILTER (WHERE state IN ('queued', 'running')) FROM jobs",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        let done = runs_total as f64 - open as f64;
        if open > in_flight && in_flight as f64 >= 0.95 * concurrency as f64 {
            steady_from.get_or_insert((started.elapsed().as_secs_f64(), done));
            steady_to = Some((started.elapsed().as_secs_f64(), done));
            steady_held.push(in_flight as f64);
        }
        let kib = rss_kib(worker.id());
        if in_flight as u64 > peak {
            peak = in_flight as u64;
            peak_kib = kib;
        }
        // Near the most runs held so far, which is the slots unless the month is smaller.
        if in_flight as f64 >= 0.95 * peak as f64 {
            steady_kib = steady_kib.max(kib);
        }
        if last_report.elapsed() > Duration::from_secs(10) {
            println!(
                "  {:>5.0} s: {in_flight} in flight, {open} open, worker {} MiB",
                started.elapsed().as_secs_f64(),
                rss_kib(worker.id()) / 1024
            );
            last_report = Instant::now();
        }
        if open == 0 {
            break;
        }
        if started.elapsed() > limit {
            println!("month: stopped at the limit of {} s", limit.as_secs());
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let wall = started.elapsed().as_secs_f64();
    let cpu_after = watched.cpu();
    let cpu: [f64; 4] = std::array::from_fn(|i| cpu_after[i] - cpu_before[i]);
    let seconds = sampler.seconds();
    drop(sampler);
    let steal: f64 = seconds.iter().map(|s| s.steal).sum();
    let steady = match (steady_from, steady_to) {
        (Some((t0, d0)), Some((t1, d1))) if t1 > t0 && d1 > d0 => Some((
            (d1 - d0) / (t1 - t0),
            steady_held.iter().sum::<f64>() / steady_held.len() as f64,
        )),
        _ => None,
    };
    let stages = stages(&metrics).await;
    let after_kib = rss_kib(worker.id());
    worker.kill().ok();
    worker.wait().ok();
    agents.kill().ok();
    agents.wait().ok();

    let (runs, passed, calls, run_ms): (i64, i64, i64, f64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE passed), coalesce(sum(tool_calls), 0)::bigint,
                coalesce(avg(duration_ms), 0)::float8
         FROM runs",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    let mean_think = (think_lo + think_hi.max(think_lo)) as f64 / 2000.0;
    let floor = calls as f64 * mean_think / concurrency as f64;
    let mut handled = handling_times(traces.path());
    handled.sort_unstable();
    let timed = timings.lock().unwrap().clone();
    let mut times: Vec<u64> = timed.iter().map(|t| t.micros).collect();
    times.sort_unstable();
    println!(
        "runs recorded       {runs} of {runs_total} ({passed} passed), {:.1} tool calls per run",
        calls as f64 / runs.max(1) as f64
    );
    println!(
        "wall time           {wall:.0} s against an agent-bound floor of {floor:.0} s: \
         throughput {:.0}% of the floor",
        100.0 * floor / wall
    );
    println!(
        "a run               {:.2} s from its agent's call to its answer, of which {:.2} s the \
         agent's thinking and {:.2} s its MCP requests' time; {:.2} s from slot to slot (the \
         steady state's in-flight runs over its rate)",
        run_ms / 1000.0,
        calls as f64 / runs.max(1) as f64 * mean_think,
        times.iter().sum::<u64>() as f64 / 1e6 / runs.max(1) as f64,
        steady.map_or(f64::NAN, |(runs_per_s, in_flight)| in_flight / runs_per_s)
    );
    let per_run = |secs: f64| 1000.0 * secs / runs.max(1) as f64;
    println!(
        "CPU per run         worker {:.1} ms, routing layer {:.1} ms (with this bench's own \
         polling), PostgreSQL {:.1} ms, agents {:.1} ms; all four used {:.0}% of the two cores, \
         and the host took {:.1}% of them (steal)",
        per_run(cpu[2]),
        per_run(cpu[0]),
        per_run(cpu[1]),
        per_run(cpu[3]),
        100.0 * cpu.iter().sum::<f64>() / (2.0 * wall),
        100.0 * steal / (2.0 * wall)
    );
    println!("a job's own stages  {stages} (means, from the worker's metrics)");
    println!(
        "in flight           at most {peak} runs on one worker ({concurrency} slots), {:.0} on \
         average in the steady state",
        steady.map_or(f64::NAN, |(_, held)| held)
    );
    let per_run = |kib: u64| (kib.saturating_sub(idle_kib)) as f64 / peak.max(1) as f64;
    println!(
        "worker memory       {} MiB idle; {} MiB when the slots first filled ({:.0} KiB per \
         in-flight run), at most {} MiB while they stayed full ({:.0} KiB per run, what the \
         allocator keeps beside the runs included); {} MiB after the last run (the kept worlds \
         and what the allocator keeps)",
        idle_kib / 1024,
        peak_kib / 1024,
        per_run(peak_kib),
        steady_kib / 1024,
        per_run(steady_kib),
        after_kib / 1024,
    );
    println!(
        "gateway             {} MCP requests, p50 {:.2} ms, p99 {:.2} ms (through the routing \
         layer and the worker's gateway, tools included, from the whole request to the whole \
         answer)",
        times.len(),
        percentile(&times, 0.50),
        percentile(&times, 0.99)
    );
    by_kind(&timed);
    by_period(&timed);
    let opening = |kind| matches!(kind, "initialize" | "server/discover");
    let requests: Vec<_> = timed
        .iter()
        .map(|t| (t.at, t.micros, opening(t.kind)))
        .collect();
    slow::report(&requests, &seconds);
    println!(
        "gateway handling    {} MCP requests in the traces, p50 {:.2} ms, p99 {:.2} ms (from \
         the worker's gateway taking a request to its answer, tools included)",
        handled.len(),
        percentile(&handled, 0.50),
        percentile(&handled, 0.99)
    );
}

/// The worker's mean time per job in each stage outside its run, from the
/// `mcpbench_job_stage_duration_seconds` histograms of its metrics at `addr`.
async fn stages(addr: &str) -> String {
    let text = match reqwest::get(format!("http://{addr}/metrics")).await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(e) => return format!("(the worker's metrics did not answer: {e})"),
    };
    let read = |what, stage| support::stage_metric(&text, what, stage).unwrap_or(f64::NAN);
    support::STAGES
        .iter()
        .map(|stage| {
            let mean = 1000.0 * read("sum", stage) / read("count", stage);
            format!("{stage} {mean:.1} ms")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Carries one MCP request through the routing layer and records the service's time for it:
/// from holding the whole request to holding the whole answer, so that how fast the agent
/// sends and reads (its process is the one starved of CPU here) is not counted. A `POST`'s
/// answer (JSON, or a stream that ends with the response) is read whole before it goes on; a
/// `GET` (the long-lived stream for server messages) and a `DELETE` are timed to their head.
async fn timed(
    req: axum::extract::Request,
    next: axum::middleware::Next,
    recorded: &Mutex<Vec<Timed>>,
) -> axum::response::Response {
    const LIMIT: usize = 16 << 20;
    let (parts, body) = req.into_parts();
    let post = parts.method == axum::http::Method::POST;
    let body = axum::body::to_bytes(body, LIMIT).await.unwrap_or_default();
    let kind = kind_of(&parts.method, &body);
    let started = Instant::now();
    let answer = next
        .run(axum::extract::Request::from_parts(parts, body.into()))
        .await;
    let answer = if post {
        let (parts, body) = answer.into_parts();
        let body = axum::body::to_bytes(body, LIMIT).await.unwrap_or_default();
        axum::response::Response::from_parts(parts, body.into())
    } else {
        answer
    };
    let micros = started.elapsed().as_micros() as u64;
    recorded.lock().unwrap().push(Timed {
        kind,
        at: started,
        micros,
    });
    answer
}

/// One MCP request as the routing layer timed it.
#[derive(Clone, Copy)]
struct Timed {
    kind: &'static str,
    at: Instant,
    micros: u64,
}

/// What an MCP request asks: its JSON-RPC method, or its HTTP method when it has none.
fn kind_of(method: &axum::http::Method, body: &[u8]) -> &'static str {
    const KNOWN: [&str; 6] = [
        "initialize",
        "server/discover",
        "notifications/initialized",
        "tools/list",
        "tools/call",
        "ping",
    ];
    let named = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["method"].as_str().map(str::to_owned));
    match named {
        Some(m) => KNOWN.into_iter().find(|k| *k == m).unwrap_or("other"),
        None if method == axum::http::Method::GET => "GET (stream)",
        None if method == axum::http::Method::DELETE => "DELETE (session)",
        None => "other",
    }
}

/// p50 and p99 of each kind of request, one line each.
fn by_kind(timed: &[Timed]) {
    let mut kinds: std::collections::BTreeMap<&str, Vec<u64>> = Default::default();
    for t in timed {
        kinds.entry(t.kind).or_default().push(t.micros);
    }
    for (kind, mut times) in kinds {
        times.sort_unstable();
        println!(
            "  {kind:<26} {:>7} requests, p50 {:.2} ms, p90 {:.2}, p99 {:.2}, p99.9 {:.2}, \
             max {:.2}; {} between 38 and 45 ms",
            times.len(),
            percentile(&times, 0.50),
            percentile(&times, 0.90),
            percentile(&times, 0.99),
            percentile(&times, 0.999),
            percentile(&times, 1.0),
            times
                .iter()
                .filter(|t| (38_000..45_000).contains(*t))
                .count()
        );
    }
}

/// p99 of the requests begun in each sixth of the month: the first holds the first wave's
/// start (every slot's run opening at once), the last the drain.
fn by_period(timed: &[Timed]) {
    let (Some(first), Some(last)) = (
        timed.iter().map(|t| t.at).min(),
        timed.iter().map(|t| t.at).max(),
    ) else {
        return;
    };
    let span = last.duration_since(first).as_secs_f64().max(1e-3);
    let mut periods: Vec<Vec<u64>> = vec![Vec::new(); 6];
    for t in timed {
        let i = (t.at.duration_since(first).as_secs_f64() / span * 6.0) as usize;
        periods[i.min(5)].push(t.micros);
    }
    let line: Vec<String> = periods
        .iter_mut()
        .map(|p| {
            p.sort_unstable();
            format!("{:.1}", percentile(p, 0.99))
        })
        .collect();
    println!(
        "  p99 by sixth of the month, ms (first wave .. drain): {}",
        line.join(" / ")
    );
}

/// Set in the environment of this bench's second process, the agents'.
const AGENT_ROLE: &str = "MONTH_AGENT_ROLE";

/// Starts this bench again as the agents' process, at `priority`, and returns it with the
/// agents' endpoint. In a deployment the agents run on their vendors' machines; here they share
/// two cores with the worker, PostgreSQL and the routing layer, and thousands of MCP client
/// sessions cost about half a core. At the same priority, their work would be counted as the
/// gateway's latency. `idle` (the default) runs them under `SCHED_IDLE`: they take only the
/// CPU time the service leaves, and they give way as soon as any of its threads wakes. A number
/// runs them at that `nice` value instead, and `0` at the service's own priority (set with
/// `MONTH_AGENTS_AT`, to see the difference). The process ends when this one closes its stdin.
fn spawn_agents(priority: &str) -> (std::process::Child, String) {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().expect("this bench knows its own path");
    let mut command = if priority == "idle" {
        let mut c = Command::new("chrt");
        c.args(["--idle", "0"]);
        c
    } else {
        let nice: u8 = priority
            .parse()
            .expect("MONTH_AGENTS_AT is idle or a nice value");
        let mut c = Command::new("nice");
        c.arg("-n").arg(nice.to_string());
        c
    };
    let mut child = command
        .arg(exe)
        .env(AGENT_ROLE, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the agents' process starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("the agents' process says where it listens");
    let endpoint = line.trim().to_string();
    assert!(endpoint.starts_with("http://"), "the agents said {line:?}");
    (child, endpoint)
}

/// The agents' process: the oracle over the bench's tasks, thinking before each tool call, on
/// loopback; prints its endpoint and serves until its stdin closes.
async fn serve_agents() {
    let (think_lo, think_hi) = think();
    let tasks = support::dev_tasks(env("MONTH_TASKS", 200) as usize);
    let shared: Vec<Arc<_>> = tasks.into_iter().map(Arc::new).collect();
    let pace = Duration::from_millis(think_lo)..Duration::from_millis(think_hi.max(think_lo));
    let agent = mcpbench_agents::thinking_oracle(&shared, &support::SECRET, pace, revision().1);
    // A vendor's endpoint would take a burst of runs as well: the same accept queue.
    let listener = mcpbench_config::bind(mcpbench_config::LOOPBACK).unwrap();
    println!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = mcpbench_agents::serve(listener, agent).await;
    });
    // Until the bench closes stdin (or is gone).
    tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink()))
        .await
        .ok();
}

/// Every MCP request's handling time in the worker's gateway, microseconds, from the traces
/// under `dir` (`runs/<submission>/<task>-<trial>-e<epoch>.jsonl`).
fn handling_times(dir: &std::path::Path) -> Vec<u64> {
    let mut out = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for line in text.lines() {
                    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                        continue;
                    };
                    if v["type"] == "event"
                        && let (Some(start), Some(end)) =
                            (v["start_us"].as_u64(), v["end_us"].as_u64())
                    {
                        out.push(end.saturating_sub(start));
                    }
                }
            }
        }
    }
    out
}
