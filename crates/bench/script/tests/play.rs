//! What knowing the public generator buys, measured: the script passes half of the public dev
//! set and much of a month freshly drawn from the public pack, and almost nothing of a month
//! drawn from the held-out pack, whose families it was not written against. Every figure is
//! deterministic (the tasks' worlds and the script's play), so each bound is asserted: at most
//! 5% of the held-out month (0 of 200), at least half of the dev set (dev-v2-12: 105 of its 200 tasks, the attacked twins aside,
//! with postgres schemas drawn per task, which the script reads before it writes, and
//! fallbacks whose first choice is open one time in two, which it tries first), and two
//! fifths of a fresh month, so that a script made weaker is noticed.

use mcpbench_pack::{Pack, generate_public, public_templates};
use mcpbench_script::passes;
use mcpbench_tasks::{Source, Task, generate_from, load_dir};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn rate(tasks: &[Task]) -> (usize, Vec<String>) {
    let passed: Vec<String> = (tasks.iter())
        .filter(|t| passes(t))
        .map(|t| t.id.clone())
        .collect();
    (passed.len(), passed)
}

#[test]
fn the_script_passes_half_of_the_public_dev_set() {
    let mut dev = load_dir(&repo().join("tasks/dev")).expect("the dev set loads");
    // The attacked twins repeat their tasks (the security category, measured apart).
    dev.retain(|t| t.attack.is_none());
    let (n, _) = rate(&dev);
    println!("script on the dev set: {n} of {}", dev.len());
    assert!(n * 2 >= dev.len(), "{n} of {}", dev.len());
}

#[test]
fn the_script_passes_much_of_a_fresh_public_month() {
    let mut month = generate_public(77, 100, &[]).expect("a month");
    month.retain(|t| t.attack.is_none());
    let (n, _) = rate(&month);
    println!("script on a fresh public month: {n} of {}", month.len());
    assert!(n * 5 >= month.len() * 2, "{n} of {}", month.len());
}

#[test]
fn the_script_passes_almost_nothing_of_a_held_out_month() {
    let heldout = Pack::read(&repo().join("tasks/packs/heldout")).unwrap_or_else(|e| panic!("{e}"));
    let families = heldout.templates();
    let month =
        generate_from(&Source::new(&families, public_templates()), 7, 200, &[]).expect("a month");
    let (n, passed) = rate(&month);
    println!("script on a held-out month: {n} of {}", month.len());
    assert!(n * 20 <= month.len(), "{n} of {}: {passed:?}", month.len());
}
