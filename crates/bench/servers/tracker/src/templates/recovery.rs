//! Recovery templates: an injected fault to retry through, or a natural error (a read-only
//! project, a missing label, a workflow step) for the agent to notice and get around; the goal
//! states the outcome the user wants and what they will accept, never the steps.

use super::{
    DESCRIPTIONS, Exists, Kit, NEW_BUGS, NEW_LABELS, atom, params, pick_issue, project_name,
    sample_seed,
};
use crate::{Atom, Status, Tracker};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, call, qualified};
use serde_json::json;

const COMMENTS: &[&str] = &[
    "Reproduced on build 4.2.1; attaching logs tomorrow.",
    "Customer confirmed the workaround helps for now.",
    "Moving this to next sprint, capacity is full.",
    "Root cause is the retry loop in the client.",
    "Fixed on staging, please verify before release.",
    "Waiting for design input on the empty state.",
    "Seen again on the Android beta; same stack trace.",
    "Product agreed this can wait until after the launch.",
    "Bisected to last Tuesday's dependency bump.",
    "Needs a migration; pairing with the data team on Thursday.",
    "Cannot reproduce on a clean install, asking the reporter for details.",
    "Patch is ready, blocked on the release freeze.",
];

/// Ways to ask for a comment, with the issue's `{title}` and the comment's `{body}`.
const COMMENT_ASKS: &[&str] = &[
    "Add this comment to the issue \"{title}\": {body}",
    "Please leave a note on \"{title}\" saying: {body}",
    "Post on the issue \"{title}\", word for word: {body}",
    "For the record on \"{title}\", comment exactly this: {body}",
    "Let the people following \"{title}\" know, as a comment: {body}",
    "Comment on \"{title}\" with the following text: {body}",
];

pub(crate) fn comment_after_outage(rng: &mut Rng) -> Draft<Tracker> {
    let seed = sample_seed(rng);
    let at = pick_issue(rng, &seed, |_| true);
    let issue = seed.issues[at].clone();
    let body = rng.pick(COMMENTS).to_string();
    let kind = *rng.pick(&[
        ErrorKind::Unavailable,
        ErrorKind::RateLimited,
        ErrorKind::Timeout,
    ]);
    let comment = call::<Tracker>("add_comment", json!({ "id": issue.id, "body": body }));
    Draft {
        goal: rng
            .pick(COMMENT_ASKS)
            .replace("{title}", &issue.title)
            .replace("{body}", &body),
        max_steps: 5,
        seed,
        tools: Tracker::tools(&[
            "add_comment",
            "list_comments",
            "get_issue",
            "search_issues",
            "update_issue",
        ]),
        predicate: atom(Atom::IssueHasComment {
            id: issue.id.clone(),
            body: body.clone(),
            author: None,
        }),
        references: vec![vec![
            call::<Tracker>("search_issues", json!({ "query": issue.title })),
            comment.clone(),
            comment,
        ]],
        faults: vec![Fault {
            tool: qualified::<Tracker>("add_comment"),
            on_call: 1,
            times: 1,
            error: kind,
            message: "the tracker is busy; the comment was not saved, try again".into(),
            landed: false,
        }],
        params: params(&[("issue", json!(issue.id)), ("error", json!(kind.as_str()))]),
    }
}

pub(crate) fn file_elsewhere(rng: &mut Rng) -> Draft<Tracker> {
    let mut seed = sample_seed(rng);
    let picked = rng.sample(&seed.projects, 2);
    let (locked, open) = (picked[0].key.clone(), picked[1].key.clone());
    for p in &mut seed.projects {
        p.read_only = p.key == locked;
    }
    let title = rng.pick(NEW_BUGS).to_string();
    let description = rng.pick(DESCRIPTIONS).to_string();
    let mut want = Exists::new(&open, &title);
    want.description = Some(description.clone());
    let create = |project: &str| {
        call::<Tracker>(
            "create_issue",
            json!({ "project": project, "title": title, "description": description }),
        )
    };
    let (first, second) = (project_name(&seed, &locked), project_name(&seed, &open));
    let goal = match rng.below(3) {
        0 => format!(
            "File an issue titled \"{title}\" with the description \"{description}\" in the {first} project; the {second} project will do if it can't go there."
        ),
        1 => format!(
            "Please open an issue \"{title}\" (description: \"{description}\"). It belongs in the {first} project, or in {second} if {first} won't take it."
        ),
        _ => format!(
            "I'd like a new issue in the {first} project titled \"{title}\", described as \"{description}\". Failing that, put it in the {second} project."
        ),
    };
    Draft {
        goal,
        max_steps: 5,
        seed,
        tools: Tracker::tools(&[
            "create_issue",
            "list_projects",
            "search_issues",
            "update_issue",
        ]),
        predicate: want.pred(),
        references: vec![vec![create(&locked), create(&open)]],
        faults: vec![],
        params: params(&[
            ("locked", json!(locked)),
            ("fallback", json!(open)),
            ("title", json!(title)),
        ]),
    }
}

pub(crate) fn add_missing_label(rng: &mut Rng) -> Draft<Tracker> {
    let seed = sample_seed(rng);
    let at = pick_issue(rng, &seed, |_| true);
    let issue = seed.issues[at].clone();
    let new = rng.pick(NEW_LABELS).to_string();
    let mut labels = issue.labels.clone();
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
    checks.push(atom(Atom::IssueStatus {
        id: issue.id.clone(),
        status: issue.status,
    }));
    let tag = call::<Tracker>("update_issue", json!({ "id": issue.id, "labels": labels }));
    let goal = match rng.below(3) {
        0 => format!(
            "Tag the issue \"{}\" with the label {new}, keeping any labels it already has.",
            issue.title
        ),
        1 => format!(
            "The issue \"{}\" should carry the label {new} from now on; its other labels stay.",
            issue.title
        ),
        _ => format!(
            "Please add the label {new} to the issue \"{}\" without dropping the labels it has.",
            issue.title
        ),
    };
    Draft {
        goal,
        max_steps: 8,
        seed,
        tools: Tracker::tools(&[
            "update_issue",
            "create_label",
            "list_labels",
            "get_issue",
            "search_issues",
        ]),
        predicate: Pred::All(checks),
        references: vec![vec![
            call::<Tracker>("search_issues", json!({ "query": issue.title })),
            tag.clone(),
            call::<Tracker>("create_label", json!({ "name": new })),
            tag,
        ]],
        faults: vec![],
        params: params(&[("issue", json!(issue.id)), ("label", json!(new))]),
    }
}

/// What the user says first, or nothing.
const DONE_OPENERS: &[&str] = &[
    "",
    "Good news from the code review. ",
    "One more off the board. ",
    "Tidying the sprint board: ",
    "Maria signed off on it. ",
    "Before stand-up: ",
    "Ticking things off for the release notes. ",
    "Sprint review is in an hour. ",
    "The reviewer was happy with it. ",
    "Closing the week out. ",
    "Quick board update: ",
    "Finally. ",
];

pub(crate) fn finish_via_review(rng: &mut Rng) -> Draft<Tracker> {
    let mut seed = sample_seed(rng);
    let at = pick_issue(rng, &seed, |_| true);
    seed.issues[at].status = Status::InProgress;
    let issue = seed.issues[at].clone();
    let to = |s: &str| call::<Tracker>("transition_issue", json!({ "id": issue.id, "status": s }));
    let goal = match rng.below(3) {
        0 => format!(
            "The work on the issue \"{}\" has been reviewed and approved. Mark it Done.",
            issue.title
        ),
        1 => format!(
            "Review of \"{}\" is finished and it got approved, so that issue is Done now. Please update it.",
            issue.title
        ),
        _ => format!(
            "Please close out the issue \"{}\" as Done: the work was reviewed and approved.",
            issue.title
        ),
    };
    let goal = format!("{}{goal}", rng.pick(DONE_OPENERS));
    Draft {
        goal,
        max_steps: 7,
        seed,
        tools: Tracker::tools(&[
            "transition_issue",
            "update_issue",
            "list_transitions",
            "get_issue",
            "search_issues",
            "add_comment",
        ]),
        predicate: atom(Atom::IssueStatus {
            id: issue.id.clone(),
            status: Status::Done,
        }),
        references: vec![
            vec![
                call::<Tracker>("search_issues", json!({ "query": issue.title })),
                to("done"),
                to("in_review"),
                to("done"),
            ],
            vec![
                call::<Tracker>("search_issues", json!({ "query": issue.title })),
                call::<Tracker>("list_transitions", json!({ "id": issue.id })),
                to("in_review"),
                to("done"),
            ],
        ],
        faults: vec![],
        params: params(&[("issue", json!(issue.id))]),
    }
}
