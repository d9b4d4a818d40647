//! The rules of a call, decided in one place (`TaskRun::attempt`): the order they apply in,
//! what each counts, and that a fault is keyed on the calls that reach the tool.

use mcpbench_scoring::RunCounts;
use mcpbench_tasks::{CallOutcome, Task, TaskRun, load_task};
use serde_json::json;
use std::path::Path;

/// A recovery task (of the dev set `dev-v2`, kept here so that the dev set can change):
/// `weather.get_forecast` fails on its first call.
fn outage() -> Task {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/call_rules/wx-forecast-outage-0119.json");
    let task = load_task(&path).expect("the fixture loads");
    assert_eq!(
        task.faults.len(),
        1,
        "the task this test reads has one fault"
    );
    task
}

const FORECAST: &str = "weather.get_forecast";

fn oslo() -> serde_json::Value {
    json!({"location": "Oslo, Norway", "days": 4})
}

#[test]
fn each_rule_gives_its_outcome_and_its_count() {
    let task = outage();
    let mut run = TaskRun::new(&task).expect("world");

    assert_eq!(
        run.attempt("weather.launch_rocket", &json!({})),
        CallOutcome::Unlisted
    );
    assert!(matches!(
        run.attempt(FORECAST, &json!({"location": 7})),
        CallOutcome::InvalidArguments(_)
    ));
    // The two refused calls did not reach the tool: the fault is still due on its first call.
    assert!(matches!(
        run.attempt(FORECAST, &oslo()),
        CallOutcome::InjectedFault(_)
    ));
    assert!(matches!(run.attempt(FORECAST, &oslo()), CallOutcome::Ok(_)));
    assert!(matches!(
        run.attempt(
            "weather.get_current_weather",
            &json!({"location": "Atlantis, Nowhere"})
        ),
        CallOutcome::ToolError(_)
    ));
    assert_eq!(
        run.attempt(FORECAST, &oslo()),
        CallOutcome::OverBudget {
            max_steps: 5,
            call: 6
        },
        "call 6 of a 5-call budget is refused"
    );
    let counts = run.counts();
    assert_eq!(
        (
            counts.tool_calls,
            counts.hallucinated_calls,
            counts.invalid_calls
        ),
        (6, 1, 1)
    );
    assert!(counts.budget_exceeded);
    assert_eq!(
        counts.errors_observed, 5,
        "unlisted, invalid, fault, tool error, budget"
    );
}

#[test]
fn the_budget_is_checked_before_anything_else() {
    let task = outage();
    let mut run = TaskRun::new(&task).expect("world");
    for _ in 0..task.max_steps {
        run.attempt("weather.nothing_here", &json!({}));
    }
    // Past the budget even an unlisted tool is over budget, not hallucinated.
    assert!(matches!(
        run.attempt("weather.nothing_here", &json!({})),
        CallOutcome::OverBudget { .. }
    ));
    assert_eq!(
        run.counts(),
        RunCounts {
            tool_calls: task.max_steps + 1,
            hallucinated_calls: task.max_steps,
            invalid_calls: 0,
            errors_observed: task.max_steps + 1,
            budget_exceeded: true,
        }
    );
}

#[test]
fn a_clean_run_counts_only_calls() {
    let task = outage();
    let mut run = TaskRun::new(&task).expect("world");
    assert!(matches!(
        run.attempt(FORECAST, &oslo()),
        CallOutcome::InjectedFault(_)
    ));
    assert!(matches!(run.attempt(FORECAST, &oslo()), CallOutcome::Ok(_)));
    assert_eq!(
        run.counts(),
        RunCounts {
            tool_calls: 2,
            errors_observed: 1,
            ..RunCounts::default()
        }
    );
}

/// A task whose first write of a note times out: before or after the write landed.
fn note_task(landed: bool) -> Task {
    mcpbench_tasks::parse_task(
        &json!({
            "id": "fs-note-1",
            "server": "filesystem",
            "servers": ["filesystem"],
            "category": "recovery",
            "difficulty": "easy",
            "max_steps": 5,
            "goal": "Write hello into /notes/a.txt.",
            "initial_state": {"filesystem": {"files": {"/notes/readme.txt": "notes"}}},
            "available_tools": ["filesystem.write_file", "filesystem.read_text_file"],
            "success_predicate": {"filesystem.fileEquals": {"path": "/notes/a.txt", "content": "hello"}},
            "faults": [{"tool": "filesystem.write_file", "on_call": 1, "error": "timeout",
                        "message": "no response within 30 seconds", "landed": landed}],
            "reference_solutions": []
        })
        .to_string(),
        Path::new("fs-note-1.json"),
    )
    .expect("the task loads")
}

#[test]
fn a_fault_that_landed_answers_its_error_after_the_change_is_made() {
    let write = json!({"path": "/notes/a.txt", "content": "hello"});
    let read = json!({"path": "/notes/a.txt"});
    for landed in [false, true] {
        let task = note_task(landed);
        let mut run = TaskRun::new(&task).expect("world");
        assert!(matches!(
            run.attempt("filesystem.write_file", &write),
            CallOutcome::InjectedFault(_)
        ));
        let after = run.attempt("filesystem.read_text_file", &read);
        assert_eq!(
            matches!(after, CallOutcome::Ok(_)),
            landed,
            "landed {landed}: {after:?}"
        );
    }
}
