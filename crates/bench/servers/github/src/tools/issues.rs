//! Issue tools, and GitHub's issue search.

use super::{Direction, Out, StateFilter, issue_json, paginate, repo_args};
use crate::account;
use crate::seed::State;
use crate::state::{Comment, Github, Issue, Repo, issue};
use mcpbench_sim::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

repo_args! {
    struct CreateIssue {
        /// Issue title.
        #[schemars(length(min = 1, max = 256))]
        title: String,
        /// Issue body (Markdown).
        #[schemars(length(max = 65536))]
        body: Option<String>,
        /// Logins to assign; each must be the owner or a collaborator.
        #[schemars(length(max = 10), inner(length(min = 1, max = 39)))]
        assignees: Option<Vec<String>>,
        /// Label names to apply.
        #[schemars(length(max = 20), inner(length(min = 1, max = 50)))]
        labels: Option<Vec<String>>,
    }
}

repo_args! {
    struct IssueNumber {
        /// The issue (or pull request) number.
        #[schemars(range(min = 1))]
        issue_number: u64,
    }
}

#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum IssueSort {
    Created,
    Updated,
    Comments,
}

repo_args! {
    struct ListIssues {
        /// Which issues to list (default open).
        state: Option<StateFilter>,
        /// Only issues carrying every one of these labels.
        #[schemars(length(max = 20), inner(length(min = 1, max = 50)))]
        labels: Option<Vec<String>>,
        /// Sort key (default created).
        sort: Option<IssueSort>,
        /// Sort direction (default desc).
        direction: Option<Direction>,
        /// Page number, from 1.
        #[schemars(range(min = 1, max = 1000))]
        page: Option<u32>,
        /// Results per page (default 30).
        #[schemars(range(min = 1, max = 100))]
        per_page: Option<u32>,
    }
}

/// Why an issue was closed or reopened.
#[derive(Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StateReason {
    Completed,
    NotPlanned,
    Reopened,
}

repo_args! {
    struct UpdateIssue {
        /// The issue number.
        #[schemars(range(min = 1))]
        issue_number: u64,
        /// New title.
        #[schemars(length(min = 1, max = 256))]
        title: Option<String>,
        /// New body.
        #[schemars(length(max = 65536))]
        body: Option<String>,
        /// New state.
        state: Option<State>,
        /// Why the state changes (default: completed when closing).
        state_reason: Option<StateReason>,
        /// The complete new set of labels (replaces the current labels).
        #[schemars(length(max = 20), inner(length(min = 1, max = 50)))]
        labels: Option<Vec<String>>,
        /// The complete new set of assignees (replaces the current ones).
        #[schemars(length(max = 10), inner(length(min = 1, max = 39)))]
        assignees: Option<Vec<String>>,
    }
}

repo_args! {
    struct AddComment {
        /// The issue or pull request number.
        #[schemars(range(min = 1))]
        issue_number: u64,
        /// Comment text (Markdown).
        #[schemars(length(min = 1, max = 65536))]
        body: String,
    }
}

repo_args! {
    struct ListComments {
        /// The issue or pull request number.
        #[schemars(range(min = 1))]
        issue_number: u64,
        /// Page number, from 1.
        #[schemars(range(min = 1, max = 1000))]
        page: Option<u32>,
        /// Results per page (default 30).
        #[schemars(range(min = 1, max = 100))]
        per_page: Option<u32>,
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchIssues {
    /// Search query in GitHub syntax, e.g. `repo:acme/api is:issue is:open label:bug crash`.
    #[schemars(length(min = 1, max = 256))]
    q: String,
    /// Sort key (default created).
    sort: Option<IssueSort>,
    /// Sort order (default desc).
    order: Option<Direction>,
    /// Results per page (default 30).
    #[schemars(range(min = 1, max = 100))]
    per_page: Option<u32>,
    /// Page number, from 1.
    #[schemars(range(min = 1, max = 1000))]
    page: Option<u32>,
}

fn check_people(
    r: &Repo,
    assignees: &Option<Vec<String>>,
    labels: &Option<Vec<String>>,
) -> Result<(), ToolError> {
    if assignees.as_ref().is_some_and(|a| !a.is_empty())
        || labels.as_ref().is_some_and(|l| !l.is_empty())
    {
        r.writable().map_err(|_| {
            ToolError::denied(format!(
                "setting labels or assignees in {} needs write access",
                r.full_name()
            ))
        })?;
    }
    if let Some(a) = assignees.iter().flatten().find(|a| !r.assignable(a)) {
        return Err(ToolError::invalid(format!(
            "{a} cannot be assigned in {}: only the owner and collaborators can",
            r.full_name()
        )));
    }
    Ok(())
}

pub(crate) fn create_issue(gh: &mut Github, a: CreateIssue) -> Out {
    let user = gh.user.clone();
    let (r, ledger) = gh.parts(&a.owner, &a.repo)?;
    check_people(r, &a.assignees, &a.labels)?;
    let number = r.next_number();
    let labels = a.labels.unwrap_or_default();
    let assignees = a.assignees.unwrap_or_default();
    let mut rec = issue(
        number,
        &a.title,
        &a.body.unwrap_or_default(),
        State::Open,
        None,
        &labels,
        &assignees,
        user,
        vec![],
        None,
    );
    // Built with the clock value it gets, so that what is admitted is what is stored.
    rec.updated = r.clock + 1;
    let adding = account::issue(&rec);
    ledger.admit(adding)?;
    r.tick();
    let out = issue_json(r, &rec);
    r.issues.insert(number, rec);
    ledger.add(adding);
    Ok(out)
}

pub(crate) fn get_issue(gh: &Github, a: IssueNumber) -> Out {
    let r = gh.repo(&a.owner, &a.repo)?;
    Ok(issue_json(r, r.issue(a.issue_number)?))
}

fn sort_issues(items: &mut [&Issue], sort: Option<IssueSort>, direction: Option<Direction>) {
    match sort.unwrap_or(IssueSort::Created) {
        IssueSort::Created => items.sort_by_key(|i| i.number),
        IssueSort::Updated => items.sort_by_key(|i| i.updated),
        IssueSort::Comments => items.sort_by_key(|i| (i.comments.len(), i.number)),
    }
    if direction.unwrap_or(Direction::Desc) == Direction::Desc {
        items.reverse();
    }
}

pub(crate) fn list_issues(gh: &Github, a: ListIssues) -> Out {
    let r = gh.repo(&a.owner, &a.repo)?;
    let state = a.state.unwrap_or(StateFilter::Open);
    let labels = a.labels.unwrap_or_default();
    let mut items: Vec<&Issue> = r
        .issues
        .values()
        .filter(|i| i.pull.is_none() && state.admits(i.state))
        .filter(|i| {
            labels
                .iter()
                .all(|l| i.labels.iter().any(|have| have.eq_ignore_ascii_case(l)))
        })
        .collect();
    sort_issues(&mut items, a.sort, a.direction);
    let items: Vec<Value> = items.into_iter().map(|i| issue_json(r, i)).collect();
    Ok(Value::Array(paginate(items, a.page, a.per_page)))
}

pub(crate) fn update_issue(gh: &mut Github, a: UpdateIssue) -> Out {
    let (r, ledger) = gh.parts(&a.owner, &a.repo)?;
    r.writable()?;
    check_people(r, &a.assignees, &None)?;
    let nothing = a.title.is_none()
        && a.body.is_none()
        && a.state.is_none()
        && a.state_reason.is_none()
        && a.labels.is_none()
        && a.assignees.is_none();
    if nothing {
        return Err(ToolError::invalid(
            "nothing to update: give at least one of title, body, state, state_reason, labels, assignees",
        ));
    }
    let cur = r.issue(a.issue_number)?;
    let merged = cur.pull.as_ref().is_some_and(|p| p.merged.is_some());
    if merged && a.state == Some(State::Open) {
        return Err(ToolError::precondition(format!(
            "pull request #{} is merged and cannot be reopened",
            cur.number
        )));
    }
    let state = a.state.unwrap_or(cur.state);
    let reason = match (state, a.state_reason) {
        (State::Closed, Some(StateReason::Reopened)) => {
            return Err(ToolError::invalid(
                "state_reason reopened goes with state open",
            ));
        }
        (State::Open, Some(StateReason::Completed | StateReason::NotPlanned)) => {
            return Err(ToolError::invalid(
                "state_reason completed or not_planned goes with state closed",
            ));
        }
        _ if cur.pull.is_some() => None,
        (State::Closed, Some(StateReason::NotPlanned)) => Some("not_planned".to_string()),
        (State::Closed, None) if cur.state == State::Closed => cur.state_reason.clone(),
        (State::Closed, _) => Some("completed".to_string()),
        (State::Open, _) if cur.state == State::Closed => Some("reopened".to_string()),
        (State::Open, _) => cur.state_reason.clone(),
    };
    // The edited issue is built in full (its comments aside) and admitted for what it grows.
    let mut new = cur.head();
    if let Some(title) = a.title {
        new.title = title;
    }
    if let Some(body) = a.body {
        new.body = body;
    }
    new.state = state;
    new.state_reason = reason;
    if let Some(labels) = a.labels {
        new.labels = labels.into_iter().collect();
    }
    if let Some(assignees) = a.assignees {
        new.assignees = assignees.into_iter().collect();
    }
    new.updated = r.clock + 1;
    let (before, after) = (account::issue(cur), account::issue(&new));
    ledger.admit_change(before, after)?;
    r.tick();
    let rec = r.issue_mut(a.issue_number)?;
    new.comments = std::mem::take(&mut rec.comments);
    *rec = new;
    ledger.change(before, after);
    Ok(issue_json(r, r.issue(a.issue_number)?))
}

pub(crate) fn add_issue_comment(gh: &mut Github, a: AddComment) -> Out {
    let user = gh.user.clone();
    let (r, ledger) = gh.parts(&a.owner, &a.repo)?;
    let cur = r.issue(a.issue_number)?;
    // The comment takes the next clock value as its id, and the issue's update time with it.
    let id = r.clock + 1;
    let comment = Comment {
        id,
        user: user.clone(),
        body: a.body.clone(),
    };
    let mut head = cur.head();
    head.updated = id;
    let before = account::issue(cur);
    let after = account::issue(&head) + account::comment(&comment);
    ledger.admit_change(before, after)?;
    r.tick();
    let url = format!("{}#issuecomment-{id}", r.html_url("issues", a.issue_number));
    let rec = r.issue_mut(a.issue_number)?;
    rec.comments.push(comment);
    rec.updated = id;
    ledger.change(before, after);
    Ok(json!({ "id": id, "user": user, "body": a.body, "html_url": url }))
}

pub(crate) fn get_issue_comments(gh: &Github, a: ListComments) -> Out {
    let r = gh.repo(&a.owner, &a.repo)?;
    let items: Vec<Value> = r
        .issue(a.issue_number)?
        .comments
        .iter()
        .map(|c| json!({ "id": c.id, "user": c.user, "body": c.body }))
        .collect();
    Ok(Value::Array(paginate(items, a.page, a.per_page)))
}

/// Splits a query into words, keeping "quoted phrases" (and qualifier:"quoted values") whole.
fn tokens(q: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in q.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether one issue of `repo` matches every term of the query.
fn matches(repo: &Repo, i: &Issue, terms: &[String]) -> Result<bool, ToolError> {
    let lower = |s: &str| s.to_lowercase();
    for term in terms {
        let ok = match term.split_once(':') {
            Some(("repo", full)) => lower(full) == lower(&repo.full_name()),
            Some(("user" | "org", login)) => lower(login) == lower(&repo.owner),
            Some(("is", "issue")) | Some(("type", "issue")) => i.pull.is_none(),
            Some(("is", "pr")) | Some(("type", "pr")) => i.pull.is_some(),
            Some(("is" | "state", "open")) => i.state == State::Open,
            Some(("is" | "state", "closed")) => i.state == State::Closed,
            Some(("is", "merged")) => i.pull.as_ref().is_some_and(|p| p.merged.is_some()),
            Some(("is", "unmerged")) => i.pull.as_ref().is_some_and(|p| p.merged.is_none()),
            Some(("label", l)) => i.labels.iter().any(|have| lower(have) == lower(l)),
            Some(("author", a)) => lower(&i.user) == lower(a),
            Some(("assignee", a)) => i.assignees.iter().any(|have| lower(have) == lower(a)),
            Some(("no", "label")) => i.labels.is_empty(),
            Some(("no", "assignee")) => i.assignees.is_empty(),
            Some(("in", _)) => true,
            Some((q @ ("is" | "state" | "no" | "type"), v)) => {
                return Err(ToolError::invalid(format!(
                    "unsupported search qualifier {q}:{v}"
                )));
            }
            _ => {
                let t = lower(term);
                lower(&i.title).contains(&t) || lower(&i.body).contains(&t)
            }
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

pub(crate) fn search_issues(gh: &Github, a: SearchIssues) -> Out {
    let terms = tokens(&a.q);
    let mut hits: Vec<(&Repo, &Issue)> = Vec::new();
    for r in gh.repos.values() {
        for i in r.issues.values() {
            if matches(r, i, &terms)? {
                hits.push((r, i));
            }
        }
    }
    let key = |(r, i): &(&Repo, &Issue)| -> (usize, u64, String) {
        match a.sort.unwrap_or(IssueSort::Created) {
            IssueSort::Created => (0, i.number, r.full_name()),
            IssueSort::Updated => (0, i.updated, r.full_name()),
            IssueSort::Comments => (i.comments.len(), i.number, r.full_name()),
        }
    };
    hits.sort_by_key(key);
    if a.order.unwrap_or(Direction::Desc) == Direction::Desc {
        hits.reverse();
    }
    let total = hits.len();
    let items: Vec<Value> = hits
        .into_iter()
        .map(|(r, i)| {
            let mut v = issue_json(r, i);
            v["repository"] = Value::String(r.full_name());
            v
        })
        .collect();
    Ok(
        json!({ "total_count": total, "incomplete_results": false, "items": paginate(items, a.page, a.per_page) }),
    )
}
