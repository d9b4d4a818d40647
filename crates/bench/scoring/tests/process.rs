//! The process metrics (docs/metrics.md, section 3) on analyses whose sums are worked
//! out by hand.

use mcpbench_scoring::{
    CallTally, Failure, FailureGroup, Outcome, ReferenceMatch, RunAnalysis, RunCounts, metrics,
    process_metrics,
};

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

fn reference(selection: f64, parameters: f64, call_ratio: f64) -> Option<ReferenceMatch> {
    Some(ReferenceMatch {
        reference: 0,
        reference_calls: 2,
        selection,
        parameters,
        call_ratio,
        resolved: selection >= 0.8 && parameters >= 0.7 && call_ratio <= 1.5,
    })
}

fn analyses() -> Vec<RunAnalysis> {
    vec![
        // Passed: 2 claims held, 3 calls all good, one to a distractor.
        RunAnalysis {
            claims: 2,
            claims_held: 2,
            guards_broken: 0,
            calls: CallTally {
                judged: 3,
                named: 3,
                well_formed: 3,
                executed: 3,
                succeeded: 3,
                relevant: 2,
                distractor: 1,
            },
            reference: reference(1.0, 1.0, 1.5),
            failure: None,
            shape: Some("serial".into()),
        },
        // Failed: 3 of 4 claims (0.75, mostly done), one unlisted call, one invalid, one tool
        // error.
        RunAnalysis {
            claims: 4,
            claims_held: 3,
            guards_broken: 0,
            calls: CallTally {
                judged: 5,
                named: 4,
                well_formed: 3,
                executed: 3,
                succeeded: 2,
                relevant: 3,
                distractor: 0,
            },
            reference: reference(0.5, 0.5, 2.5),
            failure: Some(Failure {
                group: FailureGroup::ToolUsage,
                evidence: None,
            }),
            shape: Some("parallel".into()),
        },
        // Failed: 1 claim held and a guard broken (1 / 3); no call judged (all over budget).
        RunAnalysis {
            claims: 2,
            claims_held: 1,
            guards_broken: 1,
            calls: CallTally::default(),
            reference: reference(0.0, 0.0, 3.0),
            failure: Some(Failure {
                group: FailureGroup::Budget,
                evidence: None,
            }),
            shape: Some("serial".into()),
        },
    ]
}

#[test]
fn each_process_metric_is_its_formula() {
    let a = analyses();
    let m = process_metrics(a.iter());
    // Coverage: (1 + 0.75 + 1/3) / 3; mostly done: 2 of 3.
    assert!(close(m.coverage, (1.0 + 0.75 + 1.0 / 3.0) / 3.0));
    assert!(close(m.mostly_done_rate, 2.0 / 3.0));
    // Calls: judged 8, named 7, well-formed 6, executed 6, succeeded 5, relevant 5,
    // distractor 1.
    assert!(close(m.tool_name_validity, 7.0 / 8.0));
    assert!(close(m.schema_compliance, 6.0 / 7.0));
    assert!(close(m.execution_success, 5.0 / 6.0));
    assert!(close(m.distractor_accuracy, 500.0 / 7.0));
    assert_eq!(m.distractor_gate, Some(true));
    assert!(close(m.distractor_call_share, 1.0 / 7.0));
    // References: means over the three runs; only the first is resolved.
    assert!(close(m.selection_accuracy, 0.5));
    assert!(close(m.parameter_accuracy, 0.5));
    assert!(close(m.call_ratio, 7.0 / 3.0));
    assert!(close(m.resolved_rate, 1.0 / 3.0));
    let groups: Vec<(&str, u64)> = m.failures.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(groups, [("budget", 1), ("tool_usage", 1)]);
}

#[test]
fn the_gate_falls_below_half_and_empty_sums_give_no_rate() {
    let mut a = analyses();
    a[0].calls.relevant = 0;
    a[1].calls.relevant = 3;
    // 3 relevant of 7 named: 42.9, under the gate of 50.
    let m = process_metrics(a.iter());
    assert!(close(m.distractor_accuracy, 300.0 / 7.0));
    assert_eq!(m.distractor_gate, Some(false));

    let none = process_metrics([].iter());
    assert_eq!(none.coverage, None);
    assert_eq!(none.tool_name_validity, None);
    assert_eq!(none.distractor_gate, None);
    assert!(none.failures.is_empty());
    // A run without claims or calls adds to no rate.
    let empty = [RunAnalysis::default()];
    let m = process_metrics(empty.iter());
    assert_eq!(
        (m.coverage, m.schema_compliance, m.selection_accuracy),
        (None, None, None)
    );
}

#[test]
fn outcomes_without_an_analysis_are_left_out_of_the_process_metrics_only() {
    let a = analyses();
    let outcome = |passed, analysis| Outcome {
        task_id: "t".into(),
        server: "slack".into(),
        category: "composition".into(),
        difficulty: "hard".into(),
        max_steps: 6,
        passed,
        counts: RunCounts {
            tool_calls: 3,
            ..RunCounts::default()
        },
        analysis,
        duration_ms: None,
        usage: None,
        usage_measured: false,
        attack: None,
    };
    let outcomes = [outcome(true, Some(a[0].clone())), outcome(false, None)];
    let m = metrics(&outcomes);
    assert_eq!((m.tasks, m.passed), (2, 1));
    assert_eq!(m.process.coverage, Some(1.0));
    assert!(close(m.process.distractor_call_share, 1.0 / 3.0));
    // The new figures sit beside the old ones in the serialized metrics.
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(json["coverage"], 1.0);
    assert_eq!(json["success_rate"], 0.5);
    assert_eq!(json["failures"], serde_json::json!({}));
}

#[test]
fn runs_are_grouped_by_their_tasks_shape_when_analysed() {
    let a = analyses();
    let outcome = |passed, analysis: Option<RunAnalysis>| Outcome {
        task_id: "t".into(),
        server: "slack".into(),
        category: "composition".into(),
        difficulty: "hard".into(),
        max_steps: 6,
        passed,
        counts: RunCounts::default(),
        analysis,
        duration_ms: None,
        usage: None,
        usage_measured: false,
        attack: None,
    };
    // serial: passed, failed (budget); parallel: failed; one without an analysis.
    let outcomes = [
        outcome(true, Some(a[0].clone())),
        outcome(false, Some(a[1].clone())),
        outcome(false, Some(a[2].clone())),
        outcome(true, None),
    ];
    let s = mcpbench_scoring::score(&outcomes);
    let keys: Vec<&str> = s.by_shape.keys().map(String::as_str).collect();
    assert_eq!(keys, ["parallel", "serial"]);
    assert_eq!(
        (s.by_shape["serial"].tasks, s.by_shape["serial"].passed),
        (2, 1)
    );
    assert_eq!(
        (s.by_shape["parallel"].tasks, s.by_shape["parallel"].passed),
        (1, 0)
    );
    assert_eq!(
        s.overall.tasks, 4,
        "the unanalysed run still counts overall"
    );
    // Without any analysis there is no such breakdown in the JSON.
    let plain = mcpbench_scoring::score(&[outcome(true, None)]);
    assert!(
        serde_json::to_value(&plain)
            .unwrap()
            .get("by_shape")
            .is_none()
    );
}
