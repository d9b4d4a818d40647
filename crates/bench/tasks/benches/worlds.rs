//! `cargo bench -p mcpbench-tasks --bench worlds`: what a run's world costs, for the 200 tasks
//! of the dev set (every server a task offers, distractors included). Side by side in one run:
//! building the world from its seed (`World::build`), copying every server of a built one
//! (`copy`), `World::new`, which shares the servers of the world its seed built before (the
//! key's serialization included), and a run of the task's reference solution on a full copy
//! and on `World::new` (which copies only the servers the run calls); and the memory the runs'
//! worlds hold then. Prints; asserts nothing.

use mcpbench_tasks::{Task, load_dir};
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

/// The world after the task's shortest reference solution: what a run that solves it holds.
fn solved(task: &Task, mut world: World) -> World {
    for call in task.shortest_reference().iter().filter_map(|s| s.as_call()) {
        let _ = world.call(&call.tool, &call.arguments);
    }
    world
}

fn main() {
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let tasks = load_dir(&dev).expect("the dev set loads");
    let [mut build, mut copy, mut new, mut run_built, mut run_new] = [Duration::ZERO; 5];
    let (mut offered, mut called) = (0, 0);
    for task in &tasks {
        let servers = task.offered_servers();
        let built = World::build(&task.initial_state, &servers).expect("the world builds");
        build += mean(|| drop(World::build(&task.initial_state, &servers).unwrap()));
        copy += mean(|| drop(built.copy().unwrap()));
        World::new(&task.initial_state, &servers).unwrap();
        new += mean(|| drop(World::new(&task.initial_state, &servers).unwrap()));
        run_built += mean(|| drop(solved(task, built.copy().unwrap())));
        run_new += mean(|| {
            drop(solved(
                task,
                World::new(&task.initial_state, &servers).unwrap(),
            ))
        });
        offered += servers.len();
        called += solved(task, World::new(&task.initial_state, &servers).unwrap())
            .copied_servers()
            .len();
    }
    // What 200 more runs in flight hold once they have made the reference's calls.
    let before = rss_kib();
    let runs: Vec<World> = tasks
        .iter()
        .map(|t| {
            solved(
                t,
                World::new(&t.initial_state, &t.offered_servers()).unwrap(),
            )
        })
        .collect();
    let live = rss_kib().saturating_sub(before);
    let n = tasks.len() as u32;
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / f64::from(n);
    println!("{} tasks, mean per world:", tasks.len());
    println!("  build from the seed   {:>7.3} ms", ms(build));
    println!(
        "  copy every server     {:>7.3} ms   {:.1}x faster",
        ms(copy),
        ms(build) / ms(copy)
    );
    println!(
        "  World::new (shared)   {:>7.3} ms   {:.1}x faster",
        ms(new),
        ms(build) / ms(new)
    );
    println!("a run of the reference solution, {called} of {offered} offered servers called:");
    println!("  on a full copy        {:>7.3} ms", ms(run_built));
    println!(
        "  on World::new         {:>7.3} ms   {:.1}x faster (copies the servers it calls)",
        ms(run_new),
        ms(run_built) / ms(run_new)
    );
    println!("  kept worlds: {}", mcpbench_world::cached_worlds());
    println!(
        "  {} runs after the reference's calls: {live} KiB resident, {:.0} KiB each",
        runs.len(),
        live as f64 / runs.len() as f64
    );
}
