//! `memory`: the knowledge graph of the reference memory MCP server (`create_entities`,
//! `create_relations`, `add_observations`, `read_graph`, `search_nodes`, `open_nodes`, ...).
//!
//! The graph holds entities (a unique, case-sensitive name, an `entityType`, a list of
//! observations) and directed relations (`from`, `to`, `relationType` in active voice). The
//! rules an agent meets:
//! - creating an entity that exists skips it (the result says so); nothing is merged;
//! - relations must join existing entities (`not_found` otherwise, and nothing is created);
//! - adding observations to a missing entity is `not_found`; deleting things that are absent
//!   does nothing and the result says what was not found;
//! - deleting an entity deletes every relation touching it;
//! - `search_nodes` and `open_nodes` return only relations whose two ends are both returned,
//!   as the reference server does; `read_graph` returns everything, sorted by name;
//! - a seed may carry a `background`: a graph grown over months (people, organisations,
//!   projects, places, related among themselves only), expanded when the graph is built
//!   (`background.rs`); as on the reference server nothing pages, `read_graph` returns it all;
//! - a run's graph holds at most [`GRAPH`]: past it, a call that would add entities,
//!   observations or relations is a tool error (`failed_precondition`) that changes nothing.

mod background;
mod predicates;
mod state;
mod templates;
mod tools;
pub mod world;

pub use background::{Background, MAX_ENTITIES};
pub use predicates::Atom;
pub use state::{Entity, GRAPH, Memory, Relation, Seed};

use mcpbench_sim::{Capacity, Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Memory {
    const NAME: &'static str = "memory";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Memory::from_seed(seed)
    }
    fn copy(&self) -> Result<Self, SeedError> {
        Ok(self.clone())
    }
    fn toolbox() -> &'static ToolBox<Self> {
        &tools::TOOLS
    }
    fn holds(&self, atom: &Atom) -> bool {
        atom.holds(self)
    }
    fn snapshot(&self) -> Value {
        Memory::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    fn capacities() -> &'static [Capacity] {
        &[GRAPH]
    }
    fn audit(&self) -> Result<(), String> {
        self.ledger.audit(self.measure())
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}
