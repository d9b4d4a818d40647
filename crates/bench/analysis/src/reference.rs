//! The run's calls against the task's reference solutions (MCPToolBench++'s accuracy, over a
//! whole run): each reference call is paired with one call of the same tool, the one that gave
//! most of its argument values; the closest reference is the one with the highest selection
//! plus parameter accuracy, then the call count nearest its own, then the first.

use mcpbench_scoring::ReferenceMatch;
use mcpbench_scoring::analysis::{CALL_RATIO_MAX, PARAMETERS_MIN, SELECTION_MIN};
use mcpbench_tasks::{Step, Task};
use serde_json::Value;

/// One call the run made of a listed tool within the budget: the qualified tool and the
/// arguments as sent.
pub(crate) struct MadeCall<'a> {
    pub tool: &'a str,
    pub arguments: &'a Value,
}

/// Whether two argument values say the same: numbers by value (`2` is `2.0`), strings with
/// surrounding space trimmed, arrays item by item, objects key by key.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            _ => x == y,
        },
        (Value::String(x), Value::String(y)) => x.trim() == y.trim(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The share of the reference call's arguments the made call gave the same value; `1` when
/// the reference gives none.
fn parameter_share(reference: &Value, made: &Value) -> f64 {
    let Some(wanted) = reference.as_object().filter(|o| !o.is_empty()) else {
        return 1.0;
    };
    let given = wanted
        .iter()
        .filter(|(k, v)| made.get(k.as_str()).is_some_and(|m| same(v, m)))
        .count();
    given as f64 / wanted.len() as f64
}

/// `(selection, parameters)` of `made` against one reference's calls.
fn against(reference: &[&mcpbench_tasks::Call], made: &[MadeCall<'_>]) -> (f64, f64) {
    let mut taken = vec![false; made.len()];
    let (mut paired, mut parameters) = (0usize, 0.0f64);
    for call in reference {
        let best = made
            .iter()
            .enumerate()
            .filter(|(i, m)| !taken[*i] && m.tool == call.tool)
            .map(|(i, m)| (i, parameter_share(&call.arguments, m.arguments)))
            // The highest share; the earliest call among equals.
            .fold(None, |best: Option<(usize, f64)>, (i, s)| match best {
                Some((_, b)) if b >= s => best,
                _ => Some((i, s)),
            });
        if let Some((i, share)) = best {
            taken[i] = true;
            paired += 1;
            parameters += share;
        }
    }
    let selection = paired as f64 / reference.len() as f64;
    let parameters = if paired == 0 {
        0.0
    } else {
        parameters / paired as f64
    };
    (selection, parameters)
}

/// The reference closest to `made`, given that the run made `tool_calls` calls in all;
/// `None` when no reference of the task makes a call.
pub(crate) fn closest(
    task: &Task,
    made: &[MadeCall<'_>],
    tool_calls: u32,
) -> Option<ReferenceMatch> {
    let mut best: Option<(f64, f64, ReferenceMatch)> = None;
    for (index, steps) in task.reference_solutions.iter().enumerate() {
        let calls: Vec<_> = steps.iter().filter_map(Step::as_call).collect();
        if calls.is_empty() {
            continue;
        }
        let (selection, parameters) = against(&calls, made);
        let call_ratio = f64::from(tool_calls) / calls.len() as f64;
        let (score, distance) = (selection + parameters, (call_ratio - 1.0).abs());
        let better = match &best {
            None => true,
            Some((s, d, _)) => score > *s + 1e-12 || ((score - *s).abs() <= 1e-12 && distance < *d),
        };
        if better {
            let found = ReferenceMatch {
                reference: index as u32,
                reference_calls: calls.len() as u32,
                selection,
                parameters,
                call_ratio,
                resolved: selection >= SELECTION_MIN
                    && parameters >= PARAMETERS_MIN
                    && call_ratio <= CALL_RATIO_MAX,
            };
            best = Some((score, distance, found));
        }
    }
    best.map(|(_, _, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_compare_by_what_they_say() {
        assert!(same(&json!(2), &json!(2.0)));
        assert!(same(&json!(" general "), &json!("general")));
        assert!(!same(&json!("General"), &json!("general")));
        assert!(same(&json!({"a": [1, "x"]}), &json!({"a": [1.0, "x "]})));
        assert!(!same(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!same(&json!("1"), &json!(1)));
    }

    #[test]
    fn a_parameter_share_counts_the_reference_arguments_given_the_same() {
        let reference = json!({"channel": "general", "text": "hi", "limit": 5});
        assert_eq!(
            parameter_share(&reference, &json!({"channel": "general", "limit": 5.0})),
            2.0 / 3.0
        );
        assert_eq!(parameter_share(&reference, &json!({})), 0.0);
        assert_eq!(parameter_share(&json!({}), &json!({"x": 1})), 1.0);
    }
}
