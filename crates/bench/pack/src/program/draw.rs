//! A compiled family drawn: its steps in order from one random stream, then the goal, then the
//! task's parts, each turned into the task format's types.
//!
//! Every random choice is one of [`Rng`]'s (`below`, `range`, `shuffle`, `chance`) in a fixed
//! order, so a family gives the same tasks from the same stream on any machine, for good.

use super::{Family, Kind, MAX_REPEAT, MAX_TRIES, Num, Step};
use crate::expr::{Expr, from_json, kind, to_json};
use crate::template::Node;
use jaq_json::Val;
use mcpbench_sim::{Fault, Pred, Rng, Step as RefStep};
use mcpbench_world::{Atom, Attack, InitialState, TaskBody, qualified_tools};
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Why a draw failed.
enum Failure {
    /// A `require` failed or an `until` never held: draw again.
    Rejected(String),
    /// The family cannot draw (an expression failed, a part is not of the task format).
    Broken(String),
}

type Drawn<T> = Result<T, Failure>;

fn broken(at: &str, e: impl std::fmt::Display) -> Failure {
    Failure::Broken(format!("{at}: {e}"))
}

impl Family {
    /// A task body drawn from `rng`. The error names the family's field that failed.
    pub fn draw(&self, rng: &mut Rng) -> Result<TaskBody, String> {
        let mut last = String::new();
        for _ in 0..MAX_TRIES {
            match self.attempt(rng) {
                Ok(body) => return Ok(body),
                Err(Failure::Broken(e)) => return Err(e),
                Err(Failure::Rejected(why)) => last = why,
            }
        }
        Err(format!(
            "{MAX_TRIES} draws in a row were refused; the last by {last}"
        ))
    }

    fn attempt(&self, rng: &mut Rng) -> Drawn<TaskBody> {
        let mut scope: Vec<Val> = self.data.iter().map(from_json).collect();
        run_steps(&self.steps, &mut scope, rng)?;
        let wording = if self.goals.len() == 1 {
            &self.goals[0]
        } else {
            &self.goals[rng.below(self.goals.len() as u64) as usize]
        };
        let goal = wording.render(&scope, rng).map_err(|e| broken("goal", e))?;
        let max_steps = eval_num(&self.max_steps, &scope, "max_steps")?;
        let max_steps = u32::try_from(max_steps)
            .ok()
            .filter(|n| (1..=100).contains(n))
            .ok_or_else(|| broken("max_steps", format!("{max_steps} is outside 1..=100")))?;
        let mut part =
            |node: &Node, at: &str| node.render(&mut scope, rng).map_err(|e| broken(at, e));
        let initial_state: InitialState =
            typed(part(&self.initial_state, "initial_state")?, "initial_state")?;
        let available_tools: Vec<String> = match &self.tools {
            Some(t) => typed(part(t, "tools")?, "tools")?,
            None => qualified_tools(self.servers.iter().copied()),
        };
        let success_predicate: Pred<Atom> =
            typed(part(&self.predicate, "predicate")?, "predicate")?;
        let reference_solutions: Vec<Vec<RefStep>> =
            typed(part(&self.references, "references")?, "references")?;
        let faults: Vec<Fault> = match &self.faults {
            Some(f) => typed(part(f, "faults")?, "faults")?,
            None => Vec::new(),
        };
        let params: BTreeMap<String, Value> = match &self.params {
            Some(p) => typed(part(p, "params")?, "params")?,
            None => BTreeMap::new(),
        };
        // Last, so that a family's tasks draw the same with an attack as without.
        let attack: Option<Attack> = match &self.attack {
            Some(a) => Some(typed(part(a, "attack")?, "attack")?),
            None => None,
        };
        if let Some(twin) = attack.as_ref().and_then(|a| a.twin.as_ref()) {
            return Err(broken(
                "attack.twin",
                format!("{twin:?}: the generator names the twin, a family does not"),
            ));
        }
        Ok(TaskBody {
            servers: self.servers.iter().map(|s| s.to_string()).collect(),
            category: self.category,
            difficulty: self.difficulty,
            max_steps,
            goal,
            initial_state,
            available_tools,
            success_predicate,
            faults,
            reference_solutions,
            params,
            attack,
        })
    }
}

/// A part's JSON as the task format's type; errors give the path within the part.
fn typed<T: serde::de::DeserializeOwned>(value: Value, at: &str) -> Drawn<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." {
            at.to_string()
        } else {
            format!("{at}.{path}")
        };
        let inner = e.inner().to_string();
        // jq's division gives a float even when whole; the integer fields want `floor`.
        let hint = if inner.contains("floating point") {
            " (a number computed by division is a float in jq, even 4 / 2: take its floor)"
        } else {
            ""
        };
        broken(&at, format!("not of the task format: {inner}{hint}"))
    })
}

fn run_steps(steps: &[Step], scope: &mut Vec<Val>, rng: &mut Rng) -> Drawn<()> {
    for step in steps {
        if let Kind::Require(cond, why) = &step.kind {
            if !truth(cond, scope, &step.at)? {
                let why = why
                    .as_deref()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                return Err(Failure::Rejected(format!("{}{why}", step.at)));
            }
            continue;
        }
        if let Some(when) = &step.when
            && !truth(when, scope, &format!("{}.when", step.at))?
        {
            scope.push(Val::Null);
            continue;
        }
        let mut tries = 0;
        loop {
            let value = bind(&step.kind, scope, rng, &step.at)?;
            scope.push(value);
            let Some(until) = &step.until else { break };
            if truth(until, scope, &format!("{}.until", step.at))? {
                break;
            }
            scope.pop();
            tries += 1;
            if tries == MAX_TRIES {
                return Err(Failure::Rejected(format!(
                    "{}.until, which never held",
                    step.at
                )));
            }
        }
    }
    Ok(())
}

fn bind(kind: &Kind, scope: &mut Vec<Val>, rng: &mut Rng, at: &str) -> Drawn<Val> {
    Ok(match kind {
        Kind::Value(e) => e.eval(scope).map_err(|e| broken(at, e))?,
        Kind::Pick(e) => {
            let items = items(e, scope, at)?;
            if items.is_empty() {
                return Err(broken(at, "picks from an empty list"));
            }
            items[rng.below(items.len() as u64) as usize].clone()
        }
        Kind::Sample(e, count) => {
            let mut items = items(e, scope, at)?;
            let k = eval_num(count, scope, at)?;
            let k = usize::try_from(k)
                .ok()
                .filter(|k| *k <= items.len())
                .ok_or_else(|| broken(at, format!("samples {k} of a list of {}", items.len())))?;
            rng.shuffle(&mut items);
            items.truncate(k);
            items.into_iter().collect()
        }
        Kind::Shuffle(e) => {
            let mut items = items(e, scope, at)?;
            rng.shuffle(&mut items);
            items.into_iter().collect()
        }
        Kind::Range(lo, hi) => {
            let (lo, hi) = (eval_num(lo, scope, at)?, eval_num(hi, scope, at)?);
            if lo > hi {
                return Err(broken(at, format!("the range {lo}..={hi} is empty")));
            }
            Val::from(rng.range(lo, hi) as isize)
        }
        Kind::Chance(num, den) => Val::Bool(rng.chance(u64::from(*num), u64::from(*den))),
        Kind::World(server) => {
            from_json(&mcpbench_world::sample_seed(server, rng).map_err(|e| broken(at, e))?)
        }
        Kind::Call {
            server,
            tool,
            on,
            arguments,
        } => {
            let seed = on
                .eval_json(scope)
                .map_err(|e| broken(&format!("{at}.on"), e))?;
            let arguments = match arguments {
                Some(a) => a
                    .render(scope, rng)
                    .map_err(|e| broken(&format!("{at}.arguments"), e))?,
                None => Value::Object(Default::default()),
            };
            let answer = mcpbench_world::call_on_seed(server, seed, tool, &arguments)
                .map_err(|e| broken(at, e))?;
            from_json(&answer)
        }
        Kind::Wording(words) => {
            let w = if words.len() == 1 {
                &words[0]
            } else {
                &words[rng.below(words.len() as u64) as usize]
            };
            Val::from(w.render(scope, rng).map_err(|e| broken(at, e))?)
        }
        Kind::Repeat {
            times,
            so_far,
            steps,
            yields,
        } => {
            let n = eval_num(times, scope, at)?;
            if !(0..=MAX_REPEAT).contains(&n) {
                return Err(broken(at, format!("repeats {n} times; 0 to {MAX_REPEAT}")));
            }
            let mark = scope.len();
            // The list yielded so far, shared with the round that reads it: once the round's
            // bindings are dropped it is this one's alone again, so a push copies nothing and
            // a repeat of n rounds costs n, not n squared.
            let mut out = Rc::new(Vec::with_capacity(n as usize));
            for i in 0..n {
                scope.push(Val::from(i as isize));
                if *so_far {
                    scope.push(Val::Arr(out.clone()));
                }
                let result = run_steps(steps, scope, rng).and_then(|()| {
                    yields
                        .eval(scope)
                        .map_err(|e| broken(&format!("{at}.yield"), e))
                });
                scope.truncate(mark);
                Rc::make_mut(&mut out).push(result?);
            }
            Val::Arr(out)
        }
        Kind::Require(..) => unreachable!("requires bind nothing"),
    })
}

fn items(e: &Expr, scope: &[Val], at: &str) -> Drawn<Vec<Val>> {
    match e.eval(scope).map_err(|e| broken(at, e))? {
        Val::Arr(items) => Ok(items.as_ref().clone()),
        other => Err(broken(
            at,
            format!(
                "needs a list, not {}",
                to_json(&other).map_or("a value that is not JSON", |v| kind(&v))
            ),
        )),
    }
}

fn eval_num(num: &Num, scope: &[Val], at: &str) -> Drawn<i64> {
    match num {
        Num::Const(n) => Ok(*n),
        Num::Expr(e) => match e.eval_json(scope).map_err(|e| broken(at, e))? {
            Value::Number(n) if n.is_i64() => Ok(n.as_i64().expect("checked")),
            other => Err(broken(
                at,
                format!("needs a whole number, not {}", kind(&other)),
            )),
        },
    }
}

fn truth(cond: &Expr, scope: &[Val], at: &str) -> Drawn<bool> {
    match cond.eval_json(scope).map_err(|e| broken(at, e))? {
        Value::Bool(b) => Ok(b),
        other => Err(broken(
            at,
            format!("needs true or false, not {}", kind(&other)),
        )),
    }
}
