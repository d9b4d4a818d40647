//! Data templates: numbers are read on one server (paid totals from the database, stock levels
//! from the shop, forecast highs, open pull requests) and recorded on another (channel
//! messages, database rows, a report file, knowledge-graph observations). Each asks for
//! several numbers among near-miss decoys, and most must first check what is already recorded.
//! Goals fix the wording of what is written where a person would; predicates check it exactly.

mod forecast;
mod prs;
mod report;
mod revenue;
mod stock;

use mcpbench_server_slack as slack;
use mcpbench_sim::{Call, Category, Difficulty, Pred, Step};
use mcpbench_world::{AnyTemplate, Atom};
use serde_json::{Value, json};

pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Difficulty::*;
    let t = |id, servers, difficulty, build| {
        AnyTemplate::new(id, servers, Category::Composition, difficulty, build)
    };
    vec![
        t(
            "compose.revenue_to_channel",
            vec!["postgres", "slack"],
            Hard,
            revenue::revenue_to_channel,
        ),
        t(
            "compose.stock_to_database",
            vec!["shop", "postgres"],
            Hard,
            stock::stock_to_database,
        ),
        t(
            "compose.report_file_and_announce",
            vec!["postgres", "filesystem", "slack"],
            Hard,
            report::report_file_and_announce,
        ),
        t(
            "compose.forecast_to_channel",
            vec!["weather", "slack"],
            Hard,
            forecast::forecast_to_channel,
        ),
        t(
            "compose.open_prs_to_memory",
            vec!["github", "memory"],
            Hard,
            prs::open_prs_to_memory,
        ),
    ]
}

/// Month names, space-separated, January first.
const MONTHS: &str =
    "January February March April May June July August September October November December";

/// The English name of month `m` (1-12).
fn month_name(m: usize) -> &'static str {
    MONTHS.split(' ').nth(m - 1).expect("a month")
}

/// `2025-03-07` as `March 7`.
fn spoken_date(date: &str) -> String {
    let m: usize = date[5..7].parse().expect("a month");
    let d: u32 = date[8..10].parse().expect("a day");
    format!("{} {d}", month_name(m))
}

/// Channels numbers are reported to; none is in the slack crate's chatter pool.
const REPORT_CHANNELS: &[&str] = &[
    "finance",
    "sales",
    "revenue",
    "ops-reports",
    "analytics",
    "accounts",
    "bizops",
    "leadership",
];

fn call(tool: &str, arguments: Value) -> Step {
    Step::Call(Call {
        tool: tool.into(),
        arguments,
    })
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

const SLACK_TOOLS: &[&str] = &[
    "slack.slack_list_channels",
    "slack.slack_post_message",
    "slack.slack_get_channel_history",
    "slack.slack_join_channel",
];

/// A workspace of four people with #general and `channel` (the bot in both), some chatter in
/// each; returns the world and the id of `channel`.
fn workspace(rng: &mut mcpbench_sim::Rng, channel: &str) -> (slack::world::World, String) {
    let mut w = slack::world::World::new(rng, 4);
    let general = w.channel("general", true);
    let id = w.channel(channel, true);
    w.chatter(rng, &general, 2);
    w.chatter(rng, &id, 2);
    (w, id)
}

/// Posts `text` in the channel of id `channel_id`.
fn post(channel_id: &str, text: &str) -> Step {
    call(
        "slack.slack_post_message",
        json!({ "channel_id": channel_id, "text": text }),
    )
}

/// A top-level message in `channel` (a name) whose text is exactly `text`.
fn posted(channel: &str, text: &str) -> Pred<Atom> {
    Pred::Atom(Atom::slack(slack::Atom::MessagePosted {
        channel: channel.into(),
        text: Some(text.into()),
        text_contains: None,
        user: None,
    }))
}

/// `channel` holds exactly `count` top-level messages by the bot.
fn bot_messages(channel: &str, count: usize) -> Pred<Atom> {
    Pred::Atom(Atom::slack(slack::Atom::MessageCount {
        channel: channel.into(),
        count: count as u32,
        text: None,
        user: Some(slack::DEFAULT_BOT.to_string()),
    }))
}

/// `tools`, then the slack tools every task that posts gets.
fn with_slack(tools: &[&str]) -> Vec<String> {
    strings(&[tools, SLACK_TOOLS].concat())
}

fn list_channels() -> Step {
    call("slack.slack_list_channels", json!({}))
}

fn pg_query(sql: &str) -> Step {
    call("postgres.query", json!({ "sql": sql }))
}

/// `items` joined as English: `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
