//! Template grammars for tasks on GitHub alone. Every parameter is drawn from a bounded pool or
//! range, every goal states each concrete value the task needs, and predicates check every
//! value the goal fixes.

mod composition;
mod recovery;
mod single;

use crate::{Atom, Github, MergeMethod, Seed};
use mcpbench_sim::{Category, Difficulty, Pred, Simulated, Template};

pub(crate) fn all() -> Vec<Template<Github>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "github.open_issue",
            category: SingleTool,
            difficulty: Easy,
            build: single::open_issue,
        },
        Template {
            id: "github.create_branch",
            category: SingleTool,
            difficulty: Easy,
            build: single::create_branch,
        },
        Template {
            id: "github.open_pull_request",
            category: SingleTool,
            difficulty: Easy,
            build: single::open_pull_request,
        },
        Template {
            id: "github.update_file",
            category: SingleTool,
            difficulty: Medium,
            build: single::update_file,
        },
        Template {
            id: "github.count_open_bugs",
            category: SingleTool,
            difficulty: Medium,
            build: single::count_open_bugs,
        },
        Template {
            id: "github.close_with_comment",
            category: Composition,
            difficulty: Easy,
            build: composition::close_with_comment,
        },
        Template {
            id: "github.label_issue",
            category: Composition,
            difficulty: Medium,
            build: composition::label_issue,
        },
        Template {
            id: "github.branch_commit_pr",
            category: Composition,
            difficulty: Hard,
            build: composition::branch_commit_pr,
        },
        Template {
            id: "github.merge_mergeable",
            category: Composition,
            difficulty: Hard,
            build: composition::merge_mergeable,
        },
        Template {
            id: "github.fix_and_close",
            category: Composition,
            difficulty: Hard,
            build: composition::fix_and_close,
        },
        Template {
            id: "github.merge_after_outage",
            category: Recovery,
            difficulty: Easy,
            build: recovery::merge_after_outage,
        },
        Template {
            id: "github.fork_fallback",
            category: Recovery,
            difficulty: Medium,
            build: recovery::fork_fallback,
        },
        Template {
            id: "github.commit_to_new_branch",
            category: Recovery,
            difficulty: Medium,
            build: recovery::commit_to_new_branch,
        },
        Template {
            id: "github.update_then_merge",
            category: Recovery,
            difficulty: Hard,
            build: recovery::update_then_merge,
        },
    ]
}

/// Feature topics: (branch slug, pull request title).
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("csv-export", "Add CSV export"),
    ("sso-login", "Support SSO login"),
    ("dark-mode", "Persist the dark mode setting"),
    ("audit-pagination", "Paginate the audit log"),
    ("retry-settings", "Make retries configurable"),
    ("rate-limits", "Tune rate limits"),
    ("health-check", "Add a health check endpoint"),
    ("email-timezones", "Use local time in emails"),
];

/// A repository location from the pools: (owner, name).
fn place(rng: &mut mcpbench_sim::Rng) -> (String, String) {
    use crate::fixtures::{ORGS, REPOS};
    (rng.pick(ORGS).to_string(), rng.pick(REPOS).0.to_string())
}

pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, atom, not};

/// The file holds exactly `content`, with or without one trailing line break.
fn file_is(owner: &str, repo: &str, branch: &str, path: &str, content: &str) -> Pred<Atom> {
    let eq = |c: String| {
        atom(Atom::FileEquals {
            owner: owner.into(),
            repo: repo.into(),
            branch: branch.into(),
            path: path.into(),
            content: c,
        })
    };
    Pred::Any(vec![eq(content.to_string()), eq(format!("{content}\n"))])
}

fn file_exists(owner: &str, repo: &str, branch: &str, path: &str) -> Pred<Atom> {
    atom(Atom::FileExists {
        owner: owner.into(),
        repo: repo.into(),
        branch: branch.into(),
        path: path.into(),
    })
}

fn commit_exists(owner: &str, repo: &str, branch: &str, message: &str) -> Pred<Atom> {
    atom(Atom::CommitExists {
        owner: owner.into(),
        repo: repo.into(),
        branch: branch.into(),
        message: message.into(),
    })
}

/// How a goal asks for a merge method.
fn method_phrase(m: MergeMethod) -> &'static str {
    match m {
        MergeMethod::Merge => "with a merge commit",
        MergeMethod::Squash => "as a squash merge",
        MergeMethod::Rebase => "by rebasing it",
    }
}

fn method_name(m: MergeMethod) -> &'static str {
    match m {
        MergeMethod::Merge => "merge",
        MergeMethod::Squash => "squash",
        MergeMethod::Rebase => "rebase",
    }
}

const METHODS: &[MergeMethod] = &[MergeMethod::Merge, MergeMethod::Squash, MergeMethod::Rebase];

/// The sha a branch of a seeded repository points at.
fn sha_of(seed: &Seed, owner: &str, repo: &str, branch: &str) -> String {
    let gh = <Github as Simulated>::from_seed(seed).expect("templates build valid seeds");
    gh.branch_sha(owner, repo, branch)
        .expect("the branch is seeded")
}
