//! Composition templates: look things up (channel ids, user ids, message timestamps), then act
//! on what was found, or answer from it.

use super::{atom, bot_posted, capitalize, params, read_history, step, tools};
use crate::world::{CHANNELS, SERVICES, World};
use crate::{Atom, DEFAULT_BOT, Slack, new_channel_id};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step};
use serde_json::json;

const QUESTIONS: &[&str] = &[
    "Does anyone know when the {svc} migration is scheduled?",
    "Is the {svc} staging environment down for anyone else?",
    "Who owns the {svc} dashboards now?",
    "Can we get someone to look at the flaky {svc} tests before Friday?",
];

const ANSWERS: &[&str] = &[
    "The {svc} migration is planned for next Tuesday",
    "Staging for {svc} is back up as of 10 minutes ago",
    "The platform team owns the {svc} dashboards now",
    "I'll take the flaky {svc} tests this afternoon",
];

/// (what the message is about, its text, a word to search for).
pub(crate) const TOPICS: &[(&str, &str, &str)] = &[
    (
        "the broken coffee machine",
        "The coffee machine on floor 2 is broken again, facilities are on it",
        "coffee",
    ),
    (
        "the parking garage",
        "Heads up: the parking garage closes at 7pm all this week",
        "parking",
    ),
    (
        "the team offsite",
        "Offsite venue is booked: Lakeside Lodge, October 12-13",
        "offsite",
    ),
    (
        "the security training deadline",
        "Security training is due Friday, please finish it before then",
        "training",
    ),
    (
        "the holiday party",
        "Holiday party sign-ups close next Monday, details on the wiki",
        "party",
    ),
    (
        "the new VPN client",
        "The new VPN client rolls out tonight, please update before Monday",
        "VPN",
    ),
    (
        "the fire drill",
        "There is a fire drill on Thursday at 10am, meet at the north exit",
        "drill",
    ),
];

pub(crate) const KEYWORDS: &[&str] = &["rollback", "hotfix", "outage", "canary"];

fn deploy_chatter(rng: &mut Rng) -> String {
    let svc = rng.pick(SERVICES);
    match rng.below(5) {
        0 => format!(
            "Deployed {svc} v{}.{} to staging",
            rng.range(1, 9),
            rng.range(0, 20)
        ),
        1 => format!("Build is green for {svc}"),
        2 => format!("{} looks healthy after the release", capitalize(svc)),
        3 => format!("Merged the config change for {svc}"),
        _ => format!("Running the smoke tests for {svc} now"),
    }
}

fn keyword_line(rng: &mut Rng, kw: &str) -> String {
    let svc = rng.pick(SERVICES);
    let word = if rng.chance(1, 2) {
        capitalize(kw)
    } else {
        kw.to_string()
    };
    match rng.below(3) {
        0 => format!("{word} of {svc} started"),
        1 => format!("Do we need a {word} for {svc}?"),
        _ => format!("{svc}: {word} finished, all good"),
    }
}

pub(super) fn reply_in_thread(rng: &mut Rng) -> Draft<Slack> {
    let mut w = World::new(rng, 5);
    let names = rng.sample(CHANNELS, 3);
    let ids: Vec<String> = names.iter().map(|n| w.channel(n, true)).collect();
    let at = rng.below(3) as usize;
    let svc = rng.pick(SERVICES);
    let q = rng.below(QUESTIONS.len() as u64) as usize;
    let question = QUESTIONS[q].replace("{svc}", svc);
    let answer = ANSWERS[q].replace("{svc}", svc);
    let asker = rng.pick(&w.people).clone();
    w.chatter(rng, &ids[(at + 1) % 3], 2);
    let n = rng.range(2, 5) as usize;
    w.chatter(rng, &ids[at], n);
    let parent = w.say(&ids[at], &asker.id, &question);
    let n = rng.range(0, 2) as usize;
    w.chatter(rng, &ids[at], n);
    let mut listed = vec![step("list_channels", json!({}))];
    listed.extend(read_history(rng, &mut w.seed, &ids[at], Some(&parent)));
    listed.push(step(
        "reply_to_thread",
        json!({ "channel_id": ids[at], "thread_ts": parent, "text": answer }),
    ));
    Draft {
        goal: format!(
            "In #{}, {} asked: \"{question}\" Reply in the thread of that message with exactly: {answer}",
            names[at], asker.real_name
        ),
        max_steps: 3 + listed.len() as u32,
        seed: w.seed,
        tools: tools(&[
            "list_channels",
            "get_channel_history",
            "search_messages",
            "reply_to_thread",
            "post_message",
            "get_thread_replies",
        ]),
        predicate: atom(Atom::ThreadReplyPosted {
            channel: ids[at].clone(),
            thread_ts: parent.clone(),
            text: Some(answer.clone()),
            text_contains: None,
            user: Some(DEFAULT_BOT.into()),
        }),
        references: vec![
            listed,
            vec![
                step(
                    "search_messages",
                    json!({ "query": format!("\"{question}\"") }),
                ),
                step(
                    "reply_to_thread",
                    json!({ "channel_id": ids[at], "thread_ts": parent, "text": answer }),
                ),
            ],
        ],
        faults: vec![],
        params: params(&[
            ("channel", json!(names[at])),
            ("asker", json!(asker.handle)),
            ("question", json!(q)),
            ("service", json!(svc)),
        ]),
    }
}

pub(super) fn react_to_latest(rng: &mut Rng) -> Draft<Slack> {
    let mut w = World::new(rng, 5);
    let names = rng.sample(CHANNELS, 2);
    let (here, there) = (w.channel(names[0], true), w.channel(names[1], true));
    let who = rng.pick(&w.people).clone();
    let others: Vec<String> = w
        .people
        .iter()
        .filter(|p| p.id != who.id)
        .map(|p| p.id.clone())
        .collect();
    let mut theirs = Vec::new();
    for _ in 0..rng.range(2, 3) {
        let text = deploy_chatter(rng);
        let other = rng.pick(&others).clone();
        w.say(&here, &other, &deploy_chatter(rng));
        theirs.push(w.say(&here, &who.id, &text));
    }
    let (text, other) = (deploy_chatter(rng), rng.pick(&others).clone());
    w.say(&here, &other, &text);
    w.say(&there, &who.id, &deploy_chatter(rng));
    let target = theirs.last().expect("at least two").clone();
    let emoji = *rng.pick(&["white_check_mark", "eyes", "rocket", "tada", "thumbsup"]);
    let reacted = |ts: &str| {
        atom(Atom::ReactionAdded {
            channel: here.clone(),
            ts: ts.into(),
            reaction: emoji.into(),
            user: Some(DEFAULT_BOT.into()),
        })
    };
    let mut reference = vec![
        step("list_channels", json!({})),
        step("get_users", json!({})),
    ];
    reference.extend(read_history(rng, &mut w.seed, &here, Some(&target)));
    reference.push(step(
        "add_reaction",
        json!({ "channel_id": here, "timestamp": target, "reaction": emoji }),
    ));
    let mut checks = vec![reacted(&target)];
    checks.extend(
        theirs[..theirs.len() - 1]
            .iter()
            .map(|t| Pred::Not(Box::new(reacted(t)))),
    );
    Draft {
        goal: format!(
            "Add a :{emoji}: reaction to the most recent message {} posted in #{} (only that one).",
            who.real_name, names[0]
        ),
        max_steps: 3 + reference.len() as u32,
        seed: w.seed,
        tools: tools(&[
            "list_channels",
            "get_users",
            "get_user_profile",
            "get_channel_history",
            "search_messages",
            "add_reaction",
            "post_message",
        ]),
        predicate: Pred::All(checks),
        references: vec![reference],
        faults: vec![],
        params: params(&[
            ("channel", json!(names[0])),
            ("person", json!(who.handle)),
            ("emoji", json!(emoji)),
        ]),
    }
}

pub(super) fn who_posted(rng: &mut Rng) -> Draft<Slack> {
    let n = rng.range(5, 8) as usize;
    let mut w = World::new(rng, n);
    let names = rng.sample(CHANNELS, 2);
    let (here, there) = (w.channel(names[0], true), w.channel(names[1], true));
    let (about, text, word) = *rng.pick(TOPICS);
    let who = rng.pick(&w.people).clone();
    w.chatter(rng, &there, 2);
    let n = rng.range(2, 4) as usize;
    w.chatter(rng, &here, n);
    let said = w.say(&here, &who.id, text);
    let n = rng.range(1, 3) as usize;
    w.chatter(rng, &here, n);
    let answer = who.real_name.clone();
    let mut read = vec![step("list_channels", json!({}))];
    read.extend(read_history(rng, &mut w.seed, &here, Some(&said)));
    read.push(step("get_user_profile", json!({ "user_id": who.id })));
    read.push(Step::Answer {
        answer: answer.clone(),
    });
    Draft {
        goal: format!(
            "Who posted the message about {about} in #{}? Reply with their full name.",
            names[0]
        ),
        max_steps: 2 + read.len() as u32,
        seed: w.seed,
        tools: tools(&[
            "list_channels",
            "get_channel_history",
            "search_messages",
            "get_users",
            "get_user_profile",
        ]),
        predicate: Pred::Answer(AnswerCheck::names(
            &answer,
            w.people.iter().map(|p| p.real_name.as_str()),
        )),
        references: vec![
            read,
            vec![
                step(
                    "search_messages",
                    json!({ "query": format!("{word} in:#{}", names[0]) }),
                ),
                step("get_users", json!({})),
                Step::Answer { answer },
            ],
        ],
        faults: vec![],
        params: params(&[
            ("channel", json!(names[0])),
            ("about", json!(about)),
            ("person", json!(who.handle)),
        ]),
    }
}

pub(super) fn count_mentions(rng: &mut Rng) -> Draft<Slack> {
    let mut w = World::new(rng, 5);
    let (here, there) = (w.channel("deploys", true), w.channel("incidents", true));
    let kw = *rng.pick(KEYWORDS);
    let hits = rng.range(2, 5) as usize;
    let total = rng.range(12, 16) as usize;
    let mut lines: Vec<Option<()>> = (0..total).map(|i| (i < hits).then_some(())).collect();
    rng.shuffle(&mut lines);
    for line in lines {
        let text = if line.is_some() {
            keyword_line(rng, kw)
        } else {
            deploy_chatter(rng)
        };
        let who = rng.pick(&w.people).id.clone();
        w.say(&here, &who, &text);
    }
    for _ in 0..rng.range(1, 2) {
        let who = rng.pick(&w.people).id.clone();
        let text = keyword_line(rng, kw);
        w.say(&there, &who, &text);
    }
    // The whole of #deploys, page by page: a mention may sit anywhere in its history.
    let mut read = vec![step("list_channels", json!({}))];
    read.extend(read_history(rng, &mut w.seed, &here, None));
    read.push(Step::Answer {
        answer: hits.to_string(),
    });
    Draft {
        goal: format!(
            "How many messages in #deploys mention \"{kw}\" (in any capitalisation)? Reply with the number."
        ),
        max_steps: 3 + read.len() as u32,
        seed: w.seed,
        tools: tools(&[
            "list_channels",
            "get_channel_history",
            "search_messages",
            "get_thread_replies",
        ]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: hits as f64,
            tolerance: 0.0,
        }),
        references: vec![
            read,
            vec![
                step(
                    "search_messages",
                    json!({ "query": format!("{kw} in:#deploys"), "count": 100 }),
                ),
                Step::Answer {
                    answer: format!("There are {hits}"),
                },
            ],
        ],
        faults: vec![],
        params: params(&[
            ("keyword", json!(kw)),
            ("hits", json!(hits)),
            ("total", json!(total)),
        ]),
    }
}

pub(super) fn channel_setup(rng: &mut Rng) -> Draft<Slack> {
    let mut w = World::new(rng, 6);
    for name in rng.sample(CHANNELS, 2) {
        let id = w.channel(name, true);
        w.chatter(rng, &id, 2);
    }
    let project = rng.pick(&[
        "atlas", "falcon", "orbit", "harbor", "summit", "pixel", "aurora", "cobalt",
    ]);
    let name = format!("proj-{project}");
    let id = new_channel_id(&name);
    let topic = format!(
        "{} project: kickoff {} {}",
        capitalize(project),
        rng.pick(&["May", "July", "October"]),
        rng.range(1, 28)
    );
    let text = format!("Welcome to #{name}! Kickoff notes will be posted here.");
    let pair = rng.sample(&w.people, 2);
    let invited: Vec<String> = pair.iter().map(|p| p.id.clone()).collect();
    let mut checks = vec![
        atom(Atom::ChannelExists {
            name: name.clone(),
            is_private: Some(false),
            archived: None,
        }),
        atom(Atom::ChannelTopic {
            channel: name.clone(),
            topic: topic.clone(),
        }),
        bot_posted(&name, &text),
    ];
    checks.extend(invited.iter().map(|u| {
        atom(Atom::MemberOf {
            channel: name.clone(),
            user: u.clone(),
        })
    }));
    Draft {
        goal: format!(
            "Set up a new public channel named {name}: set its topic to exactly \"{topic}\", invite {} and {}, and post this message in it: {text}",
            pair[0].real_name, pair[1].real_name
        ),
        max_steps: 8,
        seed: w.seed,
        tools: tools(&[
            "list_channels",
            "create_channel",
            "set_channel_topic",
            "get_users",
            "get_user_profile",
            "invite_to_channel",
            "join_channel",
            "post_message",
            "post_ephemeral",
        ]),
        predicate: Pred::All(checks),
        references: vec![vec![
            step("get_users", json!({})),
            step("create_channel", json!({ "name": name })),
            step(
                "set_channel_topic",
                json!({ "channel_id": id, "topic": topic }),
            ),
            step(
                "invite_to_channel",
                json!({ "channel_id": id, "user_ids": invited }),
            ),
            step("post_message", json!({ "channel_id": id, "text": text })),
        ]],
        faults: vec![],
        params: params(&[
            ("name", json!(name)),
            (
                "invited",
                json!(pair.iter().map(|p| &p.handle).collect::<Vec<_>>()),
            ),
        ]),
    }
}
