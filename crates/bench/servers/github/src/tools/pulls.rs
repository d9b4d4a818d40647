//! Pull request tools: opening, inspecting, updating and merging.
//!
//! Mergeability is computed from the branches on every call: a pull request conflicts when a
//! file changed on both sides since the merge base with different results; on a base listed
//! in `require_up_to_date` it must also contain every commit of the base before it can merge.
//! Merging into the default branch closes the issues its description names with a closing
//! keyword (`Fixes #12`, `closes #3`, `Resolves: #7`).

use super::{Direction, Out, StateFilter, paginate, repo_args};
use crate::account::{self, Staged};
use crate::git::{self, Tree};
use crate::seed::State;
use crate::state::{Github, Issue, MergeMethod, Merged, Pull, Repo, issue};
use mcpbench_sim::{ToolError, Usage};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

repo_args! {
    struct CreatePull {
        /// Pull request title.
        #[schemars(length(min = 1, max = 256))]
        title: String,
        /// Description (Markdown).
        #[schemars(length(max = 65536))]
        body: Option<String>,
        /// The branch with the changes (`branch` or `owner:branch`).
        #[schemars(length(min = 1, max = 255))]
        head: String,
        /// The branch to merge into.
        #[schemars(length(min = 1, max = 255))]
        base: String,
        /// Open it as a draft (drafts cannot be merged).
        draft: Option<bool>,
        /// Whether maintainers may push to the head branch.
        maintainer_can_modify: Option<bool>,
    }
}

repo_args! {
    struct PullNumber {
        /// The pull request number.
        #[schemars(range(min = 1))]
        pull_number: u64,
    }
}

#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PullSort {
    Created,
    Updated,
    Popularity,
    LongRunning,
}

repo_args! {
    struct ListPulls {
        /// Which pull requests to list (default open).
        state: Option<StateFilter>,
        /// Only those whose head branch is this (`branch` or `owner:branch`).
        #[schemars(length(min = 1, max = 255))]
        head: Option<String>,
        /// Only those merging into this branch.
        #[schemars(length(min = 1, max = 255))]
        base: Option<String>,
        /// Sort key (default created).
        sort: Option<PullSort>,
        /// Sort direction (default desc).
        direction: Option<Direction>,
        /// Results per page (default 30).
        #[schemars(range(min = 1, max = 100))]
        per_page: Option<u32>,
        /// Page number, from 1.
        #[schemars(range(min = 1, max = 1000))]
        page: Option<u32>,
    }
}

repo_args! {
    struct UpdateBranch {
        /// The pull request number.
        #[schemars(range(min = 1))]
        pull_number: u64,
        /// The sha the head branch must still point at.
        #[schemars(length(min = 40, max = 40))]
        expected_head_sha: Option<String>,
    }
}

repo_args! {
    struct MergePull {
        /// The pull request number.
        #[schemars(range(min = 1))]
        pull_number: u64,
        /// Title of the merge or squash commit.
        #[schemars(length(min = 1, max = 256))]
        commit_title: Option<String>,
        /// Extra detail for the merge or squash commit message.
        #[schemars(length(max = 65536))]
        commit_message: Option<String>,
        /// How to merge (default merge).
        merge_method: Option<MergeMethod>,
        /// The sha the head branch must still point at.
        #[schemars(length(min = 40, max = 40))]
        sha: Option<String>,
    }
}

/// A pull request with its branches and mergeability.
fn pr_json(r: &Repo, i: &Issue) -> Value {
    let p = i.pull.as_ref().expect("a pull request");
    let (mergeable, mergeable_state) = r.mergeability(i);
    let side = |branch: &str| json!({ "ref": branch, "sha": r.branches.get(branch), "label": format!("{}:{branch}", r.owner) });
    json!({
        "number": i.number,
        "title": i.title,
        "body": i.body,
        "state": i.state.as_str(),
        "draft": p.draft,
        "maintainer_can_modify": p.maintainer_can_modify,
        "merged": p.merged.is_some(),
        "mergeable": mergeable,
        "mergeable_state": mergeable_state,
        "merge_commit_sha": p.merged.as_ref().map(|m| &m.sha),
        "merged_by": p.merged.as_ref().map(|m| &m.by),
        "head": side(&p.head),
        "base": side(&p.base),
        "user": i.user,
        "labels": i.labels,
        "assignees": i.assignees,
        "comments": i.comments.len(),
        "html_url": r.html_url("pull", i.number),
    })
}

/// The branch a `head` argument names, refusing another owner's fork.
fn head_branch<'a>(r: &Repo, head: &'a str) -> Result<&'a str, ToolError> {
    match head.split_once(':') {
        None => Ok(head),
        Some((owner, branch)) if owner.eq_ignore_ascii_case(&r.owner) => Ok(branch),
        Some((owner, _)) => Err(ToolError::invalid(format!(
            "head {head} is a branch of {owner}; only pull requests between branches of {} are supported",
            r.full_name()
        ))),
    }
}

pub(crate) fn create_pull_request(gh: &mut Github, a: CreatePull) -> Out {
    let user = gh.user.clone();
    let (r, ledger) = gh.parts(&a.owner, &a.repo)?;
    let head = head_branch(r, &a.head)?.to_string();
    r.tip(&head)?;
    r.tip(&a.base)?;
    if head == a.base {
        return Err(ToolError::invalid(format!("head and base are both {head}")));
    }
    let open = |i: &&Issue| {
        i.state == State::Open
            && i.pull
                .as_ref()
                .is_some_and(|p| p.head == head && p.base == a.base)
    };
    if let Some(i) = r.issues.values().find(open) {
        return Err(ToolError::conflict(format!(
            "a pull request from {head} into {} already exists: #{}",
            a.base, i.number
        )));
    }
    let pull = Pull {
        head: head.clone(),
        base: a.base.clone(),
        draft: a.draft.unwrap_or(false),
        maintainer_can_modify: a.maintainer_can_modify.unwrap_or(true),
        merged: None,
    };
    if r.status(&pull)?.ahead.is_empty() {
        return Err(ToolError::precondition(format!(
            "no commits between {} and {head}",
            a.base
        )));
    }
    let number = r.next_number();
    let mut rec = issue(
        number,
        &a.title,
        &a.body.unwrap_or_default(),
        State::Open,
        None,
        &[],
        &[],
        user,
        vec![],
        Some(pull),
    );
    // Built with the clock value it gets, so that what is admitted is what is stored.
    rec.updated = r.clock + 1;
    let adding = account::issue(&rec);
    ledger.admit(adding)?;
    r.tick();
    let out = pr_json(r, &rec);
    r.issues.insert(number, rec);
    ledger.add(adding);
    Ok(out)
}

pub(crate) fn get_pull_request(gh: &Github, a: PullNumber) -> Out {
    let r = gh.repo(&a.owner, &a.repo)?;
    let (i, _) = r.pull(a.pull_number)?;
    Ok(pr_json(r, i))
}

pub(crate) fn list_pull_requests(gh: &Github, a: ListPulls) -> Out {
    let r = gh.repo(&a.owner, &a.repo)?;
    let state = a.state.unwrap_or(StateFilter::Open);
    let head = a.head.as_deref().map(|h| head_branch(r, h)).transpose()?;
    let mut items: Vec<(&Issue, &Pull)> = r
        .issues
        .values()
        .filter_map(|i| i.pull.as_ref().map(|p| (i, p)))
        .filter(|(i, p)| state.admits(i.state) && head.is_none_or(|h| p.head == h))
        .filter(|(_, p)| a.base.as_ref().is_none_or(|b| &p.base == b))
        .collect();
    match a.sort.unwrap_or(PullSort::Created) {
        PullSort::Created => items.sort_by_key(|(i, _)| i.number),
        PullSort::Updated => items.sort_by_key(|(i, _)| i.updated),
        PullSort::Popularity => items.sort_by_key(|(i, _)| (i.comments.len(), i.number)),
        PullSort::LongRunning => items.sort_by_key(|(i, _)| std::cmp::Reverse(i.number)),
    }
    if a.direction.unwrap_or(Direction::Desc) == Direction::Desc {
        items.reverse();
    }
    let items: Vec<Value> = items
        .into_iter()
        .map(|(i, p)| {
            json!({
                "number": i.number, "title": i.title, "state": i.state.as_str(), "draft": p.draft,
                "merged": p.merged.is_some(), "user": i.user, "labels": i.labels,
                "head": { "ref": p.head }, "base": { "ref": p.base }, "html_url": r.html_url("pull", i.number),
            })
        })
        .collect();
    Ok(Value::Array(paginate(items, a.page, a.per_page)))
}

fn changes(r: &Repo, base: &Option<String>, head_sha: &str) -> Vec<(String, String)> {
    let empty = Tree::new();
    let old = base.as_ref().map_or(&empty, |s| r.tree(s));
    git::diff(old, r.tree(head_sha))
        .into_iter()
        .map(|(p, s)| (p.to_string(), s.to_string()))
        .collect()
}

pub(crate) fn get_pull_request_files(gh: &Github, a: PullNumber) -> Out {
    let r = gh.repo(&a.owner, &a.repo)?;
    let (_, p) = r.pull(a.pull_number)?;
    let files = match &p.merged {
        Some(m) => m.files.clone(),
        None => {
            let s = r.status(p)?;
            changes(r, &s.merge_base, &s.head_sha)
        }
    };
    let head = r.branches.get(&p.head).map(|sha| r.tree(sha));
    let items: Vec<Value> = files
        .into_iter()
        .map(|(path, status)| {
            let sha = head
                .and_then(|t| t.get(&path))
                .filter(|_| status != "removed")
                .map(|c| git::blob_sha(c));
            json!({ "filename": path, "status": status, "sha": sha })
        })
        .collect();
    Ok(Value::Array(items))
}

/// The open, unmerged pull request `number`, for the tools that change it.
fn open_pull(r: &Repo, number: u64) -> Result<&Pull, ToolError> {
    let (i, p) = r.pull(number)?;
    if p.merged.is_some() {
        return Err(ToolError::precondition(format!(
            "pull request #{number} is already merged"
        )));
    }
    if i.state == State::Closed {
        return Err(ToolError::precondition(format!(
            "pull request #{number} is closed; reopen it first"
        )));
    }
    Ok(p)
}

fn conflict_error(number: u64, paths: &[String]) -> ToolError {
    ToolError::precondition(format!(
        "pull request #{number} is not mergeable: merge conflict in {} (changed differently on both branches)",
        paths.join(", ")
    ))
}

pub(crate) fn update_pull_request_branch(gh: &mut Github, a: UpdateBranch) -> Out {
    let user = gh.user.clone();
    let (r, ledger) = gh.parts(&a.owner, &a.repo)?;
    r.writable()?;
    let p = open_pull(r, a.pull_number)?.clone();
    let s = r.status(&p)?;
    if let Some(expected) = a.expected_head_sha.as_ref().filter(|e| **e != s.head_sha) {
        return Err(ToolError::conflict(format!(
            "head branch {} is at {}, not {expected}",
            p.head, s.head_sha
        )));
    }
    if s.behind == 0 {
        return Ok(
            json!({ "message": format!("{} is already up to date with {}", p.head, p.base), "sha": s.head_sha }),
        );
    }
    let tree = s
        .merged
        .map_err(|paths| conflict_error(a.pull_number, &paths))?;
    let message = format!("Merge branch '{}' into {}", p.base, p.head);
    let mut staged = Staged::default();
    let sha = r.stage(
        &mut staged,
        vec![s.head_sha, s.base_sha],
        &message,
        &user,
        tree,
    );
    r.land(ledger, staged, &p.head, &sha, Default::default())?;
    Ok(json!({ "message": "Updating pull request branch.", "sha": sha }))
}

fn compose(title: &str, detail: &str) -> String {
    if detail.is_empty() {
        title.to_string()
    } else {
        format!("{title}\n\n{detail}")
    }
}

/// Issue numbers named after a closing keyword (`fixes #3`, `Closes: #12`).
pub(crate) fn closing_refs(text: &str) -> Vec<u64> {
    const KEYWORDS: &[&str] = &[
        "close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved",
    ];
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| KEYWORDS.contains(&w[0].trim_end_matches(':').to_lowercase().as_str()))
        .filter_map(|w| {
            let n = w[1].strip_prefix('#')?;
            let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
            let rest = &n[digits.len()..];
            (rest.is_empty() || rest.chars().all(|c| c.is_ascii_punctuation()))
                .then(|| digits.parse().ok())
                .flatten()
        })
        .collect()
}

pub(crate) fn merge_pull_request(gh: &mut Github, a: MergePull) -> Out {
    let user = gh.user.clone();
    let (r, ledger) = gh.parts(&a.owner, &a.repo)?;
    r.writable()?;
    let number = a.pull_number;
    let p = open_pull(r, number)?.clone();
    if p.draft {
        return Err(ToolError::precondition(format!(
            "pull request #{number} is a draft; mark it ready for review first"
        )));
    }
    let s = r.status(&p)?;
    if let Some(sha) = a.sha.as_ref().filter(|sha| **sha != s.head_sha) {
        return Err(ToolError::conflict(format!(
            "head branch was modified: it is at {}, not {sha}; review and try again",
            s.head_sha
        )));
    }
    if s.ahead.is_empty() {
        return Err(ToolError::precondition(format!(
            "no commits between {} and {}",
            p.base, p.head
        )));
    }
    let tree = s
        .merged
        .clone()
        .map_err(|paths| conflict_error(number, &paths))?;
    if s.behind > 0 && r.require_up_to_date.contains(&p.base) {
        return Err(ToolError::precondition(format!(
            "{} requires branches to be up to date before merging, and {} is {} commit(s) behind; update the pull request branch first",
            p.base, p.head, s.behind
        )));
    }
    let files = changes(r, &s.merge_base, &s.head_sha);
    let (title, body) = {
        let i = &r.issues[&number];
        (i.title.clone(), i.body.clone())
    };
    let method = a.merge_method.unwrap_or(MergeMethod::Merge);
    let detail = a.commit_message.clone();
    // Every commit the merge makes is staged in full (a rebase makes one per pick, each with
    // its own tree), then admitted with the records it changes, then stored.
    let mut staged = Staged::default();
    let new_sha = match method {
        MergeMethod::Merge => {
            let head_title = format!("Merge pull request #{number} from {}/{}", r.owner, p.head);
            let message = compose(
                a.commit_title.as_deref().unwrap_or(&head_title),
                &detail.unwrap_or(title),
            );
            r.stage(
                &mut staged,
                vec![s.base_sha, s.head_sha],
                &message,
                &user,
                tree,
            )
        }
        MergeMethod::Squash => {
            let listed: Vec<String> = s
                .ahead
                .iter()
                .map(|c| format!("* {}", r.commits[c].message))
                .collect();
            let head_title = format!("{title} (#{number})");
            let message = compose(
                a.commit_title.as_deref().unwrap_or(&head_title),
                &detail.unwrap_or(listed.join("\n")),
            );
            r.stage(&mut staged, vec![s.base_sha], &message, &user, tree)
        }
        MergeMethod::Rebase => {
            let picks: Vec<String> = s
                .ahead
                .iter()
                .filter(|c| r.commits[*c].parents.len() == 1)
                .cloned()
                .collect();
            let mut at = s.base_sha.clone();
            let mut current = r.tree(&at).clone();
            for (k, c) in picks.iter().enumerate() {
                let commit = r.commits[c].clone();
                if k + 1 == picks.len() {
                    current = tree.clone();
                } else {
                    let parent = r.tree(&commit.parents[0]).clone();
                    for (path, status) in git::diff(&parent, &commit.tree) {
                        match commit.tree.get(path) {
                            Some(content) if status != "removed" => {
                                current.insert(path.to_string(), content.clone())
                            }
                            _ => current.remove(path),
                        };
                    }
                }
                at = r.stage(
                    &mut staged,
                    vec![at],
                    &commit.message,
                    &commit.author,
                    current.clone(),
                );
            }
            if picks.is_empty() {
                at = r.stage(&mut staged, vec![at], &title, &user, tree);
            }
            at
        }
    };
    // The records the merge changes, built with the clock value they get (one tick per
    // commit, then one for the records): the pull request, merged with its file list, and
    // the issues it closes.
    let clock = r.clock + staged.len() + 1;
    let mut edits: Vec<(u64, Issue)> = Vec::new();
    let mut pr = r.issues[&number].head();
    pr.state = State::Closed;
    pr.updated = clock;
    if let Some(pull) = pr.pull.as_mut() {
        pull.merged = Some(Merged {
            method,
            sha: new_sha.clone(),
            by: user,
            files,
        });
    }
    edits.push((number, pr));
    let mut closed = Vec::new();
    if p.base == r.default_branch {
        for n in closing_refs(&body) {
            if let Some(i) = r
                .issues
                .get(&n)
                .filter(|i| i.pull.is_none() && i.state == State::Open && !closed.contains(&n))
            {
                let mut i = i.head();
                i.state = State::Closed;
                i.state_reason = Some("completed".into());
                i.updated = clock;
                edits.push((n, i));
                closed.push(n);
            }
        }
    }
    let (mut before, mut after) = (Usage::default(), Usage::default());
    for (n, new) in &edits {
        before = before + account::issue(&r.issues[n]);
        after = after + account::issue(new);
    }
    r.land(ledger, staged, &p.base, &new_sha, (before, after))?;
    let ticked = r.tick();
    debug_assert_eq!(ticked, clock);
    for (n, mut new) in edits {
        let rec = r.issues.get_mut(&n).expect("edited");
        new.comments = std::mem::take(&mut rec.comments);
        *rec = new;
    }
    Ok(
        json!({ "sha": new_sha, "merged": true, "message": "Pull Request successfully merged", "closed_issues": closed }),
    )
}

#[cfg(test)]
mod tests {
    use super::closing_refs;

    #[test]
    fn closing_keywords_are_found() {
        assert_eq!(closing_refs("Fixes #12 and closes: #3."), vec![12, 3]);
        assert_eq!(
            closing_refs("see #4, fixes#5, resolves #x"),
            Vec::<u64>::new()
        );
    }
}
