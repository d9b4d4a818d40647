//! `cargo bench -p mcpbench-server-email`: what a write costs as the mailbox grows. A write
//! admits its own footprint against the mailbox's running total (`mcpbench_sim::Ledger`);
//! before, every write first measured the whole mailbox as JSON, which one measure of the
//! whole store (`Simulated::audit`) stands for here. Both are timed side by side in one run,
//! at three sizes; the ratio is what a write cost before against what it costs now. Prints;
//! asserts nothing.

use mcpbench_server_email::{Email, sample_seed};
use mcpbench_sim::{Server, Simulated};
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Writes timed at each size, on copies of the mailbox so its size stays put.
const WRITES: usize = 200;
const REPS: usize = 7;

fn send(mb: &mut Email, n: usize) {
    let body = format!(
        "Notes for item {n}: {}",
        "a line of the report; ".repeat(40)
    );
    Server::call(
        mb,
        "send_email",
        &json!({ "to": ["ana@example.com"], "subject": format!("Report {n}"), "body": body }),
    )
    .expect("the mailbox has room");
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn main() {
    let base = Email::from_seed(&sample_seed()).expect("the sample seed loads");
    println!(
        "{:<28} {:>12} {:>18} {:>10}",
        "mailbox", "a write now", "whole measure", "before/now"
    );
    for fill in [0, 600, 1_500] {
        let mut mb = base.clone();
        for n in 0..fill {
            send(&mut mb, n);
        }
        let writes = median(
            (0..REPS)
                .map(|_| {
                    let mut copy = mb.clone();
                    let t = Instant::now();
                    for n in 0..WRITES {
                        send(&mut copy, fill + n);
                    }
                    t.elapsed() / WRITES as u32
                })
                .collect(),
        );
        let measure = median(
            (0..REPS)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..WRITES {
                        black_box(Simulated::audit(black_box(&mb))).expect("in step");
                    }
                    t.elapsed() / WRITES as u32
                })
                .collect(),
        );
        let held = mb.held();
        println!(
            "{:<28} {:>9.1} µs {:>15.1} µs {:>10.1}",
            format!("{} records, {} KiB", held.records, held.bytes >> 10),
            writes.as_secs_f64() * 1e6,
            measure.as_secs_f64() * 1e6,
            (writes + measure).as_secs_f64() / writes.as_secs_f64()
        );
    }
}
