//! A mailbox at a real scale: the background a generated task gives it, and the pages an
//! agent walks through it.

use mcpbench_server_email::{Background, Email, Seed, sample_seed};
use mcpbench_sim::{Server, Simulated};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn with_background(messages: u32) -> Seed {
    Seed {
        background: Some(Background { seed: 7, messages }),
        ..sample_seed()
    }
}

fn call(mb: &mut Email, tool: &str, args: Value) -> Value {
    Server::call(mb, tool, &args).expect("the call succeeds")
}

fn ids(page: &Value) -> Vec<String> {
    page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_background_is_months_of_mail_across_the_folders_beside_the_seed() {
    let plain = Email::from_seed(&sample_seed()).unwrap();
    let mut mb = Email::from_seed(&with_background(300)).unwrap();
    let labels = call(&mut mb, "list_labels", json!({}));
    let text = labels.to_string();
    for folder in ["inbox", "archive", "sent", "trash", "drafts"] {
        assert!(text.contains(folder), "{text}");
    }
    // The seed's own messages are all there, unchanged, among 300 more.
    let before = Simulated::snapshot(&plain);
    let after = Simulated::snapshot(&mb);
    let all = after["messages"].as_object().unwrap();
    assert_eq!(
        all.len(),
        before["messages"].as_object().unwrap().len() + 300
    );
    for (id, m) in before["messages"].as_object().unwrap() {
        assert_eq!(&all[id], m, "{id}");
    }
    // The same background, the same mailbox; another seed, another one.
    assert_eq!(
        Simulated::snapshot(&Email::from_seed(&with_background(300)).unwrap()),
        after
    );
    let other = Seed {
        background: Some(Background {
            seed: 8,
            messages: 300,
        }),
        ..sample_seed()
    };
    assert_ne!(
        Simulated::snapshot(&Email::from_seed(&other).unwrap()),
        after
    );
}

#[test]
fn the_inbox_is_read_page_by_page_and_every_message_comes_once() {
    let mut mb = Email::from_seed(&with_background(300)).unwrap();
    let first = call(&mut mb, "list_emails", json!({ "maxResults": 25 }));
    let total = first["total"].as_u64().unwrap() as usize;
    assert!(total > 100, "an inbox of {total}");
    let mut seen = ids(&first);
    let mut token = first["nextPageToken"].clone();
    while let Some(t) = token.as_str() {
        let page = call(
            &mut mb,
            "list_emails",
            json!({ "maxResults": 25, "pageToken": t }),
        );
        seen.extend(ids(&page));
        token = page["nextPageToken"].clone();
    }
    assert_eq!(seen.len(), total);
    assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), total);
    // The seed's inbox messages are among them, with the background's before and after them.
    for id in ["msg-1001", "msg-1002", "msg-1003", "msg-1004"] {
        assert!(seen.iter().any(|s| s == id), "{id}");
    }
    let at = seen.iter().position(|s| s == "msg-1001").unwrap();
    assert!(at > 0 && at < total - 1, "msg-1001 at {at} of {total}");
}

#[test]
fn a_page_token_is_bound_to_its_listing() {
    let mut mb = Email::from_seed(&with_background(300)).unwrap();
    let first = call(&mut mb, "search_emails", json!({ "query": "in:archive" }));
    let token = first["nextPageToken"].as_str().unwrap().to_string();
    let err = Server::call(
        &mut mb,
        "search_emails",
        &json!({ "query": "in:sent", "pageToken": token }),
    )
    .unwrap_err();
    assert!(err.to_string().contains("other filters"), "{err}");
    let err = Server::call(&mut mb, "list_emails", &json!({ "pageToken": "page-2" })).unwrap_err();
    assert!(err.to_string().contains("not returned"), "{err}");
}

#[test]
fn background_ids_never_sit_one_digit_from_the_seeds() {
    let mb = Email::from_seed(&with_background(1000)).unwrap();
    let snap = Simulated::snapshot(&mb);
    let own: Vec<String> = sample_seed()
        .messages
        .iter()
        .map(|m| m.id.clone())
        .collect();
    for id in snap["messages"].as_object().unwrap().keys() {
        if own.contains(id) {
            continue;
        }
        for o in &own {
            assert!(
                !mcpbench_sim::background::one_slip_apart(o, id),
                "{id} is one slip from {o}"
            );
        }
    }
}

#[test]
fn a_background_larger_than_a_mailbox_is_refused() {
    let err = Email::from_seed(&with_background(1001)).unwrap_err();
    assert!(err.to_string().contains("1000"), "{err}");
}
