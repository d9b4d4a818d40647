//! `cargo bench -p mcpbench-tasks --bench worlds`: what a run's world costs, for the 200 tasks
//! of the dev set (every server a task offers, distractors included). Side by side in one run:
//! building the world from its seed (`World::build`), copying a built one (`copy`), and
//! `World::new`, which copies the world its seed built before (the key's serialization
//! included); and the memory a live world holds (each kept one holds as much). Prints;
//! asserts nothing.

use mcpbench_tasks::load_dir;
use mcpbench_world::World;
use std::path::Path;
use std::time::{Duration, Instant};

const REPS: u32 = 5;

/// The mean time of one `f()` over [`REPS`] calls.
fn mean(mut f: impl FnMut()) -> Duration {
    let started = Instant::now();
    for _ in 0..REPS {
        f();
    }
    started.elapsed() / REPS
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let tasks = load_dir(&dev).expect("the dev set loads");
    let (mut build, mut copy, mut new) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for task in &tasks {
        let servers = task.offered_servers();
        let built = World::build(&task.initial_state, &servers).expect("the world builds");
        build += mean(|| drop(World::build(&task.initial_state, &servers).unwrap()));
        copy += mean(|| drop(built.copy().unwrap()));
        World::new(&task.initial_state, &servers).unwrap();
        new += mean(|| drop(World::new(&task.initial_state, &servers).unwrap()));
    }
    // What 200 more live worlds take (as 200 runs in flight hold): a copy of each, kept.
    let before_copies = rss_kib();
    let copies: Vec<World> = tasks
        .iter()
        .map(|t| World::new(&t.initial_state, &t.offered_servers()).unwrap())
        .collect();
    let live = rss_kib().saturating_sub(before_copies);
    let n = tasks.len() as u32;
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / f64::from(n);
    println!("{} tasks, mean per world:", tasks.len());
    println!("  build from the seed   {:>7.3} ms", ms(build));
    println!(
        "  copy a built world    {:>7.3} ms   {:.1}x faster",
        ms(copy),
        ms(build) / ms(copy)
    );
    println!(
        "  World::new (kept)     {:>7.3} ms   {:.1}x faster",
        ms(new),
        ms(build) / ms(new)
    );
    println!("  kept worlds: {}", mcpbench_world::cached_worlds());
    println!(
        "  {} live copies: {live} KiB resident, {:.0} KiB each",
        copies.len(),
        live as f64 / copies.len() as f64
    );
}
