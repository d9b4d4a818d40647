//! Behaviour of the slack tools that an agent would notice.

use mcpbench_server_slack::world::{World, sample_seed};
use mcpbench_server_slack::{Atom, Seed, Slack};
use mcpbench_sim::{ErrorKind, Rng, Server, Simulated};
use serde_json::{Value, json};

fn server(seed: &Seed) -> Slack {
    Slack::from_seed(seed).expect("valid seed")
}

fn id_of(s: &mut Slack, name: &str) -> String {
    let list = Server::call(
        s,
        "slack_list_channels",
        &json!({ "include_archived": true }),
    )
    .unwrap();
    let found = list["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned();
    found.expect("channel listed")["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn posts_get_counter_timestamps_and_show_in_history() {
    let seed = sample_seed();
    let mut s = server(&seed);
    let general = id_of(&mut s, "general");
    let a = Server::call(
        &mut s,
        "slack_post_message",
        &json!({ "channel_id": general, "text": "one" }),
    )
    .unwrap();
    let b = Server::call(
        &mut s,
        "slack_post_message",
        &json!({ "channel_id": general, "text": "two" }),
    )
    .unwrap();
    assert_eq!(a["ts"], "1700000001.000100");
    assert_eq!(b["ts"], "1700000002.000200");
    let h = Server::call(
        &mut s,
        "slack_get_channel_history",
        &json!({ "channel_id": general, "limit": 2 }),
    )
    .unwrap();
    let texts: Vec<&str> = h["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["two", "one"], "newest first");
    assert_eq!(h["has_more"], true);
    let again = server(&seed);
    assert_ne!(Simulated::snapshot(&s), Simulated::snapshot(&again));
    let mut again = again;
    Server::call(
        &mut again,
        "slack_post_message",
        &json!({ "channel_id": general, "text": "one" }),
    )
    .unwrap();
    Server::call(
        &mut again,
        "slack_post_message",
        &json!({ "channel_id": general, "text": "two" }),
    )
    .unwrap();
    assert_eq!(
        Simulated::snapshot(&s),
        Simulated::snapshot(&again),
        "same calls, same state"
    );
}

#[test]
fn membership_archiving_and_names_give_typed_errors() {
    let mut s = server(&sample_seed());
    let random = id_of(&mut s, "random");
    let e = Server::call(
        &mut s,
        "slack_post_message",
        &json!({ "channel_id": random, "text": "hi" }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::PermissionDenied);
    assert!(e.message.contains("not_in_channel"), "{e}");
    Server::call(
        &mut s,
        "slack_join_channel",
        &json!({ "channel_id": random }),
    )
    .unwrap();
    Server::call(
        &mut s,
        "slack_post_message",
        &json!({ "channel_id": random, "text": "hi" }),
    )
    .unwrap();

    let e = Server::call(
        &mut s,
        "slack_post_message",
        &json!({ "channel_id": "#general", "text": "hi" }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
    let general = id_of(&mut s, "general");
    assert!(e.message.contains(&general), "the error names the id: {e}");

    let mut rng = Rng::new(1, 1);
    let mut w = World::new(&mut rng, 3);
    let old = w.channel("old-news", true);
    w.channel_mut(&old).archived = true;
    let mut s = server(&w.seed);
    let e = Server::call(
        &mut s,
        "slack_post_message",
        &json!({ "channel_id": old, "text": "hi" }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::FailedPrecondition);
    let listed = Server::call(&mut s, "slack_list_channels", &json!({})).unwrap();
    assert_eq!(
        listed["channels"],
        json!([]),
        "archived channels are hidden by default"
    );
}

#[test]
fn schemas_reject_bad_arguments_before_anything_changes() {
    let mut s = server(&sample_seed());
    let before = Simulated::snapshot(&s);
    let bad: [(&str, Value); 4] = [
        (
            "slack_post_message",
            json!({ "channel_id": "C1", "text": "" }),
        ),
        (
            "slack_post_message",
            json!({ "channel": "C1", "text": "hi" }),
        ),
        ("slack_create_channel", json!({ "name": "Has Spaces" })),
        (
            "slack_get_channel_history",
            json!({ "channel_id": "C1", "limit": 0 }),
        ),
    ];
    for (tool, args) in bad {
        let e = Server::call(&mut s, tool, &args).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArguments, "{tool} {args}");
    }
    let general = id_of(&mut s, "general");
    let h = Server::call(
        &mut s,
        "slack_get_channel_history",
        &json!({ "channel_id": general }),
    )
    .unwrap();
    let ts = h["messages"][0]["ts"].clone();
    let e = Server::call(
        &mut s,
        "slack_add_reaction",
        &json!({ "channel_id": general, "timestamp": ts, "reaction": "not_an_emoji" }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArguments);
    assert_eq!(Simulated::snapshot(&s), before);
}

#[test]
fn threads_reactions_and_predicates() {
    let mut s = server(&sample_seed());
    let deploys = id_of(&mut s, "deploys");
    let h = Server::call(
        &mut s,
        "slack_get_channel_history",
        &json!({ "channel_id": deploys }),
    )
    .unwrap();
    let parent = &h["messages"][0];
    assert_eq!(
        parent["reply_count"], 1,
        "replies are counted, not listed: {h}"
    );
    let ts = parent["ts"].as_str().unwrap().to_string();
    let reply = json!({ "channel_id": deploys, "thread_ts": ts, "text": "Thanks!" });
    Server::call(&mut s, "slack_reply_to_thread", &reply).unwrap();
    let t = Server::call(
        &mut s,
        "slack_get_thread_replies",
        &json!({ "channel_id": deploys, "thread_ts": ts }),
    )
    .unwrap();
    assert_eq!(t["messages"].as_array().unwrap().len(), 3);
    let reply_atom = Atom::ThreadReplyPosted {
        channel: "deploys".into(),
        thread_ts: ts.clone(),
        text: Some("Thanks!".into()),
        text_contains: None,
        user: Some(mcpbench_server_slack::DEFAULT_BOT.into()),
    };
    assert!(s.holds(&reply_atom));
    let top = Atom::MessagePosted {
        channel: deploys.clone(),
        text: Some("Thanks!".into()),
        text_contains: None,
        user: None,
    };
    assert!(!s.holds(&top), "a thread reply is not a top-level message");

    let react = json!({ "channel_id": deploys, "timestamp": ts, "reaction": ":eyes:" });
    Server::call(&mut s, "slack_add_reaction", &react).unwrap();
    let e = Server::call(&mut s, "slack_add_reaction", &react).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Conflict);
    assert!(s.holds(&Atom::ReactionAdded {
        channel: deploys,
        ts,
        reaction: "eyes".into(),
        user: None
    }));
}

#[test]
fn search_understands_channel_and_author_filters() {
    let mut s = server(&sample_seed());
    let r = Server::call(
        &mut s,
        "slack_search_messages",
        &json!({ "query": "staging in:#deploys" }),
    )
    .unwrap();
    assert_eq!(r["messages"]["total"], 2);
    let r = Server::call(
        &mut s,
        "slack_search_messages",
        &json!({ "query": "\"smoke tests pass\"" }),
    )
    .unwrap();
    assert_eq!(r["messages"]["total"], 1);
    let handle = r["messages"]["matches"][0]["username"]
        .as_str()
        .unwrap()
        .to_string();
    let r = Server::call(
        &mut s,
        "slack_search_messages",
        &json!({ "query": format!("from:@{handle} staging") }),
    )
    .unwrap();
    assert_eq!(r["messages"]["total"], 1);
    let r = Server::call(
        &mut s,
        "slack_search_messages",
        &json!({ "query": "staging in:#general" }),
    )
    .unwrap();
    assert_eq!(r["messages"]["total"], 0);
}

#[test]
fn seeds_with_dangling_references_are_refused() {
    let mut seed = sample_seed();
    seed.channels[0].members.push("UNOBODY".into());
    assert!(Slack::from_seed(&seed).is_err());
    let mut seed = sample_seed();
    seed.messages[0].thread_ts = Some("1.000001".into());
    assert!(Slack::from_seed(&seed).is_err());
    assert!(
        Slack::from_seed(&Seed::default()).is_ok(),
        "the default seed is an empty workspace"
    );
}
