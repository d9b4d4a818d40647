//! `filesystem`: an in-memory directory tree behind the tool surface of the reference
//! filesystem MCP server (`read_text_file`, `write_file`, `edit_file`, `move_file`, ...).
//!
//! Paths are absolute and normalised; the whole tree is allowed except the prefixes a task
//! seeds as read-only, which answer `permission_denied` to writes. Directory listings are
//! sorted by name, so every answer is deterministic. A run's files hold at most [`FILES`]: past
//! it a write, edit, new directory or move to a longer path is a tool error that changes
//! nothing, and `read_multiple_files` shows at most that many bytes in one answer. What the
//! tree holds is kept as a running total, moved by each write's exact size.
//!
//! A seed may carry a `background`: a lived-in home directory and a few services beside the
//! task's own files, under the same roots, expanded when the filesystem is built
//! (`background/`). Listings, searches and trees are not paged, as in the reference server
//! (which pages none of them): the background keeps each folder to a few dozen entries, and
//! `directory_tree` and `search_files` take `excludePatterns` to leave whole subtrees out.

mod background;
mod predicates;
mod state;
mod templates;
mod tools;

pub use background::Background;
pub use predicates::Atom;
pub use state::{FILES, Filesystem, Seed};

use mcpbench_sim::{Capacity, Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Filesystem {
    const NAME: &'static str = "filesystem";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Filesystem::from_seed(seed)
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
        Filesystem::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    fn capacities() -> &'static [Capacity] {
        &[FILES]
    }
    fn audit(&self) -> Result<(), String> {
        self.ledger.audit(self.measure())
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}
