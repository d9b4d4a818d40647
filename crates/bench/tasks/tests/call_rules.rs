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
