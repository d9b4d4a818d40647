//! Template grammars for tasks on Slack alone. Every parameter comes from a bounded pool or
//! range, every goal states each concrete value the task needs (channel names, exact texts,
//! people's full names), and predicates check exactly the values the goal fixes.

mod composition;
mod recovery;
mod single;

use crate::world::SERVICES;
use crate::{Atom, Background, Seed, Slack, history_reads};
use mcpbench_sim::{Category, Difficulty, Pred, Rng, Step, Template, call, qualified};
use serde_json::Value;

#[cfg(test)]
pub(crate) use composition::{KEYWORDS, TOPICS};

pub(crate) fn all() -> Vec<Template<Slack>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "slack.post_message",
            category: SingleTool,
            difficulty: Easy,
            build: single::post_message,
        },
        Template {
            id: "slack.set_topic",
            category: SingleTool,
            difficulty: Easy,
            build: single::set_topic,
        },
        Template {
            id: "slack.user_title",
            category: SingleTool,
            difficulty: Easy,
            build: single::user_title,
        },
        Template {
            id: "slack.create_channel",
            category: SingleTool,
            difficulty: Medium,
            build: single::create_channel,
        },
        Template {
            id: "slack.reply_in_thread",
            category: Composition,
            difficulty: Medium,
            build: composition::reply_in_thread,
        },
        Template {
            id: "slack.react_to_latest",
            category: Composition,
            difficulty: Medium,
            build: composition::react_to_latest,
        },
        Template {
            id: "slack.who_posted",
            category: Composition,
            difficulty: Medium,
            build: composition::who_posted,
        },
        Template {
            id: "slack.count_mentions",
            category: Composition,
            difficulty: Hard,
            build: composition::count_mentions,
        },
        Template {
            id: "slack.channel_setup",
            category: Composition,
            difficulty: Hard,
            build: composition::channel_setup,
        },
        Template {
            id: "slack.post_after_rate_limit",
            category: Recovery,
            difficulty: Easy,
            build: recovery::post_after_rate_limit,
        },
        Template {
            id: "slack.join_then_post",
            category: Recovery,
            difficulty: Medium,
            build: recovery::join_then_post,
        },
        Template {
            id: "slack.archived_fallback",
            category: Recovery,
            difficulty: Hard,
            build: recovery::archived_fallback,
        },
    ]
}

/// Qualified names of `slack_<name>` tools.
fn tools(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|n| qualified::<Slack>(&format!("slack_{n}")))
        .collect()
}

/// A reference step calling `slack_<name>`.
fn step(name: &str, arguments: Value) -> Step {
    call::<Slack>(&format!("slack_{name}"), arguments)
}

/// Gives `seed` a background drawn from `rng` (which the task keeps), and returns the reads of
/// `channel`'s history in that workspace, 100 messages a page, down to the page holding `ts`
/// (every page when `None`): the message is found wherever the long history puts it.
fn read_history(rng: &mut Rng, seed: &mut Seed, channel: &str, ts: Option<&str>) -> Vec<Step> {
    seed.background = Some(Background::draw(rng));
    (history_reads(seed, channel, 100, ts).into_iter())
        .map(|args| step("get_channel_history", args))
        .collect()
}

pub(crate) use mcpbench_sim::atom;
pub(crate) use mcpbench_sim::params;

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// An announcement worth posting, about a random service.
fn announcement(rng: &mut Rng) -> String {
    let svc = *rng.pick(SERVICES);
    let (major, minor, hour) = (rng.range(1, 9), rng.range(0, 20), rng.range(6, 22));
    match rng.below(4) {
        0 => format!("Deploy of {svc} v{major}.{minor} is complete"),
        1 => format!(
            "{} maintenance window starts Saturday at {hour}:00 UTC",
            capitalize(svc)
        ),
        2 => format!("Release notes for {svc} v{major}.{minor} are up on the wiki"),
        _ => format!("Reminder: {svc} on-call handover is at {hour}:00 today"),
    }
}

/// The bot's exact top-level message in `channel`.
fn bot_posted(channel: &str, text: &str) -> Pred<Atom> {
    atom(Atom::MessagePosted {
        channel: channel.into(),
        text: Some(text.into()),
        text_contains: None,
        user: Some(crate::DEFAULT_BOT.into()),
    })
}
