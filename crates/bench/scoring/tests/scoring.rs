//! Hand-checkable cases. Wilson bounds were checked with python3 to 4 decimals.

use mcpbench_scoring::{Outcome, RunCounts, Scores, metrics, pass_at_k, pass_hat_k, score, wilson};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 5e-5
}

fn assert_interval(got: Option<[f64; 2]>, lo: f64, hi: f64) {
    let [l, h] = got.expect("an interval");
    assert!(
        close(l, lo) && close(h, hi),
        "got [{l}, {h}], want [{lo}, {hi}]"
    );
}

#[allow(clippy::too_many_arguments)]
fn o(
    id: &str,
    server: &str,
    category: &str,
    difficulty: &str,
    max_steps: u32,
    passed: bool,
    tool_calls: u32,
    hallucinated_calls: u32,
    errors_observed: u32,
) -> Outcome {
    Outcome {
        task_id: id.into(),
        server: server.into(),
        category: category.into(),
        difficulty: difficulty.into(),
        max_steps,
        passed,
        counts: RunCounts {
            tool_calls,
            hallucinated_calls,
            errors_observed,
            ..RunCounts::default()
        },
        analysis: None,
        duration_ms: None,
        usage: None,
        usage_measured: false,
        attack: None,
    }
}

#[test]
fn wilson_cases() {
    assert_eq!(wilson(0, 0), None);
    assert_eq!(wilson(1, 0), None);
    assert_eq!(wilson(11, 10), None);
    let [lo, hi] = wilson(0, 10).unwrap();
    assert_eq!(lo, 0.0);
    assert!(close(hi, 0.2775));
    let [lo, hi] = wilson(10, 10).unwrap();
    assert!(close(lo, 0.7225));
    assert_eq!(hi, 1.0);
    assert_interval(wilson(5, 10), 0.2366, 0.7634);
    assert_interval(wilson(81, 100), 0.7222, 0.8749);
    assert_interval(wilson(1, 1), 0.2065, 1.0);
}

#[test]
fn empty_input() {
    let m = metrics(&[]);
    assert_eq!(
        (m.tasks, m.passed, m.tool_calls, m.hallucinated_calls),
        (0, 0, 0, 0)
    );
    assert_eq!(m.success_rate, None);
    assert_eq!(m.success_ci95, None);
    assert_eq!(m.efficiency, None);
    assert_eq!(m.hallucinated_tool_rate, None);
    assert_eq!(m.recovery_rate, None);
    let s = score(&[]);
    assert!(s.by_server.is_empty() && s.by_category.is_empty() && s.by_difficulty.is_empty());
}

#[test]
fn success_rate_and_interval() {
    let outs: Vec<_> = (0..10)
        .map(|i| {
            o(
                &format!("t{i}"),
                "fs",
                "single-tool",
                "easy",
                4,
                i < 5,
                1,
                0,
                0,
            )
        })
        .collect();
    let m = metrics(&outs);
    assert_eq!((m.tasks, m.passed), (10, 5));
    assert_eq!(m.success_rate, Some(0.5));
    assert_interval(m.success_ci95, 0.2366, 0.7634);
}

#[test]
fn efficiency_over_passed_only() {
    let none_passed = [o("a", "fs", "composition", "easy", 8, false, 3, 0, 0)];
    assert_eq!(metrics(&none_passed).efficiency, None);
    let outs = [
        o("a", "fs", "composition", "easy", 8, true, 3, 0, 0), // 3/8 = 0.375
        o("b", "fs", "composition", "easy", 4, true, 2, 0, 0), // 2/4 = 0.5
        o("c", "fs", "composition", "easy", 4, false, 9, 0, 0), // failed: not counted
    ];
    assert_eq!(metrics(&outs).efficiency, Some(0.4375));
}

#[test]
fn hallucinated_rate_counts_failed_tasks_calls() {
    let outs = [
        o("a", "fs", "single-tool", "easy", 8, true, 4, 0, 0),
        o("b", "github", "single-tool", "easy", 8, false, 6, 2, 0),
    ];
    let m = metrics(&outs);
    assert_eq!((m.tool_calls, m.hallucinated_calls), (10, 2));
    assert_eq!(m.hallucinated_tool_rate, Some(0.2));
    let no_calls = [o("a", "fs", "single-tool", "easy", 8, false, 0, 0, 0)];
    assert_eq!(metrics(&no_calls).hallucinated_tool_rate, None);
}

#[test]
fn recovery_rate() {
    let no_errors = [
        o("a", "fs", "recovery", "hard", 8, true, 3, 0, 0),
        o("b", "fs", "composition", "hard", 8, true, 3, 0, 2),
    ];
    assert_eq!(metrics(&no_errors).recovery_rate, None);
    let outs = [
        o("a", "fs", "recovery", "hard", 8, true, 3, 0, 1),
        o("b", "fs", "recovery", "hard", 8, false, 3, 0, 3),
        o("c", "fs", "recovery", "hard", 8, true, 3, 0, 0), // no error observed: excluded
        o("d", "fs", "composition", "hard", 8, false, 3, 0, 1), // not a recovery task
    ];
    assert_eq!(metrics(&outs).recovery_rate, Some(0.5));
}

#[test]
fn breakdowns_group_correctly() {
    let outs = [
        o("a", "fs", "single-tool", "easy", 4, true, 2, 0, 0),
        o("b", "fs", "recovery", "hard", 8, false, 8, 1, 2),
        o("c", "github", "single-tool", "medium", 4, true, 1, 0, 0),
        o("d", "postgres", "composition", "easy", 10, false, 5, 1, 0),
    ];
    let s = score(&outs);
    assert_eq!(s.overall, metrics(&outs));
    let keys = |m: &std::collections::BTreeMap<String, _>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&s.by_server), ["fs", "github", "postgres"]);
    assert_eq!(
        keys(&s.by_category),
        ["composition", "recovery", "single-tool"]
    );
    assert_eq!(keys(&s.by_difficulty), ["easy", "hard", "medium"]);
    assert_eq!(s.by_server["fs"], metrics(&outs[0..2]));
    assert_eq!(s.by_server["fs"].success_rate, Some(0.5));
    assert_eq!(s.by_server["fs"].hallucinated_tool_rate, Some(0.1));
    assert_eq!(s.by_server["fs"].recovery_rate, Some(0.0));
    assert_eq!(
        s.by_category["single-tool"],
        metrics(&[outs[0].clone(), outs[2].clone()])
    );
    assert_eq!(s.by_category["single-tool"].efficiency, Some(0.375));
    assert_eq!(s.by_difficulty["easy"].tasks, 2);
    assert_eq!(s.by_difficulty["easy"].efficiency, Some(0.5));
    assert_eq!(s.by_difficulty["hard"].efficiency, None);
    let total: usize = s.by_server.values().map(|m| m.tasks).sum();
    assert_eq!(total, 4);
}

#[test]
fn scores_serialize_flat_and_round_trip() {
    let outs = [o("a", "fs", "single-tool", "easy", 4, true, 2, 0, 0)];
    let s = score(&outs);
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["tasks"], 1);
    assert_eq!(v["success_rate"], 1.0);
    assert!(v["recovery_rate"].is_null());
    assert_eq!(v["by_server"]["fs"]["passed"], 1);
    let back: Scores = serde_json::from_value(v).unwrap();
    assert_eq!(back, s);
    let o2: Outcome = serde_json::from_str(&serde_json::to_string(&outs[0]).unwrap()).unwrap();
    assert_eq!(o2, outs[0]);
}

#[test]
fn pass_hat_k_cases() {
    // C(3,2)/C(5,2) = 3/10
    assert!(close(pass_hat_k(3, 5, 2).unwrap(), 0.3));
    // k = 1 is the plain success rate: 4/5
    assert!(close(pass_hat_k(4, 5, 1).unwrap(), 0.8));
    assert_eq!(pass_hat_k(5, 5, 5), Some(1.0));
    assert_eq!(pass_hat_k(1, 5, 2), Some(0.0));
    assert_eq!(pass_hat_k(3, 5, 0), None);
    assert_eq!(pass_hat_k(3, 5, 6), None);
    assert_eq!(pass_hat_k(6, 5, 2), None);
    assert_eq!(pass_hat_k(0, 0, 1), None);
    // Large n does not overflow: C(900,10)/C(1000,10) = prod (900-i)/(1000-i).
    let v = pass_hat_k(900, 1000, 10).unwrap();
    assert!(v > 0.34 && v < 0.35, "{v}");
}

#[test]
fn pass_at_k_cases() {
    // 1 - C(2,2)/C(5,2) = 1 - 1/10
    assert!(close(pass_at_k(3, 5, 2).unwrap(), 0.9));
    // n - c < k: at least one pass is certain
    assert_eq!(pass_at_k(3, 5, 3), Some(1.0));
    assert!(close(pass_at_k(4, 5, 1).unwrap(), 0.8));
    assert_eq!(pass_at_k(0, 5, 3), Some(0.0));
    assert_eq!(pass_at_k(3, 5, 0), None);
    assert_eq!(pass_at_k(3, 5, 6), None);
    assert_eq!(pass_at_k(6, 5, 2), None);
}
