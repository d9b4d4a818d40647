//! `tracker`: an issue tracker behind the tool surface of the Linear and Jira MCP servers
//! (`search_issues`, `get_issue`, `create_issue`, `update_issue`, `transition_issue`, ...).
//!
//! Projects have upper-case keys and number their issues (`ENG-12`, the next one after the
//! highest). Issues carry a title, a description, a workflow status, a priority from 0 (none)
//! through 1 (urgent) to 4 (low), an assignee, workspace labels, an estimate, a parent and
//! comments; issues can be linked (blocks, relates to, duplicates).
//!
//! Rules an agent meets:
//! - Statuses change only through `transition_issue`, and only along the workflow:
//!   backlog -> todo | in_progress | canceled; todo -> backlog | in_progress | canceled;
//!   in_progress -> todo | in_review | canceled; in_review -> in_progress | done | canceled;
//!   done -> todo; canceled -> backlog. Anything else is `failed_precondition`, naming the
//!   allowed moves. `update_issue` has no status field.
//! - Projects the acting user may only read answer writes with `permission_denied`.
//! - Labels must exist (`not_found` lists them; `create_label` adds one); deactivated users
//!   cannot be assigned (`failed_precondition`).
//! - Every list is sorted (issues by project key, then number), so answers are deterministic;
//!   `search_issues` returns a page at a time (`limit`, default 50) and, while more follow,
//!   `pageInfo.endCursor`, which `after` takes to continue (refused by a search with other
//!   filters).
//! - A seed may carry a `background`: a backlog of its own people's issues beside the task's,
//!   expanded when the tracker is built (`background.rs`).
//! - A run's tracker holds at most [`TRACKER`]: past it, a new issue, comment, label or link,
//!   or a longer issue, is a tool error (`failed_precondition`) that changes nothing.

mod background;
mod predicates;
mod state;
mod templates;
mod tools;

pub use background::Background;
pub use predicates::Atom;
pub use state::{
    Comment, Issue, Label, Link, LinkType, PRIORITY_NAMES, Project, Relation, Seed, Status,
    TRACKER, Tracker, User,
};
pub use templates::sample_seed;

use mcpbench_sim::{Capacity, Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Tracker {
    const NAME: &'static str = "tracker";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Tracker::from_seed(seed)
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
        Tracker::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    fn capacities() -> &'static [Capacity] {
        &[TRACKER]
    }
    fn audit(&self) -> Result<(), String> {
        self.ledger.audit(self.measure())
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}
