//! The tools, modelled on the Linear and Jira MCP servers. Near-duplicates an agent must choose
//! between: `update_issue` edits fields but never the status (only `transition_issue` moves an
//! issue through the workflow), `assign_issue` and `update_issue`'s `assignee` do the same
//! thing, and `search_issues` lists what `get_issue` details.

mod args;

use crate::state::{Comment, Issue, Link, PRIORITY_NAMES, Relation, Tracker, format_id, parse_id};
use args::*;
use mcpbench_sim::{Tool, ToolBox, ToolError};
use serde_json::{Value, json};
use std::sync::LazyLock;

type Out = Result<Value, ToolError>;

fn summary(issue: &Issue) -> Value {
    json!({
        "id": issue.id,
        "title": issue.title,
        "status": issue.status,
        "priority": issue.priority,
        "assignee": issue.assignee,
        "labels": issue.labels,
    })
}

fn detail(t: &Tracker, issue: &Issue) -> Value {
    let children: Vec<&str> = t
        .issues
        .values()
        .filter(|i| i.parent.as_deref() == Some(&issue.id))
        .map(|i| i.id.as_str())
        .collect();
    let mut links = Vec::new();
    for l in &t.links {
        let (kind, other) = match l.relation {
            Relation::Blocks if l.from == issue.id => ("blocks", &l.to),
            Relation::Blocks if l.to == issue.id => ("blocked_by", &l.from),
            Relation::Duplicates if l.from == issue.id => ("duplicates", &l.to),
            Relation::Duplicates if l.to == issue.id => ("duplicated_by", &l.from),
            Relation::RelatesTo if l.from == issue.id => ("relates_to", &l.to),
            Relation::RelatesTo if l.to == issue.id => ("relates_to", &l.from),
            _ => continue,
        };
        links.push(json!({ "type": kind, "issue": other }));
    }
    let project = parse_id(&issue.id).map(|k| k.0).unwrap_or_default();
    json!({
        "id": issue.id,
        "project": project,
        "title": issue.title,
        "description": issue.description,
        "status": issue.status,
        "priority": issue.priority,
        "priorityName": PRIORITY_NAMES[usize::from(issue.priority.min(4))],
        "assignee": issue.assignee,
        "labels": issue.labels,
        "estimate": issue.estimate,
        "parent": issue.parent,
        "subIssues": children,
        "links": links,
        "commentCount": issue.comments.len(),
    })
}

fn list_projects(t: &Tracker, _: NoArgs) -> Out {
    let out: Vec<Value> = t
        .projects
        .values()
        .map(|p| {
            let open = t.issues.iter().filter(|((k, _), i)| k == &p.key && i.status.is_open()).count();
            json!({ "key": p.key, "name": p.name, "description": p.description, "readOnly": p.read_only, "openIssues": open })
        })
        .collect();
    Ok(json!({ "projects": out }))
}

fn list_users(t: &Tracker, a: ListUsers) -> Out {
    let q = a.query.map(|q| q.to_lowercase());
    let out: Vec<Value> = t
        .users
        .values()
        .filter(|u| {
            q.as_deref().is_none_or(|q| {
                [&u.username, &u.name, &u.email].iter().any(|f| f.to_lowercase().contains(q))
            })
        })
        .map(|u| json!({ "username": u.username, "name": u.name, "email": u.email, "active": u.active }))
        .collect();
    Ok(json!({ "users": out }))
}

fn list_labels(t: &Tracker, _: NoArgs) -> Out {
    let out: Vec<Value> = t
        .labels
        .values()
        .map(|l| json!({ "name": l.name, "description": l.description }))
        .collect();
    Ok(json!({ "labels": out }))
}

fn create_label(t: &mut Tracker, a: CreateLabel) -> Out {
    let name = a.name.trim().to_string();
    if name.is_empty() {
        return Err(ToolError::invalid("a label name cannot be blank"));
    }
    if let Some(l) = t.label(&name) {
        return Err(ToolError::conflict(format!(
            "label {} already exists",
            l.name
        )));
    }
    let label = crate::state::Label {
        name: name.clone(),
        description: a.description.unwrap_or_default(),
    };
    t.add_label(label)?;
    Ok(json!({ "created": name }))
}

fn search_issues(t: &Tracker, a: Search) -> Out {
    let project = a
        .project
        .as_deref()
        .map(|p| t.project(p).map(|p| p.key.clone()))
        .transpose()?;
    let assignee = match a.assignee.as_deref() {
        Some(who) => Some(
            t.users
                .values()
                .find(|u| {
                    u.username.eq_ignore_ascii_case(who.trim())
                        || u.email.eq_ignore_ascii_case(who.trim())
                })
                .map(|u| u.username.clone())
                .ok_or_else(|| {
                    ToolError::not_found(format!("no user with username or email {who:?}"))
                })?,
        ),
        None => None,
    };
    let label = a
        .label
        .as_deref()
        .map(|l| t.resolve_labels(&[l.to_string()]).map(|v| v[0].clone()))
        .transpose()?;
    let query = a.query.map(|q| q.to_lowercase());
    let hits: Vec<&Issue> = t
        .issues
        .iter()
        .filter(|((k, _), _)| project.as_ref().is_none_or(|p| p == k))
        .map(|(_, i)| i)
        .filter(|i| a.status.is_none_or(|s| i.status == s))
        .filter(|i| a.priority.is_none_or(|p| i.priority == p))
        .filter(|i| assignee.is_none() || i.assignee == assignee)
        .filter(|i| label.as_ref().is_none_or(|l| i.labels.contains(l)))
        .filter(|i| {
            query.as_deref().is_none_or(|q| {
                i.title.to_lowercase().contains(q) || i.description.to_lowercase().contains(q)
            })
        })
        .collect();
    let filters = format!(
        "{project:?} {:?} {:?} {assignee:?} {label:?} {query:?}",
        a.status, a.priority
    );
    let page = mcpbench_sim::page(
        &hits,
        a.after.as_deref(),
        a.limit.unwrap_or(50) as usize,
        &filters,
    )?;
    let shown: Vec<Value> = page.items.iter().map(|i| summary(i)).collect();
    Ok(json!({
        "issues": shown,
        "total": hits.len(),
        "pageInfo": { "hasNextPage": page.next.is_some(), "endCursor": page.next },
    }))
}

fn get_issue(t: &Tracker, a: IdArg) -> Out {
    let issue = t.issue(&a.id)?;
    Ok(detail(t, issue))
}

fn list_transitions(t: &Tracker, a: IdArg) -> Out {
    let issue = t.issue(&a.id)?;
    Ok(json!({ "id": issue.id, "status": issue.status, "allowed": issue.status.next() }))
}

/// Checks that `parent` exists and that making it the parent of `child` makes no cycle.
fn check_parent(t: &Tracker, child: Option<&str>, parent: &str) -> Result<String, ToolError> {
    let key = t.key_of(parent)?;
    let parent_id = format_id(&key);
    let mut at = Some(parent_id.clone());
    while let Some(id) = at {
        if child == Some(id.as_str()) {
            return Err(ToolError::conflict(format!(
                "making {parent_id} the parent of {id} would create a cycle"
            )));
        }
        at = parse_id(&id)
            .and_then(|k| t.issues.get(&k))
            .and_then(|i| i.parent.clone());
    }
    Ok(parent_id)
}

fn create_issue(t: &mut Tracker, a: Create) -> Out {
    let project = t.project(&a.project)?.key.clone();
    t.writable(&project)?;
    let title = a.title.trim().to_string();
    if title.is_empty() {
        return Err(ToolError::invalid("the title cannot be blank"));
    }
    let assignee = a.assignee.as_deref().map(|w| t.assignable(w)).transpose()?;
    let labels = t.resolve_labels(a.labels.as_deref().unwrap_or_default())?;
    let parent = a
        .parent
        .as_deref()
        .map(|p| check_parent(t, None, p))
        .transpose()?;
    let key = (project.clone(), t.next_number(&project));
    let issue = Issue {
        id: format_id(&key),
        title,
        description: a.description.unwrap_or_default(),
        status: a.status.unwrap_or_default(),
        priority: a.priority.unwrap_or(0),
        assignee,
        labels,
        estimate: a.estimate,
        parent,
        comments: vec![],
    };
    let out = detail(t, &issue);
    t.put_issue(key, issue)?;
    Ok(out)
}

fn update_issue(t: &mut Tracker, a: Update) -> Out {
    let key = t.key_of(&a.id)?;
    let id = format_id(&key);
    if a.title.is_none()
        && a.description.is_none()
        && a.priority.is_none()
        && a.assignee.is_none()
        && a.labels.is_none()
        && a.estimate.is_none()
        && a.parent.is_none()
    {
        return Err(ToolError::invalid(
            "give at least one field to change (title, description, priority, assignee, labels, estimate, parent); \
             to change the status use transition_issue",
        ));
    }
    t.writable(&key.0)?;
    let assignee = a.assignee.as_deref().map(|w| t.assignable(w)).transpose()?;
    let labels = a
        .labels
        .as_deref()
        .map(|l| t.resolve_labels(l))
        .transpose()?;
    let parent = a
        .parent
        .as_deref()
        .map(|p| check_parent(t, Some(&id), p))
        .transpose()?;
    if let Some(title) = &a.title
        && title.trim().is_empty()
    {
        return Err(ToolError::invalid("the title cannot be blank"));
    }
    let mut issue = t.issues[&key].clone();
    if let Some(title) = a.title {
        issue.title = title.trim().to_string();
    }
    if let Some(d) = a.description {
        issue.description = d;
    }
    if let Some(p) = a.priority {
        issue.priority = p;
    }
    if assignee.is_some() {
        issue.assignee = assignee;
    }
    if let Some(l) = labels {
        issue.labels = l;
    }
    if a.estimate.is_some() {
        issue.estimate = a.estimate;
    }
    if parent.is_some() {
        issue.parent = parent;
    }
    t.put_issue(key, issue.clone())?;
    Ok(detail(t, &issue))
}

fn transition_issue(t: &mut Tracker, a: Transition) -> Out {
    let key = t.key_of(&a.id)?;
    t.writable(&key.0)?;
    let mut issue = t.issues[&key].clone();
    let from = issue.status;
    if !from.next().contains(&a.status) {
        let allowed: Vec<&str> = from.next().iter().map(|s| s.as_str()).collect();
        return Err(ToolError::precondition(format!(
            "{} cannot move from {} to {}; from {} the workflow allows: {}",
            issue.id,
            from.as_str(),
            a.status.as_str(),
            from.as_str(),
            allowed.join(", ")
        )));
    }
    // A status other than backlog is stored, so a transition can lengthen the issue.
    issue.status = a.status;
    let out = json!({ "id": issue.id, "from": from, "status": a.status });
    t.put_issue(key, issue)?;
    Ok(out)
}

fn assign_issue(t: &mut Tracker, a: Assign) -> Out {
    let key = t.key_of(&a.id)?;
    t.writable(&key.0)?;
    let who = a.assignee.as_deref().map(|w| t.assignable(w)).transpose()?;
    let mut issue = t.issues[&key].clone();
    issue.assignee = who;
    let out = json!({ "id": issue.id, "assignee": issue.assignee });
    t.put_issue(key, issue)?;
    Ok(out)
}

fn add_comment(t: &mut Tracker, a: AddComment) -> Out {
    let key = t.key_of(&a.id)?;
    t.writable(&key.0)?;
    if a.body.trim().is_empty() {
        return Err(ToolError::invalid("a comment cannot be blank"));
    }
    let author = t.viewer.clone();
    let comment = Comment {
        author: author.clone(),
        body: a.body,
    };
    // The issue holds its comments: admitted for what the issue grows by, the comment and the
    // list's separators (the whole list, when it is the first).
    let mut issue = t.issues[&key].clone();
    issue.comments.push(comment);
    let out = json!({ "id": issue.id, "comment": issue.comments.len(), "author": author });
    t.put_issue(key, issue)?;
    Ok(out)
}

fn list_comments(t: &Tracker, a: ListComments) -> Out {
    let issue = t.issue(&a.id)?;
    let limit = a.limit.unwrap_or(50) as usize;
    let out: Vec<Value> = issue
        .comments
        .iter()
        .take(limit)
        .enumerate()
        .map(|(n, c)| json!({ "number": n + 1, "author": c.author, "body": c.body }))
        .collect();
    Ok(json!({ "id": issue.id, "comments": out, "total": issue.comments.len() }))
}

fn link_issues(t: &mut Tracker, a: LinkArgs) -> Out {
    let from = format_id(&t.key_of(&a.id)?);
    let to = format_id(&t.key_of(&a.target)?);
    if from == to {
        return Err(ToolError::invalid(format!(
            "an issue cannot be linked to itself ({from})"
        )));
    }
    t.writable(&parse_id(&from).expect("valid").0)?;
    let link = a.link_type.stored(from.clone(), to.clone());
    let reverse = Link {
        from: link.to.clone(),
        relation: link.relation,
        to: link.from.clone(),
    };
    if t.links.contains(&link)
        || (link.relation == Relation::RelatesTo && t.links.contains(&reverse))
    {
        return Err(ToolError::conflict(format!(
            "{from} and {to} are already linked that way"
        )));
    }
    t.add_link(link)?;
    Ok(json!({ "linked": true, "id": from, "type": a.link_type.as_str(), "target": to }))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Tracker>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "list_projects",
            "List the projects (teams) with their keys, like ENG, whether you may only read them, and how many open issues each has.",
            list_projects,
        ),
        Tool::read(
            "list_users",
            "List the workspace's users with username, full name, email and whether they are active. Filter with query.",
            list_users,
        ),
        Tool::read(
            "list_labels",
            "List the workspace's issue labels. Issues can only carry existing labels.",
            list_labels,
        ),
        Tool::write(
            "create_label",
            "Create a new workspace label so issues can carry it. Fails with conflict if it exists. A run's tracker holds at most 5,000 issues, comments, labels and links and 4 MiB in all.",
            create_label,
        ),
        Tool::read(
            "search_issues",
            "Find issues by text in title or description, project key, status, assignee, label or priority. Returns summaries sorted by identifier, a page of at most limit (default 50) at a time, with the total count; while pageInfo.hasNextPage, pass pageInfo.endCursor as after for the next page.",
            search_issues,
        ),
        Tool::read(
            "get_issue",
            "Get one issue by identifier (ENG-12): title, description, status, priority, assignee, labels, estimate, parent, sub-issues, links and comment count.",
            get_issue,
        ),
        Tool::read(
            "list_transitions",
            "List the statuses an issue may move to next from its current status under the workflow.",
            list_transitions,
        ),
        Tool::write(
            "create_issue",
            "Create an issue in a project. Priority: 0 none, 1 urgent, 2 high, 3 medium, 4 low. Assignee by username or email; labels must exist; parent makes it a sub-issue. New issues start in backlog unless status is given. Returns the new issue with its identifier. A run's tracker holds at most 5,000 issues, comments, labels and links and 4 MiB in all.",
            create_issue,
        ),
        Tool::write(
            "update_issue",
            "Change fields of an issue: title, description, priority (0 none, 1 urgent, 2 high, 3 medium, 4 low), assignee, labels (replaces the whole set), estimate, parent. The status is not changed here: use transition_issue. A run's tracker holds at most 5,000 issues, comments, labels and links and 4 MiB in all.",
            update_issue,
        ),
        Tool::write(
            "transition_issue",
            "Move an issue to another workflow status (backlog, todo, in_progress, in_review, done, canceled). Only transitions the workflow allows succeed; the error lists the allowed ones.",
            transition_issue,
        ),
        Tool::write(
            "assign_issue",
            "Assign an issue to a user by username or email, or unassign it with null.",
            assign_issue,
        ),
        Tool::write(
            "add_comment",
            "Add a comment to an issue, as you. A run's tracker holds at most 5,000 issues, comments, labels and links and 4 MiB in all.",
            add_comment,
        ),
        Tool::read(
            "list_comments",
            "List the comments of an issue, oldest first, with author and text.",
            list_comments,
        ),
        Tool::write(
            "link_issues",
            "Record a relation between two issues: id blocks, blocked_by, relates_to, duplicates or duplicated_by target. A run's tracker holds at most 5,000 issues, comments, labels and links and 4 MiB in all.",
            link_issues,
        ),
    ])
});
