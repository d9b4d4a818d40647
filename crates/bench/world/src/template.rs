//! Templates of any server, with their drafts turned into task bodies of the whole world.

use crate::{Atom, Attack, InitialState};
use mcpbench_sim::{Category, Difficulty, Fault, Pred, Rng, Simulated, Step, Template};
use serde_json::Value;
use std::collections::BTreeMap;

/// Everything a task has but its id and primary server.
#[derive(Clone, Debug)]
pub struct TaskBody {
    pub servers: Vec<String>,
    pub category: Category,
    pub difficulty: Difficulty,
    pub max_steps: u32,
    pub goal: String,
    pub initial_state: InitialState,
    pub available_tools: Vec<String>,
    pub success_predicate: Pred<Atom>,
    pub faults: Vec<Fault>,
    pub reference_solutions: Vec<Vec<Step>>,
    pub params: BTreeMap<String, Value>,
    /// An attack the generator plants in a twin of the task (a pack's family may draw one).
    pub attack: Option<Attack>,
}

/// What a template across servers builds: a task body but for what the template declares
/// once (its servers, category and difficulty, given to [`AnyTemplate::new`]).
#[derive(Clone, Debug)]
pub struct Composed {
    pub max_steps: u32,
    pub goal: String,
    pub initial_state: InitialState,
    pub available_tools: Vec<String>,
    pub success_predicate: Pred<Atom>,
    pub faults: Vec<Fault>,
    pub reference_solutions: Vec<Vec<Step>>,
    pub params: BTreeMap<String, Value>,
}

/// How a template draws a task body: infallibly for one written in Rust; a pack's family says
/// why a draw failed.
pub type Build = Box<dyn Fn(&mut Rng) -> Result<TaskBody, String> + Send + Sync>;

/// A template of one server or of several, behind one type: one written in Rust, or a family
/// of a pack (whose draw can fail, and says why).
pub struct AnyTemplate {
    pub id: String,
    /// The servers its tasks use; the first is the one it is filed under by default.
    pub servers: Vec<&'static str>,
    pub category: Category,
    pub difficulty: Difficulty,
    build: Build,
}

impl AnyTemplate {
    /// A template across servers, declaring its servers, category and difficulty here once.
    pub fn new(
        id: &'static str,
        servers: Vec<&'static str>,
        category: Category,
        difficulty: Difficulty,
        build: fn(&mut Rng) -> Composed,
    ) -> Self {
        let names: Vec<String> = servers.iter().map(|s| s.to_string()).collect();
        Self {
            id: id.to_string(),
            servers,
            category,
            difficulty,
            build: Box::new(move |rng| {
                let c = build(rng);
                Ok(TaskBody {
                    servers: names.clone(),
                    category,
                    difficulty,
                    max_steps: c.max_steps,
                    goal: c.goal,
                    initial_state: c.initial_state,
                    available_tools: c.available_tools,
                    success_predicate: c.success_predicate,
                    faults: c.faults,
                    reference_solutions: c.reference_solutions,
                    params: c.params,
                    attack: None,
                })
            }),
        }
    }

    /// A template whose draw can fail (a pack's family): `build` says why, naming where.
    pub fn fallible(
        id: String,
        servers: Vec<&'static str>,
        category: Category,
        difficulty: Difficulty,
        build: Build,
    ) -> Self {
        Self {
            id,
            servers,
            category,
            difficulty,
            build,
        }
    }

    /// Wraps a single-server template.
    pub(crate) fn of<S: Simulated>(
        t: Template<S>,
        atom: fn(S::Atom) -> Atom,
        state: fn(S::Seed) -> InitialState,
    ) -> Self {
        let (category, difficulty, build) = (t.category, t.difficulty, t.build);
        Self {
            id: t.id.to_string(),
            servers: vec![S::NAME],
            category,
            difficulty,
            build: Box::new(move |rng| {
                let d = build(rng);
                Ok(TaskBody {
                    servers: vec![S::NAME.to_string()],
                    category,
                    difficulty,
                    max_steps: d.max_steps,
                    goal: d.goal,
                    initial_state: state(d.seed),
                    available_tools: d.tools,
                    success_predicate: d.predicate.map(&atom),
                    faults: d.faults,
                    reference_solutions: d.references,
                    params: d.params,
                    attack: None,
                })
            }),
        }
    }

    /// A task body drawn from `rng`. Panics when the draw fails, which a template written in
    /// Rust never does; the generator calls [`AnyTemplate::try_build`].
    pub fn build(&self, rng: &mut Rng) -> TaskBody {
        self.try_build(rng)
            .unwrap_or_else(|e| panic!("template {} failed to draw: {e}", self.id))
    }

    /// A task body drawn from `rng`, or why the draw failed.
    pub fn try_build(&self, rng: &mut Rng) -> Result<TaskBody, String> {
        (self.build)(rng)
    }

    pub fn is_multi_server(&self) -> bool {
        self.servers.len() > 1
    }
}
