//! A family compiled (every expression and wording checked against the names bound where it
//! stands) and drawn: its steps in order from one random stream, then the goal, then the
//! task's parts, each turned into the task format's types.
//!
//! Every random choice is one of [`Rng`]'s (`below`, `range`, `shuffle`, `chance`) in a fixed
//! order, so a family gives the same tasks from the same stream on any machine, for good.

use crate::expr::{Expr, Exprs, from_json, kind, to_json};
use crate::family::{Count, DrawStep, FamilyFile};
use crate::template::{Node, compile_node};
use crate::wording::Wording;
use jaq_json::Val;
use mcpbench_sim::{Category, Difficulty, Fault, Pred, Rng, Step as RefStep};
use mcpbench_world::{Atom, InitialState, SERVERS, TaskBody, qualified_tools};
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;

/// How often a draw starts again after a `require` fails (or an `until` never holds), and how
/// often an `until` draws its step again, before the family is given up as unable to draw.
pub const MAX_TRIES: usize = 100;

/// The most a `repeat` repeats.
pub const MAX_REPEAT: i64 = 2_000;

/// A family ready to draw.
#[derive(Debug)]
pub struct Family {
    pub id: String,
    pub servers: Vec<&'static str>,
    pub category: Category,
    pub difficulty: Difficulty,
    /// Values of `data`, in the order of their names.
    data: Vec<Value>,
    steps: Vec<Step>,
    goals: Vec<Wording>,
    max_steps: Num,
    initial_state: Node,
    tools: Option<Node>,
    predicate: Node,
    references: Node,
    faults: Option<Node>,
    params: Option<Node>,
}

#[derive(Debug)]
struct Step {
    /// `draw[3] ($price)`, for errors.
    at: String,
    kind: Kind,
    when: Option<Expr>,
    until: Option<Expr>,
}

#[derive(Debug)]
enum Kind {
    Value(Expr),
    Pick(Expr),
    Sample(Expr, Num),
    Shuffle(Expr),
    Range(Num, Num),
    Chance(u32, u32),
    World(&'static str),
    Call {
        server: &'static str,
        tool: String,
        on: Expr,
        arguments: Option<Node>,
    },
    Wording(Vec<Wording>),
    Repeat {
        times: Num,
        /// Whether each round also binds the values yielded before it.
        so_far: bool,
        steps: Vec<Step>,
        yields: Expr,
    },
    Require(Expr, Option<String>),
}

#[derive(Debug)]
enum Num {
    Const(i64),
    Expr(Expr),
}

/// Whether `name` can be bound: a lower-case letter or `_`, then letters, digits or `_`.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.starts_with("__") {
        return Err(format!(
            "{name:?} is not a name: names that start with __ are ours"
        ));
    }
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    if first_ok && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a name: a lower-case letter or _, then lower-case letters, digits or _"
        ))
    }
}

/// Compiles `file` with the pack's definitions `lib`; every problem found, each naming its
/// field.
pub fn compile_family(file: &FamilyFile, lib: &str) -> Result<Family, Vec<String>> {
    let mut c = Compiler {
        exprs: Exprs::new(lib),
        errors: Vec::new(),
    };
    let servers = c.servers(&file.servers);
    let mut scope: Vec<String> = Vec::new();
    for name in file.data.keys() {
        if let Err(e) = check_name(name) {
            c.errors.push(format!("data.{name}: {e}"));
        }
        scope.push(name.clone());
    }
    let steps = c.steps(&file.draw, &mut scope, "draw");
    let goals: Vec<Wording> = file
        .goal
        .as_slice()
        .iter()
        .enumerate()
        .filter_map(|(i, w)| c.wording(w, &scope, &format!("goal[{i}]")))
        .collect();
    if file.goal.as_slice().is_empty() {
        c.errors.push("goal: lists no wording".into());
    }
    let max_steps = c.num(&file.max_steps, &scope, "max_steps");
    let mut part = |value: &Value, at: &str| match compile_node(value, &scope, &mut c.exprs, at) {
        Ok(n) => Some(n),
        Err(e) => {
            c.errors.push(e);
            None
        }
    };
    let initial_state = part(&file.initial_state, "initial_state");
    let tools = file.tools.as_ref().map(|t| part(t, "tools"));
    let predicate = part(&file.predicate, "predicate");
    let references = part(&file.references, "references");
    let faults = file.faults.as_ref().map(|f| part(f, "faults"));
    let params = file.params.as_ref().map(|p| part(p, "params"));
    // Every expression is known: the family's program is compiled once.
    if let Err(problems) = c.exprs.finish() {
        c.errors.extend(problems);
    }
    if !c.errors.is_empty() {
        return Err(c.errors);
    }
    let some = |n: Option<Node>| n.expect("no errors, so compiled");
    Ok(Family {
        id: file.family.clone(),
        servers,
        category: file.category,
        difficulty: file.difficulty,
        data: file.data.values().cloned().collect(),
        steps,
        goals,
        max_steps: max_steps.expect("no errors, so compiled"),
        initial_state: some(initial_state),
        tools: tools.map(some),
        predicate: some(predicate),
        references: some(references),
        faults: faults.map(some),
        params: params.map(some),
    })
}

struct Compiler {
    exprs: Exprs,
    errors: Vec<String>,
}

impl Compiler {
    fn servers(&mut self, names: &[String]) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for (i, name) in names.iter().enumerate() {
            match SERVERS.iter().find(|s| **s == name) {
                Some(s) if out.contains(s) => self
                    .errors
                    .push(format!("servers[{i}]: {name} is listed twice")),
                Some(s) => out.push(s),
                None => self.errors.push(format!(
                    "servers[{i}]: unknown server {name:?}; the servers are {SERVERS:?}"
                )),
            }
        }
        if !(1..=3).contains(&names.len()) {
            self.errors
                .push(format!("servers: lists {}; one to three", names.len()));
        }
        out
    }

    fn expr(&mut self, source: &str, scope: &[String], at: &str) -> Option<Expr> {
        Some(self.exprs.add(source, scope, at))
    }

    fn wording(&mut self, text: &str, scope: &[String], at: &str) -> Option<Wording> {
        Wording::parse(text, scope, &mut self.exprs, at)
            .map_err(|e| self.errors.push(format!("{at}: {e}")))
            .ok()
    }

    fn num(&mut self, count: &Count, scope: &[String], at: &str) -> Option<Num> {
        match (count, count.expr()) {
            (Count::Number(n), _) => Some(Num::Const(*n)),
            (_, Some(source)) => self.expr(source, scope, at).map(Num::Expr),
            (_, None) => unreachable!("a count is a number or an expression"),
        }
    }

    /// Compiles `steps`, binding each step's name in `scope` as it goes.
    fn steps(&mut self, steps: &[DrawStep], scope: &mut Vec<String>, at: &str) -> Vec<Step> {
        let mut out = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            let binding = step.binding();
            let here = match binding {
                Some((name, ..)) => format!("{at}[{i}] (${name})"),
                None => format!("{at}[{i}]"),
            };
            let kind = self.kind(step, scope, &here);
            let (mut when, mut until) = (None, None);
            if let Some((name, when_code, until_code)) = binding {
                when = when_code.and_then(|w| self.expr(w, scope, &format!("{here}.when")));
                self.bind(name, scope, &here);
                until = until_code.and_then(|u| self.expr(u, scope, &format!("{here}.until")));
            }
            if let Some(kind) = kind {
                out.push(Step {
                    at: here,
                    kind,
                    when,
                    until,
                });
            }
        }
        out
    }

    /// Binds `name` in `scope`, refusing a name that is not one or is bound already.
    fn bind(&mut self, name: &str, scope: &mut Vec<String>, at: &str) {
        if let Err(e) = check_name(name) {
            self.errors.push(format!("{at}: {e}"));
        } else if scope.iter().any(|n| n == name) {
            self.errors.push(format!("{at}: ${name} is already bound"));
        }
        scope.push(name.to_string());
    }

    fn kind(&mut self, step: &DrawStep, scope: &[String], at: &str) -> Option<Kind> {
        Some(match step {
            DrawStep::Value(s) => Kind::Value(self.expr(&s.value, scope, at)?),
            DrawStep::Pick(s) => Kind::Pick(self.expr(&s.pick, scope, at)?),
            DrawStep::Sample(s) => {
                let list = self.expr(&s.sample, scope, at);
                let count = self.num(&s.count, scope, &format!("{at}.count"));
                Kind::Sample(list?, count?)
            }
            DrawStep::Shuffle(s) => Kind::Shuffle(self.expr(&s.shuffle, scope, at)?),
            DrawStep::Range(s) => {
                let lo = self.num(&s.range[0], scope, &format!("{at}.range[0]"));
                let hi = self.num(&s.range[1], scope, &format!("{at}.range[1]"));
                Kind::Range(lo?, hi?)
            }
            DrawStep::Chance(s) => {
                let [num, den] = s.chance;
                if den == 0 || num > den {
                    self.errors.push(format!(
                        "{at}.chance: [{num}, {den}] is not a chance (0 <= num <= den, den > 0)"
                    ));
                    return None;
                }
                Kind::Chance(num, den)
            }
            DrawStep::World(s) => match SERVERS.iter().find(|x| **x == s.world) {
                Some(server) => Kind::World(server),
                None => {
                    self.errors.push(format!(
                        "{at}.world: unknown server {:?}; the servers are {SERVERS:?}",
                        s.world
                    ));
                    return None;
                }
            },
            DrawStep::Call(s) => {
                let server = s
                    .call
                    .split_once('.')
                    .and_then(|(server, _)| SERVERS.iter().find(|x| **x == server));
                let (Some(server), Some(_)) = (server, mcpbench_world::tool_spec(&s.call)) else {
                    self.errors
                        .push(format!("{at}.call: no tool {:?} (server.tool)", s.call));
                    return None;
                };
                let on = self.expr(&s.on, scope, &format!("{at}.on"));
                let arguments = match &s.arguments {
                    None => None,
                    Some(a) => {
                        match compile_node(a, scope, &mut self.exprs, &format!("{at}.arguments")) {
                            Ok(n) => Some(n),
                            Err(e) => {
                                self.errors.push(e);
                                return None;
                            }
                        }
                    }
                };
                Kind::Call {
                    server,
                    tool: s.call.clone(),
                    on: on?,
                    arguments,
                }
            }
            DrawStep::Wording(s) => {
                let words: Vec<Option<Wording>> = (s.wording.as_slice().iter().enumerate())
                    .map(|(i, w)| self.wording(w, scope, &format!("{at}.wording[{i}]")))
                    .collect();
                if words.is_empty() {
                    self.errors.push(format!("{at}.wording: lists no wording"));
                }
                Kind::Wording(words.into_iter().collect::<Option<Vec<_>>>()?)
            }
            DrawStep::Repeat(s) => {
                let times = self.num(&s.repeat, scope, &format!("{at}.repeat"));
                let mut inner = scope.to_vec();
                let index = s.index.as_deref().unwrap_or("i");
                self.bind(index, &mut inner, &format!("{at}.as"));
                if let Some(so_far) = &s.so_far {
                    self.bind(so_far, &mut inner, &format!("{at}.so_far"));
                }
                let steps = self.steps(&s.draw, &mut inner, &format!("{at}.draw"));
                let yields = self.expr(&s.yields, &inner, &format!("{at}.yield"));
                Kind::Repeat {
                    times: times?,
                    so_far: s.so_far.is_some(),
                    steps,
                    yields: yields?,
                }
            }
            DrawStep::Require(s) => Kind::Require(self.expr(&s.require, scope, at)?, s.why.clone()),
        })
    }
}

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
            from_json(&crate::worlds::sample(server, rng).map_err(|e| broken(at, e))?)
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
            let answer =
                crate::worlds::call(server, seed, tool, &arguments).map_err(|e| broken(at, e))?;
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
