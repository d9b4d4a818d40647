//! What trace archives cost the API: `cargo bench -p mcpbench-api --bench archive`.
//!
//! A retired month whose published traces are as large as the store keeps them (sealed, as a
//! deployment with task keys stores them; each replaced after its run by `ARCHIVE_TRACE_MIB`
//! MiB of trace lines, 60 by default, the store's largest being 64). Then, side by side in one
//! process with the service's allocator, each phase once the last has let go of what it held
//! (the live heap back within 16 MiB of idle), with two figures taken over it: the most heap
//! the process held live at once above idle (every allocation counted, so what the allocator
//! keeps of freed memory does not blur it), and the peak resident memory (`VmHWM`, reset
//! between phases):
//! - idle: nothing asked;
//! - one archive read to its end;
//! - 20 downloads from 20 client addresses that read the answer's head and then nothing, held
//!   for `ARCHIVE_HOLD_SECONDS` (10): how many were answered 200, 429 and 503, and the peak;
//! - the same with 20 downloads of one run's JSON (`GET /runs/{id}`), whose trace is as large.
//!
//! The figures are printed with the bound the service states (`held::MEMORY` of traces, and
//! the archives' queued chunks). Prints; asserts nothing.

#[path = "../tests/support/mod.rs"]
mod support;

use cap::Cap;
use mcpbench_agents::AgentKind;
use serde_json::json;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use support::{Options, Service};

/// The allocator of the binaries that serve the API (`mcpbench`, `mcpbench-api`), counting
/// the bytes it has handed out and not had back.
#[global_allocator]
static ALLOCATOR: Cap<mimalloc::MiMalloc> = Cap::new(mimalloc::MiMalloc, usize::MAX);

/// The most bytes live at once since [`reset_peak`], as [`sample`] sees them.
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Reads the live heap every millisecond into [`PEAK`] (a trace is held for tens of
/// milliseconds at least, so none is missed).
fn sample() {
    std::thread::spawn(|| {
        loop {
            PEAK.fetch_max(ALLOCATOR.allocated(), Relaxed);
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

const MONTH: &str = "2026-11";
const DOWNLOADS: u8 = 20;
const TASKS: usize = 8;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A figure of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .expect("/proc/self/status")
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("the field is there")
}

/// Starts a phase once the live heap is back within 16 MiB of `idle` (a closed download's
/// server side lets go when its next write fails; at most 90 s), then resets the peaks.
async fn start_phase(idle: usize) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while ALLOCATOR.allocated() > idle + (16 << 20) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    std::fs::write("/proc/self/clear_refs", "5").expect("/proc/self/clear_refs takes 5");
    PEAK.store(ALLOCATOR.allocated(), Relaxed);
}

/// A phase's figures: the most live heap above `idle`, and the peak resident, in KiB.
fn phase_end(idle: usize) -> (u64, u64) {
    let heap = PEAK.load(Relaxed).saturating_sub(idle) as u64 / 1024;
    (heap, status_kib("VmHWM:"))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn main() {
    sample();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(bench());
}

async fn bench() {
    let trace_mib = env("ARCHIVE_TRACE_MIB", 60);
    let hold = Duration::from_secs(env("ARCHIVE_HOLD_SECONDS", 10));
    let svc = Service::start(Options {
        tasks: TASKS,
        ..Options::default()
    })
    .await;
    let (url, run_url) = retired_month(&svc, trace_mib).await;

    // Let the setup's buffers settle before the baseline.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let base = ALLOCATOR.allocated();
    start_phase(base).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle = phase_end(base);

    start_phase(base).await;
    let started = Instant::now();
    let mut whole = svc
        .http
        .get(&url)
        .send()
        .await
        .expect("the archive answers");
    assert_eq!(whole.status(), 200, "the archive is served");
    // Read and let go chunk by chunk: the reader is in this process too.
    let mut size = 0;
    while let Some(chunk) = whole.chunk().await.expect("the archive arrives") {
        size += chunk.len();
    }
    let read = started.elapsed();
    let one = phase_end(base);

    start_phase(base).await;
    let statuses = stalled(&url, hold).await;
    let stalled_peak = phase_end(base);

    start_phase(base).await;
    let run_statuses = stalled(&run_url, hold).await;
    let runs_peak = phase_end(base);

    println!(
        "archive of {TASKS} traces of {trace_mib} MiB (sealed): {:.0} MiB, read in {:.1} s",
        size as f64 / (1 << 20) as f64,
        read.as_secs_f64()
    );
    println!(
        "{DOWNLOADS} stalled downloads, one per address, held {} s: {statuses}; of a run's JSON: \
         {run_statuses}",
        hold.as_secs()
    );
    println!("phase                       most heap live above idle   peak resident");
    for (what, (heap, resident)) in [
        ("idle", idle),
        ("one archive read whole", one),
        ("20 stalled downloads", stalled_peak),
        ("20 stalled runs' JSON", runs_peak),
    ] {
        println!(
            "{what:<27} {:>9.1} MiB {:>18.1} MiB",
            mib(heap),
            mib(resident)
        );
    }
    let bound = mcpbench_storage::MAX_TRACE_BYTES * 4 + 8 * 4 * 64 * 1024;
    println!(
        "the stated bound: {:.0} MiB of traces and queued chunks in all",
        bound as f64 / (1 << 20) as f64
    );
}

/// A month retired with an oracle's published submission, each trace replaced by a sealed one
/// of `trace_mib` MiB; the URLs of its archive and of its first run's JSON.
async fn retired_month(svc: &Service, trace_mib: u64) -> (String, String) {
    let admin = svc.token_for(&svc.vendor("ops", true).await).await;
    let acme = svc.token("acme").await;
    let month = svc.tasks.clone();
    svc.private_set(MONTH, &month).await;
    let (id, serve) = svc
        .submit_reference(&acme, Some(MONTH), (AgentKind::Oracle, "o"), &month)
        .await;
    serve();
    let done = svc.wait(&id, &acme, Duration::from_secs(300)).await;
    assert_eq!(done["status"], "completed", "{done}");
    // No live set holds these tasks, so every trace is in clear once this retires.
    let (status, body) = svc
        .post(
            &format!("/admin/sets/{MONTH}/retire"),
            Some(&admin),
            &json!({}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    svc.publish(&id, &acme).await;

    let keys: Vec<String> = sqlx::query_scalar(
        "SELECT trace_key FROM runs WHERE submission_id = $1::uuid AND trace_key IS NOT NULL",
    )
    .bind(&id)
    .fetch_all(&svc.pool)
    .await
    .expect("the runs' trace keys");
    assert!(!keys.is_empty(), "the runs stored traces");
    let keyring = svc.custody.keyring.as_ref().expect("the service seals");
    let line = format!("{}\n", json!({"kind": "call", "result": "x".repeat(1000)}));
    let plain = line.repeat((trace_mib << 20) as usize / line.len());
    for key in &keys {
        let sealed = keyring.seal_file(key, plain.as_bytes());
        let path = svc.traces.path().join(key);
        std::fs::write(&path, sealed).expect("a trace replaced in the store");
    }
    let run = svc.first_run(&id, &acme).await;
    (
        svc.at(&format!("/sets/{MONTH}/traces")),
        svc.at(&format!("/runs/{run}")),
    )
}

/// `DOWNLOADS` downloads at once, each from its own loopback address, that take the answer's
/// head and read nothing more, held for `hold`, then closed; the tally of their statuses (a
/// download still waiting for its head is "waiting").
async fn stalled(url: &str, hold: Duration) -> String {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut downloads = tokio::task::JoinSet::new();
    for n in 0..DOWNLOADS {
        let client = reqwest::Client::builder()
            .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + n)))
            .build()
            .expect("a client");
        let (url, tx) = (url.to_string(), tx.clone());
        downloads.spawn(async move {
            let answer = client.get(url).send().await.expect("the API answers");
            let _ = tx.send(answer.status().as_u16());
            // Held, unread, until the phase ends.
            std::future::pending::<()>().await;
            drop(answer);
        });
    }
    tokio::time::sleep(hold).await;
    downloads.shutdown().await;
    drop(tx);
    let mut tally = std::collections::BTreeMap::<String, usize>::new();
    while let Some(status) = rx.recv().await {
        *tally.entry(format!("answered {status}")).or_default() += 1;
    }
    let answered: usize = tally.values().sum();
    if answered < DOWNLOADS as usize {
        tally.insert("waiting".into(), DOWNLOADS as usize - answered);
    }
    tally
        .iter()
        .map(|(what, n)| format!("{n} {what}"))
        .collect::<Vec<_>>()
        .join(", ")
}
