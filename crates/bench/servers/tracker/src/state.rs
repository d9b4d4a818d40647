//! The tracker's seed, its state, and the workflow and reference rules.

use crate::background::{self, Background, MAX_ISSUES};
use mcpbench_sim::{Capacity, Ledger, SeedError, ToolError, Usage, footprint};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// A workflow status. Issues move between statuses only along [`Status::next`].
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    #[default]
    Backlog,
    Todo,
    InProgress,
    InReview,
    Done,
    Canceled,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Self::Backlog,
        Self::Todo,
        Self::InProgress,
        Self::InReview,
        Self::Done,
        Self::Canceled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Backlog => "backlog",
            Self::Todo => "todo",
            Self::InProgress => "in_progress",
            Self::InReview => "in_review",
            Self::Done => "done",
            Self::Canceled => "canceled",
        }
    }

    /// How a person would say it: "In Review".
    pub fn label(self) -> &'static str {
        match self {
            Self::Backlog => "Backlog",
            Self::Todo => "Todo",
            Self::InProgress => "In Progress",
            Self::InReview => "In Review",
            Self::Done => "Done",
            Self::Canceled => "Canceled",
        }
    }

    /// The statuses the workflow allows moving to from this one. Work reaches `done` only
    /// through review; a done issue can be reopened to `todo`, a canceled one restored to
    /// `backlog`.
    pub fn next(self) -> &'static [Status] {
        use Status::*;
        match self {
            Backlog => &[Todo, InProgress, Canceled],
            Todo => &[Backlog, InProgress, Canceled],
            InProgress => &[Todo, InReview, Canceled],
            InReview => &[InProgress, Done, Canceled],
            Done => &[Todo],
            Canceled => &[Backlog],
        }
    }

    /// Not done and not canceled.
    pub fn is_open(self) -> bool {
        !matches!(self, Self::Done | Self::Canceled)
    }
}

/// Priority names, by number: 0 none, 1 urgent, 2 high, 3 medium, 4 low (Linear's scale).
pub const PRIORITY_NAMES: [&str; 5] = ["No priority", "Urgent", "High", "Medium", "Low"];

/// A stored relation between two issues; `blocked_by` and `duplicated_by` are views of these.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    Blocks,
    RelatesTo,
    Duplicates,
}

/// How an issue relates to another, seen from the first one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkType {
    Blocks,
    BlockedBy,
    RelatesTo,
    Duplicates,
    DuplicatedBy,
}

impl LinkType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Blocks => "blocks",
            Self::BlockedBy => "blocked_by",
            Self::RelatesTo => "relates_to",
            Self::Duplicates => "duplicates",
            Self::DuplicatedBy => "duplicated_by",
        }
    }

    /// The stored link that `id <self> target` means.
    pub(crate) fn stored(self, id: String, target: String) -> Link {
        let (from, relation, to) = match self {
            Self::Blocks => (id, Relation::Blocks, target),
            Self::BlockedBy => (target, Relation::Blocks, id),
            Self::RelatesTo => (id, Relation::RelatesTo, target),
            Self::Duplicates => (id, Relation::Duplicates, target),
            Self::DuplicatedBy => (target, Relation::Duplicates, id),
        };
        Link { from, relation, to }
    }
}

fn is_false(b: &bool) -> bool {
    !b
}
fn is_true(b: &bool) -> bool {
    *b
}
fn yes() -> bool {
    true
}
fn is_zero(n: &u8) -> bool {
    *n == 0
}
fn is_backlog(s: &Status) -> bool {
    *s == Status::Backlog
}

/// A project (a Linear team, a Jira project): issues are numbered within it (`ENG-12`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Project {
    /// Upper-case key, 2 to 10 letters or digits starting with a letter: `ENG`.
    pub key: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The acting user may read but not change this project's issues (`permission_denied`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub read_only: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct User {
    /// Unique handle: `priya`.
    pub username: String,
    /// Full name: `Priya Shah`.
    pub name: String,
    pub email: String,
    /// Deactivated users cannot be given issues.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub active: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Label {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Comment {
    /// Username of the author.
    pub author: String,
    pub body: String,
}

/// One issue, as seeded and as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Issue {
    /// `<PROJECT>-<number>`: `ENG-12`. The project must exist.
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "is_backlog")]
    pub status: Status,
    /// 0 none, 1 urgent, 2 high, 3 medium, 4 low.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(range(max = 4))]
    pub priority: u8,
    /// Username.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// Label names, each a workspace label.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Story points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<u32>,
    /// Id of the parent issue, for sub-issues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<Comment>,
}

/// `from <type> to`: `{"from": "ENG-3", "type": "blocks", "to": "ENG-7"}`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub from: String,
    #[serde(rename = "type")]
    pub relation: Relation,
    pub to: String,
}

/// `initial_state.tracker`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// Username of the acting user (the agent): the author of the comments it adds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<Project>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<User>,
    /// Workspace labels; issues may only carry these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<Label>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<Issue>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
    /// A backlog beside `issues`, expanded when the tracker is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

/// Issues are keyed by (project key, number), so `ENG-9` sorts before `ENG-10`.
pub(crate) type IssueKey = (String, u32);

/// What a run's tracker holds at most: a hundred times a seed, and more than a whole run of
/// the largest issues and comments the tools take could add (100 calls of 10 kB).
pub const TRACKER: Capacity = Capacity {
    store: "tracker",
    records: 5_000,
    noun: "issues, comments, labels and links",
    bytes: 4 << 20,
};

/// The simulated server.
#[derive(Clone, Debug)]
pub struct Tracker {
    pub(crate) viewer: String,
    pub(crate) projects: BTreeMap<String, Project>,
    pub(crate) users: BTreeMap<String, User>,
    pub(crate) labels: BTreeMap<String, Label>,
    pub(crate) issues: BTreeMap<IssueKey, Issue>,
    pub(crate) links: BTreeSet<Link>,
    /// What the issues, comments, labels and links hold against [`TRACKER`].
    pub(crate) ledger: Ledger,
}

/// What an issue costs: itself and each of its comments a record, and its bytes with the key
/// it is stored under (its comments are inside it, so adding one changes the issue's cost by
/// the comment plus whatever separators and brackets the list takes).
fn issue_usage(key: &IssueKey, issue: &Issue) -> Usage {
    Usage {
        records: 1 + issue.comments.len(),
        bytes: footprint(&(key, issue)),
    }
}

/// Splits `ENG-12` into (`ENG`, 12); accepts lower case.
pub(crate) fn parse_id(id: &str) -> Option<IssueKey> {
    let (key, number) = id.trim().rsplit_once('-')?;
    let key = key.to_ascii_uppercase();
    if !valid_key(&key)
        || number.is_empty()
        || number.len() > 6
        || !number.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((key, number.parse().ok()?))
}

pub(crate) fn valid_key(key: &str) -> bool {
    (2..=10).contains(&key.len())
        && key.starts_with(|c: char| c.is_ascii_uppercase())
        && key
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

pub(crate) fn format_id(key: &IssueKey) -> String {
    format!("{}-{}", key.0, key.1)
}

impl Tracker {
    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("tracker", m);
        let background = match &seed.background {
            Some(b) if b.issues > MAX_ISSUES => {
                return Err(bad(format!(
                    "a background of {} issues is more than the {MAX_ISSUES} a tracker may hold",
                    b.issues
                )));
            }
            Some(b) => background::expand(b, seed),
            None => background::Expanded::default(),
        };
        let mut t = Tracker {
            viewer: String::new(),
            projects: BTreeMap::new(),
            users: BTreeMap::new(),
            labels: BTreeMap::new(),
            issues: BTreeMap::new(),
            links: BTreeSet::new(),
            ledger: Ledger::new(TRACKER, Usage::default()),
        };
        for p in &seed.projects {
            if !valid_key(&p.key) {
                return Err(bad(format!(
                    "project key {:?} is not 2-10 upper-case letters or digits",
                    p.key
                )));
            }
            if t.projects.insert(p.key.clone(), p.clone()).is_some() {
                return Err(bad(format!("project {} is listed twice", p.key)));
            }
        }
        for u in seed.users.iter().chain(&background.users) {
            if u.username.is_empty()
                || t.users
                    .values()
                    .any(|o| o.email.eq_ignore_ascii_case(&u.email))
            {
                return Err(bad(format!(
                    "user {:?} has an empty name or a duplicate email",
                    u.username
                )));
            }
            if t.users.insert(u.username.clone(), u.clone()).is_some() {
                return Err(bad(format!("user {} is listed twice", u.username)));
            }
        }
        t.viewer = match &seed.viewer {
            Some(v) if !t.users.contains_key(v) => {
                return Err(bad(format!("viewer {v} is not a user")));
            }
            Some(v) => v.clone(),
            None => "api".into(),
        };
        for l in seed.labels.iter().chain(&background.labels) {
            if l.name.is_empty() || t.label(&l.name).is_some() {
                return Err(bad(format!("label {:?} is empty or listed twice", l.name)));
            }
            t.labels.insert(l.name.clone(), l.clone());
        }
        for issue in seed.issues.iter().chain(&background.issues) {
            let key = parse_id(&issue.id)
                .ok_or_else(|| bad(format!("issue id {:?} is not like ENG-12", issue.id)))?;
            if format_id(&key) != issue.id {
                return Err(bad(format!(
                    "issue id {:?} should be written {}",
                    issue.id,
                    format_id(&key)
                )));
            }
            if !t.projects.contains_key(&key.0) {
                return Err(bad(format!(
                    "issue {} belongs to no listed project",
                    issue.id
                )));
            }
            if issue.priority > 4 {
                return Err(bad(format!(
                    "issue {} has priority {}; 0-4 allowed",
                    issue.id, issue.priority
                )));
            }
            if let Some(a) = &issue.assignee
                && !t.users.contains_key(a)
            {
                return Err(bad(format!(
                    "issue {} is assigned to unknown user {a}",
                    issue.id
                )));
            }
            for l in &issue.labels {
                if !t.labels.contains_key(l) {
                    return Err(bad(format!("issue {} has unknown label {l}", issue.id)));
                }
            }
            for c in &issue.comments {
                if !t.users.contains_key(&c.author) {
                    return Err(bad(format!(
                        "a comment on {} is by unknown user {}",
                        issue.id, c.author
                    )));
                }
            }
            if t.issues.contains_key(&key) {
                return Err(bad(format!("issue {} is listed twice", issue.id)));
            }
            let mut issue = issue.clone();
            issue.labels.sort();
            issue.labels.dedup();
            t.issues.insert(key, issue);
        }
        for issue in t.issues.values() {
            if let Some(p) = &issue.parent
                && (p == &issue.id || parse_id(p).is_none_or(|k| !t.issues.contains_key(&k)))
            {
                return Err(bad(format!(
                    "issue {} has parent {p}, which is not another listed issue",
                    issue.id
                )));
            }
        }
        for link in &seed.links {
            for end in [&link.from, &link.to] {
                if parse_id(end).is_none_or(|k| !t.issues.contains_key(&k)) {
                    return Err(bad(format!("a link names unknown issue {end}")));
                }
            }
            if link.from == link.to {
                return Err(bad(format!("issue {} is linked to itself", link.from)));
            }
            t.links.insert(link.clone());
        }
        t.ledger = Ledger::new(TRACKER, t.measure());
        Ok(t)
    }

    /// The label spelled `name`, compared without regard to case.
    pub(crate) fn label(&self, name: &str) -> Option<&Label> {
        self.labels
            .values()
            .find(|l| l.name.eq_ignore_ascii_case(name))
    }

    pub(crate) fn key_of(&self, id: &str) -> Result<IssueKey, ToolError> {
        let key = parse_id(id).ok_or_else(|| {
            ToolError::invalid(format!(
                "{id:?} is not an issue identifier; they look like ENG-12"
            ))
        })?;
        if !self.issues.contains_key(&key) {
            return Err(ToolError::not_found(format!(
                "no issue {}",
                format_id(&key)
            )));
        }
        Ok(key)
    }

    pub(crate) fn issue(&self, id: &str) -> Result<&Issue, ToolError> {
        let key = self.key_of(id)?;
        Ok(&self.issues[&key])
    }

    pub(crate) fn project(&self, key: &str) -> Result<&Project, ToolError> {
        let upper = key.trim().to_ascii_uppercase();
        self.projects.get(&upper).ok_or_else(|| {
            let known: Vec<&str> = self.projects.keys().map(String::as_str).collect();
            ToolError::not_found(format!(
                "no project {key:?}; projects are {}",
                known.join(", ")
            ))
        })
    }

    /// Refuses changes in a project the acting user may only read.
    pub(crate) fn writable(&self, project: &str) -> Result<(), ToolError> {
        let p = self.project(project)?;
        if p.read_only {
            return Err(ToolError::denied(format!(
                "you have read-only access to project {} ({}); issues there cannot be created or changed",
                p.key, p.name
            )));
        }
        Ok(())
    }

    /// A user named by username or email, who must be active to receive work.
    pub(crate) fn assignable(&self, who: &str) -> Result<String, ToolError> {
        let who = who.trim();
        let user = self
            .users
            .values()
            .find(|u| u.username.eq_ignore_ascii_case(who) || u.email.eq_ignore_ascii_case(who))
            .ok_or_else(|| {
                ToolError::not_found(format!("no user with username or email {who:?}"))
            })?;
        if !user.active {
            return Err(ToolError::precondition(format!(
                "user {} is deactivated and cannot be assigned issues",
                user.username
            )));
        }
        Ok(user.username.clone())
    }

    /// Label names as stored, in the order given, without repeats; unknown ones are an error.
    pub(crate) fn resolve_labels(&self, names: &[String]) -> Result<Vec<String>, ToolError> {
        let mut out: Vec<String> = Vec::new();
        for n in names {
            let label = self.label(n.trim()).ok_or_else(|| {
                let known: Vec<&str> = self.labels.keys().map(String::as_str).collect();
                ToolError::not_found(format!(
                    "no label {n:?}; existing labels are {}",
                    known.join(", ")
                ))
            })?;
            if !out.contains(&label.name) {
                out.push(label.name.clone());
            }
        }
        out.sort();
        Ok(out)
    }

    /// What the tracker holds, measured from scratch: a sum of what each record costs, so a
    /// write moves it by exactly the records it adds, takes away or changes.
    pub(crate) fn measure(&self) -> Usage {
        let issues = self.issues.iter().map(|(key, i)| issue_usage(key, i));
        // A label is stored under its name, a link as itself.
        let labels = self.labels.iter().map(|(name, l)| Usage::of(1, &(name, l)));
        let links = self.links.iter().map(|l| Usage::of(1, l));
        issues
            .chain(labels)
            .chain(links)
            .fold(Usage::default(), |a, b| a + b)
    }

    /// Stores `issue` at `key`, new or in place of the one there, admitted for what it adds
    /// ([`TRACKER`]); a refusal changes nothing.
    pub(crate) fn put_issue(&mut self, key: IssueKey, issue: Issue) -> Result<(), ToolError> {
        let before = self
            .issues
            .get(&key)
            .map_or(Usage::default(), |old| issue_usage(&key, old));
        let after = issue_usage(&key, &issue);
        self.ledger.admit_change(before, after)?;
        self.issues.insert(key, issue);
        self.ledger.change(before, after);
        Ok(())
    }

    /// Stores a new workspace label, admitted first.
    pub(crate) fn add_label(&mut self, label: Label) -> Result<(), ToolError> {
        let adding = Usage::of(1, &(&label.name, &label));
        self.ledger.admit(adding)?;
        self.labels.insert(label.name.clone(), label);
        self.ledger.add(adding);
        Ok(())
    }

    /// Stores a new link, admitted first.
    pub(crate) fn add_link(&mut self, link: Link) -> Result<(), ToolError> {
        let adding = Usage::of(1, &link);
        self.ledger.admit(adding)?;
        self.links.insert(link);
        self.ledger.add(adding);
        Ok(())
    }

    /// The next free number in a project.
    pub(crate) fn next_number(&self, project: &str) -> u32 {
        self.issues
            .keys()
            .filter(|(p, _)| p == project)
            .map(|(_, n)| n + 1)
            .max()
            .unwrap_or(1)
    }

    pub(crate) fn snapshot(&self) -> Value {
        json!({
            "viewer": self.viewer,
            "projects": self.projects.values().collect::<Vec<_>>(),
            "users": self.users.values().collect::<Vec<_>>(),
            "labels": self.labels.values().collect::<Vec<_>>(),
            "issues": self.issues.values().collect::<Vec<_>>(),
            "links": self.links,
        })
    }
}
