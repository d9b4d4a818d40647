//! The tracker's running total ([`TRACKER`]): every write moves it by exactly what it stores,
//! escaped text counted as stored, so a store filled to its bound admits a write that fits to
//! the byte and refuses one a byte larger. Every call goes through `Server::call`, whose debug
//! audit compares the total with a fresh measure after each write.

use mcpbench_server_tracker::{Comment, Issue, Label, Link, Seed, TRACKER, Tracker};
use mcpbench_sim::{ErrorKind, Server, Simulated, Usage, footprint};
use serde_json::{Value, json};

/// ENG (writable) with a backlog issue ENG-1 whose description is `filler`, ENG-2 in the
/// backlog and ENG-3 with a 100-byte description; OPS may only be read.
fn seed(filler: &str) -> Seed {
    serde_json::from_value(json!({
        "viewer": "dana",
        "projects": [
            { "key": "ENG", "name": "Engineering" },
            { "key": "OPS", "name": "Operations", "read_only": true }
        ],
        "users": [
            { "username": "dana", "name": "Dana Kim", "email": "dana@acme.test" },
            { "username": "omar", "name": "Omar Haddad", "email": "omar@acme.test" }
        ],
        "labels": [{ "name": "bug" }],
        "issues": [
            { "id": "ENG-1", "title": "Filler", "description": filler },
            { "id": "ENG-2", "title": "Second" },
            { "id": "ENG-3", "title": "Third", "description": "z".repeat(100), "assignee": "omar" },
            { "id": "OPS-1", "title": "Rotate keys" }
        ]
    }))
    .expect("seed parses")
}

fn issues(t: &Tracker) -> Vec<Issue> {
    serde_json::from_value(Simulated::snapshot(t)["issues"].clone()).expect("issues")
}

/// What the tracker holds, counted here from its snapshot the way the brief states it: each
/// issue with the key it is stored under and its comments, each label with its name, each link.
fn held(t: &Tracker) -> Usage {
    let snap = Simulated::snapshot(t);
    let labels: Vec<Label> = serde_json::from_value(snap["labels"].clone()).expect("labels");
    let links: Vec<Link> = serde_json::from_value(snap["links"].clone()).expect("links");
    let mut total = Usage::default();
    for i in issues(t) {
        let (project, number) = i.id.rsplit_once('-').expect("an id");
        let key = (
            project.to_string(),
            number.parse::<u32>().expect("a number"),
        );
        total = total
            + Usage {
                records: 1 + i.comments.len(),
                bytes: footprint(&(key, &i)),
            };
    }
    for l in &labels {
        total = total + Usage::of(1, &(&l.name, l));
    }
    for l in &links {
        total = total + Usage::of(1, l);
    }
    total
}

/// A tracker holding `room` bytes less than [`TRACKER`] allows (ENG-1's description fills it).
fn filled(room: usize) -> Tracker {
    let one = held(&Tracker::from_seed(&seed("x")).expect("valid seed")).bytes;
    let t = Tracker::from_seed(&seed(&"x".repeat(1 + TRACKER.bytes - room - one))).unwrap();
    assert_eq!(held(&t).bytes, TRACKER.bytes - room);
    t
}

/// What adding a comment with `body` makes issue `id` grow by, as stored.
fn comment_growth(t: &Tracker, id: &str, body: &str) -> usize {
    let issue = issues(t).into_iter().find(|i| i.id == id).expect("issue");
    let mut after = issue.clone();
    after.comments.push(Comment {
        author: "dana".into(),
        body: body.into(),
    });
    footprint(&after) - footprint(&issue)
}

/// A plain comment body that makes issue `id` grow by exactly `growth` bytes.
fn body_growing_by(t: &Tracker, id: &str, growth: usize) -> String {
    let body = "y".repeat(1 + growth - comment_growth(t, id, "y"));
    assert_eq!(comment_growth(t, id, &body), growth);
    body
}

fn audited(t: &Tracker) {
    assert_eq!(Simulated::audit(t), Ok(()));
}

const FULL: &str =
    "the tracker is full: a run's tracker holds at most 4 MiB in all; nothing was changed";

#[test]
fn every_write_moves_the_total_by_what_it_stores() {
    let mut t = Tracker::from_seed(&seed("")).unwrap();
    let start = held(&t);
    t.call(
        "create_label",
        &json!({ "name": "ux \"quoted\"", "description": "für \\ UI\n" }),
    )
    .unwrap();
    let created = t
        .call("create_issue", &json!({ "project": "ENG", "title": "New", "labels": ["bug"], "assignee": "omar", "parent": "ENG-2" }))
        .unwrap();
    assert_eq!(created["id"], "ENG-4");
    t.call(
        "transition_issue",
        &json!({ "id": "ENG-4", "status": "in_progress" }),
    )
    .unwrap();
    t.call(
        "assign_issue",
        &json!({ "id": "ENG-2", "assignee": "dana" }),
    )
    .unwrap();
    t.call("add_comment", &json!({ "id": "ENG-2", "body": "first" }))
        .unwrap();
    t.call(
        "add_comment",
        &json!({ "id": "ENG-2", "body": "second, \"quoted\"" }),
    )
    .unwrap();
    t.call(
        "link_issues",
        &json!({ "id": "ENG-2", "type": "blocked_by", "target": "ENG-4" }),
    )
    .unwrap();
    t.call(
        "update_issue",
        &json!({ "id": "ENG-4", "title": "Renamed", "estimate": 3, "labels": [] }),
    )
    .unwrap();
    // Refused for other reasons: nothing moves.
    for (tool, args) in [
        ("create_issue", json!({ "project": "OPS", "title": "x" })),
        ("add_comment", json!({ "id": "OPS-1", "body": "hi" })),
        ("create_label", json!({ "name": "BUG" })),
        (
            "link_issues",
            json!({ "id": "ENG-4", "type": "blocks", "target": "ENG-2" }),
        ),
        (
            "transition_issue",
            json!({ "id": "ENG-4", "status": "done" }),
        ),
    ] {
        t.call(tool, &args).unwrap_err();
    }
    audited(&t);
    let now = held(&t);
    assert_eq!(
        now.records,
        start.records + 1 + 1 + 2 + 1,
        "label, issue, 2 comments, link"
    );
    assert!(now.bytes > start.bytes);
}

#[test]
fn escaped_text_is_counted_as_stored_and_a_shrinking_edit_gives_bytes_back() {
    let mut t = Tracker::from_seed(&seed("")).unwrap();
    let text = "a\"b\\c\n\u{1}é";
    assert_eq!(text.len(), 9);
    assert_eq!(
        footprint(text),
        19,
        "quotes, \\\", \\\\, \\n, \\u0001, two bytes of é"
    );
    let before = held(&t);
    t.call(
        "update_issue",
        &json!({ "id": "ENG-2", "description": text }),
    )
    .unwrap();
    assert_eq!(
        held(&t).bytes,
        before.bytes + ",\"description\":".len() + 19
    );
    // A shorter description, then none: the issue gives the bytes back.
    t.call(
        "update_issue",
        &json!({ "id": "ENG-3", "description": "short" }),
    )
    .unwrap();
    assert_eq!(held(&t).bytes, before.bytes + 34 - 95);
    // Unassigning drops the field.
    t.call("assign_issue", &json!({ "id": "ENG-3", "assignee": null }))
        .unwrap();
    assert_eq!(
        held(&t).bytes,
        before.bytes + 34 - 95 - ",\"assignee\":\"omar\"".len()
    );
    audited(&t);
}

#[test]
fn a_full_tracker_admits_a_write_that_fits_to_the_byte() {
    const ROOM: usize = 300;
    let mut t = filled(ROOM);
    let snapshot = Simulated::snapshot(&t);
    // ENG-1's first comment costs the comment and the list around it, not the comment alone:
    // a body one byte over the room is refused, even though the comment by itself fits.
    let over = body_growing_by(&t, "ENG-1", ROOM + 1);
    let comment = footprint(&Comment {
        author: "dana".into(),
        body: over.clone(),
    });
    assert!(comment < ROOM, "the comment alone would fit");
    let e = t
        .call("add_comment", &json!({ "id": "ENG-1", "body": over }))
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::FailedPrecondition);
    assert_eq!(e.message, FULL);
    assert_eq!(
        Simulated::snapshot(&t),
        snapshot,
        "a refusal changes nothing"
    );
    // The refusal left the total where it was: a body that fits exactly is admitted.
    let fits = body_growing_by(&t, "ENG-1", ROOM);
    t.call("add_comment", &json!({ "id": "ENG-1", "body": fits }))
        .unwrap();
    assert_eq!(held(&t).bytes, TRACKER.bytes);
    // Full to the byte: a second comment (a separator more) is refused.
    let e = t
        .call("add_comment", &json!({ "id": "ENG-1", "body": "k" }))
        .unwrap_err();
    assert_eq!(e.message, FULL);
    audited(&t);
}

#[test]
fn a_transition_that_lengthens_an_issue_is_admitted_like_any_growth() {
    let mut t = filled(0);
    // Backlog is not stored, todo is: `,"status":"todo"`.
    let todo = ",\"status\":\"todo\"".len();
    let e = t
        .call(
            "transition_issue",
            &json!({ "id": "ENG-2", "status": "todo" }),
        )
        .unwrap_err();
    assert_eq!(e.message, FULL);
    // Shrinking is admitted however full: free one byte less than the transition needs...
    let shorter = "z".repeat(100 - (todo - 1));
    t.call(
        "update_issue",
        &json!({ "id": "ENG-3", "description": shorter }),
    )
    .unwrap();
    assert_eq!(held(&t).bytes, TRACKER.bytes - (todo - 1));
    let e = t
        .call(
            "transition_issue",
            &json!({ "id": "ENG-2", "status": "todo" }),
        )
        .unwrap_err();
    assert_eq!(e.message, FULL);
    // ...and then the last byte.
    let shorter = "z".repeat(100 - todo);
    t.call(
        "update_issue",
        &json!({ "id": "ENG-3", "description": shorter }),
    )
    .unwrap();
    t.call(
        "transition_issue",
        &json!({ "id": "ENG-2", "status": "todo" }),
    )
    .unwrap();
    assert_eq!(held(&t).bytes, TRACKER.bytes);
    // Back to backlog shortens it again; assigning lengthens it and is refused.
    t.call(
        "transition_issue",
        &json!({ "id": "ENG-2", "status": "backlog" }),
    )
    .unwrap();
    assert_eq!(held(&t).bytes, TRACKER.bytes - todo);
    let e = t
        .call(
            "assign_issue",
            &json!({ "id": "ENG-2", "assignee": "dana" }),
        )
        .unwrap_err();
    assert_eq!(e.message, FULL);
    audited(&t);
}

#[test]
fn comments_count_as_records() {
    let mut s = seed("");
    // Four issues and a label beside them: 4,994 comments make 4,999 records.
    s.issues[0].comments = (0..4_994)
        .map(|n| Comment {
            author: "omar".into(),
            body: format!("note {n}"),
        })
        .collect();
    let mut t = Tracker::from_seed(&s).unwrap();
    assert_eq!(held(&t).records, 4_999);
    t.call(
        "add_comment",
        &json!({ "id": "ENG-2", "body": "the last one" }),
    )
    .unwrap();
    let records = "the tracker is full: a run's tracker holds at most 5,000 issues, comments, labels and links; nothing was changed";
    for (tool, args) in [
        ("add_comment", json!({ "id": "ENG-2", "body": "one more" })),
        ("create_label", json!({ "name": "ops" })),
        ("create_issue", json!({ "project": "ENG", "title": "x" })),
        (
            "link_issues",
            json!({ "id": "ENG-2", "type": "relates_to", "target": "ENG-3" }),
        ),
    ] {
        let e: Value = json!(t.call(tool, &args).unwrap_err().message);
        assert_eq!(e, records, "{tool}");
    }
    // Edits that add no record still pass.
    t.call(
        "update_issue",
        &json!({ "id": "ENG-2", "title": "Still editable" }),
    )
    .unwrap();
    assert_eq!(held(&t).records, 5_000);
    audited(&t);
}
