//! Template grammars for tasks on the tracker alone, and [`sample_seed`], a small random
//! workspace other crates can build cross-server tasks on. Every parameter is drawn from a
//! bounded pool or range, and every goal states each concrete value the task needs.

mod composition;
mod recovery;
mod single;

use crate::{Atom, Issue, Label, Project, Seed, Status, Tracker, User};
use mcpbench_sim::{Category, Difficulty, Pred, Rng, Template};

pub(crate) fn all() -> Vec<Template<Tracker>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "tracker.file_bug",
            category: SingleTool,
            difficulty: Easy,
            build: single::file_bug,
        },
        Template {
            id: "tracker.assign_to_teammate",
            category: SingleTool,
            difficulty: Easy,
            build: single::assign_to_teammate,
        },
        Template {
            id: "tracker.send_to_review",
            category: SingleTool,
            difficulty: Easy,
            build: single::send_to_review,
        },
        Template {
            id: "tracker.add_label",
            category: SingleTool,
            difficulty: Medium,
            build: single::add_label,
        },
        Template {
            id: "tracker.count_open_bugs",
            category: Composition,
            difficulty: Medium,
            build: composition::count_open_bugs,
        },
        Template {
            id: "tracker.close_duplicate",
            category: Composition,
            difficulty: Medium,
            build: composition::close_duplicate,
        },
        Template {
            id: "tracker.triage_bug",
            category: Composition,
            difficulty: Hard,
            build: composition::triage_bug,
        },
        Template {
            id: "tracker.split_into_subtasks",
            category: Composition,
            difficulty: Hard,
            build: composition::split_into_subtasks,
        },
        Template {
            id: "tracker.comment_after_outage",
            category: Recovery,
            difficulty: Easy,
            build: recovery::comment_after_outage,
        },
        Template {
            id: "tracker.file_elsewhere",
            category: Recovery,
            difficulty: Medium,
            build: recovery::file_elsewhere,
        },
        Template {
            id: "tracker.add_missing_label",
            category: Recovery,
            difficulty: Medium,
            build: recovery::add_missing_label,
        },
        Template {
            id: "tracker.finish_via_review",
            category: Recovery,
            difficulty: Hard,
            build: recovery::finish_via_review,
        },
    ]
}

const PROJECTS: &[(&str, &str)] = &[
    ("ENG", "Engineering"),
    ("WEB", "Web"),
    ("MOB", "Mobile"),
    ("OPS", "Operations"),
    ("DATA", "Data Platform"),
    ("PAY", "Payments"),
];

const PEOPLE: &[(&str, &str)] = &[
    ("priya", "Priya Shah"),
    ("omar", "Omar Haddad"),
    ("li", "Li Wei"),
    ("dana", "Dana Kim"),
    ("jonas", "Jonas Berg"),
    ("mei", "Mei Tanaka"),
    ("tariq", "Tariq Aziz"),
    ("ines", "Ines Costa"),
    ("kofi", "Kofi Mensah"),
    ("sven", "Sven Olsen"),
];

pub(crate) const LABELS: &[&str] = &[
    "bug",
    "feature",
    "improvement",
    "security",
    "performance",
    "docs",
    "tech-debt",
    "customer",
];

/// Labels no sampled workspace has, for tasks that must create one.
pub(crate) const NEW_LABELS: &[&str] = &[
    "regression",
    "accessibility",
    "flaky-test",
    "needs-design",
    "billing",
    "onboarding",
];

/// Titles of seeded issues.
const TITLES: &[&str] = &[
    "Login button unresponsive on Safari",
    "Password reset email arrives twice",
    "Dashboard charts render blank after refresh",
    "CSV export drops the last row",
    "Search ignores accented characters",
    "Dark mode toggle resets on reload",
    "Upgrade the logging library",
    "Add rate limiting to the public API",
    "Flaky test in checkout suite",
    "Slow query on the orders report",
    "Document the webhook retry policy",
    "Avatar upload fails for PNG files over 2 MB",
    "Timezone shown wrong in activity feed",
    "Remove the legacy v1 endpoints",
    "Add SSO for enterprise accounts",
    "Mobile menu overlaps the footer",
    "Cache invoice PDFs",
    "Notifications badge never clears",
    "Migrate cron jobs to the scheduler",
    "Improve onboarding checklist copy",
    "Broken link in the pricing page",
    "Memory leak in the sync worker",
    "Audit admin role permissions",
    "Support bulk archive of projects",
];

/// Titles of bugs a task asks the agent to file; none is ever seeded.
pub(crate) const NEW_BUGS: &[&str] = &[
    "Checkout total ignores discount codes",
    "Session expires during file upload",
    "Typo in the welcome email subject",
    "Signup form accepts invalid phone numbers",
    "Invoices list is not sorted by date",
    "Export button missing for read-only members",
];

/// Titles of pieces of work a task asks the agent to create; none is ever seeded.
pub(crate) const NEW_TASKS: &[&str] = &[
    "Add audit log export",
    "Rotate the staging database credentials",
    "Show last login time on the profile page",
    "Retry failed webhook deliveries",
    "Write the runbook for the payment gateway",
    "Add a health check for the search cluster",
    "Set up alerts for queue backlog",
];

pub(crate) const DESCRIPTIONS: &[&str] = &[
    "Reported by two customers this week.",
    "Seen on staging and production since Monday.",
    "Happens only for accounts created before 2023.",
    "Steps: open the page, refresh twice, watch the console.",
    "Blocks the enterprise rollout next sprint.",
    "Low impact but very visible to new users.",
];

pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, atom};

/// `IssueExists` with only project and title; set the other fields on the result.
pub(crate) struct Exists {
    pub project: String,
    pub title: String,
    pub description: Option<String>,
    pub priority: Option<u8>,
    pub assignee: Option<String>,
    pub labels: Option<Vec<String>>,
    pub estimate: Option<u32>,
    pub parent: Option<String>,
}

impl Exists {
    pub(crate) fn new(project: &str, title: &str) -> Self {
        Exists {
            project: project.into(),
            title: title.into(),
            description: None,
            priority: None,
            assignee: None,
            labels: None,
            estimate: None,
            parent: None,
        }
    }
    pub(crate) fn pred(self) -> Pred<Atom> {
        atom(Atom::IssueExists {
            project: self.project,
            title: self.title,
            description: self.description,
            status: None,
            priority: self.priority,
            assignee: self.assignee,
            labels: self.labels,
            estimate: self.estimate,
            parent: self.parent,
        })
    }
}

/// "High", for priorities 1-4.
pub(crate) fn priority_word(p: u8) -> &'static str {
    ["no", "Urgent", "High", "Medium", "Low"][usize::from(p.min(4))]
}

pub(crate) fn project_name(seed: &Seed, key: &str) -> String {
    seed.projects
        .iter()
        .find(|p| p.key == key)
        .map(|p| p.name.clone())
        .unwrap_or_default()
}

pub(crate) fn project_of(issue: &Issue) -> String {
    issue
        .id
        .rsplit_once('-')
        .map(|(k, _)| k.to_string())
        .unwrap_or_default()
}

pub(crate) fn user<'a>(seed: &'a Seed, username: &str) -> &'a User {
    seed.users
        .iter()
        .find(|u| u.username == username)
        .expect("sampled user")
}

/// The index of a random issue that `keep` accepts; the sample always has one.
pub(crate) fn pick_issue(rng: &mut Rng, seed: &Seed, keep: impl Fn(&Issue) -> bool) -> usize {
    let ok: Vec<usize> = (0..seed.issues.len())
        .filter(|&i| keep(&seed.issues[i]))
        .collect();
    *rng.pick(&ok)
}

/// A small workspace: two or three projects (all writable), six active users (the first is
/// the acting user), the standard labels, and four to six issues per project with distinct
/// titles, random statuses, priorities, assignees, labels and estimates. No links.
pub fn sample_seed(rng: &mut Rng) -> Seed {
    let n_projects = rng.range(2, 3) as usize;
    let projects: Vec<Project> = rng
        .sample(PROJECTS, n_projects)
        .into_iter()
        .map(|(key, name)| Project {
            key: key.into(),
            name: name.into(),
            description: format!("{name} work"),
            read_only: false,
        })
        .collect();
    let users: Vec<User> = rng
        .sample(PEOPLE, 6)
        .into_iter()
        .map(|(u, n)| User {
            username: u.into(),
            name: n.into(),
            email: format!("{u}@acme.test"),
            active: true,
        })
        .collect();
    let labels: Vec<Label> = LABELS
        .iter()
        .map(|l| Label {
            name: l.to_string(),
            description: String::new(),
        })
        .collect();
    let mut titles = TITLES.to_vec();
    rng.shuffle(&mut titles);
    let mut titles = titles.into_iter();
    let mut issues = Vec::new();
    for p in &projects {
        let first = rng.range(1, 40) as u32;
        for n in 0..rng.range(4, 6) as u32 {
            let assignee = (!rng.chance(1, 4)).then(|| rng.pick(&users).username.clone());
            let n_labels = rng.range(0, 2) as usize;
            let mut labels: Vec<String> = rng
                .sample(LABELS, n_labels)
                .into_iter()
                .map(String::from)
                .collect();
            labels.sort();
            issues.push(Issue {
                id: format!("{}-{}", p.key, first + n),
                title: titles.next().expect("enough titles").into(),
                description: rng.pick(DESCRIPTIONS).to_string(),
                status: *rng.pick(&Status::ALL),
                priority: rng.range(0, 4) as u8,
                assignee,
                labels,
                estimate: rng.chance(1, 2).then(|| *rng.pick(&[1u32, 2, 3, 5, 8])),
                parent: None,
                comments: vec![],
            });
        }
    }
    Seed {
        viewer: Some(users[0].username.clone()),
        projects,
        users,
        labels,
        issues,
        links: vec![],
        background: None,
    }
}
