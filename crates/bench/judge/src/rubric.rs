//! A task's rubric: five general items after MCP-Bench's judge (fulfilment, grounding, tool
//! choice, parameters, order and economy), then one item per claim of the task's check, quoted
//! as the task file writes it. The rubric is as private as the task.

use mcpbench_tasks::{Pred, Task};

/// One item to score.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub id: String,
    pub text: String,
}

const GENERAL: [&str; 5] = [
    "Task fulfilment: the agent did everything the goal asks, and nothing it did not ask.",
    "Grounding: every fact the final answer states comes from a tool's output, none is invented.",
    "Tool choice: the agent called the tools the task needs and avoided tools it does not need.",
    "Parameters: the arguments of the calls are correct and complete (names, ids, dates, values).",
    "Order and economy: calls that need an earlier result come after it, and no call is wasted or repeated without reason.",
];

/// The rubric of `task`: the general items, then `C1`, `C2`, ... for the parts of its
/// check's top-level `all` (an `all` inside it split further).
pub fn rubric(task: &Task) -> Vec<Item> {
    let mut parts = Vec::new();
    split(&task.success_predicate, &mut parts);
    let general = GENERAL.iter().enumerate().map(|(i, t)| Item {
        id: format!("R{}", i + 1),
        text: (*t).to_string(),
    });
    let claims = parts.into_iter().enumerate().map(|(i, p)| Item {
        id: format!("C{}", i + 1),
        text: format!(
            "The run leaves this true (as the task's check states it): {}",
            serde_json::to_string(p).unwrap_or_default()
        ),
    });
    general.chain(claims).collect()
}

fn split<'a, A>(pred: &'a Pred<A>, out: &mut Vec<&'a Pred<A>>) {
    match pred {
        Pred::All(ps) => ps.iter().for_each(|p| split(p, out)),
        _ => out.push(pred),
    }
}
