//! `compose.github_issue_to_tracker` (github + tracker): three GitHub issues named by number
//! go into a tracker project named by its name, under their GitHub titles and with a label,
//! and each GitHub issue gets a comment naming that project. One of them is already in the
//! project (filing it again makes a duplicate); another has a namesake in a different
//! project, which does not count. A careless agent files all three, or skips the one whose
//! title it saw elsewhere.

use super::{fill, issue, next_number, tools};
use mcpbench_server_github::{Github, IssueSeed};
use mcpbench_server_tracker::{Status, Tracker};
use mcpbench_sim::{Pred, Rng, call, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;

const TRACKING_LABELS: &[&str] = &["bug", "customer", "improvement", "feature"];

/// Titles of GitHub issues added to the sample repository.
#[rustfmt::skip]
const GH_TITLES: &[&str] = &[
    "Webhook retries never give up", "OAuth callback drops the state parameter",
    "Health endpoint reports ready before migrations finish", "CLI ignores the config file path",
    "Pagination links point at the wrong host", "Metrics exporter leaks file descriptors",
    "Docker image runs as root", "Unicode filenames break the upload endpoint",
];

/// Ways to ask, with `{nums}` (like `#3, #5 and #8`), `{repo}`, `{project}` and `{label}`.
const GOALS: [&str; 3] = [
    "GitHub issues {nums} in {repo} should be tracked in the {project} project of our issue tracker. Add each one there under its GitHub title with the label {label}, unless it is already in that project, and comment on each GitHub issue saying which tracker project it is tracked in.",
    "Can you make sure {nums} from the {repo} repository on GitHub are in our tracker's {project} project? Anything missing goes in with the same title as on GitHub and the label {label}; don't file duplicates of ones already there. Then leave a comment on each of those GitHub issues naming the tracker project.",
    "We track GitHub work in the tracker's {project} project. Please bring over issues {nums} from {repo}: same titles, label {label}, skipping any the project already has, and note on every one of the GitHub issues, in a comment, which tracker project it lives in.",
];

pub(super) fn github_issue_to_tracker(rng: &mut Rng) -> Composed {
    let mut gh = mcpbench_server_github::sample_seed(rng);
    let mut tracker = mcpbench_server_tracker::sample_seed(rng);
    let repo = &mut gh.repos[0];
    let first = repo.issues.iter().map(|i| i.number).max().unwrap_or(0) + 1;
    for (k, title) in rng.sample(GH_TITLES, 4).into_iter().enumerate() {
        let labels = rng.sample(&["enhancement", "performance", "security", "ui"], 1);
        let body = format!("Seen in production: {}.", title.to_lowercase());
        repo.issues
            .push(IssueSeed::new(first + k as u64, title, &body, &labels));
    }
    let repo = repo.clone();
    // GitHub issues whose title no tracker issue has yet; three of them are this round's.
    let fresh: Vec<&IssueSeed> = (repo.issues.iter())
        .filter(|i| tracker.issues.iter().all(|t| t.title != i.title))
        .collect();
    let mut targets: Vec<IssueSeed> = rng.sample(&fresh, 3).into_iter().cloned().collect();
    let p = rng.below(tracker.projects.len() as u64) as usize;
    let project = tracker.projects[p].clone();
    let elsewhere = tracker.projects[(p + 1) % tracker.projects.len()]
        .key
        .clone();
    let key = project.key.clone();
    let label = *rng.pick(TRACKING_LABELS);
    // The first is already tracked here; the second's title is in another project only.
    for (k, at) in [&key, &elsewhere].into_iter().enumerate() {
        let id = format!("{at}-{}", next_number(&tracker.issues, at));
        let status = *rng.pick(&[Status::Backlog, Status::Todo, Status::InProgress]);
        let labels = [*rng.pick(TRACKING_LABELS)];
        tracker
            .issues
            .push(issue(id, &targets[k].title, status, &labels));
    }
    let (owner, name) = (repo.owner.clone(), repo.name.clone());
    // The comment names the project, not a new issue's key: a check on a key the run creates
    // would fail a correct agent whose first attempt made a mistaken issue.
    let comment = format!("Now tracked in our tracker: {}", project.name);
    let mut steps = vec![
        call::<Github>("list_issues", json!({ "owner": owner, "repo": name })),
        call::<Tracker>("list_projects", json!({})),
        call::<Tracker>("search_issues", json!({ "project": key })),
    ];
    for t in &targets[1..] {
        let args = json!({ "project": key, "title": t.title, "labels": [label] });
        steps.push(call::<Tracker>("create_issue", args));
    }
    let mut checks = Vec::new();
    for (k, t) in targets.iter().enumerate() {
        steps.push(call::<Github>(
            "add_issue_comment",
            json!({ "owner": owner, "repo": name, "issue_number": t.number, "body": comment }),
        ));
        checks.push(tracked(&key, &t.title, (k > 0).then_some(label)));
        checks.push(Pred::Atom(Atom::github(
            mcpbench_server_github::Atom::IssueCommentContains {
                owner: owner.clone(),
                repo: name.clone(),
                number: t.number,
                text: project.name.clone(),
            },
        )));
    }
    let numbers: Vec<u64> = targets.iter().map(|t| t.number).collect();
    targets.sort_by_key(|t| t.number);
    let nums: Vec<String> = targets.iter().map(|t| format!("#{}", t.number)).collect();
    let nums = format!("{}, {} and {}", nums[0], nums[1], nums[2]);
    let full = format!("{owner}/{name}");
    let slots = [
        ("nums", nums.as_str()),
        ("repo", full.as_str()),
        ("project", project.name.as_str()),
        ("label", label),
    ];
    let template = *rng.pick(&GOALS);
    let goal = fill(template, &slots);
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            github: Some(gh),
            tracker: Some(tracker),
            ..Default::default()
        },
        available_tools: tools(&[
            (
                "github",
                &[
                    "get_issue",
                    "list_issues",
                    "search_issues",
                    "add_issue_comment",
                    "get_issue_comments",
                ],
            ),
            (
                "tracker",
                &[
                    "list_projects",
                    "list_labels",
                    "search_issues",
                    "get_issue",
                    "create_issue",
                ],
            ),
        ]),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("repo", json!(full)),
            ("issues", json!(numbers)),
            ("project", json!(key)),
            ("label", json!(label)),
        ]),
    }
}

/// `project` holds exactly one issue titled `title`, carrying exactly `label` when given.
fn tracked(project: &str, title: &str, label: Option<&str>) -> Pred<Atom> {
    use mcpbench_server_tracker::Atom::{IssueCount, IssueExists};
    let mut all = vec![Pred::Atom(Atom::tracker(IssueCount {
        project: project.into(),
        count: 1,
        title: Some(title.into()),
    }))];
    if let Some(label) = label {
        all.push(Pred::Atom(Atom::tracker(IssueExists {
            project: project.into(),
            title: title.into(),
            description: None,
            status: None,
            priority: None,
            assignee: None,
            labels: Some(vec![label.into()]),
            estimate: None,
            parent: None,
        })));
    }
    Pred::All(all)
}
