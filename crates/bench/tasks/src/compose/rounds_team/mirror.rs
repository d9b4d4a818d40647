//! `compose.mirror_labelled_to_tracker` (github + tracker): the open issues of one label in a
//! large GitHub repository (more than one page of open issues) that have no tracker issue of
//! the same title in a named project get one, described by their GitHub link, and a comment
//! back on GitHub naming the project. One or two are mirrored already, and one is mirrored in
//! the wrong project.

use super::{issue_count, new_issue, next_number, tools, tracker, transient_fault};
use mcpbench_server_github::{Github, IssueSeed, State as GhState};
use mcpbench_server_tracker::{Issue, Status, Tracker};
use mcpbench_sim::{Pred, Rng, call, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;

#[rustfmt::skip]
const MIRROR_LABELS: &[&str] = &["customer", "regression", "p1", "needs-triage", "bug", "security"];

/// Labels of the other GitHub issues (the mirrored label is left out of each draw).
#[rustfmt::skip]
const GH_LABELS: &[&str] = &[
    "enhancement", "documentation", "question", "performance", "ui", "good-first-issue", "bug",
    "customer", "regression", "p1", "needs-triage", "security",
];

/// GitHub titles are `<area>: <problem>`; no problem contains another.
#[rustfmt::skip]
const AREAS: &[&str] = &[
    "Checkout", "Search", "Login", "Invoices", "Dashboard", "Notifications", "Exports", "Settings",
    "Onboarding", "Webhooks",
];
#[rustfmt::skip]
const PROBLEMS: &[&str] = &[
    "times out on large accounts", "shows stale data after a refresh", "ignores the user's locale",
    "returns a 500 on empty input", "breaks in mobile Safari", "drops the last page of results",
    "logs email addresses in plain text", "double-counts retried requests",
];
#[rustfmt::skip]
const BODIES: &[&str] = &[
    "Reported by a customer on the enterprise plan.", "Seen in production since the last release.",
    "Reproducible on staging with the seed data.", "Happens about one time in five.",
];

#[derive(Clone, Copy, PartialEq)]
enum Gh {
    /// Open, labelled, not in the project yet (one of them also in another project).
    Target,
    /// Open, labelled, already in the project.
    Mirrored,
    /// Closed and labelled.
    ClosedLabelled,
    /// Closed, another label.
    Closed,
    /// Open, another label (some of them in the project too).
    Open,
}

pub(super) fn mirror(rng: &mut Rng) -> Composed {
    mirror_with(rng, false)
}

pub(super) fn mirror_after_fault(rng: &mut Rng) -> Composed {
    mirror_with(rng, true)
}

fn mirror_with(rng: &mut Rng, fault: bool) -> Composed {
    let mut gh = mcpbench_server_github::sample_seed(rng);
    let label = *rng.pick(MIRROR_LABELS);
    let others: Vec<&str> = GH_LABELS.iter().copied().filter(|l| *l != label).collect();
    let repo = &mut gh.repos[0];
    for i in &mut repo.issues {
        i.labels.retain(|l| l != label);
    }
    let (owner, name) = (repo.owner.clone(), repo.name.clone());
    let url = |n: u64| format!("https://github.com/{owner}/{name}/issues/{n}");
    let n = rng.range(3, 5) as usize;
    let total = rng.range(36, 42) as usize;
    let mut roles = vec![Gh::Target; n - 1];
    roles.extend(vec![Gh::Mirrored; rng.range(1, 2) as usize]);
    roles.extend(vec![Gh::ClosedLabelled; rng.range(1, 2) as usize]);
    roles.extend(vec![Gh::Closed; rng.range(1, 3) as usize]);
    roles.resize(total - 1, Gh::Open);
    rng.shuffle(&mut roles);
    // The oldest added issue is a target: with at least 30 newer open issues above it, it is
    // on the second page of the open issues listed 30 a page, newest first.
    roles.insert(0, Gh::Target);
    let mut titles: Vec<String> = AREAS
        .iter()
        .flat_map(|a| PROBLEMS.iter().map(move |p| format!("{a}: {p}")))
        .collect();
    rng.shuffle(&mut titles);
    let first = repo.issues.iter().map(|i| i.number).max().unwrap_or(0) + 1;
    let mut added: Vec<(Gh, IssueSeed)> = Vec::new();
    for (k, (&role, title)) in roles.iter().zip(&titles).enumerate() {
        let k_labels = rng.range(1, 2) as usize;
        let body = *rng.pick(BODIES);
        let labels: Vec<&str> = match role {
            Gh::Target | Gh::Mirrored | Gh::ClosedLabelled => vec![label],
            Gh::Closed | Gh::Open => rng.sample(&others, k_labels),
        };
        let mut issue = IssueSeed::new(first + k as u64, title, body, &labels);
        if matches!(role, Gh::ClosedLabelled | Gh::Closed) {
            issue.state = GhState::Closed;
        }
        issue.user = Some(rng.pick(&repo.collaborators).clone());
        added.push((role, issue));
    }
    repo.issues.extend(added.iter().map(|(_, i)| i.clone()));
    let open_above = added[1..]
        .iter()
        .filter(|(_, i)| i.state == GhState::Open)
        .count();
    debug_assert!(open_above >= 30, "a target must be on page 2");

    let mut seed = mcpbench_server_tracker::sample_seed(rng);
    let p = rng.below(seed.projects.len() as u64) as usize;
    let project = seed.projects[p].clone();
    let key = project.key.clone();
    let elsewhere = seed.projects[(p + 1) % seed.projects.len()].key.clone();
    let of = |role: Gh| -> Vec<&IssueSeed> {
        (added.iter())
            .filter(|(r, _)| *r == role)
            .map(|(_, i)| i)
            .collect()
    };
    // Newest first, as GitHub lists them.
    let targets: Vec<&IssueSeed> = of(Gh::Target).into_iter().rev().collect();
    let open_others = of(Gh::Open);
    let mut in_project: Vec<&IssueSeed> = of(Gh::Mirrored);
    let k_open = rng.range(2, 3) as usize;
    in_project.extend(rng.sample(&open_others, k_open));
    in_project.sort_by_key(|i| i.number);
    let start = next_number(&seed.issues, &key);
    for (number, g) in (start..).zip(&in_project) {
        let status = *rng.pick(&[Status::Backlog, Status::Todo, Status::InProgress]);
        let issue = new_issue(format!("{key}-{number}"), &g.title, status, None, &[]);
        seed.issues.push(Issue {
            description: url(g.number),
            ..issue
        });
    }
    // One target is mirrored already, but in another project.
    let stray = targets[rng.below(n as u64) as usize];
    let id = format!("{elsewhere}-{}", next_number(&seed.issues, &elsewhere));
    let copy = new_issue(id, &stray.title, Status::Todo, None, &[]);
    seed.issues.push(Issue {
        description: url(stray.number),
        ..copy
    });

    let pname = project.name.clone();
    let comment = format!("Now tracked in our issue tracker under {pname}");
    let exists = |title: &str, description: Option<String>| {
        tracker(mcpbench_server_tracker::Atom::IssueExists {
            project: key.clone(),
            title: title.into(),
            description,
            status: None,
            priority: None,
            assignee: None,
            labels: None,
            estimate: None,
            parent: None,
        })
    };
    let mut checks: Vec<Pred<Atom>> = Vec::new();
    for t in &targets {
        checks.push(exists(&t.title, Some(url(t.number))));
        checks.push(Pred::Atom(Atom::github(
            mcpbench_server_github::Atom::IssueCommentContains {
                owner: owner.clone(),
                repo: name.clone(),
                number: t.number,
                text: pname.clone(),
            },
        )));
    }
    // Counted by title, each target is in the project once (a retried creation that went
    // through twice, or a mistaken copy canceled afterwards, still counts), each issue already
    // there stays single, and no other project gains a copy. (Counted by title, not in all:
    // a background backlog fills the projects with issues of its own.)
    for t in &targets {
        checks.push(issue_count(&key, Some(&t.title), 1));
    }
    for g in &in_project {
        checks.push(issue_count(&key, Some(&g.title), 1));
    }
    for c in of(Gh::ClosedLabelled) {
        checks.push(issue_count(&key, Some(&c.title), 0));
    }
    for p in seed.projects.iter().filter(|p| p.key != key) {
        let prefix = format!("{}-", p.key);
        for t in &targets {
            let before = (seed.issues.iter())
                .filter(|i| i.id.starts_with(&prefix) && i.title == t.title)
                .count();
            checks.push(issue_count(&p.key, Some(&t.title), before));
        }
    }

    let mut steps = vec![
        call::<Github>(
            "list_issues",
            json!({ "owner": owner, "repo": name, "labels": [label] }),
        ),
        call::<Tracker>("list_projects", json!({})),
        call::<Tracker>("search_issues", json!({ "project": key })),
    ];
    for t in &targets {
        steps.push(call::<Tracker>(
            "create_issue",
            json!({ "project": key, "title": t.title, "description": url(t.number) }),
        ));
        steps.push(call::<Github>(
            "add_issue_comment",
            json!({ "owner": owner, "repo": name, "issue_number": t.number, "body": comment }),
        ));
    }
    let writes = [
        ("tracker.create_issue", "created"),
        ("github.add_issue_comment", "posted"),
    ];
    let faults = transient_fault(rng, fault, &mut steps, n, writes);

    let example = format!("https://github.com/{owner}/{name}/issues/<number>");
    let goal = match rng.below(2) {
        0 => format!(
            "Some open GitHub issues labelled {label} in {owner}/{name} never made it into our issue tracker. For each open {label} issue there that has no issue with exactly the same title in the tracker's {pname} project, create one in {pname} with that title and the GitHub issue's link ({example}) as its whole description, then comment on the GitHub issue to say it is now tracked in {pname}. Closed GitHub issues need nothing, and nothing already in {pname} should get a second copy."
        ),
        _ => format!(
            "Bring the {pname} project of our issue tracker up to date with the {label} issues of the {owner}/{name} repository on GitHub: every open issue there labelled {label} whose title no issue in {pname} has yet gets a new issue in {pname} with the same title, described by nothing but its GitHub link ({example}), and a comment on the GitHub issue naming {pname} as where it is tracked now. Skip closed issues and don't duplicate ones already mirrored in {pname}."
        ),
    };
    Composed {
        max_steps: steps.len() as u32 + 6,
        goal,
        initial_state: InitialState {
            github: Some(gh),
            tracker: Some(seed),
            ..Default::default()
        },
        available_tools: tools(
            "github.list_issues github.search_issues github.get_issue \
             github.add_issue_comment github.get_issue_comments github.update_issue \
             tracker.list_projects tracker.search_issues tracker.get_issue \
             tracker.create_issue tracker.update_issue tracker.list_labels",
        ),
        success_predicate: Pred::All(checks),
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("label", json!(label)),
            ("project", json!(key)),
            ("targets", json!(n)),
            ("error", json!(faults.first().map(|f| f.error.as_str()))),
        ]),
        faults,
        reference_solutions: vec![steps],
    }
}
