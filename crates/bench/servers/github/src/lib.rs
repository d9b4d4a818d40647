//! `github`: repositories, branches, commits, issues and pull requests behind the tool surface
//! of the reference GitHub MCP server (`get_file_contents`, `create_or_update_file`,
//! `push_files`, `create_issue`, `merge_pull_request`, ...).
//!
//! Rules of the model:
//! - A repository holds commits (each a full file tree with parents and a message) and
//!   branches pointing at them. Shas are derived from content, so the same calls give the same
//!   shas. Every file change is a commit on an existing branch.
//! - Issues and pull requests share one sequence of numbers per repository; a new one gets the
//!   highest number so far plus one. Labels and assignees given to a tool replace the old ones.
//! - A pull request merges `head` into `base` (branches of one repository). It conflicts when
//!   a file changed on both sides since their merge base with different results; merging it
//!   then fails with `failed_precondition`. On a base listed in `require_up_to_date` it must
//!   first be updated (`update_pull_request_branch`). Merging applies the head's changes to
//!   the base by merge commit, squash or rebase, and on the default branch closes the issues
//!   its description names with a closing keyword (`Fixes #12`).
//! - The user acts with the repository's `permission`: with `read` they may open issues and
//!   pull requests and comment, but pushes, merges and issue edits answer
//!   `permission_denied`; forking gives them a copy they administer.
//! - Lists are sorted deterministically and paginated (`page`, `per_page`/`perPage`, 30 a
//!   page by default).
//! - A seed may carry a `background`: the account's history beside the task, issues and
//!   merged pull requests of people of their own on the numbers around the task's records, and
//!   repositories of the user's own, expanded when the account is built (`background/`).
//! - A run's repositories hold at most [`ACCOUNT`] together, every commit counting its whole
//!   tree: past it a push, fork, merge, new branch, issue, edit or comment is a tool error
//!   (`failed_precondition`) that changes nothing. What they hold is kept as a running total,
//!   moved by each write's exact footprint (`account`).

mod account;
mod background;
mod fixtures;
mod git;
mod predicates;
mod seed;
mod state;
mod templates;
mod tools;

pub use background::{Background, MAX_ISSUES, MAX_REPOS};
pub use fixtures::{base_repo, sample_repo, sample_seed};
pub use predicates::{Atom, PrState};
pub use seed::{
    BranchSeed, CommentSeed, CommitSeed, DEFAULT_USER, IssueSeed, Permission, PullSeed, RepoSeed,
    Seed, State,
};
pub use state::{ACCOUNT, Github, MergeMethod};

use mcpbench_sim::{Capacity, Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Github {
    const NAME: &'static str = "github";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Github::from_seed(seed)
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
        Github::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    fn capacities() -> &'static [Capacity] {
        &[ACCOUNT]
    }
    fn audit(&self) -> Result<(), String> {
        self.ledger.audit(self.measure())
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}
