//! Each formula and rule of the run analysis on hand-made traces whose values are worked out
//! by hand (docs/metrics.md, section 3).

mod common;

use common::{End, reference, task, trace};
use mcpbench_analysis::{AnalysisError, analyze};
use mcpbench_gateway::trace::Line;
use mcpbench_scoring::{CallTally, FailureGroup};
use serde_json::json;

const RENAME: &str = "fs-rename-file-0050";
const DRAFT: &str = "/home/ines/documents/tomatoes-draft.md";
const FINAL: &str = "/home/ines/documents/tomatoes-final.md";

fn group(a: &mcpbench_scoring::RunAnalysis) -> FailureGroup {
    a.failure.as_ref().expect("a failed run has a group").group
}

fn evidence(a: &mcpbench_scoring::RunAnalysis) -> &str {
    a.failure
        .as_ref()
        .and_then(|f| f.evidence.as_deref())
        .unwrap_or("")
}

#[test]
fn the_reference_solution_holds_every_claim_and_matches_itself() {
    let t = task(RENAME);
    let (calls, answer) = reference(&t, 0);
    let a = analyze(&t, &trace(&t, &calls, answer, End::Checked)).unwrap();
    // Two claims (the final file, the draft gone) that did not hold at the start.
    assert_eq!((a.claims, a.claims_held, a.guards_broken), (2, 2, 0));
    assert_eq!(a.coverage(), Some(1.0));
    let r = a.reference.expect("the task has a reference");
    assert_eq!((r.reference, r.reference_calls), (0, 1));
    assert_eq!((r.selection, r.parameters, r.call_ratio), (1.0, 1.0, 1.0));
    assert!(r.resolved);
    let all_one = CallTally {
        judged: 1,
        named: 1,
        well_formed: 1,
        executed: 1,
        succeeded: 1,
        relevant: 1,
        distractor: 0,
    };
    assert_eq!(a.calls, all_one);
    assert_eq!(a.failure, None);
}

#[test]
fn doing_nothing_holds_no_claim_and_is_a_tool_usage_failure() {
    let t = task(RENAME);
    let a = analyze(&t, &trace(&t, &[], None, End::Checked)).unwrap();
    assert_eq!(a.coverage(), Some(0.0));
    assert_eq!(a.calls, CallTally::default());
    let r = a.reference.clone().unwrap();
    assert_eq!((r.selection, r.parameters, r.call_ratio), (0.0, 0.0, 0.0));
    assert!(!r.resolved);
    assert_eq!(group(&a), FailureGroup::ToolUsage);
    assert_eq!(evidence(&a), "no tool was called");
}

#[test]
fn a_copy_instead_of_a_move_holds_half_the_claims() {
    let t = task(RENAME);
    let content = "# tomatoes\n\nmetrics draft summary onboarding\n";
    let calls = [(
        "filesystem.write_file",
        json!({"path": FINAL, "content": content}),
    )];
    let a = analyze(&t, &trace(&t, &calls, None, End::Checked)).unwrap();
    // The final file is there, the draft too: 1 / 2.
    assert_eq!((a.claims, a.claims_held, a.guards_broken), (2, 1, 0));
    assert_eq!(a.coverage(), Some(0.5));
    // Valid calls that did not do what was asked.
    assert_eq!(group(&a), FailureGroup::TaskUnderstanding);
    assert!(evidence(&a).contains(DRAFT) && evidence(&a).ends_with("holds, and must not"));
    // write_file is no reference's tool: nothing paired, and the call is not relevant.
    assert_eq!(a.reference.unwrap().selection, 0.0);
    assert_eq!((a.calls.named, a.calls.relevant), (1, 0));
}

#[test]
fn an_unlisted_tool_and_bad_arguments_are_tool_usage_with_the_call_as_evidence() {
    let t = task(RENAME);
    let calls = [
        ("filesystem.move_file", json!({"source": DRAFT})),
        (
            "filesystem.rename_file",
            json!({"from": DRAFT, "to": FINAL}),
        ),
    ];
    let a = analyze(&t, &trace(&t, &calls, None, End::Checked)).unwrap();
    assert_eq!(group(&a), FailureGroup::ToolUsage);
    assert_eq!(
        evidence(&a),
        "call 2: filesystem.rename_file is not a tool of this task"
    );
    let tally = CallTally {
        judged: 2,
        named: 1,
        well_formed: 0,
        executed: 0,
        succeeded: 0,
        relevant: 1,
        distractor: 0,
    };
    assert_eq!(a.calls, tally);
    // The schema-invalid call still selects the reference's tool, with half its arguments.
    let r = a.reference.clone().unwrap();
    assert_eq!((r.selection, r.parameters, r.call_ratio), (1.0, 0.5, 2.0));
    assert!(!r.resolved);

    let bad_only = [("filesystem.move_file", json!({"source": DRAFT}))];
    let a = analyze(&t, &trace(&t, &bad_only, None, End::Checked)).unwrap();
    assert_eq!(
        evidence(&a),
        "call 1: the arguments of filesystem.move_file do not fit its input schema"
    );
}

#[test]
fn distractor_calls_are_counted_and_lower_the_accuracy() {
    let t = task(RENAME);
    let (mut calls, answer) = reference(&t, 0);
    calls.insert(0, ("shop.list_products", json!({})));
    calls.insert(
        0,
        (
            "filesystem.list_directory",
            json!({"path": "/home/ines/documents"}),
        ),
    );
    let a = analyze(&t, &trace(&t, &calls, answer, End::Checked)).unwrap();
    assert_eq!(a.failure, None);
    // Three listed calls: one to a distractor server, one relevant (move_file).
    assert_eq!(
        (a.calls.named, a.calls.distractor, a.calls.relevant),
        (3, 1, 1)
    );
    let r = a.reference.clone().unwrap();
    // Everything of the reference, with three calls where it makes one: not resolved.
    assert_eq!((r.selection, r.parameters, r.call_ratio), (1.0, 1.0, 3.0));
    assert!(!r.resolved);
}

#[test]
fn a_wrong_answer_after_the_right_reads_is_a_response_failure() {
    let t = task("cal-first-free-slot-0104");
    let (calls, _) = reference(&t, 0);
    let a = analyze(&t, &trace(&t, &calls, Some("09:30"), End::Checked)).unwrap();
    assert_eq!((a.claims, a.claims_held), (1, 0));
    assert_eq!(group(&a), FailureGroup::Response);
    assert!(evidence(&a).contains("09:30"), "{}", evidence(&a));
    assert!(a.reference.unwrap().resolved);
}

#[test]
fn an_injected_fault_never_retried_is_tool_usage() {
    let t = task("fs-move-after-outage-0120");
    let (calls, _) = reference(&t, 0);
    let a = analyze(&t, &trace(&t, &calls[..1], None, End::Checked)).unwrap();
    assert_eq!(group(&a), FailureGroup::ToolUsage);
    assert_eq!(
        evidence(&a),
        "call 1: filesystem.move_file answered with an error and no later call of it succeeded"
    );
    // The fault answered, not the tool: nothing executed.
    assert_eq!((a.calls.named, a.calls.executed), (1, 0));
    // Retried, the same fault is recovered from and the run passes.
    let a = analyze(&t, &trace(&t, &calls, None, End::Checked)).unwrap();
    assert_eq!(a.failure, None);
    assert_eq!((a.calls.executed, a.calls.succeeded), (1, 1));
}

#[test]
fn the_right_tool_with_the_wrong_values_is_logic() {
    let t = task("mail-send-message-0005");
    let calls = [(
        "email.send_email",
        json!({"to": ["sam.okafor@contoso.com"], "subject": "Customer notes",
               "body": "Hi Sam! Let us sync tomorrow morning. We are still waiting on legal."}),
    )];
    let a = analyze(&t, &trace(&t, &calls, None, End::Checked)).unwrap();
    let r = a.reference.clone().unwrap();
    assert_eq!(r.selection, 1.0);
    assert!((r.parameters - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(group(&a), FailureGroup::Logic);
    assert_eq!(
        evidence(&a),
        "the calls are those of a reference solution, but give 67% of its argument values"
    );
}

#[test]
fn valid_reads_that_stop_short_are_task_understanding() {
    let t = task("mail-send-saved-draft-0105");
    let (calls, _) = reference(&t, 0);
    let a = analyze(&t, &trace(&t, &calls[..1], None, End::Checked)).unwrap();
    assert_eq!((a.claims, a.claims_held), (2, 0));
    assert_eq!(group(&a), FailureGroup::TaskUnderstanding);
    assert!(evidence(&a).contains("email.inFolder"), "{}", evidence(&a));
    assert_eq!(a.reference.unwrap().selection, 0.5);
}

#[test]
fn budget_timeouts_and_agent_errors_take_the_harness_groups() {
    let t = task(RENAME);
    let look = ("filesystem.list_directory", json!({"path": "/home/ines"}));
    let calls = vec![look.clone(); 5];
    let a = analyze(&t, &trace(&t, &calls, None, End::Checked)).unwrap();
    assert_eq!(group(&a), FailureGroup::Budget);
    assert_eq!(
        evidence(&a),
        "call 5 (filesystem.list_directory) came after the budget of 4 calls"
    );
    assert_eq!((a.calls.judged, a.calls.named), (4, 4));

    let a = analyze(
        &t,
        &trace(&t, std::slice::from_ref(&look), None, End::Timeout),
    )
    .unwrap();
    assert_eq!(
        (group(&a), evidence(&a)),
        (FailureGroup::Timeout, "no reply within 300 s")
    );
    let a = analyze(
        &t,
        &trace(&t, std::slice::from_ref(&look), None, End::AgentError),
    )
    .unwrap();
    assert_eq!(group(&a), FailureGroup::AgentError);

    // What the agent wrote is quoted bounded, and without the NUL bytes no database takes.
    let mut lines = trace(&t, &[look], None, End::AgentError);
    for line in &mut lines {
        if let Line::Agent(x) = line {
            x.error = Some(format!("boom\0{}", "x".repeat(5000)));
        }
    }
    let a = analyze(&t, &lines).unwrap();
    let e = evidence(&a);
    assert!(e.starts_with("boom\u{FFFD}x") && !e.contains('\0'), "{e}");
    assert_eq!(e.chars().count(), 601);
}

#[test]
fn a_trace_that_does_not_replay_on_the_task_is_refused() {
    let t = task(RENAME);
    let (calls, answer) = reference(&t, 0);
    let mut lines = trace(&t, &calls, answer, End::Checked);
    if let Some(Line::Result(r)) = lines.last_mut() {
        r.counts.tool_calls += 1;
    }
    assert!(matches!(
        analyze(&t, &lines),
        Err(AnalysisError::Mismatch { .. })
    ));
    let other = task("mail-send-message-0005");
    assert!(matches!(
        analyze(&other, &trace(&t, &calls, answer, End::Checked)),
        Err(AnalysisError::OtherTask { .. })
    ));
    lines.pop();
    assert!(matches!(analyze(&t, &lines), Err(AnalysisError::NoResult)));
}

#[test]
fn a_side_effect_the_task_forbids_breaks_a_guard_and_is_logic() {
    // Save a draft, and do not send it: "not sent" holds at the start, so it is a guard.
    let t = task("mail-save-draft-0155");
    let message = json!({"to": ["diego.ramos@globex.org"], "subject": "Customer feedback",
        "body": "Hi Diego! Thanks, that works for me. I booked the large room for Friday."});
    let calls = [
        ("email.draft_email", message.clone()),
        ("email.send_email", message),
    ];
    let a = analyze(&t, &trace(&t, &calls, None, End::Checked)).unwrap();
    // The draft is there (1 claim held), and the guard is broken: 1 / (1 + 1).
    assert_eq!((a.claims, a.claims_held, a.guards_broken), (1, 1, 1));
    assert_eq!(a.coverage(), Some(0.5));
    assert_eq!(group(&a), FailureGroup::Logic);
    assert!(evidence(&a).contains("email.sent") && evidence(&a).ends_with("holds, and must not"));
}
