//! Computed difficulty: the score is the documented formula over its parts, the label follows
//! the thresholds, and the parts mean what they say on the dev set.

use mcpbench_tasks::difficulty::{HARD_FROM, MEDIUM_FROM, computed};
use mcpbench_tasks::{Difficulty, Task, load_dir};
use std::path::Path;

fn dev() -> Vec<Task> {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev")).expect("dev set")
}

#[test]
fn the_score_is_the_formula_and_the_label_its_band() {
    for t in dev() {
        let d = computed(&t);
        let want = f64::from(d.calls.min(12)) / 2.0
            + 1.5 * f64::from(d.servers - 1)
            + f64::from(d.hops)
            + d.unused_tools
            + if d.recovery { 1.5 } else { 0.0 };
        assert!((d.score - want).abs() < 1e-9, "{}: {d:?}", t.id);
        let band = match d.score {
            s if s >= HARD_FROM => Difficulty::Hard,
            s if s >= MEDIUM_FROM => Difficulty::Medium,
            _ => Difficulty::Easy,
        };
        assert_eq!(d.difficulty, band, "{}", t.id);
        assert_eq!(d.servers as usize, t.servers.len(), "{}", t.id);
        assert_eq!(d.recovery, !t.faults.is_empty(), "{}", t.id);
    }
}

#[test]
fn hops_need_an_earlier_call_and_some_tasks_have_them() {
    let tasks = dev();
    let scored: Vec<_> = tasks.iter().map(|t| (t, computed(t))).collect();
    for (t, d) in &scored {
        assert!(
            d.hops < d.calls.max(1),
            "{}: the first call cannot hop: {d:?}",
            t.id
        );
    }
    let multi_hops = scored
        .iter()
        .filter(|(t, d)| t.servers.len() > 1 && d.hops > 0)
        .count();
    assert!(
        multi_hops > 0,
        "some task across servers passes a value read on one to another"
    );
}
