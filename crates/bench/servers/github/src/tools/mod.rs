//! The tools, modelled on the reference GitHub MCP server (same names and argument names).
//! Near-duplicates an agent must choose between: `create_or_update_file` (one file) and
//! `push_files` (several files in one commit); `list_issues` (one repository, structured
//! filters) and `search_issues` (GitHub search syntax across repositories); `get_pull_request`
//! (one pull request with its mergeability) and `list_pull_requests` (summaries only).

mod issues;
mod pulls;
mod repos;

use crate::state::{Github, Issue, Repo};
use mcpbench_sim::{Tool, ToolBox, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::LazyLock;

pub(crate) type Out = Result<Value, ToolError>;

/// Declares an argument struct whose first fields are `owner` and `repo`.
macro_rules! repo_args {
    ($(#[$m:meta])* struct $name:ident { $($body:tt)* }) => {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        $(#[$m])*
        pub(crate) struct $name {
            /// Repository owner: a user or organization login.
            #[schemars(length(min = 1, max = 39), pattern(r"^[A-Za-z0-9-]+$"))]
            owner: String,
            /// Repository name, without the owner.
            #[schemars(length(min = 1, max = 100), pattern(r"^[A-Za-z0-9._-]+$"))]
            repo: String,
            $($body)*
        }
    };
}
pub(crate) use repo_args;

/// Sort direction.
#[derive(Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Direction {
    Asc,
    Desc,
}

/// Which issues or pull requests to include.
#[derive(Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum StateFilter {
    Open,
    Closed,
    All,
}

impl StateFilter {
    pub(crate) fn admits(self, state: crate::seed::State) -> bool {
        match self {
            StateFilter::All => true,
            StateFilter::Open => state == crate::seed::State::Open,
            StateFilter::Closed => state == crate::seed::State::Closed,
        }
    }
}

/// Page `page` (from 1) of `per_page` items (default 30).
pub(crate) fn paginate<T>(items: Vec<T>, page: Option<u32>, per_page: Option<u32>) -> Vec<T> {
    let per = per_page.unwrap_or(30).max(1) as usize;
    let skip = (page.unwrap_or(1).max(1) as usize - 1) * per;
    items.into_iter().skip(skip).take(per).collect()
}

/// An issue (or a pull request seen as an issue) as the issues endpoints show it.
pub(crate) fn issue_json(repo: &Repo, i: &Issue) -> Value {
    let mut v = json!({
        "number": i.number,
        "title": i.title,
        "body": i.body,
        "state": i.state.as_str(),
        "state_reason": i.state_reason,
        "labels": i.labels,
        "assignees": i.assignees,
        "user": i.user,
        "comments": i.comments.len(),
        "html_url": repo.html_url(if i.pull.is_some() { "pull" } else { "issues" }, i.number),
    });
    if i.pull.is_some() {
        v["pull_request"] = json!({ "html_url": repo.html_url("pull", i.number) });
    }
    v
}

/// A short summary of a repository.
pub(crate) fn repo_json(r: &Repo) -> Value {
    json!({
        "full_name": r.full_name(),
        "owner": r.owner,
        "name": r.name,
        "description": r.description,
        "private": r.private,
        "fork": r.fork_of.is_some(),
        "parent": r.fork_of,
        "default_branch": r.default_branch,
        "html_url": format!("https://github.com/{}", r.full_name()),
    })
}

pub(crate) static TOOLS: LazyLock<ToolBox<Github>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "search_repositories",
            "Search for GitHub repositories. The query matches words in the name and description; qualifiers user:LOGIN or org:LOGIN restrict the owner.",
            repos::search_repositories,
        ),
        Tool::write(
            "fork_repository",
            "Fork a repository into your own account, or into an organization if given. The fork gets all branches and commits; you have admin access to it. A run's GitHub account holds at most 5,000 commits, issues, pull requests and comments and 16 MiB in all.",
            repos::fork_repository,
        ),
        Tool::read(
            "get_file_contents",
            "Get the contents of a file, or the listing of a directory, from a branch of a repository (default: the default branch). Use path \"\" for the root.",
            repos::get_file_contents,
        ),
        Tool::write(
            "create_or_update_file",
            "Create or update one file on a branch, as one commit with the given message. To update an existing file you may pass its current blob sha; a stale sha is refused. A run's GitHub account holds at most 5,000 commits, issues, pull requests and comments and 16 MiB in all.",
            repos::create_or_update_file,
        ),
        Tool::write(
            "push_files",
            "Commit several files to a branch in a single commit with one message. Each file is created or overwritten. A run's GitHub account holds at most 5,000 commits, issues, pull requests and comments and 16 MiB in all.",
            repos::push_files,
        ),
        Tool::write(
            "delete_file",
            "Delete one file from a branch, as one commit with the given message.",
            repos::delete_file,
        ),
        Tool::write(
            "create_branch",
            "Create a new branch pointing at the current tip of from_branch (default: the repository's default branch).",
            repos::create_branch,
        ),
        Tool::read(
            "list_branches",
            "List the branches of a repository with the sha each points at and whether it is protected.",
            repos::list_branches,
        ),
        Tool::read(
            "list_commits",
            "List the commits reachable from a branch or commit sha (default: the default branch), newest first.",
            repos::list_commits,
        ),
        Tool::write(
            "create_issue",
            "Open a new issue in a repository, optionally with labels and assignees (assignees must be the owner or collaborators). A run's GitHub account holds at most 5,000 commits, issues, pull requests and comments and 16 MiB in all.",
            issues::create_issue,
        ),
        Tool::read(
            "get_issue",
            "Get one issue by number: title, body, state, labels, assignees and comment count.",
            issues::get_issue,
        ),
        Tool::read(
            "list_issues",
            "List the issues of one repository (pull requests excluded), filtered by state (default open) and by labels (an issue must have all of them).",
            issues::list_issues,
        ),
        Tool::write(
            "update_issue",
            "Change an issue's title, body, state, labels or assignees. Labels and assignees, when given, replace the current ones entirely.",
            issues::update_issue,
        ),
        Tool::write(
            "add_issue_comment",
            "Add a comment to an issue or a pull request. A run's GitHub account holds at most 5,000 commits, issues, pull requests and comments and 16 MiB in all.",
            issues::add_issue_comment,
        ),
        Tool::read(
            "get_issue_comments",
            "List the comments of an issue or pull request, oldest first.",
            issues::get_issue_comments,
        ),
        Tool::read(
            "search_issues",
            "Search issues and pull requests across repositories with GitHub search syntax: words match title or body; qualifiers repo:OWNER/NAME, is:issue, is:pr, is:open, is:closed, is:merged, state:, label:, author:, assignee:, no:label, no:assignee.",
            issues::search_issues,
        ),
        Tool::write(
            "create_pull_request",
            "Open a pull request asking to merge head into base (both branches of the repository). A run's GitHub account holds at most 5,000 commits, issues, pull requests and comments and 16 MiB in all.",
            pulls::create_pull_request,
        ),
        Tool::read(
            "get_pull_request",
            "Get one pull request by number, including whether it can be merged (mergeable, mergeable_state: clean, dirty = conflicts, behind = must be updated first, draft).",
            pulls::get_pull_request,
        ),
        Tool::read(
            "list_pull_requests",
            "List pull requests of a repository (default: open), optionally filtered by head or base branch. Summaries only, without mergeability.",
            pulls::list_pull_requests,
        ),
        Tool::read(
            "get_pull_request_files",
            "List the files a pull request changes, each added, modified or removed.",
            pulls::get_pull_request_files,
        ),
        Tool::write(
            "update_pull_request_branch",
            "Bring a pull request's head branch up to date by merging the base branch into it. Fails on conflicts.",
            pulls::update_pull_request_branch,
        ),
        Tool::write(
            "merge_pull_request",
            "Merge an open pull request with merge_method merge (default), squash or rebase. Fails when it has conflicts, is a draft, or must first be updated with its base. A run's GitHub account holds at most 5,000 commits, issues, pull requests and comments and 16 MiB in all.",
            pulls::merge_pull_request,
        ),
    ])
});
