//! The anomaly signals on synthetic months: submissions built to trigger each signal do, and
//! honest ones (the same ability on kept and fresh tasks, steady scores, steady tasks) do not.

use mcpbench_db::AnomalyKind;
use mcpbench_db::anomalies::{History, Shape, TaskOutcome};
use mcpbench_sets::anomaly::detect;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

const SERVERS: [&str; 10] = [
    "filesystem",
    "github",
    "postgres",
    "chat",
    "calendar",
    "email",
    "tracker",
    "shop",
    "memory",
    "weather",
];

/// 30 kept tasks (k-0..k-29) and 10 fresh ones (f-0..f-9), shaped alike server by server.
fn shapes() -> Vec<Shape> {
    let shape = |id: String, kept: bool, i: usize| Shape {
        task_id: id,
        kept,
        server: SERVERS[i % 10].into(),
        category: "composition".into(),
        difficulty: "medium".into(),
    };
    (0..30)
        .map(|i| shape(format!("k-{i}"), true, i))
        .chain((0..10).map(|i| shape(format!("f-{i}"), false, i)))
        .collect()
}

/// A submission of `vendor`'s `model` solving the tasks `solves` says it does (one trial).
fn submission(vendor: i64, model: &str, solves: impl Fn(&str) -> bool) -> Vec<TaskOutcome> {
    let id = Uuid::new_v4();
    shapes()
        .into_iter()
        .map(|s| TaskOutcome {
            submission_id: id,
            vendor_id: vendor,
            model: model.into(),
            passed: i64::from(solves(&s.task_id)),
            trials: 1,
            task_id: s.task_id,
        })
        .collect()
}

fn index(task: &str) -> usize {
    task[2..].parse().unwrap()
}

fn no_exposures() -> HashMap<Uuid, HashSet<String>> {
    HashMap::new()
}

fn kinds(flags: &[mcpbench_db::anomalies::NewFlag]) -> Vec<(&str, Option<Uuid>, Option<&str>)> {
    flags
        .iter()
        .map(|f| (f.kind.as_str(), f.submission_id, f.task_id.as_deref()))
        .collect()
}

#[test]
fn a_model_that_kept_the_goals_its_agent_saw_is_flagged_and_an_honest_one_is_not() {
    // The contaminated model solves every kept task (its agent ran them in earlier months and
    // their goals were kept) and few fresh ones.
    let contaminated = submission(1, "m1", |t| t.starts_with("k-") || t == "f-0");
    // The honest one solves about two thirds of both, alike.
    let honest = submission(2, "m2", |t| !index(t).is_multiple_of(3));
    let now: Vec<TaskOutcome> = contaminated.iter().chain(&honest).cloned().collect();
    let flags = detect(&now, &shapes(), &[], &[], &no_exposures());
    assert_eq!(
        kinds(&flags),
        [("kept_fresh_gap", Some(contaminated[0].submission_id), None)]
    );
    assert!(
        flags[0].summary.contains(
            "solved 10 of 10 kept tasks (run by agents in earlier months) but 1 of 10 fresh"
        ),
        "{}",
        flags[0].summary
    );
}

#[test]
fn a_score_jump_beyond_the_intervals_is_flagged_and_steady_scores_are_not() {
    let history = [
        History {
            vendor_id: 1,
            model: "m1".into(),
            passed: 40,
            runs: 100,
            sets: vec!["2026-09".into(), "2026-10".into()],
        },
        History {
            vendor_id: 2,
            model: "m2".into(),
            passed: 62,
            runs: 100,
            sets: vec!["2026-10".into()],
        },
    ];
    // Vendor 1 goes from 40% to 95%; vendor 2 from 62% to 65%; vendor 3 has no history.
    let jump = submission(1, "m1", |t| !matches!(t, "k-1" | "k-2"));
    let steady = submission(2, "m2", |t| !index(t).is_multiple_of(3) || t == "k-3");
    let newcomer = submission(3, "m3", |_| true);
    // Another model of vendor 1 is compared with its own history only (it has none).
    let other_model = submission(1, "m1-large", |_| true);
    let now: Vec<TaskOutcome> = [&jump, &steady, &newcomer, &other_model]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let flags: Vec<_> = detect(&now, &shapes(), &history, &[], &no_exposures())
        .into_iter()
        .filter(|f| f.kind == AnomalyKind::ScoreJump)
        .collect();
    assert_eq!(
        kinds(&flags),
        [("score_jump", Some(jump[0].submission_id), None)]
    );
    assert!(
        flags[0].summary.contains("against 0.40"),
        "{}",
        flags[0].summary
    );
}

#[test]
fn a_task_whose_solve_rate_spikes_is_flagged_and_steady_tasks_are_not() {
    // Ten submissions a month; k-7 went from 1 in 10 to 10 in 10, k-8 from 5 to 6.
    let month = |k7: usize, k8: usize| -> Vec<TaskOutcome> {
        (0..10)
            .flat_map(|s| {
                submission(10 + s as i64, "m", move |t| match t {
                    "k-7" => s < k7,
                    "k-8" => s < k8,
                    t => (index(t) + s).is_multiple_of(2),
                })
            })
            .collect()
    };
    let (before, now) = (month(1, 5), month(10, 6));
    let flags: Vec<_> = detect(&now, &shapes(), &[], &before, &no_exposures())
        .into_iter()
        .filter(|f| f.kind == AnomalyKind::TaskSpike)
        .collect();
    assert_eq!(kinds(&flags), [("task_spike", None, Some("k-7"))]);
    assert!(
        flags[0]
            .summary
            .contains("10 of 10 submissions against 1 of 10"),
        "{}",
        flags[0].summary
    );
    // A fresh task has no last month to spike against; nothing is flagged without one.
    assert!(
        detect(&now, &shapes(), &[], &[], &no_exposures())
            .iter()
            .all(|f| f.kind != AnomalyKind::TaskSpike)
    );
}

#[test]
fn a_vendor_that_does_better_on_the_tasks_it_was_sent_is_flagged() {
    // Vendor 1 ran hosted last month and was sent k-0..k-19; this month it solves those and
    // few of the tasks it never saw. Vendor 2 was sent the same tasks and solves both alike;
    // vendor 3 was sent nothing, so it has no exposed tasks to compare.
    let sent: HashSet<String> = (0..20).map(|i| format!("k-{i}")).collect();
    let leaky = submission(1, "m1", |t| sent.contains(t) || t == "f-0");
    let honest = submission(2, "m2", |t| !index(t).is_multiple_of(3));
    let unexposed = submission(3, "m3", |t| t.starts_with("k-"));
    let seen = HashMap::from([
        (leaky[0].submission_id, sent.clone()),
        (honest[0].submission_id, sent.clone()),
    ]);
    let now: Vec<TaskOutcome> = leaky
        .iter()
        .chain(&honest)
        .chain(&unexposed)
        .cloned()
        .collect();
    let flags: Vec<_> = detect(&now, &shapes(), &[], &[], &seen)
        .into_iter()
        .filter(|f| f.kind == AnomalyKind::ExposedGap)
        .collect();
    assert_eq!(
        kinds(&flags),
        [("exposed_gap", Some(leaky[0].submission_id), None)]
    );
    assert!(
        flags[0]
            .summary
            .contains("tasks its vendor had been sent before (exposed)"),
        "{}",
        flags[0].summary
    );
    assert!(flags[0].detail["p"].as_f64().unwrap() < 0.01);
}
