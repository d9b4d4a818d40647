//! Template grammars: a template samples bounded parameters with a seeded [`Rng`] and returns
//! a [`Draft`], a task for one server with its goal, seed state, predicate and references.

use crate::pred::Pred;
use crate::rng::Rng;
use crate::server::Simulated;
use crate::step::{Call, Category, Difficulty, Fault, Step};
use serde_json::Value;
use std::collections::BTreeMap;

/// One template of server `S`.
pub struct Template<S: Simulated> {
    /// Stable id, `<server>.<name>`, recorded in every task it makes.
    pub id: &'static str,
    pub category: Category,
    pub difficulty: Difficulty,
    pub build: fn(&mut Rng) -> Draft<S>,
}

/// A generated task for one server, before it gets an id.
///
/// Tool names in `tools`, `references` and `faults` are qualified (`filesystem.move_file`);
/// build them with [`qualified`] and [`call`].
pub struct Draft<S: Simulated> {
    /// What a person would ask: no tool or server names, every concrete value included.
    pub goal: String,
    pub max_steps: u32,
    pub seed: S::Seed,
    pub tools: Vec<String>,
    pub predicate: Pred<S::Atom>,
    /// One or more solutions; each must pass, and each distinct valid path has one.
    pub references: Vec<Vec<Step>>,
    pub faults: Vec<Fault>,
    /// The sampled parameters, recorded in the task for audit.
    pub params: BTreeMap<String, Value>,
}

/// `server.tool`.
pub fn qualified<S: Simulated>(tool: &str) -> String {
    format!("{}.{tool}", S::NAME)
}

/// A reference step calling `tool` of `S`.
pub fn call<S: Simulated>(tool: &str, arguments: Value) -> Step {
    Step::Call(Call {
        tool: qualified::<S>(tool),
        arguments,
    })
}

/// The helpers every server's templates reach for, written once and provided to every
/// [`Simulated`] server: `Calendar::tools(&["list_events"])` (reference steps are [`call`]).
pub trait Kit: Simulated {
    /// Qualified names of this server's tools, for a draft's `tools`.
    fn tools(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| qualified::<Self>(n)).collect()
    }
}

impl<S: Simulated> Kit for S {}

/// A predicate that holds when `atom` holds.
pub fn atom<A>(atom: A) -> Pred<A> {
    Pred::Atom(atom)
}

/// A predicate that holds when `p` does not.
pub fn not<A>(p: Pred<A>) -> Pred<A> {
    Pred::Not(Box::new(p))
}

/// Ids for a task's seed, `<prefix>-<n>`, from a random start and spaced 11 apart, so that a
/// one-digit slip never names another record.
pub struct Ids {
    prefix: &'static str,
    next: i64,
}

impl Ids {
    pub fn new(rng: &mut Rng, prefix: &'static str) -> Self {
        Self {
            prefix,
            next: rng.range(1000, 4000),
        }
    }

    pub fn take(&mut self) -> String {
        let id = format!("{}-{}", self.prefix, self.next);
        self.next += 11;
        id
    }
}

/// The sampled parameters of a draft, from `(name, value)` pairs.
pub fn params(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}
