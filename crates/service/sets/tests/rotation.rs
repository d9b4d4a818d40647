//! Rotation keeps 75% +- 5% of a set, replaces the rest with fresh tasks of the same shape, and
//! the result passes the validity proof of `mcpbench tasks check`, read back from files.

use mcpbench_pack::generate_public;
use mcpbench_sets::{Draw, plan_rotation};
use mcpbench_tasks::{GoalIndex, MAX_GOAL_SIMILARITY, Task, check_dir, load_dir};
use std::collections::HashSet;
use std::path::Path;

/// The dev set's tasks, the attacked twins aside (a month holds none).
fn dev_set() -> Vec<Task> {
    let mut tasks =
        load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev")).unwrap();
    tasks.retain(|t| t.attack.is_none());
    tasks
}

#[test]
fn a_rotation_keeps_three_quarters_and_passes_tasks_check() {
    let previous: Vec<Task> = dev_set().into_iter().step_by(2).take(60).collect();
    for seed in [1u64, 2, 0xDEAD_BEEF] {
        let plan =
            plan_rotation(&previous, seed, 0.25, "2026-12", &[], &[], &Draw::public()).unwrap();
        let n = plan.tasks.len();
        let kept = plan.kept.iter().filter(|k| **k).count();
        let share = kept as f64 / n as f64;
        assert!(
            (0.70..=0.80).contains(&share),
            "seed {seed}: kept {kept} of {n}"
        );
        // Kept tasks are the same tasks in the same places; fresh ones are new and marked.
        let old_ids: HashSet<&str> = previous.iter().map(|t| t.id.as_str()).collect();
        for (i, (task, kept)) in plan.tasks.iter().zip(&plan.kept).enumerate() {
            if *kept {
                assert_eq!(task, &previous[i]);
            } else {
                assert!(task.id.ends_with("-202612") && !old_ids.contains(task.id.as_str()));
                assert_eq!(
                    task.server, previous[i].server,
                    "a fresh task keeps its place's server"
                );
            }
        }
        let ids: HashSet<&str> = plan.tasks.iter().map(|t| t.id.as_str()).collect();
        let goals: HashSet<&str> = plan.tasks.iter().map(|t| t.goal.as_str()).collect();
        assert_eq!(
            (ids.len(), goals.len()),
            (n, n),
            "ids and goals stay unique"
        );

        // The whole rotated set, written as task files, passes `mcpbench tasks check`.
        let dir = tempfile::tempdir().unwrap();
        for t in &plan.tasks {
            let text = serde_json::to_string_pretty(t).unwrap();
            std::fs::write(dir.path().join(format!("{}.json", t.id)), text).unwrap();
        }
        let report = check_dir(dir.path());
        assert!(report.ok(), "seed {seed}: {:?}", report.load_errors);
        assert_eq!(report.tasks, n);
    }
    // Another seed replaces other tasks.
    let a = plan_rotation(&previous, 1, 0.25, "2026-12", &[], &[], &Draw::public())
        .unwrap()
        .kept;
    let b = plan_rotation(&previous, 2, 0.25, "2026-12", &[], &[], &Draw::public())
        .unwrap()
        .kept;
    assert_ne!(a, b);
    // The same seed, the same rotation (it is recorded, sealed, to be redone).
    assert_eq!(
        a,
        plan_rotation(&previous, 1, 0.25, "2026-12", &[], &[], &Draw::public())
            .unwrap()
            .kept
    );
}

#[test]
fn rotations_outside_their_bounds_are_refused() {
    let previous = dev_set();
    let refused = |previous: &[Task], replace: f64| {
        plan_rotation(previous, 1, replace, "2026-12", &[], &[], &Draw::public()).is_err()
    };
    assert!(refused(&previous[..3], 0.25));
    assert!(refused(&previous[..20], 0.9));
    assert!(refused(&previous[..20], 0.0));
}

#[test]
fn a_rotation_asks_nothing_a_public_set_has_shown() {
    let previous: Vec<Task> = dev_set().into_iter().take(40).collect();
    let seed = 7;
    // The goals public at the time: here every other task the rotation could draw from.
    let public: Vec<String> = generate_public(seed, 3 * previous.len(), &[])
        .expect("the public families draw")
        .into_iter()
        .step_by(2)
        .map(|t| t.goal)
        .collect();
    let plain = plan_rotation(&previous, seed, 0.25, "2026-12", &[], &[], &Draw::public()).unwrap();
    let apart = plan_rotation(
        &previous,
        seed,
        0.25,
        "2026-12",
        &public,
        &[],
        &Draw::public(),
    )
    .unwrap();
    let fresh = |plan: &mcpbench_sets::RotationPlan| -> Vec<String> {
        plan.tasks
            .iter()
            .zip(&plan.kept)
            .filter(|(_, kept)| !**kept)
            .map(|(t, _)| t.goal.clone())
            .collect()
    };
    let index = GoalIndex::new(&public);
    assert!(
        fresh(&plain)
            .iter()
            .any(|g| index.near(g, MAX_GOAL_SIMILARITY)),
        "without the public goals the rotation draws some of them (else this test shows nothing)"
    );
    assert!(
        !fresh(&apart)
            .iter()
            .any(|g| index.near(g, MAX_GOAL_SIMILARITY)),
        "a fresh task repeats or nearly repeats a public goal"
    );
    // The same tasks leave either way; only what replaces them differs.
    assert_eq!(plain.kept, apart.kept);
}

#[test]
fn exposed_tasks_leave_first_and_the_plan_stays_reproducible() {
    let previous: Vec<Task> = dev_set().into_iter().step_by(2).take(40).collect();
    let seed = 7;
    // Six tasks were sent to vendors' own machines: a quarter (10) leaves, those six first.
    let exposed: Vec<String> = [3, 8, 13, 21, 30, 38]
        .iter()
        .map(|&i| previous[i].id.clone())
        .collect();
    let plan = plan_rotation(
        &previous,
        seed,
        0.25,
        "2026-12",
        &[],
        &exposed,
        &Draw::public(),
    )
    .unwrap();
    let left: Vec<&str> = previous
        .iter()
        .zip(&plan.kept)
        .filter(|(_, kept)| !**kept)
        .map(|(t, _)| t.id.as_str())
        .collect();
    assert_eq!(left.len(), 10);
    for id in &exposed {
        assert!(left.contains(&id.as_str()), "{id} was exposed and stayed");
    }
    // With the same inputs (the seed and exposed list are revealed) the plan is the same.
    let again = plan_rotation(
        &previous,
        seed,
        0.25,
        "2026-12",
        &[],
        &exposed,
        &Draw::public(),
    )
    .unwrap();
    assert_eq!(again.tasks, plan.tasks);
    // More exposed than the share: only the share leaves, every one of them exposed, and the
    // seed decides which.
    let many: Vec<String> = previous[..20].iter().map(|t| t.id.clone()).collect();
    let plan = plan_rotation(
        &previous,
        seed,
        0.25,
        "2026-12",
        &[],
        &many,
        &Draw::public(),
    )
    .unwrap();
    let left: Vec<usize> = (0..previous.len()).filter(|&i| !plan.kept[i]).collect();
    assert_eq!(left.len(), 10);
    assert!(left.iter().all(|&i| i < 20), "{left:?}");
    // Ids that are not in the set change nothing.
    let plain = plan_rotation(&previous, seed, 0.25, "2026-12", &[], &[], &Draw::public()).unwrap();
    let stray = plan_rotation(
        &previous,
        seed,
        0.25,
        "2026-12",
        &[],
        &["nope".into()],
        &Draw::public(),
    )
    .unwrap();
    assert_eq!(plain.kept, stray.kept);
}
