//! Strategies that need no skill: what a task must fail, or it ranks nothing. Each replays
//! against the task's own world through [`TaskRun`], under the rules agents meet. `tasks
//! check` refuses a task one of them passes; `tasks stats` counts them over a set.

use crate::run::TaskRun;
use crate::task::Task;
use mcpbench_sim::verify::Run;
use mcpbench_sim::{Effect, Step};
use mcpbench_world::tool_spec;
use serde_json::Value;

/// The strategies, in the order they are reported.
pub const STRATEGIES: [&str; 5] = [
    "no calls, the answer \"1 2 3\"",
    "no calls, a number from 0 to 9 as the answer",
    "no calls, the goal echoed back",
    "no calls, every text of the initial state listed",
    "the reference's reads without its writes",
];

/// Which of [`STRATEGIES`] pass `task` (their indexes).
pub fn tricks_passing(task: &Task) -> Vec<usize> {
    let touched = task.touched_servers();
    let fresh = || TaskRun::on(task, &touched).expect("a loaded task builds its world");
    // The three that make no call judge the initial state: one world serves them all.
    let untouched = fresh();
    let mut passes = vec![false; STRATEGIES.len()];
    if task.is_answer_task() {
        let every_text = strings(&serde_json::to_value(&task.initial_state).unwrap_or_default())
            .into_iter()
            .filter(|s| s.chars().count() <= 200)
            .collect::<Vec<_>>()
            .join("\n");
        // A few small numbers: a number check that tolerates extra numbers passes by chance.
        passes[0] = untouched.passes(Some("1 2 3"));
        // A count the world keeps small is guessed one time in ten.
        passes[1] = (0..=9).any(|k| untouched.passes(Some(&k.to_string())));
        passes[2] = untouched.passes(Some(&task.goal));
        passes[3] = untouched.passes(Some(&every_text));
    } else {
        // A predicate on the state alone: any answer fares as no answer.
        let met = untouched.passes(None);
        passes[..4].fill(met);
    }
    // The judging above changed nothing, so the first replay may have that world.
    let mut spare = Some(untouched);
    passes[4] = reads_only_pass(task, &mut || spare.take().unwrap_or_else(fresh));
    (0..STRATEGIES.len()).filter(|&i| passes[i]).collect()
}

/// Every string leaf of a JSON value, three characters or longer (shorter ones, like `ok`
/// or `2`, stand in any text by chance).
pub(crate) fn strings(v: &Value) -> Vec<&str> {
    match v {
        Value::String(s) if s.chars().count() >= 3 => vec![s.as_str()],
        Value::Array(a) => a.iter().flat_map(strings).collect(),
        Value::Object(o) => o.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// Whether some reference, with its writing calls left out, still passes: the task then asks
/// for nothing the agent must change (or checks its answer only).
fn reads_only_pass<'t>(t: &'t Task, fresh: &mut dyn FnMut() -> TaskRun<&'t Task>) -> bool {
    t.reference_solutions.iter().any(|steps| {
        let writes = steps
            .iter()
            .filter_map(Step::as_call)
            .any(|c| tool_spec(&c.tool).is_some_and(|s| s.effect == Effect::Write));
        if !writes {
            return false;
        }
        let mut run = fresh();
        let mut answer = None;
        for s in steps {
            match s {
                Step::Call(c) if tool_spec(&c.tool).is_some_and(|s| s.effect == Effect::Read) => {
                    let _ = run.call(&c.tool, &c.arguments);
                }
                Step::Call(_) => {}
                Step::Answer { answer: a } => answer = Some(a.as_str()),
            }
        }
        run.passes(answer)
    })
}
