//! `github.*` predicate atoms, evaluated on the final state.

use crate::seed::State;
use crate::state::{Github, Issue, MergeMethod, Repo};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The state of a pull request as a predicate sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PrState {
    Open,
    /// Closed without merging.
    Closed,
    Merged,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// The repository `owner/repo` exists (for example, a fork).
    #[serde(rename = "github.repoExists")]
    RepoExists { owner: String, repo: String },
    /// The branch exists.
    #[serde(rename = "github.branchExists")]
    BranchExists {
        owner: String,
        repo: String,
        branch: String,
    },
    /// The branch points at exactly the commit `sha`.
    #[serde(rename = "github.branchHead")]
    BranchHead {
        owner: String,
        repo: String,
        branch: String,
        sha: String,
    },
    /// The file exists on the branch.
    #[serde(rename = "github.fileExists")]
    FileExists {
        owner: String,
        repo: String,
        branch: String,
        path: String,
    },
    /// The file exists on the branch and contains `text`.
    #[serde(rename = "github.fileContains")]
    FileContains {
        owner: String,
        repo: String,
        branch: String,
        path: String,
        text: String,
    },
    /// The file exists on the branch and its content is exactly `content`.
    #[serde(rename = "github.fileEquals")]
    FileEquals {
        owner: String,
        repo: String,
        branch: String,
        path: String,
        content: String,
    },
    /// A commit reachable from the branch has this message (whole, or as its first line).
    #[serde(rename = "github.commitExists")]
    CommitExists {
        owner: String,
        repo: String,
        branch: String,
        message: String,
    },
    /// Exactly `count` commits reachable from the branch have this message (whole, or as its
    /// first line): a guard against a change committed twice.
    #[serde(rename = "github.commitCount")]
    CommitCount {
        owner: String,
        repo: String,
        branch: String,
        message: String,
        count: u32,
    },
    /// An issue (not a pull request) has exactly this title and every other field given:
    /// exact body, exact label set, exact assignee set, state.
    #[serde(rename = "github.issueExists")]
    IssueExists {
        owner: String,
        repo: String,
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        labels: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assignees: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<State>,
    },
    /// Issue (or pull request) `number` is in `state`.
    #[serde(rename = "github.issueState")]
    IssueState {
        owner: String,
        repo: String,
        number: u64,
        state: State,
    },
    /// Issue (or pull request) `number` carries the label.
    #[serde(rename = "github.issueHasLabel")]
    IssueHasLabel {
        owner: String,
        repo: String,
        number: u64,
        label: String,
    },
    /// A comment on issue (or pull request) `number` contains `text`.
    #[serde(rename = "github.issueCommentContains")]
    IssueCommentContains {
        owner: String,
        repo: String,
        number: u64,
        text: String,
    },
    /// A pull request from `head` into `base` exists with every field given: exact title,
    /// exact body, state, and (implying it is merged) the merge method.
    #[serde(rename = "github.prExists")]
    PrExists {
        owner: String,
        repo: String,
        head: String,
        base: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<PrState>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<MergeMethod>,
    },
    /// Pull request `number` is merged, with `method` if given.
    #[serde(rename = "github.prMerged")]
    PrMerged {
        owner: String,
        repo: String,
        number: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<MergeMethod>,
    },
    /// The repository holds exactly `count` issues (pull requests aside), counting only those
    /// titled `title` when it is given: a guard against an issue opened twice.
    #[serde(rename = "github.issueCount")]
    IssueCount {
        owner: String,
        repo: String,
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// The repository holds exactly `count` pull requests (open, closed or merged).
    #[serde(rename = "github.prCount")]
    PrCount {
        owner: String,
        repo: String,
        count: u32,
    },
    /// Issue (or pull request) `number` has exactly `count` comments: a guard against a
    /// comment posted twice.
    #[serde(rename = "github.commentCount")]
    CommentCount {
        owner: String,
        repo: String,
        number: u64,
        count: u32,
    },
}

fn pr_state(i: &Issue) -> Option<PrState> {
    let p = i.pull.as_ref()?;
    Some(match (p.merged.is_some(), i.state) {
        (true, _) => PrState::Merged,
        (false, State::Open) => PrState::Open,
        (false, State::Closed) => PrState::Closed,
    })
}

/// The commits reachable from `branch` whose message is `message` (whole, or its first line).
fn commits_with(repo: Option<&Repo>, branch: &str, message: &str) -> usize {
    let Some(r) = repo else { return 0 };
    let Some(tip) = r.branches.get(branch) else {
        return 0;
    };
    (crate::git::ancestors(&r.commits, tip).iter())
        .filter(|sha| {
            let m = &r.commits[*sha].message;
            m == message || m.lines().next() == Some(message)
        })
        .count()
}

fn same_set(have: &BTreeSet<String>, want: &[String]) -> bool {
    *have == want.iter().cloned().collect::<BTreeSet<String>>()
}

impl Atom {
    pub(crate) fn holds(&self, gh: &Github) -> bool {
        let repo = |owner: &str, name: &str| -> Option<&Repo> { gh.repo(owner, name).ok() };
        let file = |owner: &str, name: &str, branch: &str, path: &str| -> Option<String> {
            let r = repo(owner, name)?;
            r.branch_tree(branch).ok()?.get(path).cloned()
        };
        let issue = |owner: &str, name: &str, number: u64| -> Option<&Issue> {
            repo(owner, name)?.issues.get(&number)
        };
        match self {
            Atom::RepoExists { owner, repo: name } => repo(owner, name).is_some(),
            Atom::BranchExists {
                owner,
                repo: name,
                branch,
            } => gh.branch_sha(owner, name, branch).is_some(),
            Atom::BranchHead {
                owner,
                repo: name,
                branch,
                sha,
            } => gh.branch_sha(owner, name, branch).as_ref() == Some(sha),
            Atom::FileExists {
                owner,
                repo: name,
                branch,
                path,
            } => file(owner, name, branch, path).is_some(),
            Atom::FileContains {
                owner,
                repo: name,
                branch,
                path,
                text,
            } => file(owner, name, branch, path).is_some_and(|c| c.contains(text.as_str())),
            Atom::FileEquals {
                owner,
                repo: name,
                branch,
                path,
                content,
            } => file(owner, name, branch, path).as_ref() == Some(content),
            Atom::CommitExists {
                owner,
                repo: name,
                branch,
                message,
            } => commits_with(repo(owner, name), branch, message) > 0,
            Atom::CommitCount {
                owner,
                repo: name,
                branch,
                message,
                count,
            } => commits_with(repo(owner, name), branch, message) == *count as usize,
            Atom::IssueExists {
                owner,
                repo: name,
                title,
                body,
                labels,
                assignees,
                state,
            } => repo(owner, name).is_some_and(|r| {
                r.issues.values().any(|i| {
                    i.pull.is_none()
                        && &i.title == title
                        && body.as_ref().is_none_or(|b| &i.body == b)
                        && labels.as_ref().is_none_or(|l| same_set(&i.labels, l))
                        && assignees.as_ref().is_none_or(|a| same_set(&i.assignees, a))
                        && state.is_none_or(|s| i.state == s)
                })
            }),
            Atom::IssueState {
                owner,
                repo: name,
                number,
                state,
            } => issue(owner, name, *number).is_some_and(|i| i.state == *state),
            Atom::IssueHasLabel {
                owner,
                repo: name,
                number,
                label,
            } => issue(owner, name, *number).is_some_and(|i| i.labels.contains(label)),
            Atom::IssueCommentContains {
                owner,
                repo: name,
                number,
                text,
            } => issue(owner, name, *number)
                .is_some_and(|i| i.comments.iter().any(|c| c.body.contains(text.as_str()))),
            Atom::PrExists {
                owner,
                repo: name,
                head,
                base,
                title,
                body,
                state,
                method,
            } => repo(owner, name).is_some_and(|r| {
                r.issues.values().any(|i| {
                    i.pull
                        .as_ref()
                        .is_some_and(|p| &p.head == head && &p.base == base)
                        && method.is_none_or(|want| {
                            i.pull
                                .as_ref()
                                .and_then(|p| p.merged.as_ref())
                                .is_some_and(|m| m.method == want)
                        })
                        && title.as_ref().is_none_or(|t| &i.title == t)
                        && body.as_ref().is_none_or(|b| &i.body == b)
                        && state.is_none_or(|s| pr_state(i) == Some(s))
                })
            }),
            Atom::PrMerged {
                owner,
                repo: name,
                number,
                method,
            } => issue(owner, name, *number)
                .and_then(|i| i.pull.as_ref()?.merged.as_ref())
                .is_some_and(|m| method.is_none_or(|want| m.method == want)),
            Atom::IssueCount {
                owner,
                repo: name,
                count,
                title,
            } => repo(owner, name).is_some_and(|r| {
                let n = (r.issues.values())
                    .filter(|i| i.pull.is_none() && title.as_ref().is_none_or(|t| &i.title == t))
                    .count();
                n == *count as usize
            }),
            Atom::PrCount {
                owner,
                repo: name,
                count,
            } => repo(owner, name).is_some_and(|r| {
                r.issues.values().filter(|i| i.pull.is_some()).count() == *count as usize
            }),
            Atom::CommentCount {
                owner,
                repo: name,
                number,
                count,
            } => issue(owner, name, *number).is_some_and(|i| i.comments.len() == *count as usize),
        }
    }
}
