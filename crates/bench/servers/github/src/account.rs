//! What the account holds against [`ACCOUNT`], record by record, and the means by which a write
//! finds its exact footprint before it is made.
//!
//! Records are commits, issues (pull requests among them) and comments. Bytes are the compact
//! JSON of what is stored: a commit with its sha (the key it is stored under), parents,
//! message, author, whole tree and sequence number; an issue with every field but its
//! comments, which are records of their own; a comment. Beside the records, each branch (name
//! and sha) and each repository's own fields (names, description, settings, fork origin) count
//! their bytes, with the full name the account keys the repository by: new branches and forks
//! store them. A repository's clock is a fixed-size counter and is not counted.
//!
//! A write builds what it will store first: its commits staged with the shas and sequence
//! numbers they will get ([`Staged`]), an edited issue as a copy ([`Issue::head`]). It admits
//! their growth, then stores exactly that and moves the running total by the same figures.
//!
//! [`ACCOUNT`]: crate::ACCOUNT

use crate::git::{self, Commit, Tree};
use crate::seed::{Permission, State};
use crate::state::{Comment, Github, Issue, Pull, Repo};
use mcpbench_sim::{Ledger, ToolError, Usage};
use serde::Serialize;
use std::collections::BTreeSet;

/// A repository's own fields, everything but its branches, commits, issues and clock.
#[derive(Serialize)]
struct RepoFields<'a> {
    owner: &'a str,
    name: &'a str,
    description: &'a str,
    private: bool,
    default_branch: &'a str,
    permission: Permission,
    collaborators: &'a BTreeSet<String>,
    require_up_to_date: &'a BTreeSet<String>,
    fork_of: &'a Option<String>,
}

/// An issue as one record: every field but its comments.
#[derive(Serialize)]
struct IssueRecord<'a> {
    number: u64,
    title: &'a str,
    body: &'a str,
    state: State,
    state_reason: &'a Option<String>,
    labels: &'a BTreeSet<String>,
    assignees: &'a BTreeSet<String>,
    user: &'a str,
    updated: u64,
    pull: &'a Option<Pull>,
}

/// What an issue or pull request takes, its comments aside.
pub(crate) fn issue(i: &Issue) -> Usage {
    // Every field named, so that a new one cannot be left out of the count unnoticed.
    let Issue {
        number,
        title,
        body,
        state,
        state_reason,
        labels,
        assignees,
        user,
        comments: _,
        updated,
        pull,
    } = i;
    Usage::of(
        1,
        &IssueRecord {
            number: *number,
            title,
            body,
            state: *state,
            state_reason,
            labels,
            assignees,
            user,
            updated: *updated,
            pull,
        },
    )
}

/// What a comment takes.
pub(crate) fn comment(c: &Comment) -> Usage {
    Usage::of(1, c)
}

/// What a commit takes, with the sha it is stored under.
pub(crate) fn commit(sha: &str, c: &Commit) -> Usage {
    Usage::of(1, &(sha, c))
}

/// What a branch takes: its name and the sha it points at.
pub(crate) fn branch(name: &str, sha: &str) -> Usage {
    Usage::of(0, &(name, sha))
}

fn sum(parts: impl Iterator<Item = Usage>) -> Usage {
    parts.fold(Usage::default(), |a, b| a + b)
}

impl Issue {
    /// A copy without the comments: what an edit of the issue's own fields is built on (its
    /// footprint is the issue's, which leaves comments out).
    pub(crate) fn head(&self) -> Issue {
        Issue {
            comments: Vec::new(),
            title: self.title.clone(),
            body: self.body.clone(),
            state_reason: self.state_reason.clone(),
            labels: self.labels.clone(),
            assignees: self.assignees.clone(),
            user: self.user.clone(),
            pull: self.pull.clone(),
            ..*self
        }
    }
}

impl Repo {
    /// What the repository holds, measured from scratch, with the full name it is kept under.
    pub(crate) fn measure(&self) -> Usage {
        let Repo {
            owner,
            name,
            description,
            private,
            default_branch,
            permission,
            collaborators,
            require_up_to_date,
            fork_of,
            branches: _,
            commits: _,
            issues,
            clock: _,
        } = self;
        let fields = RepoFields {
            owner,
            name,
            description,
            private: *private,
            default_branch,
            permission: *permission,
            collaborators,
            require_up_to_date,
            fork_of,
        };
        let issues = issues
            .values()
            .map(|i| issue(i) + sum(i.comments.iter().map(comment)));
        Usage::of(0, &self.full_name()) + Usage::of(0, &fields) + self.history() + sum(issues)
    }

    /// What its commits and branches hold: what a fork copies.
    pub(crate) fn history(&self) -> Usage {
        let branches = self.branches.iter().map(|(n, s)| branch(n, s));
        let commits = self.commits.iter().map(|(s, c)| commit(s, c));
        sum(branches) + sum(commits)
    }

    /// Stages a commit after those already in `staged`, with the sequence number storing it
    /// will give it; answers its sha.
    pub(crate) fn stage(
        &self,
        staged: &mut Staged,
        parents: Vec<String>,
        message: &str,
        author: &str,
        tree: Tree,
    ) -> String {
        let sha = git::commit_sha(&parents, message, author, &tree);
        let seq = self.clock + staged.len() + 1;
        let commit = Commit {
            parents,
            message: message.into(),
            author: author.into(),
            tree,
            seq,
        };
        staged.0.push((sha.clone(), commit));
        sha
    }

    /// What storing `staged` adds: a commit already stored (the same change made twice on the
    /// same parent has the same sha) is kept once, and adds nothing.
    pub(crate) fn adds(&self, staged: &Staged) -> Usage {
        let mut seen = BTreeSet::new();
        let new = staged
            .0
            .iter()
            .filter(|(sha, _)| !self.commits.contains_key(sha) && seen.insert(sha));
        sum(new.map(|(sha, c)| commit(sha, c)))
    }

    /// Stores the staged commits, each taking its tick of the clock.
    pub(crate) fn store(&mut self, staged: Staged) {
        for (sha, c) in staged.0 {
            self.tick();
            self.commits.entry(sha).or_insert(c);
        }
    }

    /// Stores the staged commits and points branch `name` at `tip`, if the account has room
    /// for what that adds together with `also`: the (before, after) of the records the caller
    /// changes right after, counted here with the rest. A refusal changes nothing.
    pub(crate) fn land(
        &mut self,
        ledger: &mut Ledger,
        staged: Staged,
        name: &str,
        tip: &str,
        also: (Usage, Usage),
    ) -> Result<(), ToolError> {
        let was = self
            .branches
            .get(name)
            .map_or(Usage::default(), |old| branch(name, old));
        let before = was + also.0;
        let after = self.adds(&staged) + branch(name, tip) + also.1;
        ledger.admit_change(before, after)?;
        self.store(staged);
        self.branches.insert(name.to_string(), tip.to_string());
        ledger.change(before, after);
        Ok(())
    }
}

/// Commits a write will make, built in full before any is stored.
#[derive(Default)]
pub(crate) struct Staged(Vec<(String, Commit)>);

impl Staged {
    /// How many commits, each of which takes a tick of the clock when stored.
    pub(crate) fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

impl Github {
    /// What the run's repositories hold together, measured from scratch.
    pub(crate) fn measure(&self) -> Usage {
        sum(self.repos.values().map(Repo::measure))
    }

    /// A repository and the account's ledger, to change both.
    pub(crate) fn parts(
        &mut self,
        owner: &str,
        repo: &str,
    ) -> Result<(&mut Repo, &mut Ledger), ToolError> {
        let r = self
            .repos
            .get_mut(&format!("{owner}/{repo}"))
            .ok_or_else(|| ToolError::not_found(format!("repository {owner}/{repo} not found")))?;
        Ok((r, &mut self.ledger))
    }
}
