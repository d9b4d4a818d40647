//! Behaviour a user of the tracker would notice: the workflow, numbering, permissions,
//! labels, schema checks, determinism and predicates.

use mcpbench_server_tracker::{Atom, LinkType, Seed, Status, Tracker, sample_seed};
use mcpbench_sim::{ErrorKind, Rng, Server, Simulated};
use serde_json::{Value, json};

fn seed() -> Seed {
    serde_json::from_value(json!({
        "viewer": "dana",
        "projects": [
            { "key": "ENG", "name": "Engineering" },
            { "key": "OPS", "name": "Operations", "read_only": true }
        ],
        "users": [
            { "username": "dana", "name": "Dana Kim", "email": "dana@acme.test" },
            { "username": "omar", "name": "Omar Haddad", "email": "omar@acme.test" },
            { "username": "li", "name": "Li Wei", "email": "li@acme.test", "active": false }
        ],
        "labels": [{ "name": "bug" }, { "name": "docs" }],
        "issues": [
            { "id": "ENG-9", "title": "Crash on start", "status": "in_progress", "priority": 2, "labels": ["bug"] },
            { "id": "ENG-10", "title": "Write docs", "assignee": "omar" },
            { "id": "OPS-1", "title": "Rotate keys", "status": "todo" }
        ]
    }))
    .expect("seed parses")
}

fn server() -> Tracker {
    Tracker::from_seed(&seed()).expect("valid seed")
}

fn kind(r: Result<Value, mcpbench_sim::ToolError>) -> ErrorKind {
    r.expect_err("should fail").kind
}

#[test]
fn workflow_refuses_skipping_review_and_names_allowed_moves() {
    let mut t = server();
    let err = t
        .call(
            "transition_issue",
            &json!({ "id": "ENG-9", "status": "done" }),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::FailedPrecondition);
    assert!(err.message.contains("in_review"), "{err}");
    t.call(
        "transition_issue",
        &json!({ "id": "eng-9", "status": "in_review" }),
    )
    .unwrap();
    t.call(
        "transition_issue",
        &json!({ "id": "ENG-9", "status": "done" }),
    )
    .unwrap();
    assert!(t.holds(&Atom::IssueStatus {
        id: "ENG-9".into(),
        status: Status::Done
    }));
    let allowed = t
        .call("list_transitions", &json!({ "id": "ENG-9" }))
        .unwrap();
    assert_eq!(allowed["allowed"], json!(["todo"]));
}

#[test]
fn update_issue_has_no_status_field() {
    let mut t = server();
    let err = t
        .call("update_issue", &json!({ "id": "ENG-9", "status": "done" }))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArguments);
    assert_eq!(
        kind(t.call("update_issue", &json!({ "id": "ENG-9" }))),
        ErrorKind::InvalidArguments
    );
    assert_eq!(
        kind(t.call("update_issue", &json!({ "id": "ENG-9", "priority": 7 }))),
        ErrorKind::InvalidArguments
    );
}

#[test]
fn new_issues_take_the_next_number_and_respect_read_only_projects() {
    let mut t = server();
    let out = t
        .call("create_issue", &json!({ "project": "ENG", "title": "New thing", "labels": ["BUG"], "assignee": "omar@acme.test" }))
        .unwrap();
    assert_eq!(out["id"], "ENG-11");
    assert_eq!(out["labels"], json!(["bug"]));
    assert_eq!(out["assignee"], "omar");
    assert_eq!(out["status"], "backlog");
    assert_eq!(
        kind(t.call("create_issue", &json!({ "project": "OPS", "title": "x" }))),
        ErrorKind::PermissionDenied
    );
    assert_eq!(
        kind(t.call("add_comment", &json!({ "id": "OPS-1", "body": "hi" }))),
        ErrorKind::PermissionDenied
    );
    assert_eq!(
        kind(t.call("create_issue", &json!({ "project": "XYZ", "title": "x" }))),
        ErrorKind::NotFound
    );
}

#[test]
fn labels_must_exist_and_users_must_be_active() {
    let mut t = server();
    let err = t
        .call(
            "update_issue",
            &json!({ "id": "ENG-10", "labels": ["regression"] }),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound);
    assert!(err.message.contains("bug, docs"), "{err}");
    t.call("create_label", &json!({ "name": "regression" }))
        .unwrap();
    assert_eq!(
        kind(t.call("create_label", &json!({ "name": "Regression" }))),
        ErrorKind::Conflict
    );
    t.call(
        "update_issue",
        &json!({ "id": "ENG-10", "labels": ["regression", "docs"] }),
    )
    .unwrap();
    assert!(t.holds(&Atom::IssueHasLabel {
        id: "ENG-10".into(),
        label: "regression".into()
    }));
    assert_eq!(
        kind(t.call("assign_issue", &json!({ "id": "ENG-10", "assignee": "li" }))),
        ErrorKind::FailedPrecondition
    );
    t.call("assign_issue", &json!({ "id": "ENG-10", "assignee": null }))
        .unwrap();
    assert!(t.holds(&Atom::IssueAssignee {
        id: "ENG-10".into(),
        assignee: None
    }));
    assert_eq!(
        kind(t.call("assign_issue", &json!({ "id": "ENG-10" }))),
        ErrorKind::InvalidArguments
    );
}

#[test]
fn links_read_both_ways_and_refuse_repeats() {
    let mut t = server();
    t.call(
        "link_issues",
        &json!({ "id": "ENG-10", "target": "ENG-9", "type": "blocked_by" }),
    )
    .unwrap();
    let linked = |id: &str, target: &str, link_type| Atom::IssueLinked {
        id: id.into(),
        target: target.into(),
        link_type,
    };
    assert!(t.holds(&linked("ENG-9", "ENG-10", LinkType::Blocks)));
    assert!(t.holds(&linked("ENG-10", "ENG-9", LinkType::BlockedBy)));
    assert!(!t.holds(&linked("ENG-10", "ENG-9", LinkType::Blocks)));
    assert_eq!(
        kind(t.call(
            "link_issues",
            &json!({ "id": "ENG-9", "target": "ENG-10", "type": "blocks" })
        )),
        ErrorKind::Conflict
    );
    assert_eq!(
        kind(t.call(
            "link_issues",
            &json!({ "id": "ENG-9", "target": "ENG-9", "type": "relates_to" })
        )),
        ErrorKind::InvalidArguments
    );
    let issue = t.call("get_issue", &json!({ "id": "ENG-9" })).unwrap();
    assert_eq!(
        issue["links"],
        json!([{ "type": "blocks", "issue": "ENG-10" }])
    );
}

#[test]
fn search_is_sorted_by_number_and_capped() {
    let mut t = server();
    let all = t
        .call("search_issues", &json!({ "project": "ENG" }))
        .unwrap();
    let ids: Vec<&str> = all["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["ENG-9", "ENG-10"]);
    let one = t.call("search_issues", &json!({ "limit": 1 })).unwrap();
    assert_eq!(one["total"], 3);
    assert_eq!(one["pageInfo"]["hasNextPage"], true);
    // The cursor leads on through the rest, page by page, and only for the same search.
    let cursor = one["pageInfo"]["endCursor"].clone();
    let two = t
        .call("search_issues", &json!({ "limit": 1, "after": cursor }))
        .unwrap();
    assert_ne!(two["issues"][0]["id"], one["issues"][0]["id"]);
    let other = t
        .call(
            "search_issues",
            &json!({ "limit": 1, "after": cursor, "status": "done" }),
        )
        .unwrap_err();
    assert!(other.to_string().contains("other filters"), "{other}");
    let bugs = t
        .call(
            "search_issues",
            &json!({ "label": "bug", "query": "CRASH" }),
        )
        .unwrap();
    assert_eq!(bugs["total"], 1);
}

#[test]
fn comments_are_by_the_viewer_and_matched_exactly() {
    let mut t = server();
    t.call(
        "add_comment",
        &json!({ "id": "ENG-9", "body": "Fixed on staging." }),
    )
    .unwrap();
    let holds = |t: &Tracker, body: &str| {
        t.holds(&Atom::IssueHasComment {
            id: "ENG-9".into(),
            body: body.into(),
            author: Some("dana".into()),
        })
    };
    assert!(holds(&t, "Fixed on staging."));
    assert!(!holds(&t, "Fixed on staging"));
}

#[test]
fn same_calls_give_the_same_bytes() {
    let run = || {
        let mut t = Tracker::from_seed(&sample_seed(&mut Rng::new(5, 1))).unwrap();
        let key = t.call("list_projects", &json!({})).unwrap()["projects"][0]["key"].clone();
        let out = t
            .call(
                "create_issue",
                &json!({ "project": key, "title": "Same", "priority": 3 }),
            )
            .unwrap();
        (out, Simulated::snapshot(&t))
    };
    assert_eq!(run(), run());
}

#[test]
fn bad_seeds_are_refused() {
    let mut s = seed();
    s.issues[0].assignee = Some("nobody".into());
    assert!(Tracker::from_seed(&s).is_err());
    let mut s = seed();
    s.issues[1].id = "ENG-9".into();
    assert!(Tracker::from_seed(&s).is_err());
    let mut s = seed();
    s.issues[1].parent = Some("ENG-99".into());
    assert!(Tracker::from_seed(&s).is_err());
    let bad: Result<Seed, _> = serde_json::from_value(json!({ "projects": [], "extra": 1 }));
    assert!(bad.is_err());
}

#[test]
fn issue_count_counts_every_status_and_filters_by_title() {
    let mut t = server();
    let count = |project: &str, title: Option<&str>, count| Atom::IssueCount {
        project: project.into(),
        count,
        title: title.map(String::from),
    };
    assert!(t.holds(&count("ENG", None, 2)));
    assert!(!t.holds(&count("ENG", None, 3)));
    assert!(t.holds(&count("OPS", None, 1)));
    assert!(t.holds(&count("NOPE", None, 0)));
    assert!(t.holds(&count("ENG", Some(" Write docs "), 1)));
    assert!(t.holds(&count("ENG", Some("Write"), 0)));
    assert!(t.holds(&count("OPS", Some("Write docs"), 0)));
    // A duplicate counts even once canceled: no tool deletes an issue.
    t.call(
        "create_issue",
        &json!({ "project": "ENG", "title": "Write docs" }),
    )
    .unwrap();
    t.call(
        "transition_issue",
        &json!({ "id": "ENG-11", "status": "canceled" }),
    )
    .unwrap();
    assert!(t.holds(&count("ENG", Some("Write docs"), 2)));
    assert!(!t.holds(&count("ENG", Some("Write docs"), 1)));
    assert!(t.holds(&count("ENG", None, 3)));
    let atom = count("ENG", Some("Write docs"), 2);
    let form =
        json!({ "tracker.issueCount": { "project": "ENG", "count": 2, "title": "Write docs" } });
    assert_eq!(serde_json::to_value(&atom).unwrap(), form);
    assert_eq!(serde_json::from_value::<Atom>(form).unwrap(), atom);
    let total = json!({ "tracker.issueCount": { "project": "ENG", "count": 3 } });
    assert_eq!(
        serde_json::from_value::<Atom>(total.clone()).unwrap(),
        count("ENG", None, 3)
    );
    assert_eq!(serde_json::to_value(count("ENG", None, 3)).unwrap(), total);
}
