//! Related runs, repeated trials and paired comparisons on cases worked out by hand (the
//! Wilson bounds with python3 to 4 decimals).

use mcpbench_scoring::cluster::clustered;
use mcpbench_scoring::{Outcome, RunCounts, paired, repeated, score};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 5e-5
}

fn o(task: &str, passed: bool) -> Outcome {
    Outcome {
        task_id: task.into(),
        server: "slack".into(),
        category: "composition".into(),
        difficulty: "hard".into(),
        max_steps: 5,
        passed,
        counts: RunCounts::default(),
        analysis: None,
        duration_ms: None,
        usage: None,
        usage_measured: false,
        attack: None,
    }
}

#[test]
fn runs_of_one_template_count_as_one_cluster() {
    // Two templates of four runs: all passed in one, all failed in the other. p = 0.5; the
    // CR1 variance (2 / 1) * ((4 - 2)^2 + (0 - 2)^2) / 8^2 = 0.25 against 0.25 / 8 for
    // independent runs: a design effect of 8, so the eight runs weigh as one.
    let runs = [("a", true); 4].into_iter().chain([("b", false); 4]);
    let c = clustered(runs).unwrap();
    assert_eq!(c.clusters, 2);
    assert!(close(c.design_effect, 8.0));
    assert!(
        close(c.ci95[0], 0.0546) && close(c.ci95[1], 0.9454),
        "{:?}",
        c.ci95
    );

    // Ten runs, each its own template: the design effect is n / (n - 1), barely above one.
    let ids: Vec<String> = (0..10).map(|i| format!("t{i}")).collect();
    let c = clustered(
        ids.iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i % 2 == 0)),
    )
    .unwrap();
    assert!(close(c.design_effect, 10.0 / 9.0));
    assert!(
        close(c.ci95[0], 0.2265) && close(c.ci95[1], 0.7735),
        "{:?}",
        c.ci95
    );

    // Everything passed: no variance to inflate; the interval is Wilson's.
    let c = clustered([("a", true), ("b", true), ("b", true)].into_iter()).unwrap();
    assert_eq!(c.design_effect, 1.0);
    assert_eq!(c.ci95[1], 1.0);
    // One template: nothing between clusters to estimate.
    assert_eq!(clustered([("a", true), ("a", false)].into_iter()), None);
    assert_eq!(clustered(std::iter::empty()), None);
}

#[test]
fn the_scores_carry_the_clustered_interval_by_template() {
    // Trials of one task and tasks of one template (ids that differ in the slot) cluster.
    let outcomes = [
        o("gh-merge-0001", true),
        o("gh-merge-0001", true),
        o("gh-merge-0011", true),
        o("gh-merge-0021", true),
        o("fs-move-0002", false),
        o("fs-move-0002", false),
        o("fs-move-0012", false),
        o("fs-move-0022", false),
    ];
    let s = score(&outcomes);
    assert_eq!(s.overall.clusters, 2);
    assert!(close(s.overall.design_effect.unwrap(), 8.0));
    let [lo, hi] = s.overall.success_ci95_clustered.unwrap();
    assert!(close(lo, 0.0546) && close(hi, 0.9454));
    // The independent interval is much narrower: it counted eight runs.
    let [wlo, whi] = s.overall.success_ci95.unwrap();
    assert!(close(wlo, 0.2152) && close(whi, 0.7848), "{wlo} {whi}");
}

#[test]
fn pass_hat_k_and_pass_at_k_per_task_and_per_submission() {
    let outcomes = [
        o("a", true),
        o("a", true),
        o("a", false),
        o("b", true),
        o("b", true),
        o("b", true),
        o("c", false),
        o("c", false),
    ];
    let r = repeated(&outcomes).unwrap();
    // The fewest trials is c's 2.
    assert_eq!(r.k_max, 2);
    let a = &r.by_task["a"];
    assert_eq!((a.trials, a.passed), (3, 2));
    let third = 1.0 / 3.0;
    for (got, want) in a.pass_hat_k.iter().zip([2.0 * third, third, 0.0]) {
        assert!(close(*got, want), "{:?}", a.pass_hat_k);
    }
    for (got, want) in a.pass_at_k.iter().zip([2.0 * third, 1.0, 1.0]) {
        assert!(close(*got, want), "{:?}", a.pass_at_k);
    }
    // Means over a, b, c: pass^1 = (2/3 + 1 + 0) / 3, pass^2 = (1/3 + 1 + 0) / 3,
    // pass@2 = (1 + 1 + 0) / 3.
    assert!(close(r.pass_hat_k[0], 5.0 / 9.0) && close(r.pass_hat_k[1], 4.0 / 9.0));
    assert!(close(r.pass_at_k[0], 5.0 / 9.0) && close(r.pass_at_k[1], 2.0 / 3.0));
    assert_eq!(score(&outcomes).repeated, Some(r));
    // One trial per task: nothing to repeat.
    assert_eq!(repeated(&[o("a", true), o("b", false)]), None);
    assert_eq!(score(&[o("a", true)]).repeated, None);
}

#[test]
fn two_submissions_are_compared_on_the_tasks_both_ran() {
    let a = [
        o("t1", true),
        o("t2", true),
        o("t3", true),
        o("t4", false),
        o("t5", true),
    ];
    // b never ran t5; on t3 one trial of two passed, which is not solved.
    let b = [
        o("t1", false),
        o("t2", true),
        o("t3", true),
        o("t3", false),
        o("t4", true),
    ];
    let p = paired(&a, &b);
    assert_eq!((p.shared, p.a_only, p.b_only, p.both), (4, 2, 1, 1));
    // 2 against 1: two-sided 2 * P(X >= 2 | n = 3) = 2 * 4/8, capped at 1.
    assert_eq!(p.p_value, 1.0);

    let wins: Vec<Outcome> = (0..8).map(|i| o(&format!("w{i}"), true)).collect();
    let losses: Vec<Outcome> = (0..8).map(|i| o(&format!("w{i}"), false)).collect();
    let p = paired(&wins, &losses);
    assert_eq!((p.a_only, p.b_only), (8, 0));
    assert!(close(p.p_value, 2.0 / 256.0));
    assert_eq!(
        paired(&losses, &wins).p_value,
        p.p_value,
        "the test is two-sided"
    );
    assert_eq!(paired(&wins, &wins).p_value, 1.0);
}
