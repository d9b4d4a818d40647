//! Recovery templates: a transient fault to retry through, or a natural error (not a member,
//! archived channel) for the agent to notice and get around; the goal states only what the
//! user wants and what they will accept.

use super::{announcement, atom, bot_posted, params, step, tools};
use crate::world::{CHANNELS, World};
use crate::{Atom, DEFAULT_BOT, Slack};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, qualified};
use serde_json::json;

pub(super) fn post_after_rate_limit(rng: &mut Rng) -> Draft<Slack> {
    let mut w = World::new(rng, 4);
    let names = rng.sample(CHANNELS, 2);
    let ids: Vec<String> = names.iter().map(|n| w.channel(n, true)).collect();
    for id in &ids {
        w.chatter(rng, id, 2);
    }
    let (id, name) = (ids[0].clone(), names[0]);
    let text = announcement(rng);
    let kind = *rng.pick(&[
        ErrorKind::RateLimited,
        ErrorKind::Unavailable,
        ErrorKind::Timeout,
    ]);
    let post = step("post_message", json!({ "channel_id": id, "text": text }));
    Draft {
        goal: format!("Post a message in #{name} that says exactly: {text}"),
        max_steps: 5,
        seed: w.seed,
        tools: tools(&["post_message", "post_ephemeral", "list_channels", "get_channel_history"]),
        predicate: Pred::All(vec![
            bot_posted(&id, &text),
            atom(Atom::MessageCount { channel: id.clone(), count: 1, text: Some(text.clone()), user: None }),
        ]),
        references: vec![vec![step("list_channels", json!({})), post.clone(), post]],
        faults: vec![Fault {
            tool: qualified::<Slack>("slack_post_message"),
            on_call: 1,
            times: 1,
            error: kind,
            message: "ratelimited: too many messages in a short time; nothing was posted, retry in a second".into(),
            landed: false,
        }],
        params: params(&[("channel", json!(name)), ("text", json!(text)), ("error", json!(kind.as_str()))]),
    }
}

pub(super) fn join_then_post(rng: &mut Rng) -> Draft<Slack> {
    let mut w = World::new(rng, 4);
    let names = rng.sample(CHANNELS, 3);
    let ids: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| w.channel(n, i != 0))
        .collect();
    for id in &ids {
        w.chatter(rng, id, 2);
    }
    let (id, name) = (ids[0].clone(), names[0]);
    let text = announcement(rng);
    let post = step("post_message", json!({ "channel_id": id, "text": text }));
    let join = step("join_channel", json!({ "channel_id": id }));
    let goal = match rng.below(3) {
        0 => format!("Post this message in #{name}: {text}"),
        1 => format!("Please let #{name} know, in exactly these words: {text}"),
        _ => format!("Can you share this in #{name} for me? Word for word: {text}"),
    };
    Draft {
        goal,
        max_steps: 6,
        seed: w.seed,
        tools: tools(&[
            "list_channels",
            "post_message",
            "join_channel",
            "invite_to_channel",
            "post_ephemeral",
        ]),
        predicate: Pred::All(vec![
            bot_posted(&id, &text),
            atom(Atom::MemberOf {
                channel: id.clone(),
                user: DEFAULT_BOT.into(),
            }),
        ]),
        references: vec![
            vec![
                step("list_channels", json!({})),
                post.clone(),
                join.clone(),
                post.clone(),
            ],
            vec![step("list_channels", json!({})), join, post],
        ],
        faults: vec![],
        params: params(&[("channel", json!(name)), ("text", json!(text))]),
    }
}

pub(super) fn archived_fallback(rng: &mut Rng) -> Draft<Slack> {
    let mut w = World::new(rng, 4);
    let names = rng.sample(CHANNELS, 2);
    let old_name = format!("{}-old", names[0]);
    let new_name = names[0].to_string();
    let must_join = rng.chance(1, 2);
    let old = w.channel(&old_name, true);
    let new = w.channel(&new_name, !must_join);
    let other = w.channel(names[1], true);
    w.chatter(rng, &old, 3);
    w.chatter(rng, &new, 2);
    w.chatter(rng, &other, 2);
    w.channel_mut(&old).archived = true;
    let text = announcement(rng);
    let mut direct = vec![step("list_channels", json!({}))];
    let mut tried = vec![
        step("list_channels", json!({ "include_archived": true })),
        step("post_message", json!({ "channel_id": old, "text": text })),
    ];
    if must_join {
        direct.push(step("join_channel", json!({ "channel_id": new })));
        tried.push(step("join_channel", json!({ "channel_id": new })));
    }
    direct.push(step(
        "post_message",
        json!({ "channel_id": new, "text": text }),
    ));
    tried.push(step(
        "post_message",
        json!({ "channel_id": new, "text": text }),
    ));
    let goal = match rng.below(3) {
        0 => format!(
            "Post this message in #{old_name}: {text}\nIf that channel is no longer in use, #{new_name} is the place for it."
        ),
        1 => format!(
            "Please share this in our #{old_name} channel, word for word: {text}\n#{new_name} will do if #{old_name} has been retired."
        ),
        _ => format!(
            "I'd like this posted in #{old_name}, or in #{new_name} if #{old_name} has been shut down: {text}"
        ),
    };
    Draft {
        goal,
        max_steps: 7,
        seed: w.seed,
        tools: tools(&[
            "list_channels",
            "post_message",
            "join_channel",
            "create_channel",
            "post_ephemeral",
            "get_channel_history",
        ]),
        predicate: bot_posted(&new, &text),
        references: vec![direct, tried],
        faults: vec![],
        params: params(&[
            ("old", json!(old_name)),
            ("new", json!(new_name)),
            ("must_join", json!(must_join)),
        ]),
    }
}
