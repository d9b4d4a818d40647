//! Single-tool templates: one well-chosen call with the right arguments.

use super::{announcement, atom, bot_posted, capitalize, params, step, tools};
use crate::world::{CHANNELS, SERVICES, World};
use crate::{Atom, Slack};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step};
use serde_json::json;

/// A workspace of `people` people and `n` channels the bot is in, with chatter; the channel
/// ids and names.
fn busy_world(rng: &mut Rng, people: usize, n: usize) -> (World, Vec<(String, String)>) {
    let mut w = World::new(rng, people);
    let mut chans = Vec::new();
    for name in rng.sample(CHANNELS, n) {
        let id = w.channel(name, true);
        let n = rng.range(1, 3) as usize;
        w.chatter(rng, &id, n);
        chans.push((id, name.to_string()));
    }
    (w, chans)
}

pub(super) fn post_message(rng: &mut Rng) -> Draft<Slack> {
    let (w, chans) = busy_world(rng, 4, 3);
    let (id, name) = rng.pick(&chans).clone();
    let text = announcement(rng);
    Draft {
        goal: format!("Post a message in #{name} that says exactly: {text}"),
        max_steps: 4,
        seed: w.seed,
        tools: tools(&[
            "post_message",
            "post_ephemeral",
            "reply_to_thread",
            "list_channels",
            "get_channel_history",
        ]),
        predicate: bot_posted(&id, &text),
        references: vec![vec![
            step("list_channels", json!({})),
            step("post_message", json!({ "channel_id": id, "text": text })),
        ]],
        faults: vec![],
        params: params(&[("channel", json!(name)), ("text", json!(text))]),
    }
}

pub(super) fn set_topic(rng: &mut Rng) -> Draft<Slack> {
    let (mut w, chans) = busy_world(rng, 5, 3);
    let (id, name) = rng.pick(&chans).clone();
    let topic = match rng.below(3) {
        0 => format!("On-call this week: {}", rng.pick(&w.people).real_name),
        1 => format!(
            "Sprint {}: release on {} {}",
            rng.range(10, 60),
            rng.pick(&["March", "June", "September"]),
            rng.range(1, 28)
        ),
        _ => {
            let status = rng.pick(&["planning", "in progress", "blocked", "done"]);
            let svc = *rng.pick(SERVICES);
            format!("{} migration status: {status}", capitalize(svc))
        }
    };
    w.channel_mut(&id).topic = format!("Welcome to #{name}");
    Draft {
        goal: format!("Change the topic of #{name} to exactly: {topic}"),
        max_steps: 4,
        seed: w.seed,
        tools: tools(&[
            "set_channel_topic",
            "list_channels",
            "post_message",
            "get_channel_history",
        ]),
        predicate: atom(Atom::ChannelTopic {
            channel: id.clone(),
            topic: topic.clone(),
        }),
        references: vec![vec![
            step("list_channels", json!({})),
            step(
                "set_channel_topic",
                json!({ "channel_id": id, "topic": topic }),
            ),
        ]],
        faults: vec![],
        params: params(&[("channel", json!(name)), ("topic", json!(topic))]),
    }
}

/// What a user may say first, or nothing.
const TITLE_OPENERS: &[&str] = &[
    "",
    "Writing the org chart. ",
    "For my meeting notes: ",
    "New here, sorry. ",
    "Quick one. ",
    "I'm adding people to a project. ",
];

/// Ways to ask for someone's title, with `{name}`.
const TITLE_ASKS: &[&str] = &[
    "What is {name}'s job title in our Slack workspace? Answer with the title.",
    "I'm about to message {name} on Slack for the first time. What's their job title there?",
    "What does {name} do here? Their title on Slack is enough.",
    "Remind me of {name}'s title, as our Slack has it.",
    "Which role does {name} have, according to their Slack profile? Just the title.",
];

pub(super) fn user_title(rng: &mut Rng) -> Draft<Slack> {
    let n = rng.range(5, 9) as usize;
    let (w, _) = busy_world(rng, n, 2);
    let who = rng.pick(&w.people).clone();
    Draft {
        goal: format!("{}{}", rng.pick(TITLE_OPENERS), rng.pick(TITLE_ASKS))
            .replace("{name}", &who.real_name),
        max_steps: 4,
        seed: w.seed,
        tools: tools(&[
            "get_users",
            "get_user_profile",
            "search_messages",
            "list_channels",
        ]),
        predicate: Pred::Answer(AnswerCheck::names(
            &who.title,
            w.people.iter().map(|p| p.title.as_str()),
        )),
        references: vec![
            vec![
                step("get_users", json!({})),
                Step::Answer {
                    answer: who.title.clone(),
                },
            ],
            vec![
                step("get_users", json!({ "limit": 50 })),
                step("get_user_profile", json!({ "user_id": who.id })),
                Step::Answer {
                    answer: format!("{} is a {}", who.real_name, who.title),
                },
            ],
        ],
        faults: vec![],
        params: params(&[("person", json!(who.handle))]),
    }
}

pub(super) fn create_channel(rng: &mut Rng) -> Draft<Slack> {
    let (w, _) = busy_world(rng, 4, 3);
    let prefix = rng.pick(&["proj", "team", "launch", "ops"]);
    let topic = rng.pick(&[
        "atlas", "falcon", "orbit", "harbor", "summit", "pixel", "aurora", "cobalt",
    ]);
    let name = format!("{prefix}-{topic}-{}", rng.range(24, 27));
    let private = rng.chance(1, 2);
    let mut args = json!({ "name": name });
    if private {
        args["is_private"] = json!(true);
    }
    Draft {
        goal: format!(
            "Create a new {} channel named {name}.",
            if private { "private" } else { "public" }
        ),
        max_steps: 3,
        seed: w.seed,
        tools: tools(&[
            "create_channel",
            "list_channels",
            "join_channel",
            "set_channel_topic",
        ]),
        predicate: atom(Atom::ChannelExists {
            name: name.clone(),
            is_private: Some(private),
            archived: Some(false),
        }),
        references: vec![vec![step("create_channel", args)]],
        faults: vec![],
        params: params(&[("name", json!(name)), ("private", json!(private))]),
    }
}
