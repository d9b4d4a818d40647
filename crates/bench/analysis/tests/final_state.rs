//! A worker analyses a run on the state the gateway left ([`analyze_final`]); a rescore
//! replays the stored trace ([`analyze`]). Across the dev set, and calls that meet every rule
//! of a call (in budget or not, listed or not, well-formed or not, faulted, failing, done), the
//! two give the same analysis.

mod common;

use common::{End, reference, traced};
use mcpbench_analysis::{TaskFacts, analyze, analyze_final};
use mcpbench_scoring::CallTally;
use mcpbench_tasks::{Task, load_dir};
use serde_json::{Value, json};
use std::path::Path;

/// Calls, the answer, how the run ended.
type Case<'t> = (Vec<(&'t str, Value)>, Option<&'t str>, End);

/// What a sloppy agent does with a reference: an unlisted tool first, then the reference's
/// first call without its arguments, then the reference, repeated past the task's budget.
fn sloppy<'t>(task: &'t Task, calls: &[(&'t str, Value)]) -> Vec<(&'t str, Value)> {
    let mut out = vec![("filesystem.no_such_tool", json!({}))];
    if let Some((tool, _)) = calls.first() {
        out.push((tool, json!({})));
    }
    while !calls.is_empty() && out.len() <= task.max_steps as usize {
        out.extend(calls.iter().cloned());
    }
    out
}

#[test]
fn the_final_state_gives_the_analysis_the_replay_gives() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let tasks = load_dir(&dir).expect("the dev set loads");
    let mut seen = CallTally::default();
    let (mut cases, mut made) = (0, 0);
    for t in &tasks {
        let facts = TaskFacts::of(t).expect("the task's facts");
        let mut runs: Vec<Case<'_>> = vec![(Vec::new(), None, End::Checked)];
        for i in 0..t.reference_solutions.len() {
            let (calls, answer) = reference(t, i);
            runs.push((sloppy(t, &calls), answer, End::Checked));
            runs.push((calls.clone(), answer, End::Timeout));
            runs.push((calls, answer, End::Checked));
        }
        for (calls, answer, end) in runs {
            let (lines, last) = traced(t, &calls, answer, end);
            let replayed = analyze(t, &lines).unwrap_or_else(|e| panic!("{}: {e}", t.id));
            let read =
                analyze_final(t, &facts, &lines, &last).unwrap_or_else(|e| panic!("{}: {e}", t.id));
            assert_eq!(read, replayed, "{}: {} calls", t.id, calls.len());
            let c = read.calls;
            seen.judged += c.judged;
            seen.named += c.named;
            seen.well_formed += c.well_formed;
            seen.executed += c.executed;
            seen.succeeded += c.succeeded;
            cases += 1;
            made += calls.len() as u32;
        }
    }
    // Every rule of a call was met somewhere: over budget (calls not judged), unlisted (judged,
    // not named), schema-invalid, faulted or failing (well-formed, not succeeded), done.
    assert!(cases > 3 * tasks.len(), "{cases} cases");
    assert!(seen.judged < made, "{seen:?} of {made} calls");
    assert!(seen.named < seen.judged, "{seen:?}");
    assert!(seen.well_formed < seen.named, "{seen:?}");
    assert!(
        seen.executed < seen.well_formed,
        "a fault answered: {seen:?}"
    );
    assert!(seen.succeeded < seen.executed, "a tool failed: {seen:?}");
    assert!(seen.succeeded > 0, "{seen:?}");
}

#[test]
fn a_final_state_whose_counts_are_not_the_traces_is_refused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let t = &load_dir(&dir).expect("the dev set loads")[0];
    let facts = TaskFacts::of(t).unwrap();
    let (calls, answer) = reference(t, 0);
    let (lines, _) = traced(t, &calls, answer, End::Checked);
    let (_, untouched) = traced(t, &[], None, End::Checked);
    let refused = analyze_final(t, &facts, &lines, &untouched).unwrap_err();
    assert!(refused.to_string().contains("other counts"), "{refused}");
}
