//! Proof that a task is right: every reference solution passes, doing nothing fails, and
//! mutants of each reference fail.
//!
//! A mutant is a reference with its last state-changing call dropped, with one argument of a
//! state-changing call changed, or (for tasks that ask for information) with a wrong final
//! answer. A call is state-changing when its server's snapshot differs before and after it, so
//! a call that failed on an injected fault never counts. A mutant that survives with the same
//! final state as the reference is *equivalent* (the changed argument made no difference) and
//! is explained as such; any other survivor is a defect of the task.
//!
//! Snapshots are the cost of a check (a world at a real scale is thousands of records), so a
//! replay takes one only where a change can be: never after a call of a read-only tool (the
//! conformance suite proves such tools leave the state as it was, see [`reads_change_nothing`])
//! and only of the server called, since a call reaches no other.

use crate::error::ToolError;
use crate::step::Step;
use serde_json::Value;
use std::collections::BTreeMap;

/// One run of a task, from its initial state.
pub trait Run {
    /// Calls a qualified tool, applying the task's faults and its list of available tools.
    fn call(&mut self, tool: &str, args: &Value) -> Result<Value, ToolError>;
    /// Whether the success predicate holds now, given the final answer.
    fn passes(&self, answer: Option<&str>) -> bool;
    /// The whole state, for comparing the final states of two replays.
    fn snapshot(&self) -> Value;
    /// The state of the server a qualified tool belongs to: all a call of it can change.
    fn server_snapshot(&self, tool: &str) -> Value {
        let _ = tool;
        self.snapshot()
    }
    /// Whether the tool is declared read-only ([`crate::Effect::Read`]), so that a call of it
    /// cannot change the state and needs no snapshot.
    fn reads_only(&self, tool: &str) -> bool {
        let _ = tool;
        false
    }
    /// The input schema of a qualified tool, if the tool exists.
    fn input_schema(&self, tool: &str) -> Option<Value>;
    /// Checks arguments against the tool's schema.
    fn check_arguments(&self, tool: &str, args: &Value) -> Result<(), ToolError>;
}

/// What is checked.
pub struct Case<'a> {
    pub max_steps: u32,
    pub available_tools: &'a [String],
    pub references: &'a [Vec<Step>],
}

#[derive(Clone, Debug, PartialEq)]
pub struct Mutant {
    pub description: String,
    pub killed: bool,
    /// Why a surviving mutant is acceptable; `None` for a killed one.
    pub explanation: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Everything that makes the task invalid, each a sentence.
    pub problems: Vec<String>,
    pub mutants: Vec<Mutant>,
}

struct Replay {
    results: Vec<Result<Value, ToolError>>,
    /// Indexes into the steps of the calls that changed the state.
    changing: Vec<usize>,
    passed: bool,
    final_state: Value,
}

fn replay<R: Run>(steps: &[Step], fresh: &dyn Fn() -> R) -> Replay {
    let mut run = fresh();
    let mut results = Vec::new();
    let mut changing = Vec::new();
    let mut answer = None;
    // Each server's state as the last snapshot of it saw it: a call changes only its own
    // server, so a snapshot stays true until the next writing call there.
    let mut seen: BTreeMap<&str, Value> = BTreeMap::new();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Call(c) if run.reads_only(&c.tool) => {
                results.push(run.call(&c.tool, &c.arguments));
            }
            Step::Call(c) => {
                let server = server_of(&c.tool);
                let before = match seen.remove(server) {
                    Some(v) => v,
                    None => run.server_snapshot(&c.tool),
                };
                results.push(run.call(&c.tool, &c.arguments));
                let after = run.server_snapshot(&c.tool);
                if after != before {
                    changing.push(i);
                }
                seen.insert(server, after);
            }
            Step::Answer { answer: a } => answer = Some(a.as_str()),
        }
    }
    Replay {
        results,
        changing,
        passed: run.passes(answer),
        final_state: run.snapshot(),
    }
}

/// The server part of a qualified tool name (`filesystem` of `filesystem.move_file`).
fn server_of(tool: &str) -> &str {
    tool.split_once('.').map_or(tool, |(server, _)| server)
}

/// The calls of `steps` to read-only tools that changed their server's state, each as a
/// sentence: what must never happen, since [`verify`] takes no snapshot after such a call.
pub fn reads_change_nothing<R: Run>(steps: &[Step], fresh: &dyn Fn() -> R) -> Vec<String> {
    let mut run = fresh();
    let mut problems = Vec::new();
    for (i, c) in steps.iter().enumerate() {
        let Step::Call(c) = c else { continue };
        if !run.reads_only(&c.tool) {
            let _ = run.call(&c.tool, &c.arguments);
            continue;
        }
        let before = run.server_snapshot(&c.tool);
        let _ = run.call(&c.tool, &c.arguments);
        if run.server_snapshot(&c.tool) != before {
            problems.push(format!(
                "step {} ({}): a read-only tool changed the state",
                i + 1,
                c.tool
            ));
        }
    }
    problems
}

/// Checks one task.
pub fn verify<R: Run>(case: &Case<'_>, fresh: &dyn Fn() -> R) -> Report {
    let mut report = Report::default();
    if case.references.is_empty() {
        report
            .problems
            .push("the task has no reference solution".into());
    }
    // One untouched world serves every question that changes nothing (worlds are costly).
    let idle = fresh();
    if idle.passes(None) || idle.passes(Some("")) {
        report
            .problems
            .push("doing nothing passes the success predicate".into());
    }
    for (r, steps) in case.references.iter().enumerate() {
        let name = format!("reference {}", r + 1);
        check_steps(case, &name, steps, &idle, &mut report.problems);
        let first = replay(steps, fresh);
        if !first.passed {
            let errors: Vec<String> = first
                .results
                .iter()
                .filter_map(|r| r.as_ref().err())
                .map(ToString::to_string)
                .collect();
            report.problems.push(format!(
                "{name} does not pass (errors on the way: {errors:?})"
            ));
            continue;
        }
        let second = replay(steps, fresh);
        if second.results != first.results || second.final_state != first.final_state {
            report
                .problems
                .push(format!("{name} is not deterministic: two replays differ"));
        }
        for m in mutants(steps, &first, &idle) {
            let outcome = replay(&m.steps, fresh);
            let killed = !outcome.passed;
            let explanation = (!killed
                && outcome.final_state == first.final_state
                && !m.answer_changed)
                .then(|| {
                    "equivalent: the change leaves the same final state as the reference"
                        .to_string()
                });
            if !killed && explanation.is_none() {
                report
                    .problems
                    .push(format!("mutant survives: {name}: {}", m.description));
            }
            report.mutants.push(Mutant {
                description: format!("{name}: {}", m.description),
                killed,
                explanation,
            });
        }
    }
    report
}

fn check_steps<R: Run>(
    case: &Case<'_>,
    name: &str,
    steps: &[Step],
    run: &R,
    problems: &mut Vec<String>,
) {
    let calls: Vec<_> = steps.iter().filter_map(Step::as_call).collect();
    if calls.len() > case.max_steps as usize {
        problems.push(format!(
            "{name} makes {} calls, more than max_steps {}",
            calls.len(),
            case.max_steps
        ));
    }
    for c in calls {
        if !case.available_tools.contains(&c.tool) {
            problems.push(format!(
                "{name} calls {}, which is not in available_tools",
                c.tool
            ));
        }
        if let Err(e) = run.check_arguments(&c.tool, &c.arguments) {
            problems.push(format!(
                "{name} calls {} with invalid arguments: {e}",
                c.tool
            ));
        }
    }
    let answers = steps
        .iter()
        .filter(|s| matches!(s, Step::Answer { .. }))
        .count();
    if answers > 1 || (answers == 1 && !matches!(steps.last(), Some(Step::Answer { .. }))) {
        problems.push(format!("{name}: an answer may only be the last step"));
    }
}

struct MutantSteps {
    description: String,
    steps: Vec<Step>,
    answer_changed: bool,
}

fn mutants<R: Run>(steps: &[Step], replayed: &Replay, run: &R) -> Vec<MutantSteps> {
    let mut out = Vec::new();
    if let Some(&last) = replayed.changing.last() {
        let mut dropped = steps.to_vec();
        dropped.remove(last);
        out.push(MutantSteps {
            description: format!("last state-changing call (step {}) dropped", last + 1),
            steps: dropped,
            answer_changed: false,
        });
    }
    for &i in &replayed.changing {
        let Step::Call(call) = &steps[i] else {
            continue;
        };
        let Some(args) = call.arguments.as_object() else {
            continue;
        };
        let schema = run.input_schema(&call.tool).unwrap_or(Value::Null);
        for (key, value) in args {
            let prop = schema
                .pointer(&format!("/properties/{}", escape(key)))
                .cloned()
                .unwrap_or(Value::Null);
            let Some(changed) = mutate(value, &prop) else {
                continue;
            };
            let mut mutated = steps.to_vec();
            if let Step::Call(c) = &mut mutated[i] {
                c.arguments[key] = changed.clone();
            }
            out.push(MutantSteps {
                description: format!(
                    "step {} ({}): {key} changed to {}",
                    i + 1,
                    call.tool,
                    short(&changed)
                ),
                steps: mutated,
                answer_changed: false,
            });
        }
    }
    if let Some(Step::Answer { answer }) = steps.last() {
        let wrong = mutate_answer(answer);
        let mut mutated = steps.to_vec();
        *mutated.last_mut().expect("non-empty") = Step::Answer {
            answer: wrong.clone(),
        };
        out.push(MutantSteps {
            description: format!("answer changed to {wrong:?}"),
            steps: mutated,
            answer_changed: true,
        });
    }
    out
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// A different value of the same type that still fits `schema` where it can: another enum
/// member, a neighbouring number, a flipped boolean, one character changed.
pub fn mutate(value: &Value, schema: &Value) -> Option<Value> {
    if let Some(options) = enum_options(schema) {
        let at = options.iter().position(|o| o == value)?;
        return (options.len() > 1).then(|| options[(at + 1) % options.len()].clone());
    }
    match value {
        Value::Null => None,
        Value::Bool(b) => Some(Value::Bool(!b)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let max = schema
                    .get("maximum")
                    .and_then(Value::as_i64)
                    .unwrap_or(i64::MAX);
                Some(Value::from(if i < max { i + 1 } else { i - 1 }))
            } else {
                n.as_f64().map(|f| Value::from(f + 1.0))
            }
        }
        Value::String(s) => Some(Value::String(mutate_string(s))),
        Value::Array(items) => {
            let last = items.last()?;
            let changed = mutate(last, schema.get("items").unwrap_or(&Value::Null))?;
            let mut items = items.clone();
            *items.last_mut().expect("non-empty") = changed;
            Some(Value::Array(items))
        }
        Value::Object(map) => {
            let (k, v) = map.iter().next()?;
            let prop = schema
                .pointer(&format!("/properties/{}", escape(k)))
                .cloned()
                .unwrap_or(Value::Null);
            let changed = mutate(v, &prop)?;
            let mut map = map.clone();
            map.insert(k.clone(), changed);
            Some(Value::Object(map))
        }
    }
}

/// The values an enumerated schema allows: `enum`, or `oneOf`/`anyOf` of `const`s (what
/// schemars emits when the variants carry doc comments).
fn enum_options(schema: &Value) -> Option<Vec<Value>> {
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return Some(options.clone());
    }
    let alternatives = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))?
        .as_array()?;
    alternatives
        .iter()
        .map(|a| a.get("const").cloned())
        .collect()
}

/// A wrong answer: the last digit bumped when the answer states a number (so "26 mph" becomes
/// "27 mph", not "26 mpi"), otherwise the last letter.
pub fn mutate_answer(answer: &str) -> String {
    let mut chars: Vec<char> = answer.chars().collect();
    match chars.iter().rposition(char::is_ascii_digit) {
        Some(i) => {
            chars[i] = if chars[i] == '9' {
                '0'
            } else {
                (chars[i] as u8 + 1) as char
            };
            chars.into_iter().collect()
        }
        None => mutate_string(answer),
    }
}

/// The last letter or digit moved one step on (`z` to `a`, `9` to `0`); text without one
/// gets an `x` appended.
pub fn mutate_string(s: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    match chars.iter().rposition(|c| c.is_ascii_alphanumeric()) {
        Some(i) => {
            chars[i] = match chars[i] {
                '9' => '0',
                'z' => 'a',
                'Z' => 'A',
                c => (c as u8 + 1) as char,
            };
            chars.into_iter().collect()
        }
        None => format!("{s}x"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mutations_stay_within_the_schema() {
        assert_eq!(
            mutate(&json!("merge"), &json!({"enum": ["merge", "squash"]})),
            Some(json!("squash"))
        );
        let documented = json!({"oneOf": [{"const": "a", "description": "A"}, {"const": "b"}]});
        assert_eq!(mutate(&json!("b"), &documented), Some(json!("a")));
        assert_eq!(mutate(&json!(5), &json!({"maximum": 5})), Some(json!(4)));
        assert_eq!(mutate(&json!(5), &json!({})), Some(json!(6)));
        assert_eq!(mutate(&json!(true), &json!({})), Some(json!(false)));
        assert_eq!(
            mutate(&json!(["x", "y9"]), &json!({})),
            Some(json!(["x", "y0"]))
        );
        assert_eq!(
            mutate(&json!({"b": "z", "a": 1}), &json!({})),
            Some(json!({"b": "z", "a": 2}))
        );
        assert_eq!(mutate(&json!(null), &json!({})), None);
        assert_eq!(mutate_string("Deploy done!"), "Deploy donf!");
        assert_eq!(mutate_string("--"), "--x");
        assert_eq!(mutate_answer("26 mph"), "27 mph");
        assert_eq!(mutate_answer("Lisbon"), "Lisboo");
    }
}
