//! `cargo bench -p mcpbench-tasks`: how long generating and checking take, each against its
//! target, measured in one run (median of several repetitions). Prints; asserts nothing.

use mcpbench_tasks::{check_dir, write_set};
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
    let out = tempfile::tempdir().expect("temp dir");

    let gen_time = time(3, || {
        write_set(out.path(), "bench", 1, 10_000).expect("write set");
    });
    report(
        "generate and write 10,000 tasks",
        gen_time,
        Duration::from_secs(10),
    );

    let check_big = time(1, || {
        let r = check_dir(out.path());
        assert!(r.ok(), "the generated set is valid");
    });
    report(
        "check 10,000 generated tasks",
        check_big,
        Duration::from_secs(250),
    );

    let check_dev = time(5, || {
        let r = check_dir(&dev);
        assert!(r.ok(), "the dev set is valid");
    });
    report("check the 200 dev tasks", check_dev, Duration::from_secs(5));
    println!("(ratio = measured / target; below 1 meets the target)");
}
