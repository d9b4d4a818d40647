use super::*;
use mcpbench_scoring::{Failure, FailureGroup, ItemScore};

fn failed() -> RunAnalysis {
    RunAnalysis {
        failure: Some(Failure {
            group: FailureGroup::Response,
            evidence: Some("the goal's secret words".into()),
        }),
        ..Default::default()
    }
}

#[test]
fn a_set_is_open_when_public_or_retired() {
    assert!(set_open(true, SetState::Active));
    assert!(set_open(false, SetState::Retired));
    assert!(!set_open(false, SetState::Active));
    assert!(!set_open(false, SetState::Draft));
    assert!(record_public(true, false, SetState::Retired));
    assert!(!record_public(false, true, SetState::Active), "unpublished");
    assert!(
        !record_public(true, false, SetState::Active),
        "a live private set"
    );
}

#[test]
fn a_sealed_task_is_named_to_its_runs_owner_only_and_its_trace_to_nobody() {
    assert!(task_named(false, true));
    assert!(!task_named(false, false));
    assert!(task_named(true, false));
    assert!(
        !trace_readable(false, true, true),
        "a sealed task's trace stays closed"
    );
    assert!(trace_readable(true, true, false));
    assert!(
        trace_readable(true, false, true),
        "the owner on a public set"
    );
    assert!(
        !trace_readable(true, false, false),
        "unpublished, not the owner's"
    );
}

#[test]
fn a_sealed_tasks_run_shows_only_the_bucket_of_its_duration() {
    use ShownDuration::{Exact, Within};
    assert_eq!(shown_duration(4_321, true), Exact(4_321));
    let sealed = |ms| shown_duration(ms, false);
    assert_eq!(sealed(0), Within(0, Some(1_000)));
    assert_eq!(sealed(999), Within(0, Some(1_000)));
    assert_eq!(sealed(1_000), Within(1_000, Some(2_000)));
    assert_eq!(sealed(4_321), Within(2_000, Some(5_000)));
    assert_eq!(
        sealed(4_999),
        sealed(2_001),
        "times within a bucket look alike"
    );
    assert_eq!(sealed(599_999), Within(300_000, Some(600_000)));
    assert_eq!(sealed(3_600_000), Within(600_000, None));
    assert_eq!(sealed(-5), Within(0, Some(1_000)));
}

#[test]
fn what_quotes_a_sealed_task_is_left_out_of_what_readers_see() {
    let shown = analysis_shown(failed(), false);
    assert_eq!(shown.failure.as_ref().unwrap().evidence, None);
    assert_eq!(shown.failure.unwrap().group, FailureGroup::Response);
    assert_eq!(analysis_shown(failed(), true), failed());

    let item = |id: &str| ItemScore {
        id: id.into(),
        text: format!("text of {id}"),
        mean: 7.0,
        min: 5.0,
        max: 9.0,
    };
    let judgement = Judgement {
        model: "judge".into(),
        items: vec![item("R1"), item("C1")],
        score: 0.7,
        shuffles: 3,
        valid_shuffles: 3,
    };
    let sealed = judgement_shown(judgement.clone(), false);
    assert_eq!(
        sealed.items[0].text, "text of R1",
        "a general item keeps its text"
    );
    assert_eq!(sealed.items[1].text, SEALED_CLAIM);
    assert_eq!(sealed.items[1].mean, 7.0, "and its score");
    assert_eq!(judgement_shown(judgement.clone(), true), judgement);
}

#[test]
fn the_worker_records_no_words_that_quote_a_private_task() {
    let record = |set_public, image_saw_task, reason| {
        let mut detail = Some("the predicate part `x == 3` failed".to_string());
        let mut analysis = Some(failed());
        Recorded {
            set_public,
            image_saw_task,
            reason,
            detail: &mut detail,
            analysis: &mut analysis,
        }
        .seal();
        (detail, analysis.unwrap().failure.unwrap().evidence)
    };
    let (detail, evidence) = record(true, true, RunReason::PredicateFalse);
    assert!(
        detail.unwrap().contains("x == 3"),
        "a public set keeps it all"
    );
    assert!(evidence.is_some());
    let (detail, evidence) = record(false, false, RunReason::PredicateFalse);
    assert_eq!((detail, evidence), (None, None));
    let (detail, _) = record(false, true, RunReason::AgentError);
    assert_eq!(detail.as_deref(), Some(WITHHELD_DETAIL));
    let (detail, _) = record(false, false, RunReason::AgentError);
    assert!(
        detail.is_some(),
        "an endpoint's own error stays with its vendor"
    );
}
