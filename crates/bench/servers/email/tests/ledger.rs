//! The mailbox's running total: every write moves it by exactly what it stores (debug builds
//! audit it against a fresh measure after each call through `Server::call`), and the bound
//! holds to the byte.

use mcpbench_server_email::{Email, MAILBOX, sample_seed};
use mcpbench_sim::{ErrorKind, Server, Simulated, ToolError, Usage, footprint};
use serde_json::{Value, json};

/// Text with every kind of character JSON escapes or encodes in more than one byte.
const TRICKY: &str = "She said \"hi\" \\ then\nleft\t\u{1}\u{7f} — naïve 東京";

fn call(mb: &mut Email, tool: &str, args: Value) -> Result<Value, ToolError> {
    Server::call(mb, tool, &args)
}

fn mailbox() -> Email {
    Email::from_seed(&sample_seed()).expect("the sample seed loads")
}

/// The mailbox measured from its snapshot, apart from the server's own count: each message
/// its JSON and its id once more, each label its name, each entry of the log its bytes.
fn measured(mb: &Email) -> Usage {
    let s = Simulated::snapshot(mb);
    let mut u = Usage::default();
    for (id, m) in s["messages"].as_object().unwrap() {
        u = u + Usage::of(1, m) + Usage::bytes(footprint(id));
    }
    for l in s["labels"].as_array().unwrap() {
        u = u + Usage::of(1, l);
    }
    for out in s["sent"].as_array().unwrap() {
        u = u + Usage::bytes(footprint(out));
    }
    u
}

/// What the total moved by since `before`: (records, bytes).
fn moved(mb: &Email, before: Usage) -> (isize, isize) {
    let after = mb.held();
    (
        after.records as isize - before.records as isize,
        after.bytes as isize - before.bytes as isize,
    )
}

fn fp(s: &str) -> isize {
    footprint(s) as isize
}

#[test]
fn every_write_moves_the_total_by_what_it_stores() {
    let mut mb = mailbox();
    assert_eq!(mb.held(), measured(&mb));
    let to = json!(["ana@example.com"]);
    let r = call(
        &mut mb,
        "send_email",
        json!({ "to": to, "subject": TRICKY, "body": TRICKY }),
    )
    .unwrap();
    let sent = r["id"].as_str().unwrap().to_string();
    call(
        &mut mb,
        "draft_email",
        json!({ "to": to, "cc": ["bo@example.com"], "subject": "d", "body": TRICKY }),
    )
    .unwrap();
    let body = "Thanks, \"noted\"\n\u{1}";
    call(
        &mut mb,
        "reply_email",
        json!({ "messageId": "msg-1001", "body": body, "replyAll": true }),
    )
    .unwrap();
    call(
        &mut mb,
        "forward_email",
        json!({ "messageId": sent, "to": ["maria.lopez@northwind.io"], "body": TRICKY }),
    )
    .unwrap();
    assert_eq!(
        mb.held(),
        measured(&mb),
        "new messages and their log entries"
    );

    // A new label, with every escape in its name: a record, and its name twice (in the list
    // and on the message).
    let label = "Q\"3\\ \u{1}\nnaïve";
    let before = mb.held();
    let r = call(
        &mut mb,
        "add_label",
        json!({ "messageId": "msg-1002", "label": label }),
    )
    .unwrap();
    assert_eq!(r["label"], label);
    assert_eq!(moved(&mb, before), (1, 2 * fp(label)));
    // The second label on a message adds its name and the comma between them.
    let before = mb.held();
    call(
        &mut mb,
        "add_label",
        json!({ "messageId": "msg-1002", "label": "receipts" }),
    )
    .unwrap();
    assert_eq!(moved(&mb, before), (0, fp("Receipts") + 1));
    let before = mb.held();
    call(
        &mut mb,
        "add_label",
        json!({ "messageId": "msg-1002", "label": "Receipts" }),
    )
    .unwrap();
    assert_eq!(moved(&mb, before), (0, 0), "a label it already has");

    // Edits that shrink and grow: read (`false` to `true`), archive (`inbox` to `archive`).
    let before = mb.held();
    call(
        &mut mb,
        "mark_as_read",
        json!({ "messageIds": ["msg-1002", "msg-1004", "msg-1002", "msg-1003"] }),
    )
    .unwrap();
    assert_eq!(
        moved(&mb, before),
        (0, -2),
        "two were unread, msg-1003 was read"
    );
    let before = mb.held();
    call(&mut mb, "archive_email", json!({ "messageId": "msg-1002" })).unwrap();
    assert_eq!(moved(&mb, before), (0, 2));
    call(
        &mut mb,
        "move_email",
        json!({ "messageId": "msg-1002", "folder": "trash" }),
    )
    .unwrap();
    assert_eq!(moved(&mb, before), (0, 0), "trash is as long as inbox");

    // Sending the draft: out of drafts into sent (2 bytes shorter), and logged.
    let before = mb.held();
    call(&mut mb, "send_draft", json!({ "draftId": "msg-1006" })).unwrap();
    let log = Simulated::snapshot(&mb)["sent"].as_array().unwrap().clone();
    let entry = footprint(log.last().unwrap()) as isize;
    assert_eq!(moved(&mb, before), (0, entry - 2));

    // Deleting frees the message and its id; what was sent stays logged.
    let before = mb.held();
    let message = Simulated::snapshot(&mb)["messages"][&sent].clone();
    call(&mut mb, "delete_email", json!({ "messageId": sent })).unwrap();
    assert_eq!(
        moved(&mb, before),
        (-1, -(footprint(&message) as isize) - fp(&sent))
    );

    // Refused for other reasons: nothing moves.
    let before = mb.held();
    for (tool, args) in [
        ("delete_email", json!({ "messageId": sent })),
        (
            "mark_as_read",
            json!({ "messageIds": ["msg-1001", "nope"] }),
        ),
        ("archive_email", json!({ "messageId": "msg-9002" })),
        ("send_draft", json!({ "draftId": "msg-1001" })),
        ("add_label", json!({ "messageId": "nope", "label": "New" })),
    ] {
        assert!(call(&mut mb, tool, args).is_err(), "{tool}");
    }
    assert_eq!(mb.held(), before);
    assert_eq!(mb.held(), measured(&mb));
    assert_eq!(Simulated::audit(&mb), Ok(()));
    assert_eq!(
        Simulated::audit(&mb.clone()),
        Ok(()),
        "a copy keeps its total"
    );
}

/// A body whose JSON string content takes exactly `bytes` bytes (`\u0001` takes six).
fn text(bytes: usize) -> String {
    "\u{1}".repeat(bytes / 6) + &"x".repeat(bytes % 6)
}

fn draft(mb: &mut Email, bytes: usize) -> Result<Value, ToolError> {
    let args = json!({ "to": ["ana@example.com"], "subject": "filler", "body": text(bytes) });
    call(mb, "draft_email", args)
}

fn room(mb: &Email) -> usize {
    MAILBOX.bytes - mb.held().bytes
}

/// Saves drafts until exactly `left` bytes of the mailbox are free.
fn fill(mb: &mut Email, left: usize) {
    let mut probe = mb.clone();
    draft(&mut probe, 0).unwrap();
    let empty = probe.held().bytes - mb.held().bytes;
    while room(mb) > left {
        let gap = room(mb) - left;
        assert!(gap >= empty, "{gap} bytes are too few for a draft");
        // The last draft closes the gap; those before it leave room for one more.
        let body = if gap - empty <= 100_000 {
            gap - empty
        } else {
            (gap - 2 * empty).min(100_000)
        };
        draft(mb, body).unwrap();
    }
    assert_eq!(room(mb), left);
}

fn full(e: ToolError) {
    assert_eq!(e.kind, ErrorKind::FailedPrecondition);
    assert_eq!(
        e.message,
        "the mailbox is full: a run's mailbox holds at most 4 MiB in all; nothing was changed"
    );
}

#[test]
fn a_send_that_fits_exactly_is_admitted_and_one_a_few_bytes_larger_is_not() {
    let mut mb = mailbox();
    fill(&mut mb, 50_000);
    let send = |extra: usize| {
        let body = format!("{TRICKY}{}", "x".repeat(extra));
        json!({ "to": ["ana@example.com"], "subject": "Exactly full", "body": body })
    };
    // Its exact footprint (message, id, log entry), measured on a copy from the snapshot.
    let mut probe = mb.clone();
    call(&mut probe, "send_email", send(0)).unwrap();
    let exact = measured(&probe).bytes - measured(&mb).bytes;
    fill(&mut mb, exact);

    let (before, snapshot) = (mb.held(), Simulated::snapshot(&mb));
    full(call(&mut mb, "send_email", send(3)).unwrap_err());
    assert_eq!(mb.held(), before, "a refusal moves nothing");
    assert_eq!(
        Simulated::snapshot(&mb),
        snapshot,
        "a refusal changes nothing"
    );
    // The old count, with its guessed ids, refused this one.
    call(&mut mb, "send_email", send(0)).unwrap();
    assert_eq!(mb.held().bytes, MAILBOX.bytes, "exactly full");
    assert_eq!(mb.held(), measured(&mb));

    // Full to the byte: an edit that grows is refused, one that shrinks passes.
    full(call(&mut mb, "archive_email", json!({ "messageId": "msg-1001" })).unwrap_err());
    full(
        call(
            &mut mb,
            "draft_email",
            json!({ "to": ["a@b.co"], "subject": "s", "body": "" }),
        )
        .unwrap_err(),
    );
    call(
        &mut mb,
        "mark_as_read",
        json!({ "messageIds": ["msg-1001"] }),
    )
    .unwrap();
    assert_eq!(room(&mb), 1);
    full(call(&mut mb, "archive_email", json!({ "messageId": "msg-1001" })).unwrap_err());
    call(&mut mb, "delete_email", json!({ "messageId": "msg-9001" })).unwrap();
    call(&mut mb, "archive_email", json!({ "messageId": "msg-1001" })).unwrap();
    assert_eq!(Simulated::audit(&mb), Ok(()));
    assert_eq!(mb.held(), measured(&mb));
}

#[test]
fn a_label_counts_the_comma_beside_the_labels_a_message_has() {
    let mut mb = mailbox();
    call(
        &mut mb,
        "add_label",
        json!({ "messageId": "msg-1002", "label": "Receipts" }),
    )
    .unwrap();
    // A new label on a labelled message: its name in the list and on the message, and the
    // comma between the message's labels. The old count left out the comma.
    let label = "Ship\"ping\u{1}";
    let exact = 2 * footprint(label) + 1;
    fill(&mut mb, exact - 1);
    let args = json!({ "messageId": "msg-1002", "label": label });
    let (before, snapshot) = (mb.held(), Simulated::snapshot(&mb));
    full(call(&mut mb, "add_label", args.clone()).unwrap_err());
    assert_eq!(mb.held(), before);
    assert_eq!(Simulated::snapshot(&mb), snapshot);
    // Reading msg-1001 frees the one byte missing.
    call(
        &mut mb,
        "mark_as_read",
        json!({ "messageIds": ["msg-1001"] }),
    )
    .unwrap();
    call(&mut mb, "add_label", args).unwrap();
    assert_eq!(mb.held().bytes, MAILBOX.bytes, "exactly full");
    assert_eq!(mb.held(), measured(&mb));
    assert_eq!(Simulated::audit(&mb), Ok(()));
}

#[test]
fn the_log_of_a_sent_draft_must_fit_too() {
    let mut mb = mailbox();
    // Sending msg-1006 logs it and moves it from drafts to sent, two bytes shorter.
    let mut probe = mb.clone();
    call(&mut probe, "send_draft", json!({ "draftId": "msg-1006" })).unwrap();
    let exact = measured(&probe).bytes - measured(&mb).bytes;
    fill(&mut mb, exact - 1);
    let snapshot = Simulated::snapshot(&mb);
    full(call(&mut mb, "send_draft", json!({ "draftId": "msg-1006" })).unwrap_err());
    assert_eq!(Simulated::snapshot(&mb), snapshot);
    call(
        &mut mb,
        "mark_as_read",
        json!({ "messageIds": ["msg-1001"] }),
    )
    .unwrap();
    call(&mut mb, "send_draft", json!({ "draftId": "msg-1006" })).unwrap();
    assert_eq!(mb.held().bytes, MAILBOX.bytes);
    assert_eq!(Simulated::audit(&mb), Ok(()));
}
