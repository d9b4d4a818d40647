//! `tracker.*` predicate atoms. Issues are named by identifier (`ENG-12`) or, for issues the
//! agent creates, found or counted by project and exact title (no tool deletes an issue, so a
//! count also catches a mistaken creation the agent then canceled). Text is compared after
//! trimming white space at both ends; everything else exactly.

use crate::state::{Issue, LinkType, Status, Tracker, parse_id};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// The issue `id` exists and is in `status`.
    #[serde(rename = "tracker.issueStatus")]
    IssueStatus { id: String, status: Status },
    /// The issue `id` is assigned to the user `assignee` (a username), or is unassigned when
    /// `assignee` is null.
    #[serde(rename = "tracker.issueAssignee")]
    IssueAssignee {
        id: String,
        assignee: Option<String>,
    },
    /// Some issue of `project` has exactly `title` and every optional field given (labels as a
    /// set, exactly; parent by identifier).
    #[serde(rename = "tracker.issueExists")]
    IssueExists {
        project: String,
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<Status>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        priority: Option<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assignee: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        labels: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        estimate: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<String>,
    },
    /// The issue `id` has a comment whose text is exactly `body` (by `author`, when given).
    #[serde(rename = "tracker.issueHasComment")]
    IssueHasComment {
        id: String,
        body: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        author: Option<String>,
    },
    /// The issue `id` has `priority` (0 none, 1 urgent, 2 high, 3 medium, 4 low).
    #[serde(rename = "tracker.issuePriority")]
    IssuePriority { id: String, priority: u8 },
    /// The issue `id` carries the label `label` (case-insensitive).
    #[serde(rename = "tracker.issueHasLabel")]
    IssueHasLabel { id: String, label: String },
    /// `id <type> target` is recorded (`blocked_by` and `duplicated_by` read the reverse
    /// link; `relates_to` either direction).
    #[serde(rename = "tracker.issueLinked")]
    IssueLinked {
        id: String,
        target: String,
        #[serde(rename = "type")]
        link_type: LinkType,
    },
    /// `project` holds exactly `count` issues, whatever their status (canceled and done ones
    /// count too), counting only those with exactly `title` when given.
    #[serde(rename = "tracker.issueCount")]
    IssueCount {
        project: String,
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// The issue `id` has exactly `count` comments: a guard against a comment posted twice.
    #[serde(rename = "tracker.commentCount")]
    CommentCount { id: String, count: u32 },
}

fn same_set(have: &[String], want: &[String]) -> bool {
    let mut a: Vec<String> = have.iter().map(|s| s.to_lowercase()).collect();
    let mut b: Vec<String> = want.iter().map(|s| s.trim().to_lowercase()).collect();
    a.sort();
    a.dedup();
    b.sort();
    b.dedup();
    a == b
}

impl Atom {
    pub(crate) fn holds(&self, t: &Tracker) -> bool {
        let issue = |id: &str| -> Option<&Issue> { parse_id(id).and_then(|k| t.issues.get(&k)) };
        match self {
            Atom::IssueStatus { id, status } => issue(id).is_some_and(|i| i.status == *status),
            Atom::IssueAssignee { id, assignee } => {
                issue(id).is_some_and(|i| i.assignee == *assignee)
            }
            Atom::IssueExists {
                project,
                title,
                description,
                status,
                priority,
                assignee,
                labels,
                estimate,
                parent,
            } => t.issues.iter().any(|((p, _), i)| {
                p == project
                    && i.title.trim() == title.trim()
                    && description
                        .as_ref()
                        .is_none_or(|d| i.description.trim() == d.trim())
                    && status.is_none_or(|s| i.status == s)
                    && priority.is_none_or(|p| i.priority == p)
                    && assignee
                        .as_ref()
                        .is_none_or(|a| i.assignee.as_ref() == Some(a))
                    && labels.as_ref().is_none_or(|l| same_set(&i.labels, l))
                    && estimate.is_none_or(|e| i.estimate == Some(e))
                    && parent.as_ref().is_none_or(|p| i.parent.as_ref() == Some(p))
            }),
            Atom::IssueHasComment { id, body, author } => issue(id).is_some_and(|i| {
                i.comments.iter().any(|c| {
                    c.body.trim() == body.trim() && author.as_ref().is_none_or(|a| &c.author == a)
                })
            }),
            Atom::IssuePriority { id, priority } => {
                issue(id).is_some_and(|i| i.priority == *priority)
            }
            Atom::IssueHasLabel { id, label } => issue(id).is_some_and(|i| {
                i.labels
                    .iter()
                    .any(|l| l.eq_ignore_ascii_case(label.trim()))
            }),
            Atom::IssueLinked {
                id,
                target,
                link_type,
            } => {
                let (Some(a), Some(b)) = (issue(id), issue(target)) else {
                    return false;
                };
                let link = link_type.stored(a.id.clone(), b.id.clone());
                t.links.contains(&link)
                    || (*link_type == LinkType::RelatesTo
                        && t.links
                            .contains(&link_type.stored(b.id.clone(), a.id.clone())))
            }
            Atom::IssueCount {
                project,
                count,
                title,
            } => {
                let n = (t.issues.iter())
                    .filter(|((p, _), i)| {
                        p == project && title.as_ref().is_none_or(|w| i.title.trim() == w.trim())
                    })
                    .count();
                n == *count as usize
            }
            Atom::CommentCount { id, count } => {
                issue(id).is_some_and(|i| i.comments.len() == *count as usize)
            }
        }
    }
}
