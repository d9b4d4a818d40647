//! Everyday team operations across two servers: something is looked up where it lives (a
//! count of open issues and last week's count, GitHub issues' titles, meetings' start times,
//! local notes files) and written somewhere else (a channel message, tracker issues and
//! cross-reference comments, thread replies, a commit). Goals say where to find each value,
//! never the value itself; where they fix the wording of what is written, predicates check
//! it exactly.

mod bug_count;
mod github_issue;
mod meeting_time;
mod publish_notes;

use super::fill;
use mcpbench_server_slack::world::channel_id;
use mcpbench_server_slack::{DEFAULT_BOT, Slack};
use mcpbench_server_tracker::{Issue, Status};
use mcpbench_sim::{Category, Difficulty, Pred, Step, call};
use mcpbench_world::{AnyTemplate, Atom};
use serde_json::json;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Category::Composition;
    use Difficulty::Hard;
    vec![
        AnyTemplate::new(
            "compose.bug_count_to_channel",
            vec!["tracker", "slack"],
            Composition,
            Hard,
            bug_count::bug_count_to_channel,
        ),
        AnyTemplate::new(
            "compose.github_issue_to_tracker",
            vec!["github", "tracker"],
            Composition,
            Hard,
            github_issue::github_issue_to_tracker,
        ),
        AnyTemplate::new(
            "compose.meeting_time_to_channel",
            vec!["calendar", "slack"],
            Composition,
            Hard,
            meeting_time::meeting_time_to_channel,
        ),
        AnyTemplate::new(
            "compose.publish_notes_to_repo",
            vec!["filesystem", "github"],
            Composition,
            Hard,
            publish_notes::publish_notes_to_repo,
        ),
    ]
}

fn tools(list: &[(&str, &[&str])]) -> Vec<String> {
    list.iter()
        .flat_map(|(server, names)| names.iter().map(move |n| format!("{server}.{n}")))
        .collect()
}

/// Exactly one message by the bot in `channel`, reading exactly `text` (so posting several
/// guesses fails).
fn bot_posted_once(channel: &str, text: &str) -> Pred<Atom> {
    Pred::All(vec![
        Pred::Atom(Atom::slack(mcpbench_server_slack::Atom::MessagePosted {
            channel: channel.into(),
            text: Some(text.into()),
            text_contains: None,
            user: Some(DEFAULT_BOT.into()),
        })),
        Pred::Atom(Atom::slack(mcpbench_server_slack::Atom::MessageCount {
            channel: channel.into(),
            count: 1,
            text: None,
            user: Some(DEFAULT_BOT.into()),
        })),
    ])
}

/// Posting `text` in `channel` (its id found by listing the channels first).
fn post_step(channel: &str, text: &str) -> Step {
    call::<Slack>(
        "slack_post_message",
        json!({ "channel_id": channel_id(channel), "text": text }),
    )
}

const SLACK_TOOLS: &[&str] = &[
    "slack_list_channels",
    "slack_get_channel_history",
    "slack_post_message",
    "slack_reply_to_thread",
];

/// A tracker issue with no assignee, description or estimate.
fn issue(id: String, title: &str, status: Status, labels: &[&str]) -> Issue {
    let mut labels: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
    labels.sort();
    Issue {
        id,
        title: title.into(),
        description: String::new(),
        status,
        priority: 2,
        assignee: None,
        labels,
        estimate: None,
        parent: None,
        comments: vec![],
    }
}

/// The issue number after the highest of project `key` in `issues`.
fn next_number(issues: &[Issue], key: &str) -> u32 {
    (issues.iter())
        .filter_map(|i| i.id.strip_prefix(&format!("{key}-"))?.parse::<u32>().ok())
        .max()
        .map_or(1, |n| n + 1)
}
