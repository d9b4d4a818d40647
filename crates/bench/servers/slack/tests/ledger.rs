//! The workspace's running total ([`WORKSPACE`]): every write moves it by exactly what it
//! stores, so the debug audit after each call passes and the bound holds to the byte.

use mcpbench_server_slack::world::{channel_id, sample_seed};
use mcpbench_server_slack::{DEFAULT_BOT, Message, Seed, Slack, WORKSPACE};
use mcpbench_sim::{ErrorKind, Server, Simulated, ToolError, footprint};
use serde_json::{Value, json};

/// Text JSON escapes: a quote, a backslash, a newline, a tab, a control character, non-ASCII.
const ESCAPED: &str = "say \"hi\" \\ then\nnext\tline \u{1} café ✓";

fn call(s: &mut Slack, tool: &str, args: Value) -> Result<Value, ToolError> {
    Server::call(s, tool, &args)
}

/// What the workspace holds by the measure the ledger keeps, worked out here from the
/// snapshot: a record per message, ephemeral message and channel; the bytes of each, and of
/// each channel's id once more (its key).
fn held(s: &Slack) -> (usize, usize) {
    let snap = Simulated::snapshot(s);
    let list = |k: &str| snap[k].as_array().unwrap().clone();
    let (messages, ephemeral, channels) = (list("messages"), list("ephemeral"), list("channels"));
    let records = messages.len() + ephemeral.len() + channels.len();
    let bytes = messages
        .iter()
        .chain(&ephemeral)
        .map(footprint)
        .chain(channels.iter().map(|c| footprint(&c["id"]) + footprint(c)))
        .sum();
    (records, bytes)
}

fn assert_full(e: ToolError) {
    assert_eq!(e.kind, ErrorKind::FailedPrecondition, "{e}");
    assert!(e.message.contains("the workspace is full"), "{e}");
}

/// A member of every seeded channel who is not the bot.
fn person(seed: &Seed) -> String {
    seed.users[0].id.clone()
}

#[test]
fn every_write_keeps_the_total_exact() {
    let seed = sample_seed();
    let (general, random) = (channel_id("general"), channel_id("random"));
    let mut s = Slack::from_seed(&seed).unwrap();
    let post = call(
        &mut s,
        "slack_post_message",
        json!({ "channel_id": general, "text": ESCAPED }),
    )
    .unwrap();
    let ts = post["ts"].as_str().unwrap().to_string();
    call(
        &mut s,
        "slack_reply_to_thread",
        json!({ "channel_id": general, "thread_ts": ts, "text": format!("{ESCAPED}\u{1f}") }),
    )
    .unwrap();
    // The first reaction adds the `reactions` field, the second a reaction beside it.
    for emoji in ["eyes", ":tada:"] {
        call(
            &mut s,
            "slack_add_reaction",
            json!({ "channel_id": general, "timestamp": ts, "reaction": emoji }),
        )
        .unwrap();
    }
    let e = call(
        &mut s,
        "slack_add_reaction",
        json!({ "channel_id": general, "timestamp": ts, "reaction": "eyes" }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Conflict);
    // A topic that grows by escaped text, one that shrinks, and one that clears it.
    for topic in [ESCAPED, "short", ""] {
        call(
            &mut s,
            "slack_set_channel_topic",
            json!({ "channel_id": general, "topic": topic }),
        )
        .unwrap();
    }
    let ops = call(
        &mut s,
        "slack_create_channel",
        json!({ "name": "ops-\u{e9}" }),
    )
    .unwrap_err();
    assert_eq!(ops.kind, ErrorKind::InvalidArguments);
    let ops = call(
        &mut s,
        "slack_create_channel",
        json!({ "name": "ops", "is_private": true }),
    )
    .unwrap();
    let ops = ops["channel"]["id"].as_str().unwrap().to_string();
    let (a, b) = (seed.users[0].id.clone(), seed.users[1].id.clone());
    call(
        &mut s,
        "slack_invite_to_channel",
        json!({ "channel_id": ops, "user_ids": [a, b, a] }),
    )
    .unwrap();
    call(
        &mut s,
        "slack_join_channel",
        json!({ "channel_id": random }),
    )
    .unwrap();
    call(
        &mut s,
        "slack_join_channel",
        json!({ "channel_id": random }),
    )
    .unwrap();
    call(
        &mut s,
        "slack_post_ephemeral",
        json!({ "channel_id": ops, "user_id": a, "text": ESCAPED }),
    )
    .unwrap();
    assert_eq!(Simulated::audit(&s), Ok(()));
    let snap = Simulated::snapshot(&s);
    assert_eq!(snap["ephemeral"][0]["text"], ESCAPED);
    let ops = snap["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "ops")
        .unwrap();
    assert_eq!(ops["members"], json!([DEFAULT_BOT, a, b]));
}

/// The bytes a post by the bot of `text` in `channel` stores (its timestamp is always 17
/// characters here).
fn post_cost(channel: &str, text: &str) -> usize {
    footprint(&Message {
        channel: channel.into(),
        ts: "1700000001.000100".into(),
        user: DEFAULT_BOT.into(),
        text: text.into(),
        thread_ts: None,
        reactions: vec![],
    })
}

/// The sample workspace with a topic on #general, a private channel #ops of the bot's, and
/// seeded messages of control characters (6 bytes each as stored) that leave 48 to 72 KiB free.
fn nearly_full() -> (Seed, Slack) {
    let mut seed = sample_seed();
    let ops = channel_id("ops");
    let general = seed.channels.iter_mut().find(|c| c.name == "general");
    general.unwrap().topic = "Release notes".into();
    seed.channels.push(mcpbench_server_slack::Channel {
        id: ops.clone(),
        name: "ops".into(),
        topic: String::new(),
        purpose: String::new(),
        members: vec![DEFAULT_BOT.into()],
        is_private: true,
        archived: false,
    });
    let text = "\u{1}".repeat(4000);
    let base = held(&Slack::from_seed(&seed).unwrap()).1;
    let mut i = 0;
    let mut used = base;
    loop {
        let m = Message {
            channel: ops.clone(),
            ts: format!("1600000000.{i:06}"),
            user: DEFAULT_BOT.into(),
            text: text.clone(),
            thread_ts: None,
            reactions: vec![],
        };
        if used + footprint(&m) > WORKSPACE.bytes - (48 << 10) {
            break;
        }
        used += footprint(&m);
        seed.messages.push(m);
        i += 1;
    }
    let s = Slack::from_seed(&seed).unwrap();
    assert_eq!(held(&s).1, used);
    (seed, s)
}

/// Posts plain text in `channel` until exactly `left` bytes remain.
fn fill(s: &mut Slack, channel: &str, left: usize) {
    let base = post_cost(channel, "");
    loop {
        let gap = WORKSPACE.bytes - held(s).1 - left;
        if gap <= base + 4000 {
            // Gap ≥ base + 1 here (below, each post leaves that much).
            let text = "z".repeat(gap - base);
            call(
                s,
                "slack_post_message",
                json!({ "channel_id": channel, "text": text }),
            )
            .unwrap();
            break;
        }
        let text = "x".repeat((gap - 2 * base - 1).min(4000));
        call(
            s,
            "slack_post_message",
            json!({ "channel_id": channel, "text": text }),
        )
        .unwrap();
    }
    assert_eq!(WORKSPACE.bytes - held(s).1, left);
}

#[test]
fn the_byte_bound_holds_to_the_byte_and_a_refusal_changes_nothing() {
    let (seed, mut s) = nearly_full();
    let (general, random, ops) = (
        channel_id("general"),
        channel_id("random"),
        channel_id("ops"),
    );
    fill(&mut s, &general, 1000);
    let (before, snapshot) = (held(&s), Simulated::snapshot(&s));

    // 250 control characters are 250 bytes of UTF-8 but 1,500 stored (`\u0001` each): the
    // topic grows by 1,487 bytes, past the 1,000 left. Counting raw lengths (237 more bytes),
    // the old check admitted it.
    let topic = "\u{1}".repeat(250);
    let e = call(
        &mut s,
        "slack_set_channel_topic",
        json!({ "channel_id": general, "topic": topic }),
    )
    .unwrap_err();
    assert_full(e);
    // A post three bytes past what is left.
    let text = "y".repeat(1000 - post_cost(&general, "") + 3);
    let e = call(
        &mut s,
        "slack_post_message",
        json!({ "channel_id": general, "text": text }),
    )
    .unwrap_err();
    assert_full(e);
    assert_eq!(held(&s), before, "the total is unchanged");
    assert_eq!(Simulated::snapshot(&s), snapshot, "nothing was changed");
    assert_eq!(Simulated::audit(&s), Ok(()));

    // A post of exactly what is left is admitted, and its timestamp was not used up by the
    // refusal before it.
    let text = "y".repeat(1000 - post_cost(&general, ""));
    let out = call(
        &mut s,
        "slack_post_message",
        json!({ "channel_id": general, "text": text }),
    )
    .unwrap();
    assert_eq!(out["ts"].as_str().unwrap().len(), 17);
    assert_eq!(held(&s).1, WORKSPACE.bytes);
    let snapshot = Simulated::snapshot(&s);

    // Full to the byte: invitations and joins grow a channel's members, and the old check
    // never counted them.
    let who = person(&seed);
    let e = call(
        &mut s,
        "slack_invite_to_channel",
        json!({ "channel_id": ops, "user_ids": [who] }),
    )
    .unwrap_err();
    assert_full(e);
    let e = call(
        &mut s,
        "slack_join_channel",
        json!({ "channel_id": random }),
    )
    .unwrap_err();
    assert_full(e);
    let e = call(
        &mut s,
        "slack_add_reaction",
        json!({ "channel_id": general, "timestamp": out["ts"], "reaction": "eyes" }),
    )
    .unwrap_err();
    assert_full(e);
    let e = call(
        &mut s,
        "slack_post_ephemeral",
        json!({ "channel_id": general, "user_id": who, "text": "a" }),
    )
    .unwrap_err();
    assert_full(e);
    let e = call(&mut s, "slack_create_channel", json!({ "name": "more" })).unwrap_err();
    assert_full(e);
    assert_eq!(Simulated::snapshot(&s), snapshot, "nothing was changed");
    // A topic that shrinks is still set: `,"topic":"Release notes"` is gone.
    call(
        &mut s,
        "slack_set_channel_topic",
        json!({ "channel_id": general, "topic": "" }),
    )
    .unwrap();
    assert_eq!(held(&s).1, WORKSPACE.bytes - 24);
    assert_eq!(Simulated::audit(&s), Ok(()));
}

#[test]
fn the_record_bound_counts_messages_ephemeral_messages_and_channels() {
    let mut seed = sample_seed();
    let general = channel_id("general");
    let start = Slack::from_seed(&seed).unwrap();
    let room = WORKSPACE.records - held(&start).0;
    for i in 0..room - 3 {
        seed.messages.push(Message {
            channel: general.clone(),
            ts: format!("1600000000.{i:06}"),
            user: DEFAULT_BOT.into(),
            text: "hi".into(),
            thread_ts: None,
            reactions: vec![],
        });
    }
    let mut s = Slack::from_seed(&seed).unwrap();
    let who = person(&seed);
    call(
        &mut s,
        "slack_post_message",
        json!({ "channel_id": general, "text": "one" }),
    )
    .unwrap();
    call(
        &mut s,
        "slack_post_ephemeral",
        json!({ "channel_id": general, "user_id": who, "text": "two" }),
    )
    .unwrap();
    call(&mut s, "slack_create_channel", json!({ "name": "three" })).unwrap();
    assert_eq!(held(&s).0, WORKSPACE.records);
    let e = call(
        &mut s,
        "slack_post_ephemeral",
        json!({ "channel_id": general, "user_id": who, "text": "four" }),
    )
    .unwrap_err();
    assert!(e.message.contains("5,000 messages and channels"), "{e}");
    // Reactions add no record: still admitted.
    let ts = &seed.messages.last().unwrap().ts;
    call(
        &mut s,
        "slack_add_reaction",
        json!({ "channel_id": general, "timestamp": ts, "reaction": "eyes" }),
    )
    .unwrap();
    assert_eq!(Simulated::audit(&s), Ok(()));
}
