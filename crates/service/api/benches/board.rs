//! The leaderboard under a month's data: `cargo bench -p mcpbench-api --bench board`.
//!
//! Fills a throwaway database the way the service fills it: 50 vendors each submit a reference
//! agent (oracle, heuristic, random and null in turn, so the board has spread) over the 200
//! tasks of the dev set, and the API's own worker runs them: 10,000 runs and 50 submissions.
//! Then, with wrk (64 connections on loopback, `BOARD_SECONDS` each, 10 by default), it loads
//! `/healthz` and each public page a visitor opens, side by side in one run, and prints each
//! one's requests per second, p50 and p99, and its throughput beside `/healthz`'s. Last, it
//! prints the plan PostgreSQL chose for every statement those pages run (auto_explain), and
//! names any sequential scan of a table that grows with the runs.
//!
//! Smaller runs: `BOARD_SUBMISSIONS` (50), `BOARD_TASKS` (200). Nothing here asserts a time.

#[path = "../tests/support/mod.rs"]
mod support;

use mcpbench_agents::AgentKind;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{Options, Service};

/// Tables whose rows grow with every run or submission: a sequential scan of one is a query
/// that slows down as the service ages.
const GROWING: &[&str] = &[
    "runs",
    "jobs",
    "submissions",
    "leaderboard",
    "judgements",
    "set_tasks",
    "anomaly_flags",
];

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Requests per second, p50 and p99 in milliseconds, from wrk's `--latency` report.
fn wrk(url: &str, seconds: usize) -> Option<(f64, f64, f64)> {
    let out = Command::new("wrk")
        .args(["-t2", "-c64", &format!("-d{seconds}s"), "--latency", url])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let number = |line: &str| -> Option<f64> {
        let value = line.split_whitespace().nth(1)?;
        let (digits, unit) = value.split_at(value.find(|c: char| c.is_alphabetic())?);
        let scale = match unit {
            "us" => 0.001,
            "ms" => 1.0,
            "s" => 1000.0,
            _ => return None,
        };
        Some(digits.parse::<f64>().ok()? * scale)
    };
    let line = |prefix: &str| text.lines().find(|l| l.trim_start().starts_with(prefix));
    let rps = line("Requests/sec:")?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    let errors = line("Non-2xx").is_some() || line("Socket errors").is_some();
    if errors {
        eprintln!("wrk reported errors for {url}:\n{text}");
    }
    Some((rps, number(line("50%")?)?, number(line("99%")?)?))
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let submissions = env("BOARD_SUBMISSIONS", 50);
    let tasks = env("BOARD_TASKS", 200);
    let seconds = env("BOARD_SECONDS", 10);
    if Command::new("wrk").arg("--version").output().is_err() {
        eprintln!("board: wrk is not installed (apt-get install wrk)");
        std::process::exit(2);
    }

    let service = Service::start(Options {
        tasks,
        concurrency: 64,
        quota: None,
        time_budget: Duration::from_secs(60),
        ..Options::default()
    })
    .await;
    let kinds = [
        AgentKind::Oracle,
        AgentKind::Heuristic,
        AgentKind::Random,
        AgentKind::Null,
    ];
    let mut ids = Vec::new();
    for i in 0..submissions {
        let token = service.token(&format!("vendor-{i}")).await;
        let kind = kinds[i % kinds.len()];
        let model = format!("model-{i}");
        let (id, serve) = service
            .submit_reference(&token, None, (kind, &model), &service.tasks)
            .await;
        serve();
        ids.push(id);
    }
    let started = Instant::now();
    loop {
        // Jobs first, then each submission's scoring once its last job is recorded.
        let open: i64 = sqlx::query_scalar(
            "SELECT (SELECT count(*) FROM jobs WHERE state IN ('queued', 'running'))
                  + (SELECT count(*) FROM submissions WHERE status IN ('queued', 'running'))",
        )
        .fetch_one(&service.pool)
        .await
        .unwrap();
        if open == 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(1800),
            "the runs did not finish in 30 minutes"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let (runs, done): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM runs),
                (SELECT count(*) FROM submissions WHERE status = 'completed')",
    )
    .fetch_one(&service.pool)
    .await
    .unwrap();
    println!(
        "board: {runs} runs and {done} completed submissions in the database (filled in {:.0} s)",
        started.elapsed().as_secs_f64()
    );

    let (a, b) = (&ids[0], &ids[1]);
    let pages = [
        ("/healthz", "/healthz".to_string()),
        ("leaderboard JSON", "/leaderboard".to_string()),
        ("leaderboard page", "/".to_string()),
        ("submission page", format!("/web/submissions/{a}")),
        ("compare JSON", format!("/compare?a={a}&b={b}")),
        ("compare page", format!("/web/compare?a={a}&b={b}")),
    ];
    for (_, path) in &pages {
        let (status, _, body) = service.get_text(path).await;
        assert_eq!(status, 200, "{path}: {body}");
    }

    println!("\none request at a time (median of 50):");
    for (name, path) in &pages {
        let mut times: Vec<Duration> = Vec::new();
        for _ in 0..50 {
            let started = Instant::now();
            service.get_text(path).await;
            times.push(started.elapsed());
        }
        times.sort();
        println!("  {name:<18} {:>7.2} ms", times[25].as_secs_f64() * 1e3);
    }
    println!(
        "\n{:<18} {:>9} {:>9} {:>9} {:>12}",
        "page", "req/s", "p50 ms", "p99 ms", "vs /healthz"
    );
    let mut healthz = None;
    for (name, path) in &pages {
        let Some((rps, p50, p99)) = wrk(&service.at(path), seconds) else {
            println!("{name:<18} wrk gave no figures");
            continue;
        };
        let base = *healthz.get_or_insert(rps);
        println!(
            "{name:<18} {rps:>9.0} {p50:>9.2} {p99:>9.2} {:>11.2}x",
            rps / base
        );
    }
    println!("(target: p99 under 10 ms for every page)");

    explain_all(&service).await;
    println!("\nquery plans (auto_explain), statement by statement:");
    let scans = plans(&service, &pages[1..], true).await;
    report(
        "sequential scans of growing tables in these plans (on tables this small the planner \
         may rightly prefer them)",
        &scans,
    );
    // Priced out as they are for the planner once a table is large: a statement that still
    // scans a growing table has no index to use.
    set(&service, "ALTER SYSTEM SET enable_seqscan = off").await;
    let forced = plans(&service, &pages[1..], false).await;
    set(&service, "ALTER SYSTEM RESET enable_seqscan").await;
    report(
        "with sequential scans priced out, statements that still scan a growing table (no \
         index to use)",
        &forced,
    );
}

fn report(what: &str, scans: &[String]) {
    println!("\n{what}: {}", if scans.is_empty() { "none" } else { "" });
    for s in scans {
        println!("  {s}");
    }
}

/// Runs `statement` and reloads the configuration, on one connection.
async fn set(service: &Service, statement: &'static str) {
    let mut conn = service.pool.acquire().await.unwrap();
    sqlx::query(statement).execute(&mut *conn).await.unwrap();
    sqlx::query("SELECT pg_reload_conf()")
        .execute(&mut *conn)
        .await
        .unwrap();
}

/// Turns auto_explain on for sessions opened from now on.
async fn explain_all(service: &Service) {
    // One connection: ALTER SYSTEM knows auto_explain's settings once the module is loaded.
    let mut conn = service.pool.acquire().await.unwrap();
    for setting in [
        "LOAD 'auto_explain'",
        "ALTER SYSTEM SET session_preload_libraries = 'auto_explain'",
        "ALTER SYSTEM SET auto_explain.log_min_duration = 0",
        "ALTER SYSTEM SET auto_explain.log_analyze = on",
        "ALTER SYSTEM SET auto_explain.log_format = 'text'",
        "SELECT pg_reload_conf()",
    ] {
        sqlx::query(setting).execute(&mut *conn).await.unwrap();
    }
}

/// Requests each page once on fresh connections (which load the settings) and returns the
/// sequential scans of growing tables in the plans of the statements it ran; prints those
/// plans when `print`.
async fn plans(service: &Service, pages: &[(&str, String)], print: bool) -> Vec<String> {
    let data_dir: String = sqlx::query_scalar("SHOW data_directory")
        .fetch_one(&service.pool)
        .await
        .unwrap();
    let log = std::path::Path::new(&data_dir).join("mcpbench-server.log");
    let mut scans = Vec::new();
    for (name, path) in pages {
        // Every open connection predates the setting: end them, so that the pool opens new
        // ones (which load auto_explain) for this request.
        sqlx::query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .execute(&service.pool)
        .await
        .unwrap();
        // The leaderboard is cached for a few seconds; a request after that reads the table.
        // What the log gets meanwhile is the worker polling the queue: left out below.
        let idle_from = log_len(&log);
        tokio::time::sleep(Duration::from_secs(6)).await;
        let from = log_len(&log);
        let background: Vec<Plan> = plans_in(&log, idle_from, from);
        let (status, _, _) = service.get_text(path).await;
        assert_eq!(status, 200, "{path}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        if print {
            println!("\n== {name} ({path})");
        }
        for plan in plans_in(&log, from, log_len(&log)) {
            if background.iter().any(|b| b.query == plan.query) {
                continue;
            }
            if print {
                let query: String = plan.query.chars().take(110).collect();
                println!("  {query}");
            }
            for node in &plan.nodes {
                if print {
                    println!("      {node}");
                }
                for table in GROWING {
                    if node.contains(&format!("Seq Scan on {table} ")) {
                        scans.push(format!("{name}: {}", node.trim()));
                    }
                }
            }
        }
    }
    scans
}

struct Plan {
    /// The statement, on one line.
    query: String,
    /// The plan's nodes (each line with a cost), indented as PostgreSQL prints them.
    nodes: Vec<String>,
}

fn log_len(log: &std::path::Path) -> u64 {
    std::fs::metadata(log).map(|m| m.len()).unwrap_or(0)
}

/// The plans auto_explain wrote to `log` between two offsets.
fn plans_in(log: &std::path::Path, from: u64, to: u64) -> Vec<Plan> {
    let bytes = std::fs::read(log).unwrap_or_default();
    let end = (to as usize).min(bytes.len());
    let text = String::from_utf8_lossy(&bytes[(from as usize).min(end)..end]);
    text.split("LOG:  duration:")
        .skip(1)
        .map(|entry| {
            // A message's continuation lines start with a tab: the statement, then the plan.
            let lines: Vec<&str> = entry
                .lines()
                .skip(1)
                .take_while(|l| l.starts_with('\t'))
                .map(|l| &l[1..])
                .collect();
            let nodes: Vec<String> = lines
                .iter()
                .filter(|l| l.contains("(cost="))
                .map(|l| l.trim_end().to_string())
                .collect();
            let query = lines
                .iter()
                .take_while(|l| !l.contains("(cost="))
                .map(|l| l.trim().trim_start_matches("Query Text:").trim())
                .collect::<Vec<_>>()
                .join(" ");
            Plan { query, nodes }
        })
        .collect()
}
