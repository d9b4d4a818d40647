//! Repository, file, branch and commit tools.

use super::{Out, paginate, repo_args, repo_json};
use crate::account::{self, Staged};
use crate::git::{self, Tree};
use crate::seed::Permission;
use crate::state::{Github, Repo};
use mcpbench_sim::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SearchRepos {
    /// Search words, optionally with user:LOGIN or org:LOGIN.
    #[schemars(length(min = 1, max = 256))]
    query: String,
    /// Page number, from 1.
    #[schemars(range(min = 1, max = 1000))]
    page: Option<u32>,
    /// Results per page (default 30).
    #[schemars(range(min = 1, max = 100))]
    per_page: Option<u32>,
}

repo_args! {
    struct Fork {
        /// Organization to fork into (default: your own account).
        #[schemars(length(min = 1, max = 39), pattern(r"^[A-Za-z0-9-]+$"))]
        organization: Option<String>,
    }
}

repo_args! {
    struct GetContents {
        /// Path of a file or directory; "" for the repository root.
        #[schemars(length(max = 1024))]
        path: String,
        /// Branch to read from (default: the default branch).
        #[schemars(length(min = 1, max = 255))]
        branch: Option<String>,
    }
}

repo_args! {
    struct PutFile {
        /// Path of the file, relative to the repository root (docs/guide.md).
        #[schemars(length(min = 1, max = 1024))]
        path: String,
        /// The complete new content of the file.
        #[schemars(length(max = 1000000))]
        content: String,
        /// Commit message.
        #[schemars(length(min = 1, max = 1000))]
        message: String,
        /// Branch to commit to; it must exist.
        #[schemars(length(min = 1, max = 255))]
        branch: String,
        /// Blob sha of the file being replaced; if given it must match the current file.
        #[schemars(length(min = 40, max = 40))]
        sha: Option<String>,
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileEntry {
    /// Path relative to the repository root.
    #[schemars(length(min = 1, max = 1024))]
    path: String,
    /// The complete content of the file.
    #[schemars(length(max = 1000000))]
    content: String,
}

repo_args! {
    struct PushFiles {
        /// Branch to commit to; it must exist.
        #[schemars(length(min = 1, max = 255))]
        branch: String,
        /// Files to create or overwrite, each path at most once.
        #[schemars(length(min = 1, max = 100))]
        files: Vec<FileEntry>,
        /// Commit message.
        #[schemars(length(min = 1, max = 1000))]
        message: String,
    }
}

repo_args! {
    struct DeleteFile {
        /// Path of the file to delete.
        #[schemars(length(min = 1, max = 1024))]
        path: String,
        /// Commit message.
        #[schemars(length(min = 1, max = 1000))]
        message: String,
        /// Branch to delete it from.
        #[schemars(length(min = 1, max = 255))]
        branch: String,
    }
}

repo_args! {
    struct CreateBranch {
        /// Name of the new branch.
        #[schemars(length(min = 1, max = 255))]
        branch: String,
        /// Branch to start from (default: the default branch).
        #[schemars(length(min = 1, max = 255))]
        from_branch: Option<String>,
    }
}

repo_args! {
    #[serde(rename_all = "camelCase")]
    struct ListBranches {
        /// Page number, from 1.
        #[schemars(range(min = 1, max = 1000))]
        page: Option<u32>,
        /// Results per page (default 30).
        #[schemars(range(min = 1, max = 100))]
        per_page: Option<u32>,
    }
}

repo_args! {
    #[serde(rename_all = "camelCase")]
    struct ListCommits {
        /// Branch name or commit sha to start from (default: the default branch).
        #[schemars(length(min = 1, max = 255))]
        sha: Option<String>,
        /// Page number, from 1.
        #[schemars(range(min = 1, max = 1000))]
        page: Option<u32>,
        /// Results per page (default 30).
        #[schemars(range(min = 1, max = 100))]
        per_page: Option<u32>,
    }
}

pub(crate) fn search_repositories(gh: &Github, a: SearchRepos) -> Out {
    let mut owners = Vec::new();
    let mut words = Vec::new();
    for token in a.query.split_whitespace() {
        match token.split_once(':') {
            Some(("user" | "org" | "owner", login)) => owners.push(login.to_lowercase()),
            _ => words.push(token.to_lowercase()),
        }
    }
    let hits: Vec<Value> = gh
        .repos
        .values()
        .filter(|r| owners.is_empty() || owners.contains(&r.owner.to_lowercase()))
        .filter(|r| {
            let hay = format!("{} {}", r.full_name(), r.description).to_lowercase();
            words.iter().all(|w| hay.contains(w.as_str()))
        })
        .map(repo_json)
        .collect();
    let total = hits.len();
    Ok(
        json!({ "total_count": total, "incomplete_results": false, "items": paginate(hits, a.page, a.per_page) }),
    )
}

pub(crate) fn fork_repository(gh: &mut Github, a: Fork) -> Out {
    let source = gh.repo(&a.owner, &a.repo)?;
    if let Some(org) = a
        .organization
        .as_ref()
        .filter(|o| !gh.repos.values().any(|r| &r.owner == *o))
    {
        return Err(ToolError::not_found(format!(
            "organization {org} not found"
        )));
    }
    let target_owner = a.organization.unwrap_or_else(|| gh.user.clone());
    let full = format!("{target_owner}/{}", source.name);
    if target_owner == source.owner {
        return Err(ToolError::invalid(format!(
            "{full} cannot be forked into its own owner"
        )));
    }
    if gh.repos.contains_key(&full) {
        return Err(ToolError::conflict(format!(
            "a repository named {full} already exists"
        )));
    }
    let mut fork = Repo {
        owner: target_owner,
        name: source.name.clone(),
        description: source.description.clone(),
        private: source.private,
        default_branch: source.default_branch.clone(),
        permission: Permission::Admin,
        collaborators: BTreeSet::new(),
        require_up_to_date: BTreeSet::new(),
        fork_of: Some(source.full_name()),
        branches: BTreeMap::new(),
        commits: BTreeMap::new(),
        issues: BTreeMap::new(),
        clock: source.clock,
    };
    // The fork keeps every commit and branch of its source, trees and all: admitted before
    // they are copied.
    let adding = fork.measure() + source.history();
    gh.ledger.admit(adding)?;
    fork.branches = source.branches.clone();
    fork.commits = source.commits.clone();
    let out = repo_json(&fork);
    gh.repos.insert(full, fork);
    gh.ledger.add(adding);
    Ok(out)
}

pub(crate) fn get_file_contents(gh: &Github, a: GetContents) -> Out {
    let repo = gh.repo(&a.owner, &a.repo)?;
    let branch = a.branch.as_deref().unwrap_or(&repo.default_branch);
    let tree = repo.branch_tree(branch)?;
    let path = a.path.trim_matches('/');
    if let Some(content) = tree.get(path) {
        let name = path.rsplit('/').next().unwrap_or(path);
        return Ok(json!({
            "type": "file", "name": name, "path": path, "sha": git::blob_sha(content),
            "size": content.len(), "encoding": "utf-8", "content": content,
        }));
    }
    if !path.is_empty() && !git::is_dir(tree, path) {
        return Err(ToolError::not_found(format!(
            "{path} not found on branch {branch} of {}",
            repo.full_name()
        )));
    }
    let prefix = if path.is_empty() {
        String::new()
    } else {
        format!("{path}/")
    };
    let mut entries: BTreeMap<String, Value> = BTreeMap::new();
    for (p, content) in tree
        .range(prefix.clone()..)
        .take_while(|(p, _)| p.starts_with(&prefix))
    {
        let rest = &p[prefix.len()..];
        let entry = match rest.split_once('/') {
            Some((dir, _)) => {
                json!({ "type": "dir", "name": dir, "path": format!("{prefix}{dir}") })
            }
            None => {
                json!({ "type": "file", "name": rest, "path": p, "sha": git::blob_sha(content), "size": content.len() })
            }
        };
        let name = entry["name"].as_str().unwrap_or_default().to_string();
        entries.entry(name).or_insert(entry);
    }
    Ok(Value::Array(entries.into_values().collect()))
}

fn commit_json(repo: &Repo, sha: &str) -> Value {
    let c = &repo.commits[sha];
    json!({
        "sha": sha,
        "commit": { "message": c.message, "author": { "name": c.author } },
        "author": { "login": c.author },
        "parents": c.parents.iter().map(|p| json!({ "sha": p })).collect::<Vec<_>>(),
        "html_url": format!("https://github.com/{}/commit/{sha}", repo.full_name()),
    })
}

/// Commits `tree` on `branch` as the user and answers with the commit.
fn commit_tree(
    gh: &mut Github,
    owner: &str,
    repo: &str,
    branch: &str,
    message: &str,
    tree: Tree,
) -> Result<(String, Value), ToolError> {
    let user = gh.user.clone();
    let (r, ledger) = gh.parts(owner, repo)?;
    let parent = r.tip(branch)?.clone();
    let mut staged = Staged::default();
    let sha = r.stage(&mut staged, vec![parent], message, &user, tree);
    r.land(ledger, staged, branch, &sha, Default::default())?;
    Ok((sha.clone(), commit_json(r, &sha)))
}

/// The current tree of a branch the user may write to.
fn writable_tree(gh: &Github, owner: &str, repo: &str, branch: &str) -> Result<Tree, ToolError> {
    let r = gh.repo(owner, repo)?;
    r.writable()?;
    Ok(r.branch_tree(branch)?.clone())
}

pub(crate) fn create_or_update_file(gh: &mut Github, a: PutFile) -> Out {
    let mut tree = writable_tree(gh, &a.owner, &a.repo, &a.branch)?;
    match (tree.get(&a.path), &a.sha) {
        (Some(old), Some(sha)) if git::blob_sha(old) != *sha => {
            return Err(ToolError::conflict(format!(
                "{} does not match sha {sha}: the file has changed; get its current sha and try again",
                a.path
            )));
        }
        (None, Some(_)) => {
            return Err(ToolError::invalid(format!(
                "{} does not exist on {}, so no sha may be given",
                a.path, a.branch
            )));
        }
        _ => {}
    }
    git::put(&mut tree, &a.path, a.content.clone()).map_err(ToolError::invalid)?;
    let (_, commit) = commit_tree(gh, &a.owner, &a.repo, &a.branch, &a.message, tree)?;
    let name = a.path.rsplit('/').next().unwrap_or(&a.path);
    Ok(json!({
        "content": { "name": name, "path": a.path, "sha": git::blob_sha(&a.content), "size": a.content.len() },
        "commit": commit,
    }))
}

pub(crate) fn push_files(gh: &mut Github, a: PushFiles) -> Out {
    let mut tree = writable_tree(gh, &a.owner, &a.repo, &a.branch)?;
    let mut seen = BTreeSet::new();
    for f in &a.files {
        if !seen.insert(f.path.as_str()) {
            return Err(ToolError::invalid(format!("{} is listed twice", f.path)));
        }
        git::put(&mut tree, &f.path, f.content.clone()).map_err(ToolError::invalid)?;
    }
    let (sha, commit) = commit_tree(gh, &a.owner, &a.repo, &a.branch, &a.message, tree)?;
    Ok(
        json!({ "ref": format!("refs/heads/{}", a.branch), "object": { "sha": sha, "type": "commit" }, "commit": commit, "files": seen }),
    )
}

pub(crate) fn delete_file(gh: &mut Github, a: DeleteFile) -> Out {
    let mut tree = writable_tree(gh, &a.owner, &a.repo, &a.branch)?;
    if tree.remove(&a.path).is_none() {
        let what = if git::is_dir(&tree, &a.path) {
            "is a directory; only files can be deleted"
        } else {
            "does not exist"
        };
        return Err(ToolError::not_found(format!(
            "{} {what} on branch {} of {}/{}",
            a.path, a.branch, a.owner, a.repo
        )));
    }
    let (_, commit) = commit_tree(gh, &a.owner, &a.repo, &a.branch, &a.message, tree)?;
    Ok(json!({ "commit": commit }))
}

pub(crate) fn create_branch(gh: &mut Github, a: CreateBranch) -> Out {
    let (r, ledger) = gh.parts(&a.owner, &a.repo)?;
    r.writable()?;
    git::check_branch_name(&a.branch).map_err(ToolError::invalid)?;
    let from = a
        .from_branch
        .as_deref()
        .unwrap_or(&r.default_branch)
        .to_string();
    let sha = r.tip(&from)?.clone();
    if r.branches.contains_key(&a.branch) {
        return Err(ToolError::conflict(format!(
            "branch {} already exists in {}",
            a.branch,
            r.full_name()
        )));
    }
    if let Some(clash) = r.branches.keys().find(|b| {
        a.branch.starts_with(&format!("{b}/")) || b.starts_with(&format!("{}/", a.branch))
    }) {
        return Err(ToolError::conflict(format!(
            "branch {} clashes with existing branch {clash}",
            a.branch
        )));
    }
    let adding = account::branch(&a.branch, &sha);
    ledger.admit(adding)?;
    r.branches.insert(a.branch.clone(), sha.clone());
    ledger.add(adding);
    Ok(
        json!({ "ref": format!("refs/heads/{}", a.branch), "object": { "sha": sha, "type": "commit" } }),
    )
}

pub(crate) fn list_branches(gh: &Github, a: ListBranches) -> Out {
    let r = gh.repo(&a.owner, &a.repo)?;
    let items: Vec<Value> = r
        .branches
        .iter()
        .map(|(name, sha)| json!({ "name": name, "commit": { "sha": sha }, "protected": r.require_up_to_date.contains(name) }))
        .collect();
    Ok(Value::Array(paginate(items, a.page, a.per_page)))
}

pub(crate) fn list_commits(gh: &Github, a: ListCommits) -> Out {
    let r = gh.repo(&a.owner, &a.repo)?;
    let start = match a.sha.as_deref() {
        None => r.tip(&r.default_branch)?.clone(),
        Some(s) => match r.branches.get(s) {
            Some(sha) => sha.clone(),
            None => {
                let found: Vec<&String> = r
                    .commits
                    .keys()
                    .filter(|k| s.len() >= 7 && k.starts_with(s))
                    .collect();
                match found.as_slice() {
                    [one] => (*one).clone(),
                    [] => {
                        return Err(ToolError::not_found(format!(
                            "no branch or commit {s} in {}",
                            r.full_name()
                        )));
                    }
                    _ => {
                        return Err(ToolError::invalid(format!(
                            "{s} matches several commits; give more digits"
                        )));
                    }
                }
            }
        },
    };
    let mut shas: Vec<String> = git::ancestors(&r.commits, &start).into_iter().collect();
    shas.sort_by_key(|s| std::cmp::Reverse(r.commits[s].seq));
    let items: Vec<Value> = shas.iter().map(|s| commit_json(r, s)).collect();
    Ok(Value::Array(paginate(items, a.page, a.per_page)))
}
