//! The heuristic reference agent on the dev set. It matches the goal's words to tool names and
//! fills arguments from the goal's values: it must pass some easy single-tool task, or it is no
//! fair floor, and at most a tenth of the set, or the set rewards matching words over
//! understanding them (`tasks stats` reports the same share beside that target).

use mcpbench_heuristic::{Tools, solve};
use mcpbench_sim::verify::Run;
use mcpbench_tasks::{
    Category, Difficulty, Task, TaskRun, heuristic_passes, load_dir, shown_tools,
};
use serde_json::Value;
use std::path::Path;

fn dev() -> Vec<Task> {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev")).expect("dev set")
}

#[test]
fn the_heuristic_passes_some_easy_tasks_and_at_most_a_tenth_of_the_dev_set() {
    let tasks = dev();
    let passed: Vec<&Task> = tasks.iter().filter(|t| heuristic_passes(t)).collect();
    let ids: Vec<&str> = passed.iter().map(|t| t.id.as_str()).collect();
    assert!(
        passed
            .iter()
            .any(|t| t.category == Category::SingleTool && t.difficulty == Difficulty::Easy),
        "a pattern matcher that passes no easy single-tool task is no fair floor: {ids:?}"
    );
    assert!(
        passed.len() * 10 <= tasks.len(),
        "the heuristic passes {} of {} dev tasks (more than 10%): {ids:?}",
        passed.len(),
        tasks.len()
    );
}

/// A run's tools that keep every call, for looking at what the heuristic did.
struct Recorded<'r, 't> {
    run: &'r mut TaskRun<&'t Task>,
    calls: Vec<(String, Value)>,
}

impl Tools for Recorded<'_, '_> {
    fn call(&mut self, tool: &str, arguments: &Value) -> Result<Value, String> {
        self.calls.push((tool.to_string(), arguments.clone()));
        self.run.call(tool, arguments).map_err(|e| e.to_string())
    }
}

#[test]
fn it_keeps_to_the_budget_and_the_listed_tools_and_plays_the_same_twice() {
    for task in dev() {
        let tools = shown_tools(&task);
        assert_eq!(tools.len(), task.available_tools.len(), "{}", task.id);
        let play = || {
            let mut run = TaskRun::new(&task).unwrap();
            let mut env = Recorded {
                run: &mut run,
                calls: Vec::new(),
            };
            let answer = solve(&task.goal, &tools, task.max_steps, &mut env);
            let calls = env.calls;
            let counts = run.counts();
            assert!(!counts.budget_exceeded, "{}", task.id);
            assert_eq!(counts.hallucinated_calls, 0, "{}", task.id);
            (calls, answer)
        };
        assert_eq!(play(), play(), "{}", task.id);
    }
}
