//! Composition templates: several calls with data flowing between them.

use super::{
    Exists, Kit, NEW_BUGS, NEW_TASKS, atom, params, pick_issue, priority_word, project_name,
    project_of, sample_seed,
};
use crate::{Atom, LinkType, Status, Tracker};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

pub(crate) fn count_open_bugs(rng: &mut Rng) -> Draft<Tracker> {
    let mut seed = sample_seed(rng);
    let key = rng.pick(&seed.projects).key.clone();
    let name = project_name(&seed, &key);
    let mut mine: Vec<usize> = (0..seed.issues.len())
        .filter(|&i| project_of(&seed.issues[i]) == key)
        .collect();
    rng.shuffle(&mut mine);
    let n_bugs = rng.range(3, mine.len() as i64) as usize;
    for (n, &i) in mine.iter().enumerate() {
        let issue = &mut seed.issues[i];
        issue.labels.retain(|l| l != "bug");
        if n < n_bugs {
            issue.labels.push("bug".into());
            issue.labels.sort();
        }
    }
    // At least one closed and one open bug, so neither "all" nor "none" is the answer.
    seed.issues[mine[0]].status = *rng.pick(&[Status::Done, Status::Canceled]);
    seed.issues[mine[1]].status = *rng.pick(&[Status::Todo, Status::InProgress, Status::InReview]);
    let open = mine[..n_bugs]
        .iter()
        .filter(|&&i| seed.issues[i].status.is_open())
        .count();
    Draft {
        goal: format!(
            "How many issues in the {name} project ({key}) carry the label bug and are still open, that is neither done nor canceled? Reply with the number."
        ),
        max_steps: 6,
        seed,
        tools: Tracker::tools(&["search_issues", "get_issue", "list_projects", "list_labels"]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: open as f64,
            tolerance: 0.0,
        }),
        references: vec![vec![
            call::<Tracker>("search_issues", json!({ "project": key, "label": "bug" })),
            Step::Answer {
                answer: open.to_string(),
            },
        ]],
        faults: vec![],
        params: params(&[
            ("project", json!(key)),
            ("bugs", json!(n_bugs)),
            ("open", json!(open)),
        ]),
    }
}

pub(crate) fn close_duplicate(rng: &mut Rng) -> Draft<Tracker> {
    let mut seed = sample_seed(rng);
    let dup_at = pick_issue(rng, &seed, |_| true);
    let key = project_of(&seed.issues[dup_at]);
    let orig_at = pick_issue(rng, &seed, |i| {
        project_of(i) == key && i.id != seed.issues[dup_at].id
    });
    seed.issues[dup_at].status = *rng.pick(&[Status::Backlog, Status::Todo, Status::InProgress]);
    if !seed.issues[orig_at].status.is_open() {
        seed.issues[orig_at].status = Status::Todo;
    }
    let reworded = format!(
        "Customer report: {}",
        seed.issues[orig_at].title.to_lowercase()
    );
    seed.issues[dup_at].title = reworded;
    let (dup, orig) = (seed.issues[dup_at].clone(), seed.issues[orig_at].clone());
    let cancel = call::<Tracker>(
        "transition_issue",
        json!({ "id": dup.id, "status": "canceled" }),
    );
    Draft {
        goal: format!(
            "The issue \"{}\" reports the same problem as \"{}\". Mark the first as a duplicate of the second and cancel it; leave the second as it is.",
            dup.title, orig.title
        ),
        max_steps: 6,
        seed,
        tools: Tracker::tools(&[
            "link_issues",
            "transition_issue",
            "update_issue",
            "get_issue",
            "search_issues",
            "add_comment",
        ]),
        predicate: Pred::All(vec![
            atom(Atom::IssueLinked {
                id: dup.id.clone(),
                target: orig.id.clone(),
                link_type: LinkType::Duplicates,
            }),
            atom(Atom::IssueStatus {
                id: dup.id.clone(),
                status: Status::Canceled,
            }),
            atom(Atom::IssueStatus {
                id: orig.id.clone(),
                status: orig.status,
            }),
        ]),
        references: vec![
            vec![
                call::<Tracker>("search_issues", json!({ "query": orig.title })),
                call::<Tracker>(
                    "link_issues",
                    json!({ "id": dup.id, "target": orig.id, "type": "duplicates" }),
                ),
                cancel.clone(),
            ],
            vec![
                call::<Tracker>("search_issues", json!({ "query": orig.title })),
                call::<Tracker>(
                    "link_issues",
                    json!({ "id": orig.id, "target": dup.id, "type": "duplicated_by" }),
                ),
                cancel,
            ],
        ],
        faults: vec![],
        params: params(&[("duplicate", json!(dup.id)), ("original", json!(orig.id))]),
    }
}

pub(crate) fn triage_bug(rng: &mut Rng) -> Draft<Tracker> {
    let seed = sample_seed(rng);
    let key = rng.pick(&seed.projects).key.clone();
    let name = project_name(&seed, &key);
    let title = rng.pick(NEW_BUGS).to_string();
    let priority = rng.range(1, 3) as u8;
    let who = rng.pick(&seed.users[1..]).clone();
    let mut want = Exists::new(&key, &title);
    want.priority = Some(priority);
    want.labels = Some(vec!["bug".into()]);
    want.assignee = Some(who.username.clone());
    let lookup = call::<Tracker>("list_users", json!({ "query": who.name }));
    Draft {
        goal: format!(
            "File a bug in the {name} project ({key}) titled \"{title}\", labelled bug, with {} priority, and assign it to {}.",
            priority_word(priority),
            who.name
        ),
        max_steps: 6,
        seed,
        tools: Tracker::tools(&[
            "create_issue",
            "list_users",
            "assign_issue",
            "update_issue",
            "list_labels",
            "search_issues",
            "list_projects",
        ]),
        predicate: want.pred(),
        // Only the one-call reference: filing first and assigning after needs the id the
        // run gives the new issue, which a background's backlog moves on.
        references: vec![vec![
            lookup,
            call::<Tracker>(
                "create_issue",
                json!({ "project": key, "title": title, "labels": ["bug"], "priority": priority, "assignee": who.username }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("project", json!(key)),
            ("title", json!(title)),
            ("priority", json!(priority)),
            ("assignee", json!(who.username)),
        ]),
    }
}

pub(crate) fn split_into_subtasks(rng: &mut Rng) -> Draft<Tracker> {
    let seed = sample_seed(rng);
    let at = pick_issue(rng, &seed, |i| i.status.is_open());
    let parent = seed.issues[at].clone();
    let key = project_of(&parent);
    let titles = rng.sample(NEW_TASKS, 2);
    let points = [*rng.pick(&[1u32, 2, 3]), *rng.pick(&[5u32, 8])];
    let mut checks = Vec::new();
    let mut steps = Vec::new();
    for (title, estimate) in titles.iter().zip(points) {
        let mut want = Exists::new(&key, title);
        want.parent = Some(parent.id.clone());
        want.estimate = Some(estimate);
        checks.push(want.pred());
        steps.push(call::<Tracker>(
            "create_issue",
            json!({ "project": key, "title": title, "parent": parent.id, "estimate": estimate }),
        ));
    }
    Draft {
        goal: format!(
            "Break the issue \"{}\" down into two sub-issues in the same project: \"{}\" estimated at {} points, and \"{}\" estimated at {} points.",
            parent.title, titles[0], points[0], titles[1], points[1]
        ),
        max_steps: 6,
        seed,
        tools: Tracker::tools(&[
            "create_issue",
            "update_issue",
            "get_issue",
            "search_issues",
            "link_issues",
        ]),
        predicate: Pred::All(checks),
        references: vec![
            std::iter::once(call::<Tracker>(
                "search_issues",
                json!({ "query": parent.title }),
            ))
            .chain(steps)
            .collect(),
        ],
        faults: vec![],
        params: params(&[
            ("parent", json!(parent.id)),
            ("titles", json!(titles)),
            ("estimates", json!(points)),
        ]),
    }
}
