//! A family compiled: every expression and wording checked against the names bound where it
//! stands, and all of them compiled together into one jq program (`crate::expr::Exprs`).
//! `draw.rs` draws it.

use crate::expr::{Expr, Exprs};
use crate::family::{Count, DrawStep, FamilyFile};
use crate::template::{Node, compile_node};
use crate::wording::{Shape, Wording};
use mcpbench_sim::{Category, Difficulty};
use mcpbench_world::SERVERS;
use serde_json::Value;
use std::collections::BTreeMap;

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
    /// The names of `data`, and their values in the same order.
    data_names: Vec<String>,
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
    attack: Option<Node>,
}

#[derive(Debug)]
struct Step {
    /// The name it binds (empty for a `require`).
    name: String,
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
    let attack = file.attack.as_ref().map(|a| part(a, "attack"));
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
        data_names: file.data.keys().cloned().collect(),
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
        attack: attack.map(some),
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
                    name: binding.map(|(n, ..)| n.to_string()).unwrap_or_default(),
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

impl Family {
    /// Whether the family draws an attack (each task then has an attacked twin).
    pub fn has_attack(&self) -> bool {
        self.attack.is_some()
    }

    /// The shapes of the goal's wordings, each slot that only repeats a text a `wording` step
    /// drew (`{$goal_text}`) replaced by that step's wordings (`Shape::Drawn`): every phrasing
    /// the family can give, with the slots that hold values.
    pub fn goal_shapes(&self) -> Vec<Vec<Shape>> {
        let drawn: BTreeMap<&str, &[Wording]> = (self.steps.iter())
            .filter_map(|s| match &s.kind {
                Kind::Wording(words) => Some((s.name.as_str(), words.as_slice())),
                _ => None,
            })
            .collect();
        self.goals
            .iter()
            .map(|w| expand(&w.shape(), &drawn, 4))
            .collect()
    }
}

/// `shape` with each slot `{$name}` of a `wording` step's name replaced by its wordings, to
/// `depth` levels.
fn expand(shape: &[Shape], drawn: &BTreeMap<&str, &[Wording]>, depth: usize) -> Vec<Shape> {
    shape
        .iter()
        .map(|piece| match piece {
            Shape::Slot(source) if depth > 0 => {
                let name = source.trim().strip_prefix('$').unwrap_or_default();
                match drawn.get(name) {
                    Some(words) => Shape::Drawn(
                        source.clone(),
                        (words.iter())
                            .map(|w| expand(&w.shape(), drawn, depth - 1))
                            .collect(),
                    ),
                    None => piece.clone(),
                }
            }
            Shape::Choice(alts) => {
                Shape::Choice(alts.iter().map(|a| expand(a, drawn, depth)).collect())
            }
            Shape::Drawn(source, alts) => Shape::Drawn(
                source.clone(),
                alts.iter().map(|a| expand(a, drawn, depth)).collect(),
            ),
            other => other.clone(),
        })
        .collect()
}

mod draw;
mod reading;

pub use reading::{Bindings, Field, Known, Reading, UNKNOWN, path};
