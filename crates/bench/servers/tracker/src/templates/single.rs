//! Single-tool templates: one call of the right tool with the right arguments.

use super::{
    DESCRIPTIONS, Exists, Kit, LABELS, NEW_BUGS, atom, params, pick_issue, priority_word,
    project_name, project_of, sample_seed, user,
};
use crate::{Atom, Status, Tracker};
use mcpbench_sim::{Draft, Pred, Rng, call};
use serde_json::json;

pub(crate) fn file_bug(rng: &mut Rng) -> Draft<Tracker> {
    let seed = sample_seed(rng);
    let key = rng.pick(&seed.projects).key.clone();
    let name = project_name(&seed, &key);
    let title = rng.pick(NEW_BUGS).to_string();
    let description = rng.pick(DESCRIPTIONS).to_string();
    let priority = rng.range(1, 4) as u8;
    let mut want = Exists::new(&key, &title);
    want.description = Some(description.clone());
    want.priority = Some(priority);
    Draft {
        goal: format!(
            "In the {name} project ({key}), file a new issue titled \"{title}\" with the description \"{description}\" and {} priority.",
            priority_word(priority)
        ),
        max_steps: 3,
        seed,
        tools: Tracker::tools(&[
            "create_issue",
            "search_issues",
            "list_projects",
            "update_issue",
            "list_labels",
        ]),
        predicate: want.pred(),
        references: vec![vec![call::<Tracker>(
            "create_issue",
            json!({ "project": key, "title": title, "description": description, "priority": priority }),
        )]],
        faults: vec![],
        params: params(&[
            ("project", json!(key)),
            ("title", json!(title)),
            ("priority", json!(priority)),
        ]),
    }
}

pub(crate) fn assign_to_teammate(rng: &mut Rng) -> Draft<Tracker> {
    let seed = sample_seed(rng);
    let at = pick_issue(rng, &seed, |i| i.status.is_open());
    let issue = seed.issues[at].clone();
    let others: Vec<&str> = seed
        .users
        .iter()
        .filter(|u| Some(&u.username) != issue.assignee.as_ref())
        .map(|u| u.username.as_str())
        .collect();
    let name = *rng.pick(&others);
    let who = user(&seed, name).clone();
    Draft {
        goal: format!("Assign the issue \"{}\" to {}.", issue.title, who.name),
        max_steps: 5,
        seed,
        tools: Tracker::tools(&[
            "assign_issue",
            "update_issue",
            "get_issue",
            "list_users",
            "search_issues",
        ]),
        predicate: atom(Atom::IssueAssignee {
            id: issue.id.clone(),
            assignee: Some(who.username.clone()),
        }),
        references: ["assign_issue", "update_issue"]
            .into_iter()
            .map(|tool| {
                vec![
                    call::<Tracker>("search_issues", json!({ "query": issue.title })),
                    call::<Tracker>("list_users", json!({})),
                    call::<Tracker>(tool, json!({ "id": issue.id, "assignee": who.email })),
                ]
            })
            .collect(),
        faults: vec![],
        params: params(&[
            ("issue", json!(issue.id)),
            ("assignee", json!(who.username)),
        ]),
    }
}

/// Ways to say an issue is ready for review, with `{title}`.
const REVIEW_ASKS: &[&str] = &[
    "The issue \"{title}\" is ready for review: move it to In Review.",
    "I've finished the work on \"{title}\". Put the issue in review, please.",
    "\"{title}\" can be reviewed now; set its status accordingly.",
    "Please send the issue \"{title}\" to In Review.",
    "The fix for \"{title}\" is up for review. Update the issue's status to match.",
    "Code for \"{title}\" is pushed and waiting on a reviewer; the issue should say so.",
    "I'm done with \"{title}\" until someone reviews it. Move the issue along to review.",
    "Can you flag \"{title}\" as being in review? The pull request is open.",
    "Nothing left to do on \"{title}\" but the review. Reflect that on the issue, please.",
    "\"{title}\" just went to the reviewers. Put the issue where the board expects it.",
    "Update \"{title}\": it's out of my hands and in review now.",
];

pub(crate) fn send_to_review(rng: &mut Rng) -> Draft<Tracker> {
    let mut seed = sample_seed(rng);
    let at = pick_issue(rng, &seed, |_| true);
    seed.issues[at].status = Status::InProgress;
    let issue = seed.issues[at].clone();
    Draft {
        goal: rng.pick(REVIEW_ASKS).replace("{title}", &issue.title),
        max_steps: 4,
        seed,
        tools: Tracker::tools(&[
            "transition_issue",
            "update_issue",
            "get_issue",
            "search_issues",
            "list_transitions",
        ]),
        predicate: atom(Atom::IssueStatus {
            id: issue.id.clone(),
            status: Status::InReview,
        }),
        references: vec![vec![
            call::<Tracker>("search_issues", json!({ "query": issue.title })),
            call::<Tracker>(
                "transition_issue",
                json!({ "id": issue.id, "status": "in_review" }),
            ),
        ]],
        faults: vec![],
        params: params(&[("issue", json!(issue.id))]),
    }
}

pub(crate) fn add_label(rng: &mut Rng) -> Draft<Tracker> {
    let mut seed = sample_seed(rng);
    let at = pick_issue(rng, &seed, |_| true);
    let n_old = rng.range(1, 2) as usize;
    let mut picked = rng.sample(LABELS, n_old + 1);
    let new = picked.pop().expect("sampled").to_string();
    let mut old: Vec<String> = picked.into_iter().map(String::from).collect();
    old.sort();
    seed.issues[at].labels = old.clone();
    let issue = seed.issues[at].clone();
    let mut labels = old.clone();
    labels.push(new.clone());
    let mut checks: Vec<Pred<Atom>> = labels
        .iter()
        .map(|l| {
            atom(Atom::IssueHasLabel {
                id: issue.id.clone(),
                label: l.clone(),
            })
        })
        .collect();
    let mut exact = super::Exists::new(&project_of(&issue), &issue.title);
    exact.labels = Some(labels.clone());
    checks.push(exact.pred());
    Draft {
        goal: format!(
            "The issue \"{}\" is labelled {}. Add the label {new} to it as well, keeping the labels it has.",
            issue.title,
            old.join(" and ")
        ),
        max_steps: 4,
        seed,
        tools: Tracker::tools(&[
            "update_issue",
            "get_issue",
            "list_labels",
            "create_label",
            "search_issues",
        ]),
        predicate: Pred::All(checks),
        references: vec![vec![
            call::<Tracker>("search_issues", json!({ "query": issue.title })),
            call::<Tracker>("update_issue", json!({ "id": issue.id, "labels": labels })),
        ]],
        faults: vec![],
        params: params(&[
            ("issue", json!(issue.id)),
            ("label", json!(new)),
            ("kept", json!(old)),
        ]),
    }
}
