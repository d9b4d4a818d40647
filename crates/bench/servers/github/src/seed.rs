//! `initial_state.github`: the repositories a task starts from, written compactly.

use crate::background::Background;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `initial_state.github`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// Login of the authenticated user the agent acts as (author of its commits, issues and
    /// comments; owner of its forks).
    #[serde(default = "default_user")]
    pub user: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repos: Vec<RepoSeed>,
    /// The account's history beside the task: issues and merged pull requests in these
    /// repositories on the numbers their own leave free, and repositories of the user's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

impl Default for Seed {
    fn default() -> Self {
        Self {
            user: default_user(),
            repos: Vec::new(),
            background: None,
        }
    }
}

/// The default login of the authenticated user.
pub const DEFAULT_USER: &str = "octocat";

fn default_user() -> String {
    DEFAULT_USER.into()
}

fn default_branch() -> String {
    "main".into()
}

fn is_main(s: &String) -> bool {
    s == "main"
}

fn is_false(b: &bool) -> bool {
    !b
}

/// What the authenticated user may do in a repository.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Permission {
    /// Read, open issues and pull requests, comment; no pushes, merges or issue edits.
    Read,
    /// Everything but administration.
    #[default]
    Write,
    Admin,
}

impl Permission {
    fn is_write(&self) -> bool {
        *self == Permission::Write
    }
}

/// Open or closed, for issues and pull requests in a seed.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum State {
    #[default]
    Open,
    Closed,
}

impl State {
    fn is_open(&self) -> bool {
        *self == State::Open
    }
    pub fn as_str(self) -> &'static str {
        match self {
            State::Open => "open",
            State::Closed => "closed",
        }
    }
}

/// One repository.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoSeed {
    pub owner: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub private: bool,
    #[serde(default = "default_branch", skip_serializing_if = "is_main")]
    pub default_branch: String,
    /// The authenticated user's access (default write).
    #[serde(default, skip_serializing_if = "Permission::is_write")]
    pub permission: Permission,
    /// Logins that may be assigned to issues besides the owner.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collaborators: Vec<String>,
    /// Protected branches whose pull requests must be up to date with them before merging.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub require_up_to_date: Vec<String>,
    /// Files of the initial commit on the default branch, path -> content.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Commits after the initial one, applied in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commits: Vec<CommitSeed>,
    /// Branches created after all commits, at the tip of `from`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<BranchSeed>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<IssueSeed>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pull_requests: Vec<PullSeed>,
}

impl RepoSeed {
    /// A repository with an initial commit of `files` on `main` and nothing else.
    pub fn new(owner: &str, name: &str, files: &[(&str, &str)]) -> Self {
        Self {
            owner: owner.into(),
            name: name.into(),
            description: String::new(),
            private: false,
            default_branch: default_branch(),
            permission: Permission::Write,
            collaborators: Vec::new(),
            require_up_to_date: Vec::new(),
            files: files
                .iter()
                .map(|(p, c)| (p.to_string(), c.to_string()))
                .collect(),
            commits: Vec::new(),
            branches: Vec::new(),
            issues: Vec::new(),
            pull_requests: Vec::new(),
        }
    }

    /// `owner/name`.
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

/// A commit on `branch`; a branch that does not exist yet is first created at the tip of
/// `from` (default: the default branch).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitSeed {
    pub branch: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub message: String,
    /// Files written, path -> new content.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
    /// Paths removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delete: Vec<String>,
    /// Login of the author (default: the repository owner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

impl CommitSeed {
    pub fn new(branch: &str, message: &str, files: &[(&str, &str)]) -> Self {
        Self {
            branch: branch.into(),
            from: None,
            message: message.into(),
            files: files
                .iter()
                .map(|(p, c)| (p.to_string(), c.to_string()))
                .collect(),
            delete: Vec::new(),
            author: None,
        }
    }
}

/// A branch without commits of its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BranchSeed {
    pub name: String,
    /// The branch it starts at (default: the default branch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// A comment in a seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentSeed {
    pub user: String,
    pub body: String,
}

/// An issue. Issues and pull requests share one sequence of numbers per repository.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IssueSeed {
    #[schemars(range(min = 1))]
    pub number: u64,
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub body: String,
    #[serde(default, skip_serializing_if = "State::is_open")]
    pub state: State,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assignees: Vec<String>,
    /// Login of the author (default: the repository owner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<CommentSeed>,
}

impl IssueSeed {
    pub fn new(number: u64, title: &str, body: &str, labels: &[&str]) -> Self {
        Self {
            number,
            title: title.into(),
            body: body.into(),
            state: State::Open,
            labels: labels.iter().map(|l| l.to_string()).collect(),
            assignees: Vec::new(),
            user: None,
            comments: Vec::new(),
        }
    }
}

/// A pull request from `head` into `base`, both branches of the same repository.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PullSeed {
    #[schemars(range(min = 1))]
    pub number: u64,
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub body: String,
    pub head: String,
    #[serde(default = "default_branch", skip_serializing_if = "is_main")]
    pub base: String,
    #[serde(default, skip_serializing_if = "State::is_open")]
    pub state: State,
    #[serde(default, skip_serializing_if = "is_false")]
    pub draft: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Login of the author (default: the repository owner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

impl PullSeed {
    pub fn new(number: u64, title: &str, head: &str, base: &str) -> Self {
        Self {
            number,
            title: title.into(),
            body: String::new(),
            head: head.into(),
            base: base.into(),
            state: State::Open,
            draft: false,
            labels: Vec::new(),
            user: None,
        }
    }
}
