//! The live state: repositories with commits and branches, issues and pull requests (one
//! numbered record each, as on GitHub, a pull request being an issue with a `pull` part).

use crate::account::Staged;
use crate::git::{self, Commit, Tree};
use crate::seed::{Permission, RepoSeed, Seed, State};
use mcpbench_sim::{Capacity, Ledger, SeedError, ToolError, Usage};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// How a pull request is merged: `merge` (a merge commit with two parents), `squash` (one
/// new commit holding all the changes) or `rebase` (each commit of the head branch replayed
/// onto the base branch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MergeMethod {
    Merge,
    Squash,
    Rebase,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Comment {
    pub id: u64,
    pub user: String,
    pub body: String,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Merged {
    pub method: MergeMethod,
    pub sha: String,
    pub by: String,
    /// The files the pull request changed: (path, added/modified/removed).
    pub files: Vec<(String, String)>,
}

/// The pull-request part of an issue record.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Pull {
    pub head: String,
    pub base: String,
    pub draft: bool,
    pub maintainer_can_modify: bool,
    pub merged: Option<Merged>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Issue {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub state: State,
    pub state_reason: Option<String>,
    pub labels: BTreeSet<String>,
    pub assignees: BTreeSet<String>,
    pub user: String,
    pub comments: Vec<Comment>,
    /// Clock value of the last change, for sorting by `updated`.
    pub updated: u64,
    pub pull: Option<Pull>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Repo {
    pub owner: String,
    pub name: String,
    pub description: String,
    pub private: bool,
    pub default_branch: String,
    pub permission: Permission,
    pub collaborators: BTreeSet<String>,
    pub require_up_to_date: BTreeSet<String>,
    pub fork_of: Option<String>,
    pub branches: BTreeMap<String, String>,
    pub commits: BTreeMap<String, Commit>,
    pub issues: BTreeMap<u64, Issue>,
    /// Counter behind commit order, comment ids and update order.
    pub clock: u64,
}

/// What merging a pull request would do, computed from the branches as they are now.
pub(crate) struct PrStatus {
    pub head_sha: String,
    pub base_sha: String,
    /// Commits on head that base lacks, oldest first.
    pub ahead: Vec<String>,
    /// How many commits base has that head lacks.
    pub behind: usize,
    pub merge_base: Option<String>,
    /// The merged tree, or the conflicting paths.
    pub merged: Result<Tree, Vec<String>>,
}

/// The simulated server.
#[derive(Clone, Debug)]
pub struct Github {
    pub(crate) user: String,
    pub(crate) repos: BTreeMap<String, Repo>,
    /// What the repositories hold, against [`ACCOUNT`]: measured when built, then moved by
    /// each write ([`crate::account`]).
    pub(crate) ledger: Ledger,
}

pub(crate) fn check_login(login: &str) -> Result<(), String> {
    let ok = !login.is_empty()
        && login.len() <= 39
        && !login.starts_with('-')
        && !login.ends_with('-')
        && login.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!("{login:?} is not a valid GitHub login"))
    }
}

pub(crate) fn check_repo_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!("{name:?} is not a valid repository name"))
    }
}

/// What a run's repositories hold at most. Every commit keeps its whole tree, so file content
/// counts once for each commit holding it (without this, a hundred pushes of a megabyte would
/// keep gigabytes of snapshots) and again in a fork; commits, issues, pull requests and
/// comments count as stored, in compact JSON, and branches and a fork's own fields count their
/// bytes too ([`crate::account`]). Seeds hold a few kilobytes.
pub const ACCOUNT: Capacity = Capacity {
    store: "GitHub account",
    records: 5_000,
    noun: "commits, issues, pull requests and comments",
    bytes: 16 << 20,
};

impl Repo {
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }

    pub fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    pub fn tip(&self, branch: &str) -> Result<&String, ToolError> {
        self.branches.get(branch).ok_or_else(|| {
            ToolError::not_found(format!("branch {branch} not found in {}", self.full_name()))
        })
    }

    pub fn tree(&self, sha: &str) -> &Tree {
        &self.commits[sha].tree
    }

    pub fn branch_tree(&self, branch: &str) -> Result<&Tree, ToolError> {
        Ok(self.tree(self.tip(branch)?))
    }

    /// Records a commit and returns its sha (building a seed, before the ledger counts).
    pub fn commit(
        &mut self,
        parents: Vec<String>,
        message: &str,
        author: &str,
        tree: Tree,
    ) -> String {
        let mut staged = Staged::default();
        let sha = self.stage(&mut staged, parents, message, author, tree);
        self.store(staged);
        sha
    }

    /// Commits `tree` on top of `branch` and moves the branch.
    pub fn commit_on(
        &mut self,
        branch: &str,
        message: &str,
        author: &str,
        tree: Tree,
    ) -> Result<String, ToolError> {
        let parent = self.tip(branch)?.clone();
        let sha = self.commit(vec![parent], message, author, tree);
        self.branches.insert(branch.to_string(), sha.clone());
        Ok(sha)
    }

    /// Refuses changes when the user has read access only.
    pub fn writable(&self) -> Result<(), ToolError> {
        match self.permission {
            Permission::Read => Err(ToolError::denied(format!(
                "you have read access only to {}; pushing, merging and editing issues need write access",
                self.full_name()
            ))),
            _ => Ok(()),
        }
    }

    pub fn assignable(&self, login: &str) -> bool {
        login == self.owner || self.collaborators.contains(login)
    }

    pub fn next_number(&self) -> u64 {
        self.issues.keys().next_back().map_or(1, |n| n + 1)
    }

    pub fn issue(&self, number: u64) -> Result<&Issue, ToolError> {
        self.issues.get(&number).ok_or_else(|| {
            ToolError::not_found(format!("issue #{number} not found in {}", self.full_name()))
        })
    }

    pub fn issue_mut(&mut self, number: u64) -> Result<&mut Issue, ToolError> {
        let name = self.full_name();
        self.issues
            .get_mut(&number)
            .ok_or_else(|| ToolError::not_found(format!("issue #{number} not found in {name}")))
    }

    /// The pull request numbered `number` (an issue of that number is not one).
    pub fn pull(&self, number: u64) -> Result<(&Issue, &Pull), ToolError> {
        match self.issues.get(&number) {
            Some(i) if i.pull.is_some() => Ok((i, i.pull.as_ref().expect("checked"))),
            Some(_) => Err(ToolError::not_found(format!(
                "#{number} in {} is an issue, not a pull request",
                self.full_name()
            ))),
            None => Err(ToolError::not_found(format!(
                "pull request #{number} not found in {}",
                self.full_name()
            ))),
        }
    }

    pub fn status(&self, pull: &Pull) -> Result<PrStatus, ToolError> {
        let head_sha = self.tip(&pull.head)?.clone();
        let base_sha = self.tip(&pull.base)?.clone();
        let head_anc = git::ancestors(&self.commits, &head_sha);
        let base_anc = git::ancestors(&self.commits, &base_sha);
        let mut ahead: Vec<&String> = head_anc.difference(&base_anc).collect();
        ahead.sort_by_key(|s| self.commits[*s].seq);
        let behind = base_anc.difference(&head_anc).count();
        let merge_base = git::merge_base(&self.commits, &head_sha, &base_sha);
        let empty = Tree::new();
        let base_tree = merge_base.as_ref().map_or(&empty, |s| self.tree(s));
        let merged = git::three_way(base_tree, self.tree(&base_sha), self.tree(&head_sha));
        Ok(PrStatus {
            ahead: ahead.into_iter().cloned().collect(),
            behind,
            merge_base,
            merged,
            head_sha,
            base_sha,
        })
    }

    /// `mergeable` and `mergeable_state` as GitHub reports them.
    pub fn mergeability(&self, issue: &Issue) -> (Value, &'static str) {
        let Some(pull) = issue.pull.as_ref().filter(|_| issue.state == State::Open) else {
            return (Value::Null, "unknown");
        };
        let Ok(s) = self.status(pull) else {
            return (Value::Bool(false), "unknown");
        };
        if s.merged.is_err() {
            (Value::Bool(false), "dirty")
        } else if s.ahead.is_empty() {
            (Value::Bool(false), "unknown")
        } else if pull.draft {
            (Value::Bool(true), "draft")
        } else if s.behind > 0 && self.require_up_to_date.contains(&pull.base) {
            (Value::Bool(true), "behind")
        } else {
            (Value::Bool(true), "clean")
        }
    }

    pub fn html_url(&self, kind: &str, number: u64) -> String {
        format!("https://github.com/{}/{kind}/{number}", self.full_name())
    }
}

impl Github {
    pub(crate) fn repo(&self, owner: &str, repo: &str) -> Result<&Repo, ToolError> {
        self.repos
            .get(&format!("{owner}/{repo}"))
            .ok_or_else(|| ToolError::not_found(format!("repository {owner}/{repo} not found")))
    }

    /// The sha a branch points at, if the repository and branch exist.
    pub fn branch_sha(&self, owner: &str, repo: &str, branch: &str) -> Option<String> {
        self.repo(owner, repo).ok()?.branches.get(branch).cloned()
    }

    /// The number the next issue or pull request of a repository gets.
    pub fn next_number(&self, owner: &str, repo: &str) -> Option<u64> {
        self.repo(owner, repo).ok().map(Repo::next_number)
    }

    pub(crate) fn snapshot(&self) -> Value {
        json!({ "user": self.user, "repos": self.repos })
    }

    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("github", m);
        check_login(&seed.user).map_err(bad)?;
        let mut repos = BTreeMap::new();
        for r in &seed.repos {
            let repo = build_repo(r).map_err(|m| bad(format!("{}: {m}", r.full_name())))?;
            if repos.insert(repo.full_name(), repo).is_some() {
                return Err(bad(format!("repository {} appears twice", r.full_name())));
            }
        }
        let mut gh = Github {
            user: seed.user.clone(),
            repos,
            ledger: Ledger::new(ACCOUNT, Usage::default()),
        };
        if let Some(b) = &seed.background {
            crate::background::expand(b, &mut gh).map_err(bad)?;
        }
        gh.ledger = Ledger::new(ACCOUNT, gh.measure());
        Ok(gh)
    }
}

pub(crate) fn build_repo(r: &RepoSeed) -> Result<Repo, String> {
    check_login(&r.owner)?;
    check_repo_name(&r.name)?;
    git::check_branch_name(&r.default_branch)?;
    for c in &r.collaborators {
        check_login(c)?;
    }
    let mut repo = Repo {
        owner: r.owner.clone(),
        name: r.name.clone(),
        description: r.description.clone(),
        private: r.private,
        default_branch: r.default_branch.clone(),
        permission: r.permission,
        collaborators: r.collaborators.iter().cloned().collect(),
        require_up_to_date: BTreeSet::new(),
        fork_of: None,
        branches: BTreeMap::new(),
        commits: BTreeMap::new(),
        issues: BTreeMap::new(),
        clock: 0,
    };
    let mut tree = Tree::new();
    for (path, content) in &r.files {
        git::put(&mut tree, path, content.clone())?;
    }
    let sha = repo.commit(vec![], "Initial commit", &r.owner, tree);
    repo.branches.insert(r.default_branch.clone(), sha);
    for c in &r.commits {
        git::check_branch_name(&c.branch)?;
        if c.message.trim().is_empty() {
            return Err(format!("a commit on {} has an empty message", c.branch));
        }
        match (repo.branches.contains_key(&c.branch), &c.from) {
            (true, Some(_)) => {
                return Err(format!(
                    "commit {:?}: `from` is only for a new branch, and {} exists",
                    c.message, c.branch
                ));
            }
            (true, None) => {}
            (false, from) => {
                let from = from.as_deref().unwrap_or(&r.default_branch);
                let at = repo.tip(from).map_err(|e| e.message)?.clone();
                repo.branches.insert(c.branch.clone(), at);
            }
        }
        let mut tree = repo.branch_tree(&c.branch).map_err(|e| e.message)?.clone();
        for path in &c.delete {
            tree.remove(path).ok_or_else(|| {
                format!(
                    "commit {:?} deletes {path}, which does not exist",
                    c.message
                )
            })?;
        }
        for (path, content) in &c.files {
            git::put(&mut tree, path, content.clone())?;
        }
        let author = c.author.as_deref().unwrap_or(&r.owner);
        check_login(author)?;
        repo.commit_on(&c.branch, &c.message, author, tree)
            .map_err(|e| e.message)?;
    }
    for b in &r.branches {
        git::check_branch_name(&b.name)?;
        if repo.branches.contains_key(&b.name) {
            return Err(format!("branch {} is created twice", b.name));
        }
        let from = b.from.as_deref().unwrap_or(&r.default_branch);
        let at = repo.tip(from).map_err(|e| e.message)?.clone();
        repo.branches.insert(b.name.clone(), at);
    }
    for b in &r.require_up_to_date {
        repo.tip(b).map_err(|e| e.message)?;
        repo.require_up_to_date.insert(b.clone());
    }
    add_issues(&mut repo, r)?;
    Ok(repo)
}

fn add_issues(repo: &mut Repo, r: &RepoSeed) -> Result<(), String> {
    let mut records: Vec<(u64, Issue)> = Vec::new();
    let check_people = |repo: &Repo,
                        user: &Option<String>,
                        assignees: &[String],
                        labels: &[String]|
     -> Result<String, String> {
        let user = user.clone().unwrap_or_else(|| r.owner.clone());
        check_login(&user)?;
        if let Some(a) = assignees.iter().find(|a| !repo.assignable(a)) {
            return Err(format!(
                "{a} cannot be assigned: not the owner or a collaborator"
            ));
        }
        if labels.iter().any(|l| l.trim().is_empty()) {
            return Err("a label is empty".into());
        }
        Ok(user)
    };
    for i in &r.issues {
        let user = check_people(repo, &i.user, &i.assignees, &i.labels)?;
        let mut comments = Vec::new();
        for c in &i.comments {
            check_login(&c.user)?;
            comments.push(Comment {
                id: 0,
                user: c.user.clone(),
                body: c.body.clone(),
            });
        }
        let reason = (i.state == State::Closed).then(|| "completed".to_string());
        records.push((
            i.number,
            issue(
                i.number,
                &i.title,
                &i.body,
                i.state,
                reason,
                &i.labels,
                &i.assignees,
                user,
                comments,
                None,
            ),
        ));
    }
    for p in &r.pull_requests {
        let user = check_people(repo, &p.user, &[], &p.labels)?;
        if p.head == p.base {
            return Err(format!(
                "pull request #{} has the same head and base {}",
                p.number, p.head
            ));
        }
        let pull = Pull {
            head: p.head.clone(),
            base: p.base.clone(),
            draft: p.draft,
            maintainer_can_modify: true,
            merged: None,
        };
        let status = repo
            .status(&pull)
            .map_err(|e| format!("pull request #{}: {}", p.number, e.message))?;
        if p.state == State::Open && status.ahead.is_empty() {
            return Err(format!(
                "pull request #{}: no commits between {} and {}",
                p.number, p.base, p.head
            ));
        }
        let reason = None;
        records.push((
            p.number,
            issue(
                p.number,
                &p.title,
                &p.body,
                p.state,
                reason,
                &p.labels,
                &[],
                user,
                vec![],
                Some(pull),
            ),
        ));
    }
    records.sort_by_key(|(n, _)| *n);
    let mut open_pairs = BTreeSet::new();
    for (number, mut rec) in records {
        if number == 0 || rec.title.trim().is_empty() {
            return Err(format!("#{number} needs a positive number and a title"));
        }
        if let Some(p) = rec.pull.as_ref().filter(|_| rec.state == State::Open)
            && !open_pairs.insert((p.head.clone(), p.base.clone()))
        {
            return Err(format!(
                "two open pull requests from {} into {}",
                p.head, p.base
            ));
        }
        for c in &mut rec.comments {
            c.id = repo.tick();
        }
        rec.updated = repo.tick();
        if repo.issues.insert(number, rec).is_some() {
            return Err(format!(
                "number #{number} is used twice (issues and pull requests share numbers)"
            ));
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn issue(
    number: u64,
    title: &str,
    body: &str,
    state: State,
    state_reason: Option<String>,
    labels: &[String],
    assignees: &[String],
    user: String,
    comments: Vec<Comment>,
    pull: Option<Pull>,
) -> Issue {
    Issue {
        number,
        title: title.into(),
        body: body.into(),
        state,
        state_reason,
        labels: labels.iter().cloned().collect(),
        assignees: assignees.iter().cloned().collect(),
        user,
        comments,
        updated: 0,
        pull,
    }
}
