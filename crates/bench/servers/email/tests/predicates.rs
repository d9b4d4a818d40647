//! `email.sentCount` and `email.sentOnlyTo`: what was sent in the run, counted and filtered.

use mcpbench_server_email::{Atom, Email, sample_seed};
use mcpbench_sim::{Pred, Server, Simulated};
use serde_json::{Value, json};

fn call(mb: &mut Email, tool: &str, args: Value) -> Value {
    Server::call(mb, tool, &args).unwrap_or_else(|e| panic!("{tool}: {e}"))
}

fn count(to: Option<&str>, subject: Option<&str>, body: Option<&str>, count: u32) -> Atom {
    Atom::SentCount {
        to: to.map(String::from),
        subject_contains: subject.map(String::from),
        body_contains: body.map(String::from),
        count,
    }
}

fn only_to(addresses: &[&str]) -> Atom {
    Atom::SentOnlyTo {
        addresses: addresses.iter().map(|a| a.to_string()).collect(),
    }
}

/// The sample mailbox after three messages: two sent, one of them with a Cc, and a draft.
fn after_sending() -> Email {
    let mut mb = Email::from_seed(&sample_seed()).expect("the sample seed loads");
    let send = |to: &[&str], cc: &[&str], subject: &str, body: &str| json!({ "to": to, "cc": cc, "subject": subject, "body": body });
    let first = send(
        &["ana@example.com"],
        &[],
        "Delay on order #1204",
        "Sorry: the  Ceramic\nMug is out of stock.",
    );
    call(&mut mb, "send_email", first);
    let second = send(
        &["bo@example.com"],
        &["Ana@Example.com"],
        "Your parcel",
        "It ships on Monday.",
    );
    call(&mut mb, "send_email", second);
    let draft = send(&["cy@example.com"], &[], "Later", "Not sent.");
    call(&mut mb, "draft_email", draft);
    mb
}

#[test]
fn sent_count_counts_what_the_run_sent() {
    let mb = after_sending();
    // The seed's sent message and the draft are not counted.
    assert!(mb.holds(&count(None, None, None, 2)));
    assert!(!mb.holds(&count(None, None, None, 3)));
    assert!(!mb.holds(&count(None, None, None, 1)));
    let untouched = Email::from_seed(&sample_seed()).unwrap();
    assert!(untouched.holds(&count(None, None, None, 0)));
}

#[test]
fn sent_count_filters_by_recipient_subject_and_body() {
    let mb = after_sending();
    // A recipient in To or Cc, compared case-insensitively.
    assert!(mb.holds(&count(Some("ANA@example.com"), None, None, 2)));
    assert!(mb.holds(&count(Some("bo@example.com"), None, None, 1)));
    assert!(mb.holds(&count(Some("cy@example.com"), None, None, 0)));
    // Texts compare normalised: case, white space, punctuation at word edges.
    assert!(mb.holds(&count(None, Some("order 1204"), None, 1)));
    assert!(mb.holds(&count(None, Some("1204"), None, 1)));
    assert!(mb.holds(&count(None, None, Some("ceramic mug"), 1)));
    assert!(mb.holds(&count(None, None, Some("CERAMIC MUG IS"), 1)));
    assert!(
        mb.holds(&count(None, None, Some("1204"), 0)),
        "subject only"
    );
    assert!(mb.holds(&count(None, Some("order 1205"), None, 0)));
    // Filters combine.
    let ana = Some("ana@example.com");
    assert!(mb.holds(&count(ana, Some("1204"), Some("mug"), 1)));
    assert!(mb.holds(&count(ana, Some("parcel"), Some("monday"), 1)));
    assert!(mb.holds(&count(Some("bo@example.com"), Some("1204"), None, 0)));
    // A text that normalises to nothing matches nothing.
    assert!(mb.holds(&count(None, Some(" ... "), None, 0)));
}

#[test]
fn what_was_sent_stays_sent() {
    let mut mb = after_sending();
    let ids = call(&mut mb, "list_emails", json!({ "folder": "sent" }));
    for m in ids["messages"].as_array().unwrap() {
        call(&mut mb, "delete_email", json!({ "messageId": m["id"] }));
    }
    assert!(
        mb.holds(&count(None, None, None, 2)),
        "deleting unsends nothing"
    );
    assert!(!mb.holds(&only_to(&["ana@example.com"])));
    // Drafts sent later, replies and forwards are sent too.
    let drafts = call(&mut mb, "list_emails", json!({ "folder": "drafts" }));
    let draft = (drafts["messages"].as_array().unwrap().iter())
        .find(|m| m["subject"] == "Later")
        .expect("the draft")["id"]
        .clone();
    call(&mut mb, "send_draft", json!({ "draftId": draft }));
    call(
        &mut mb,
        "reply_email",
        json!({ "messageId": "msg-1004", "body": "Yes." }),
    );
    let forward = json!({ "messageId": "msg-1002", "to": ["dee@example.com"] });
    call(&mut mb, "forward_email", forward);
    assert!(mb.holds(&count(None, None, None, 5)));
    assert!(mb.holds(&count(
        Some("cy@example.com"),
        Some("later"),
        Some("not sent"),
        1
    )));
    assert!(mb.holds(&count(None, Some("re: contract draft"), None, 1)));
    assert!(mb.holds(&count(
        Some("dee@example.com"),
        None,
        Some("PP7302214456"),
        1
    )));
}

#[test]
fn sent_only_to_holds_when_every_recipient_is_listed() {
    let mb = after_sending();
    assert!(mb.holds(&only_to(&["ana@example.com", "BO@example.com"])));
    assert!(
        !mb.holds(&only_to(&["bo@example.com"])),
        "ana is in To of one message and Cc of the other"
    );
    assert!(!mb.holds(&only_to(&["ana@example.com"])));
    assert!(!mb.holds(&only_to(&[])));
    let untouched = Email::from_seed(&sample_seed()).unwrap();
    assert!(
        untouched.holds(&only_to(&[])),
        "nothing sent, nobody written to"
    );
}

#[test]
fn the_new_atoms_read_and_write_as_json() {
    let atoms = [
        (
            count(Some("ana@example.com"), Some("1204"), None, 1),
            json!({ "email.sentCount": { "to": "ana@example.com", "subjectContains": "1204",
                                         "count": 1 } }),
        ),
        (
            count(None, None, Some("ceramic mug"), 0),
            json!({ "email.sentCount": { "bodyContains": "ceramic mug", "count": 0 } }),
        ),
        (
            only_to(&["ana@example.com"]),
            json!({ "email.sentOnlyTo": { "addresses": ["ana@example.com"] } }),
        ),
    ];
    for (atom, form) in atoms {
        let pred = Pred::Atom(atom);
        assert_eq!(serde_json::to_value(&pred).unwrap(), form);
        assert_eq!(serde_json::from_value::<Pred<Atom>>(form).unwrap(), pred);
    }
    let unknown = json!({ "email.sentCount": { "count": 1, "subject": "x" } });
    assert!(serde_json::from_value::<Pred<Atom>>(unknown).is_err());
}

#[test]
fn the_log_counts_toward_the_mailbox_and_a_refused_send_logs_nothing() {
    let mut mb = Email::from_seed(&sample_seed()).unwrap();
    let long = "x".repeat(20_000);
    let mail =
        |i: usize| json!({ "to": ["ana@example.com"], "subject": format!("{i}"), "body": long });
    // Send and delete: the mailbox stays small, but the log fills it.
    let mut sent = 0;
    let refusal = loop {
        match Server::call(&mut mb, "send_email", &mail(sent)) {
            Ok(r) => {
                call(&mut mb, "delete_email", json!({ "messageId": r["id"] }));
                sent += 1;
            }
            Err(e) => break e,
        }
        assert!(sent < 1_000, "the log never filled the mailbox");
    };
    assert!(refusal.message.contains("is full"), "{refusal}");
    assert!(sent >= 100, "only {sent} sends fit");
    assert!(mb.holds(&count(None, None, None, sent as u32)));
    // A draft saved earlier cannot be sent once the log leaves no room for it.
    let mut mb = Email::from_seed(&sample_seed()).unwrap();
    let draft = call(&mut mb, "draft_email", mail(0))["draftId"].clone();
    for size in [20_000, 1_000] {
        let small = json!({ "to": ["ana@example.com"], "subject": "s", "body": "x".repeat(size) });
        while let Ok(r) = Server::call(&mut mb, "send_email", &small) {
            call(&mut mb, "delete_email", json!({ "messageId": r["id"] }));
        }
    }
    let before = Simulated::snapshot(&mb);
    let e = Server::call(&mut mb, "send_draft", &json!({ "draftId": draft })).unwrap_err();
    assert!(e.message.contains("is full"), "{e}");
    assert_eq!(
        Simulated::snapshot(&mb),
        before,
        "a refused send changes nothing"
    );
}
