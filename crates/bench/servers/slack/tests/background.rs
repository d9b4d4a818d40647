//! A workspace at a real scale: the channels, people and chatter a generated task gives it,
//! interleaved with the seed's own messages, and the pages an agent walks through them.

use mcpbench_server_slack::world::{channel_id, sample_seed};
use mcpbench_server_slack::{Background, Seed, Slack, history_reads};
use mcpbench_sim::conformance::template_rng;
use mcpbench_sim::{Server, Simulated, Step};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn with_background(channels: u32, users: u32, messages: u32) -> Seed {
    Seed {
        background: Some(Background {
            seed: 11,
            channels,
            users,
            messages,
        }),
        ..sample_seed()
    }
}

fn call(s: &mut Slack, tool: &str, args: Value) -> Value {
    Server::call(s, tool, &args).expect("the call succeeds")
}

fn stamps(page: &Value) -> Vec<String> {
    page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["ts"].as_str().unwrap().to_string())
        .collect()
}

/// Every top-level message of `channel`, newest first, read `limit` at a time.
fn whole_history(s: &mut Slack, channel: &str, limit: u32) -> Vec<String> {
    let mut args = json!({ "channel_id": channel, "limit": limit });
    let mut seen = Vec::new();
    loop {
        let page = call(s, "slack_get_channel_history", args.clone());
        seen.extend(stamps(&page));
        let next = page["response_metadata"]["next_cursor"].as_str().unwrap();
        assert_eq!(page["has_more"], !next.is_empty(), "{page}");
        if next.is_empty() {
            return seen;
        }
        args["cursor"] = json!(next);
    }
}

#[test]
fn a_background_adds_channels_people_and_chatter_and_leaves_the_seeds_own_alone() {
    let own = sample_seed();
    let plain = Slack::from_seed(&own).unwrap();
    let s = Slack::from_seed(&with_background(12, 20, 300)).unwrap();
    let (before, after) = (Simulated::snapshot(&plain), Simulated::snapshot(&s));
    let len = |v: &Value, k: &str| v[k].as_array().unwrap().len();
    assert_eq!(len(&after, "users"), len(&before, "users") + 20);
    assert_eq!(len(&after, "channels"), len(&before, "channels") + 12);
    assert_eq!(len(&after, "messages"), len(&before, "messages") + 300);
    for key in ["users", "channels", "messages"] {
        let all = after[key].as_array().unwrap();
        for record in before[key].as_array().unwrap() {
            assert!(all.contains(record), "{key}: {record} changed or missing");
        }
    }
    // Some of its channels are archived, some private, the bot is in some and not others.
    let theirs: Vec<&Value> = (after["channels"].as_array().unwrap().iter())
        .filter(|c| !before["channels"].as_array().unwrap().contains(c))
        .collect();
    let some = |f: &dyn Fn(&Value) -> bool| theirs.iter().any(|c| f(c));
    assert!(some(&|c| c["archived"] == true));
    assert!(some(&|c| c["members"]
        .as_array()
        .unwrap()
        .contains(&json!(own.bot_user))));
    assert!(some(&|c| !c["members"]
        .as_array()
        .unwrap()
        .contains(&json!(own.bot_user))));
    // The same background, the same workspace; another seed, another one.
    let again = Slack::from_seed(&with_background(12, 20, 300)).unwrap();
    assert_eq!(Simulated::snapshot(&again), after);
    let mut other = with_background(12, 20, 300);
    other.background.as_mut().unwrap().seed = 12;
    assert_ne!(
        Simulated::snapshot(&Slack::from_seed(&other).unwrap()),
        after
    );
}

#[test]
fn a_seed_channels_history_is_long_and_its_own_messages_sit_inside_it() {
    let own = sample_seed();
    let mut s = Slack::from_seed(&with_background(12, 20, 400)).unwrap();
    let general = channel_id("general");
    let seen = whole_history(&mut s, &general, 7);
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "a message came twice");
    assert!(seen.len() > 40, "#general holds {} messages", seen.len());
    // Every top-level message of the channel, newest first.
    assert_eq!(seen, whole_history(&mut s, &general, 200));
    let mine: Vec<usize> = (own.messages.iter())
        .filter(|m| m.channel == general && m.thread_ts.is_none())
        .map(|m| {
            seen.iter()
                .position(|t| *t == m.ts)
                .expect("the seed's own")
        })
        .collect();
    let (first, last) = (*mine.iter().min().unwrap(), *mine.iter().max().unwrap());
    assert!(
        first > 0,
        "the background's messages come after the seed's too"
    );
    assert!(last < seen.len() - 1, "and before them");
    assert!(last - first + 1 > mine.len(), "and among them");
    // What a reference reads to reach a message: the pages down to the one holding it.
    let oldest = &own
        .messages
        .iter()
        .find(|m| m.channel == general)
        .unwrap()
        .ts;
    let reads = history_reads(&with_background(12, 20, 400), &general, 7, Some(oldest));
    let held = call(
        &mut s,
        "slack_get_channel_history",
        reads.last().unwrap().clone(),
    );
    assert!(stamps(&held).contains(oldest), "{held}");
    assert_eq!(
        reads.len(),
        seen.iter().position(|t| t == oldest).unwrap() / 7 + 1
    );
}

#[test]
fn a_cursor_belongs_to_its_channel_and_the_search_pages_by_number() {
    let mut s = Slack::from_seed(&with_background(12, 20, 400)).unwrap();
    let first = call(
        &mut s,
        "slack_get_channel_history",
        json!({ "channel_id": channel_id("general"), "limit": 5 }),
    );
    let cursor = first["response_metadata"]["next_cursor"].as_str().unwrap();
    let err = Server::call(
        &mut s,
        "slack_get_channel_history",
        &json!({ "channel_id": channel_id("deploys"), "cursor": cursor }),
    )
    .unwrap_err();
    assert!(err.message.contains("invalid_cursor"), "{err}");
    let search = |s: &mut Slack, page: u32| {
        call(
            s,
            "slack_search_messages",
            json!({ "query": "in:#general", "count": 15, "page": page }),
        )
    };
    let one = search(&mut s, 1);
    let total = one["messages"]["total"].as_u64().unwrap() as usize;
    let pages = one["messages"]["paging"]["pages"].as_u64().unwrap() as u32;
    assert_eq!(pages as usize, total.div_ceil(15));
    assert!(pages > 2, "{one}");
    let mut seen = BTreeSet::new();
    for p in 1..=pages {
        for m in search(&mut s, p)["messages"]["matches"].as_array().unwrap() {
            assert!(seen.insert(m["ts"].as_str().unwrap().to_string()), "{m}");
        }
    }
    assert_eq!(seen.len(), total);
    assert!(search(&mut s, pages + 1)["messages"]["matches"] == json!([]));
}

#[test]
fn a_background_never_answers_a_templates_search() {
    for t in Slack::templates() {
        for n in 0..12 {
            let mut rng = template_rng(t.id, n);
            let draft = (t.build)(&mut rng);
            let mut full = draft.seed.clone();
            Slack::furnish(&mut full, &mut rng);
            let bare = Seed {
                background: None,
                ..draft.seed.clone()
            };
            let (mut a, mut b) = (
                Slack::from_seed(&bare).unwrap(),
                Slack::from_seed(&full).unwrap(),
            );
            for step in draft.references.iter().flatten() {
                let Step::Call(c) = step else { continue };
                if c.tool.ends_with("slack_search_messages") {
                    let (x, y) = (
                        call(&mut a, "slack_search_messages", c.arguments.clone()),
                        call(&mut b, "slack_search_messages", c.arguments.clone()),
                    );
                    assert_eq!(x, y, "{} sample {n}: {}", t.id, c.arguments);
                }
            }
        }
    }
}

#[test]
fn background_stamps_and_ids_never_sit_one_slip_from_the_seeds() {
    use mcpbench_sim::background::one_slip_apart;
    let own = sample_seed();
    let s = Slack::from_seed(&with_background(32, 100, 1000)).unwrap();
    let snap = Simulated::snapshot(&s);
    for m in snap["messages"].as_array().unwrap() {
        let (c, t) = (m["channel"].as_str().unwrap(), m["ts"].as_str().unwrap());
        for o in own.messages.iter().filter(|o| o.channel == c) {
            assert!(
                o.ts == t || !one_slip_apart(&o.ts, t),
                "{t} is one slip from {}",
                o.ts
            );
        }
    }
    for u in snap["users"].as_array().unwrap() {
        let id = u["id"].as_str().unwrap();
        for o in &own.users {
            assert!(
                o.id == id || !one_slip_apart(&o.id, id),
                "{id} and {}",
                o.id
            );
        }
    }
}

#[test]
fn a_background_larger_than_a_workspace_takes_is_refused() {
    for (seed, max) in [
        (with_background(33, 10, 10), "32 channels"),
        (with_background(10, 101, 10), "100 users"),
        (with_background(10, 10, 1001), "1000 messages"),
    ] {
        let err = Slack::from_seed(&seed).unwrap_err();
        assert!(err.to_string().contains(max), "{err}");
    }
}
