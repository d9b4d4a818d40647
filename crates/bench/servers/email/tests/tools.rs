//! Behaviour a user of the mailbox would notice.

use mcpbench_server_email::{Atom, Email, Folder, Seed, sample_seed};
use mcpbench_sim::{ErrorKind, Server, Simulated};
use serde_json::{Value, json};

fn mailbox(seed: &Seed) -> Email {
    Email::from_seed(seed).expect("a valid seed")
}

fn call(mb: &mut Email, tool: &str, args: Value) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(mb, tool, &args)
}

#[test]
fn search_understands_gmail_operators() {
    let mut mb = mailbox(&sample_seed());
    let r = call(
        &mut mb,
        "search_emails",
        json!({ "query": "from:parcelpost is:unread" }),
    )
    .unwrap();
    assert_eq!(r["total"], 1);
    assert_eq!(r["messages"][0]["id"], "msg-1002");
    let r = call(
        &mut mb,
        "search_emails",
        json!({ "query": "subject:\"budget review\"" }),
    )
    .unwrap();
    let ids: Vec<&str> = r["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["msg-1005", "msg-1001"],
        "newest first, sent mail included"
    );
    let e = call(&mut mb, "search_emails", json!({ "query": "sender:maria" })).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArguments);
}

#[test]
fn reply_keeps_the_thread_and_prefixes_the_subject() {
    let mut mb = mailbox(&sample_seed());
    let r = call(
        &mut mb,
        "reply_email",
        json!({ "messageId": "msg-1004", "body": "Confirmed." }),
    )
    .unwrap();
    assert_eq!(r["subject"], "Re: Contract draft");
    let sent = Atom::Sent {
        to: vec!["Sam.Okafor@contoso.com".into()],
        subject: "Re: Contract draft".into(),
        cc: None,
        body: Some("Confirmed.".into()),
        body_contains: None,
        thread_of: Some("msg-1004".into()),
    };
    assert!(mb.holds(&sent), "addresses compare case-insensitively");
    let Atom::Sent {
        to,
        subject,
        cc,
        body,
        body_contains,
        ..
    } = sent
    else {
        unreachable!()
    };
    let wrong_thread = Atom::Sent {
        to,
        subject,
        cc,
        body,
        body_contains,
        thread_of: Some("msg-1001".into()),
    };
    assert!(!mb.holds(&wrong_thread));
}

#[test]
fn outside_domains_are_refused_but_drafts_are_fine() {
    let seed = Seed {
        allowed_domains: vec!["northwind.io".into()],
        ..sample_seed()
    };
    let mut mb = mailbox(&seed);
    let args = json!({ "to": ["sam.okafor@contoso.com"], "subject": "Hi", "body": "x" });
    let before = Simulated::snapshot(&mb);
    let e = call(&mut mb, "send_email", args.clone()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::PermissionDenied);
    assert!(e.message.contains("sam.okafor@contoso.com"), "{e}");
    assert_eq!(
        Simulated::snapshot(&mb),
        before,
        "a refused send changes nothing"
    );
    let r = call(&mut mb, "draft_email", args).unwrap();
    assert_eq!(r["draftId"], "msg-9001");
    let e = call(&mut mb, "send_draft", json!({ "draftId": "msg-1006" })).unwrap_err();
    assert_eq!(e.kind, ErrorKind::PermissionDenied);
}

#[test]
fn archive_move_and_delete_differ() {
    let mut mb = mailbox(&sample_seed());
    call(&mut mb, "archive_email", json!({ "messageId": "msg-1001" })).unwrap();
    call(
        &mut mb,
        "move_email",
        json!({ "messageId": "msg-1003", "folder": "trash" }),
    )
    .unwrap();
    call(&mut mb, "delete_email", json!({ "messageId": "msg-1002" })).unwrap();
    assert!(mb.holds(&Atom::InFolder {
        id: "msg-1001".into(),
        folder: Folder::Archive
    }));
    assert!(mb.holds(&Atom::InFolder {
        id: "msg-1003".into(),
        folder: Folder::Trash
    }));
    assert!(!mb.holds(&Atom::MessageExists {
        id: "msg-1002".into()
    }));
    let r = call(&mut mb, "search_emails", json!({ "query": "tech" })).unwrap();
    assert_eq!(r["total"], 0, "the trash is not searched by default");
    let e = call(
        &mut mb,
        "move_email",
        json!({ "messageId": "msg-1006", "folder": "archive" }),
    )
    .unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::FailedPrecondition,
        "drafts are not archived"
    );
    let e = call(&mut mb, "read_email", json!({ "messageId": "msg-1002" })).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
}

#[test]
fn mark_as_read_is_all_or_nothing() {
    let mut mb = mailbox(&sample_seed());
    let e = call(
        &mut mb,
        "mark_as_read",
        json!({ "messageIds": ["msg-1001", "msg-1099"] }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert!(!mb.holds(&Atom::IsRead {
        id: "msg-1001".into()
    }));
    call(
        &mut mb,
        "mark_as_read",
        json!({ "messageIds": ["msg-1001"] }),
    )
    .unwrap();
    assert!(mb.holds(&Atom::IsRead {
        id: "msg-1001".into()
    }));
}

#[test]
fn labels_are_created_on_demand_but_folders_are_not_labels() {
    let mut mb = mailbox(&sample_seed());
    call(
        &mut mb,
        "add_label",
        json!({ "messageId": "msg-1002", "label": "receipts" }),
    )
    .unwrap();
    assert!(
        mb.holds(&Atom::HasLabel {
            id: "msg-1002".into(),
            label: "Receipts".into()
        }),
        "existing label reused"
    );
    call(
        &mut mb,
        "add_label",
        json!({ "messageId": "msg-1002", "label": "Shipping" }),
    )
    .unwrap();
    let labels = call(&mut mb, "list_labels", json!({})).unwrap();
    assert_eq!(labels["labels"].as_array().unwrap().len(), 3);
    let e = call(
        &mut mb,
        "add_label",
        json!({ "messageId": "msg-1002", "label": "Trash" }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArguments);
}

#[test]
fn schemas_reject_bad_arguments() {
    let mut mb = mailbox(&sample_seed());
    for (tool, args) in [
        (
            "send_email",
            json!({ "to": [], "subject": "s", "body": "b" }),
        ),
        (
            "send_email",
            json!({ "to": ["a@b.com"], "subject": "s", "body": "b", "bcc": ["c@d.com"] }),
        ),
        (
            "move_email",
            json!({ "messageId": "msg-1001", "folder": "spam" }),
        ),
        ("search_emails", json!({ "query": "x", "maxResults": 0 })),
        ("read_email", json!({ "id": "msg-1001" })),
    ] {
        let e = call(&mut mb, tool, args.clone()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArguments, "{tool} {args}");
    }
    let e = call(
        &mut mb,
        "send_email",
        json!({ "to": ["not-an-address"], "subject": "s", "body": "b" }),
    )
    .unwrap_err();
    assert!(e.message.contains("not-an-address"), "{e}");
}

#[test]
fn same_calls_give_the_same_bytes() {
    let run = || {
        let mut mb = mailbox(&sample_seed());
        let a = call(
            &mut mb,
            "forward_email",
            json!({ "messageId": "msg-1002", "to": ["maria.lopez@northwind.io"], "body": "FYI" }),
        );
        let b = call(&mut mb, "list_emails", json!({ "folder": "sent" }));
        (format!("{a:?}{b:?}"), Simulated::snapshot(&mb).to_string())
    };
    assert_eq!(run(), run());
}

#[test]
fn bad_seeds_are_refused() {
    let mut seed = sample_seed();
    seed.messages[1].id = "msg-1001".into();
    assert!(Email::from_seed(&seed).is_err(), "duplicate id");
    let mut seed = sample_seed();
    seed.messages[0].labels = vec!["Nope".into()];
    assert!(Email::from_seed(&seed).is_err(), "unknown label");
    let seed: Result<Seed, _> = serde_json::from_value(json!({ "messages": [], "owner": "x" }));
    assert!(seed.is_err(), "unknown seed field");
}
