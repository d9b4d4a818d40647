//! The analysis across the whole dev set: every reference solution holds every claim and is
//! resolved against the closest reference; doing nothing holds (almost) no claim.

mod common;

use common::{End, reference, trace};
use mcpbench_analysis::analyze;
use mcpbench_scoring::FailureGroup;
use mcpbench_tasks::load_dir;
use std::path::Path;

#[test]
fn references_score_full_marks_and_doing_nothing_scores_none() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let tasks = load_dir(&dir).expect("the dev set loads");
    let (mut null_claims, mut null_held) = (0u32, 0u32);
    for t in &tasks {
        for i in 0..t.reference_solutions.len() {
            let (calls, answer) = reference(t, i);
            let a = analyze(t, &trace(t, &calls, answer, End::Checked))
                .unwrap_or_else(|e| panic!("{} reference {i}: {e}", t.id));
            assert_eq!(a.coverage(), Some(1.0), "{} reference {i}", t.id);
            assert_eq!(a.failure, None, "{} reference {i}", t.id);
            let r = a.reference.expect("every task has a reference with a call");
            assert!(r.resolved, "{} reference {i}: {r:?}", t.id);
            assert_eq!(a.calls.distractor, 0, "{}", t.id);
        }
        let a = analyze(t, &trace(t, &[], None, End::Checked)).unwrap();
        assert_eq!(
            a.shape.as_deref(),
            Some(mcpbench_tasks::shape(t).as_str()),
            "{}: the analysis carries the task's shape",
            t.id
        );
        let f = a.failure.as_ref().expect("doing nothing fails every task");
        assert_eq!(f.group, FailureGroup::ToolUsage, "{}", t.id);
        assert!(a.claims >= 1, "{}: every task asks for something", t.id);
        assert_eq!(
            a.guards_broken, 0,
            "{}: doing nothing breaks no guard",
            t.id
        );
        null_claims += a.claims;
        null_held += a.claims_held;
    }
    // Partial credit for doing nothing would be partial credit for nothing.
    assert_eq!(
        null_held, 0,
        "doing nothing holds {null_held} of {null_claims} claims"
    );
}
