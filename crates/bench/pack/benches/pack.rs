//! `cargo bench -p mcpbench-pack`: what a pack costs, in one run (median of several
//! repetitions): loading the public pack (every family compiled), drawing a month of 200 from
//! it (the target: under 10 s with the loading), the families slowest to draw, and proving a
//! family over many draws. Prints; asserts nothing.

use mcpbench_pack::{Pack, check_pack};

/// The allocator of the binaries that draw months (`mcpbench`, `mcpbench-api`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use mcpbench_tasks::{Source, generate_from};
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut last = None;
    let runs = (0..reps)
        .map(|_| {
            let t = Instant::now();
            last = Some(f());
            t.elapsed()
        })
        .collect();
    (median(runs), last.expect("one repetition at least"))
}

fn row(what: &str, took: Duration, against: Option<(&str, Duration)>) {
    match against {
        Some((name, other)) => println!(
            "{what:<52} {:>8.3} s   {name} {:>8.3} s   ratio {:.2}",
            took.as_secs_f64(),
            other.as_secs_f64(),
            took.as_secs_f64() / other.as_secs_f64()
        ),
        None => println!("{what:<52} {:>8.3} s", took.as_secs_f64()),
    }
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/packs/public");
    let (load, pack) = time(3, || Pack::read(&dir).expect("the public pack loads"));
    row(
        &format!("load the public pack ({} families)", pack.families.len()),
        load,
        None,
    );
    let families = pack.templates();
    let (packed, month) = time(3, || {
        generate_from(&Source::new(&families, &families), 7, 200, &[]).expect("a month")
    });
    assert_eq!(month.len(), 200);
    row(
        "a month of 200 from the public pack",
        packed,
        Some(("target", Duration::from_secs(10))),
    );
    row(
        "the same, with loading the pack (target 10 s)",
        packed + load,
        Some(("target", Duration::from_secs(10))),
    );
    // Where the time goes: the families slowest to draw (five draws each).
    let mut per_family: Vec<(Duration, &str)> = pack
        .families
        .iter()
        .map(|f| {
            let t = Instant::now();
            for stream in 0..5 {
                let _ = f.family.draw(&mut mcpbench_sim::Rng::new(7, stream));
            }
            (t.elapsed() / 5, f.family.id.as_str())
        })
        .collect();
    per_family.sort_by(|a, b| b.cmp(a));
    let all: Duration = per_family.iter().map(|(d, _)| *d).sum();
    println!(
        "one draw of each family: {:.1} ms in all; the slowest:",
        all.as_secs_f64() * 1e3
    );
    for (d, id) in per_family.iter().take(8) {
        println!("  {:>8.2} ms  {id}", d.as_secs_f64() * 1e3);
    }
    let one = Pack::from_files(
        pack.files
            .iter()
            .filter(|f| {
                !f.name.ends_with(".json")
                    || f.name == "pack.json"
                    || f.name == "compose.report-file-and-announce.json"
            })
            .cloned()
            .collect(),
    )
    .expect("one family loads");
    let (check, report) = time(3, || check_pack(&one, 40, 1));
    assert!(report.ok());
    row(
        "prove the three-server report family over 40 draws",
        check,
        None,
    );
}
