//! `compose.bug_count_to_channel` (tracker + slack): this week's count of a project's open
//! issues of one label goes to a Slack channel with the change since last week's count,
//! which a named colleague posted there. The project is named by its name, so its key must be
//! looked up; closed issues with the label and open ones in another project are decoys; in
//! the channel, an older count of the same kind, a count of another label and one of another
//! project sit around last week's. A careless agent counts closed issues, or compares with
//! the wrong earlier post.

use super::{SLACK_TOOLS, bot_posted_once, fill, issue, next_number, post_step, tools};
use mcpbench_server_slack::world::{CHANNELS, World, channel_id};
use mcpbench_server_slack::{Background, Slack, history_reads};
use mcpbench_server_tracker::{Status, Tracker};
use mcpbench_sim::{Rng, call, params};
use mcpbench_world::{Composed, InitialState};
use serde_json::json;

/// (label, how the message names issues carrying it).
const COUNTED_LABELS: &[(&str, &str)] = &[
    ("bug", "bugs"),
    ("security", "security issues"),
    ("performance", "performance issues"),
    ("customer", "customer issues"),
    ("tech-debt", "tech-debt issues"),
    ("docs", "docs issues"),
];

const REPORT_CHANNELS: &[&str] = &[
    "eng-backend",
    "support",
    "releases",
    "general",
    "incidents",
    "data-team",
];

/// Titles of added issues; none is in the sample workspace.
#[rustfmt::skip]
const TITLES: &[&str] = &[
    "Refund button greyed out for partial orders", "Bulk import stalls at 10,000 rows",
    "Invoice PDF shows the wrong VAT number", "Team invite link expires after one hour",
    "Usage graph double-counts Sunday traffic", "Saved filters vanish after logout",
    "Calendar sync skips recurring events", "Map view freezes with over 500 pins",
    "Trial banner shown to paying customers", "Audit log omits permission changes",
    "Print view cuts off the last table column", "Report scheduler ignores the account timezone",
];

/// Ways to ask, with the `{project}`, `{noun}`, `{channel}`, `{who}` posting weekly and the
/// `{label}`.
const GOALS: [&str; 3] = [
    "Time for this week's count of open {noun} in the {project} project of our tracker (label {label}, not done or canceled). Post it in #{channel} on Slack as `Open {noun} in {project}: <count> (<change> since last week)`, where <change> is the difference from the last count {who} posted there, written like +2 or -1, or 0.",
    "{who} usually posts the weekly number of open {label} issues for {project} in #{channel}, but is out this week. Count the ones in our tracker's {project} project that are neither done nor canceled, and post `Open {noun} in {project}: <count> (<change> since last week)`, with <change> the difference from {who}'s last count there (like +3, -2 or 0).",
    "Please post the open {noun} figure for {project} in the #{channel} Slack channel: the issues of that project in our tracker labelled {label} and still open. Write it as `Open {noun} in {project}: <count> (<change> since last week)` where <change> compares with the most recent count {who} posted there, signed (+1, -2) or 0.",
];

pub(super) fn bug_count_to_channel(rng: &mut Rng) -> Composed {
    let mut seed = mcpbench_server_tracker::sample_seed(rng);
    let p = rng.below(seed.projects.len() as u64) as usize;
    let project = seed.projects[p].clone();
    let other = seed.projects[(p + 1) % seed.projects.len()].clone();
    let key = project.key.clone();
    let &(label, noun) = rng.pick(COUNTED_LABELS);
    // Only the issues added below carry the label in the project.
    let prefix = format!("{key}-");
    for i in seed.issues.iter_mut().filter(|i| i.id.starts_with(&prefix)) {
        i.labels.retain(|l| l != label);
    }
    let open = rng.range(2, 6) as usize;
    let closed = rng.range(1, 2) as usize;
    let titles = rng.sample(TITLES, open + closed + 1);
    let first = next_number(&seed.issues, &key);
    for (k, title) in titles[..open + closed].iter().enumerate() {
        let status = if k < open {
            *rng.pick(&[
                Status::Backlog,
                Status::Todo,
                Status::InProgress,
                Status::InReview,
            ])
        } else {
            *rng.pick(&[Status::Done, Status::Canceled])
        };
        let id = format!("{key}-{}", first + k as u32);
        seed.issues.push(issue(id, title, status, &[label]));
    }
    // The same label open in another project: not this count's.
    let id = format!("{}-{}", other.key, next_number(&seed.issues, &other.key));
    seed.issues
        .push(issue(id, titles[open + closed], Status::Todo, &[label]));

    let last = (open as i64 + rng.range(-3, 3)).max(0) as usize;
    let change = match open as i64 - last as i64 {
        0 => "0".to_string(),
        d if d > 0 => format!("+{d}"),
        d => d.to_string(),
    };
    let channel = *rng.pick(REPORT_CHANNELS);
    let (mut slack, who, last_ts) =
        weekly_posts(rng, channel, &project.name, &other.name, noun, last);
    let text = format!(
        "Open {noun} in {}: {open} ({change} since last week)",
        project.name
    );
    let mut steps = vec![
        call::<Tracker>("list_projects", json!({})),
        call::<Tracker>("search_issues", json!({ "project": key, "label": label })),
        call::<Slack>("slack_list_channels", json!({})),
    ];
    // The channel's history down to last week's count, wherever a long history puts it.
    slack.background = Some(Background::draw(rng));
    steps.extend(
        history_reads(&slack, &channel_id(channel), 100, Some(&last_ts))
            .into_iter()
            .map(|args| call::<Slack>("slack_get_channel_history", args)),
    );
    steps.push(post_step(channel, &text));
    let slots = [
        ("project", project.name.as_str()),
        ("noun", noun),
        ("label", label),
        ("channel", channel),
        ("who", who.as_str()),
    ];
    let template = *rng.pick(&GOALS);
    let goal = fill(template, &slots);
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            tracker: Some(seed),
            slack: Some(slack),
            ..Default::default()
        },
        available_tools: tools(&[
            (
                "tracker",
                &["list_projects", "search_issues", "get_issue", "list_labels"],
            ),
            ("slack", SLACK_TOOLS),
        ]),
        success_predicate: bot_posted_once(channel, &text),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("project", json!(key)),
            ("label", json!(label)),
            ("channel", json!(channel)),
            ("open", json!(open)),
            ("last_week", json!(last)),
        ]),
    }
}

/// A workspace where `channel` holds the weekly counts: two weeks ago's and last week's of
/// this kind by one person (returned by first name), and, after them, another label's and
/// another project's counts by someone else. Returns the seed, the poster's first name and
/// the ts of last week's count.
fn weekly_posts(
    rng: &mut Rng,
    channel: &str,
    project: &str,
    other_project: &str,
    noun: &str,
    last: usize,
) -> (mcpbench_server_slack::Seed, String, String) {
    let mut w = World::new(rng, 5);
    let id = w.channel(channel, true);
    let (poster, someone) = (w.people[0].clone(), w.people[1].clone());
    let older = last + rng.range(1, 3) as usize;
    let other_noun = if noun == "bugs" {
        "security issues"
    } else {
        "bugs"
    };
    w.chatter(rng, &id, 1);
    w.say(
        &id,
        &poster.id,
        &format!("Open {noun} in {project}: {older}"),
    );
    w.chatter(rng, &id, 1);
    let last_ts = w.say(
        &id,
        &poster.id,
        &format!("Open {noun} in {project}: {last}"),
    );
    let n = rng.range(0, 6);
    w.say(
        &id,
        &someone.id,
        &format!("Open {other_noun} in {project}: {n}"),
    );
    let n = rng.range(0, 6);
    w.say(
        &id,
        &someone.id,
        &format!("Open {noun} in {other_project}: {n}"),
    );
    w.chatter(rng, &id, 2);
    let others: Vec<&str> = CHANNELS.iter().copied().filter(|c| *c != channel).collect();
    let other = *rng.pick(&others);
    let elsewhere = w.channel(other, true);
    w.chatter(rng, &elsewhere, 2);
    let first = poster.real_name.split(' ').next().unwrap_or("").to_string();
    (w.seed, first, last_ts)
}
