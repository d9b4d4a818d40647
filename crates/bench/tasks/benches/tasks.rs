//! `cargo bench -p mcpbench-tasks`: how long checking the dev set takes, against its target
//! (median of several repetitions). Prints; asserts nothing. Generating and checking 10,000
//! tasks drawn from the public pack is `cargo bench -p mcpbench-pack`.

use mcpbench_tasks::check_dir;
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time(reps: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn report(what: &str, took: Duration, target: Duration) {
    println!(
        "{what:<44} {:>9.3} s   target {:>5.1} s   ratio {:.3}",
        took.as_secs_f64(),
        target.as_secs_f64(),
        took.as_secs_f64() / target.as_secs_f64()
    );
}

fn main() {
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let check_dev = time(5, || {
        let r = check_dir(&dev);
        assert!(r.ok(), "the dev set is valid");
    });
    report("check the 200 dev tasks", check_dev, Duration::from_secs(5));
    println!("(ratio = measured / target; below 1 meets the target)");
}
