//! Everyday team operations across two servers: something is looked up where it lives (a
//! count of open issues, a GitHub issue's title, a meeting's start time, a local file's text)
//! and written somewhere else (a channel message, a tracker issue and a cross-reference
//! comment, a commit). The goal says where to find the value, never the value itself, and
//! fixes the exact wording of what is written; predicates check that wording exactly.

use mcpbench_server_calendar::{Calendar, Seed as CalendarSeed, SeedEvent};
use mcpbench_server_filesystem::{Filesystem, Seed as FsSeed};
use mcpbench_server_github::{BranchSeed, Github};
use mcpbench_server_slack::world::{CHANNELS, World, channel_id};
use mcpbench_server_slack::{DEFAULT_BOT, Seed as SlackSeed, Slack};
use mcpbench_server_tracker::{Status, Tracker};
use mcpbench_sim::dates::{format_clock, format_date, parse_date, weekday};
use mcpbench_sim::{Category, Difficulty, Pred, Rng, Step, call, params};
use mcpbench_world::{AnyTemplate, Atom, Composed, InitialState};
use serde_json::json;
use std::collections::BTreeMap;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Category::Composition;
    use Difficulty::{Hard, Medium};
    vec![
        AnyTemplate::new(
            "compose.bug_count_to_channel",
            vec!["tracker", "slack"],
            Composition,
            Medium,
            bug_count_to_channel,
        ),
        AnyTemplate::new(
            "compose.github_issue_to_tracker",
            vec!["github", "tracker"],
            Composition,
            Hard,
            github_issue_to_tracker,
        ),
        AnyTemplate::new(
            "compose.meeting_time_to_channel",
            vec!["calendar", "slack"],
            Composition,
            Medium,
            meeting_time_to_channel,
        ),
        AnyTemplate::new(
            "compose.publish_notes_to_repo",
            vec!["filesystem", "github"],
            Composition,
            Medium,
            publish_notes_to_repo,
        ),
    ]
}

fn tools(list: &[(&str, &[&str])]) -> Vec<String> {
    list.iter()
        .flat_map(|(server, names)| names.iter().map(move |n| format!("{server}.{n}")))
        .collect()
}

/// A workspace of five people with `target` and one other channel, the bot in both, and a
/// little chatter in each.
fn slack_workspace(rng: &mut Rng, target: &str) -> SlackSeed {
    let mut w = World::new(rng, 5);
    let others: Vec<&str> = CHANNELS.iter().copied().filter(|c| *c != target).collect();
    let other = *rng.pick(&others);
    let t = w.channel(target, true);
    let o = w.channel(other, true);
    w.chatter(rng, &t, 2);
    w.chatter(rng, &o, 2);
    w.seed
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

/// Finding the channel's id, then posting `text` there.
fn post_steps(channel: &str, text: &str) -> Vec<Step> {
    vec![
        call::<Slack>("slack_list_channels", json!({})),
        call::<Slack>(
            "slack_post_message",
            json!({ "channel_id": channel_id(channel), "text": text }),
        ),
    ]
}

const SLACK_TOOLS: &[&str] = &[
    "slack_list_channels",
    "slack_get_channel_history",
    "slack_post_message",
    "slack_reply_to_thread",
];

/// (label, how the message names issues carrying it).
const COUNTED_LABELS: &[(&str, &str)] = &[
    ("bug", "bugs"),
    ("security", "security issues"),
    ("performance", "performance issues"),
    ("customer", "customer issues"),
];

const REPORT_CHANNELS: &[&str] = &["eng-backend", "support", "releases", "general"];

fn bug_count_to_channel(rng: &mut Rng) -> Composed {
    let mut seed = mcpbench_server_tracker::sample_seed(rng);
    let project = rng.pick(&seed.projects).clone();
    let key = project.key.clone();
    let &(label, noun) = rng.pick(COUNTED_LABELS);
    let prefix = format!("{key}-");
    let mut mine: Vec<usize> = (0..seed.issues.len())
        .filter(|&i| seed.issues[i].id.starts_with(&prefix))
        .collect();
    rng.shuffle(&mut mine);
    let n_labelled = rng.range(3, mine.len() as i64) as usize;
    for (n, &i) in mine.iter().enumerate() {
        let issue = &mut seed.issues[i];
        issue.labels.retain(|l| l != label);
        if n < n_labelled {
            issue.labels.push(label.into());
            issue.labels.sort();
        }
    }
    // One closed and one open issue carry the label, so neither "all" nor "none" is right.
    seed.issues[mine[0]].status = *rng.pick(&[Status::Done, Status::Canceled]);
    seed.issues[mine[1]].status = *rng.pick(&[Status::Todo, Status::InProgress, Status::InReview]);
    let open = mine[..n_labelled]
        .iter()
        .filter(|&&i| seed.issues[i].status.is_open())
        .count();
    let channel = *rng.pick(REPORT_CHANNELS);
    let text = format!("Open {noun} in {key}: {open}");
    let slack = slack_workspace(rng, channel);
    let mut steps = vec![call::<Tracker>(
        "search_issues",
        json!({ "project": key, "label": label }),
    )];
    steps.extend(post_steps(channel, &text));
    Composed {
        max_steps: 7,
        goal: format!(
            "Count the issues in the {} project ({key}) of our issue tracker that carry the label {label} and are still open (neither done nor canceled). Then post one message in the #{channel} Slack channel reading exactly `Open {noun} in {key}: <count>`, with the number in place of <count>.",
            project.name
        ),
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
            ("labelled", json!(n_labelled)),
            ("open", json!(open)),
        ]),
    }
}

const TRACKING_LABELS: &[&str] = &["bug", "customer", "improvement", "feature"];

fn github_issue_to_tracker(rng: &mut Rng) -> Composed {
    let gh = mcpbench_server_github::sample_seed(rng);
    let tracker = mcpbench_server_tracker::sample_seed(rng);
    let repo = gh.repos[0].clone();
    // A GitHub issue whose title no tracker issue has yet, so only a new issue matches.
    let fresh: Vec<_> = repo
        .issues
        .iter()
        .filter(|i| tracker.issues.iter().all(|t| t.title != i.title))
        .collect();
    let issue = (*rng.pick(&fresh)).clone();
    let project = rng.pick(&tracker.projects).clone();
    let key = project.key.clone();
    let label = *rng.pick(TRACKING_LABELS);
    // The comment names the project, not the new issue's key: a check on a key the run
    // creates would fail a correct agent whose first attempt made a mistaken issue.
    let comment = format!("Now tracked in our tracker: {}", project.name);
    let (owner, name, number) = (repo.owner.clone(), repo.name.clone(), issue.number);
    let reference = vec![
        call::<Github>(
            "get_issue",
            json!({ "owner": owner, "repo": name, "issue_number": number }),
        ),
        call::<Tracker>("list_projects", json!({})),
        call::<Tracker>(
            "create_issue",
            json!({ "project": key, "title": issue.title, "labels": [label] }),
        ),
        call::<Github>(
            "add_issue_comment",
            json!({ "owner": owner, "repo": name, "issue_number": number, "body": comment }),
        ),
    ];
    let predicate = Pred::All(vec![
        Pred::Atom(Atom::tracker(mcpbench_server_tracker::Atom::IssueExists {
            project: key.clone(),
            title: issue.title.clone(),
            description: None,
            status: None,
            priority: None,
            assignee: None,
            labels: Some(vec![label.into()]),
            estimate: None,
            parent: None,
        })),
        Pred::Atom(Atom::github(
            mcpbench_server_github::Atom::IssueCommentContains {
                owner: owner.clone(),
                repo: name.clone(),
                number,
                text: project.name.clone(),
            },
        )),
    ]);
    Composed {
        max_steps: 7,
        goal: format!(
            "GitHub issue #{number} in {owner}/{name} should be tracked in our issue tracker. Add it to the {} project there, under the same title as on GitHub and with the label {label}, and leave a comment on the GitHub issue saying which tracker project it is now tracked in.",
            project.name
        ),
        initial_state: InitialState {
            github: Some(gh),
            tracker: Some(tracker),
            ..Default::default()
        },
        available_tools: tools(&[
            (
                "github",
                &[
                    "get_issue",
                    "list_issues",
                    "search_issues",
                    "add_issue_comment",
                    "get_issue_comments",
                ],
            ),
            (
                "tracker",
                &[
                    "list_projects",
                    "list_labels",
                    "search_issues",
                    "get_issue",
                    "create_issue",
                ],
            ),
        ]),
        success_predicate: predicate,
        faults: vec![],
        reference_solutions: vec![reference],
        params: params(&[
            ("repo", json!(format!("{owner}/{name}"))),
            ("issue", json!(number)),
            ("project", json!(key)),
            ("label", json!(label)),
        ]),
    }
}

/// (meeting title, a similar title seeded on the same day as a distractor).
const MEETINGS: &[(&str, &str)] = &[
    ("Design review", "Design review prep"),
    ("Sprint planning", "Sprint planning follow-up"),
    ("Budget sync", "Budget sync notes"),
    ("Customer call", "Customer call debrief"),
    ("Roadmap workshop", "Roadmap workshop dry run"),
    ("Hiring committee", "Hiring committee pre-read"),
    ("Vendor demo", "Vendor demo setup"),
];

const FILLERS: &[&str] = &["Standup", "Lunch with Sam", "Focus time", "1:1 with Maria"];

/// Working days after the calendar's "now" (Monday 2026-03-02).
const DAYS: &[&str] = &[
    "2026-03-03",
    "2026-03-04",
    "2026-03-05",
    "2026-03-06",
    "2026-03-09",
    "2026-03-10",
    "2026-03-11",
    "2026-03-12",
];

/// Start times, in minutes of the day.
const SLOTS: &[i64] = &[540, 570, 600, 645, 675, 780, 810, 855, 900, 945, 990];

const MEETING_CHANNELS: &[&str] = &["general", "design", "eng-backend", "data-team"];

fn meeting_time_to_channel(rng: &mut Rng) -> Composed {
    let &(title, similar) = rng.pick(MEETINGS);
    let days = rng.sample(DAYS, 3);
    let slots = rng.sample(SLOTS, 6);
    let fillers = rng.sample(FILLERS, 2);
    let day = days[0];
    let at = |d: &str, minutes: i64| format!("{d}T{}", format_clock(minutes));
    // (title, day, start): the meeting, a similar title and two fillers that day, and the
    // same title on two other days, all at different times.
    let mut plan = vec![
        (title, day, slots[0]),
        (similar, day, slots[1]),
        (fillers[0], day, slots[2]),
        (fillers[1], day, slots[3]),
        (title, days[1], slots[4]),
        (title, days[2], slots[5]),
    ];
    rng.shuffle(&mut plan);
    let events = plan
        .iter()
        .enumerate()
        .map(|(n, &(t, d, start))| {
            let length = *rng.pick(&[30, 45, 60]);
            SeedEvent::new(
                &format!("evt-{}", 1001 + n),
                t,
                &at(d, start),
                &at(d, start + length),
            )
        })
        .collect();
    let calendar = CalendarSeed {
        events,
        ..CalendarSeed::default()
    };
    let day_number = parse_date(day).expect("a pool date");
    let time = format_clock(slots[0]);
    let channel = *rng.pick(MEETING_CHANNELS);
    let text = format!("{title} starts at {time}");
    let slack = slack_workspace(rng, channel);
    let mut steps = vec![call::<Calendar>(
        "list_events",
        json!({ "timeMin": format!("{day}T00:00"), "timeMax": format!("{}T00:00", format_date(day_number + 1)) }),
    )];
    steps.extend(post_steps(channel, &text));
    Composed {
        max_steps: 7,
        goal: format!(
            "Look up in my calendar when \"{title}\" starts on {}, {day}, and let the team know: post one message in the #{channel} Slack channel reading exactly `{title} starts at <HH:MM>`, with the start time in 24-hour HH:MM form.",
            weekday(day_number)
        ),
        initial_state: InitialState {
            calendar: Some(calendar),
            slack: Some(slack),
            ..Default::default()
        },
        available_tools: tools(&[
            (
                "calendar",
                &[
                    "get_current_time",
                    "list_calendars",
                    "list_events",
                    "search_events",
                    "get_event",
                ],
            ),
            ("slack", SLACK_TOOLS),
        ]),
        success_predicate: bot_posted_once(channel, &text),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("title", json!(title)),
            ("date", json!(day)),
            ("start", json!(time)),
            ("channel", json!(channel)),
        ]),
    }
}

/// (local file name, path in the repository, commit message, heading, bullet points).
const NOTES: &[(&str, &str, &str, &str, &[&str])] = &[
    (
        "release-notes.md",
        "docs/release-notes.md",
        "Add release notes",
        "Release notes",
        &[
            "Faster page loads on the dashboard",
            "CSV export keeps the last row",
            "New audit log export",
            "Dark mode setting is remembered",
            "Fixed rounding of invoice totals",
        ],
    ),
    (
        "retro.md",
        "docs/retros/sprint-retro.md",
        "Add sprint retro notes",
        "Sprint retro",
        &[
            "Went well: releases were on time",
            "Went well: fewer flaky tests",
            "To improve: smaller pull requests",
            "To improve: earlier design reviews",
            "Action: rotate the on-call schedule weekly",
        ],
    ),
    (
        "oncall-handover.md",
        "runbooks/oncall-handover.md",
        "Add on-call handover",
        "On-call handover",
        &[
            "Queue backlog alert fired twice, both self-resolved",
            "Search cluster disk at 78 percent",
            "Payment gateway certificate renews Friday",
            "Staging database credentials were rotated",
            "No open incidents",
        ],
    ),
    (
        "decisions.md",
        "docs/adr/decisions.md",
        "Record design decisions",
        "Design decisions",
        &[
            "Use the scheduler for all cron jobs",
            "Keep the v1 endpoints until June",
            "Store invoice PDFs in the cache",
            "Rate limit the public API per token",
            "Move notifications to the notify service",
        ],
    ),
];

const BRANCHES: &[&str] = &["main", "docs", "notes-update"];

fn publish_notes_to_repo(rng: &mut Rng) -> Composed {
    let &(file, repo_path, message, heading, bullets) = rng.pick(NOTES);
    let sprint = rng.range(12, 40);
    let n_bullets = rng.range(3, 4) as usize;
    let picked = rng.sample(bullets, n_bullets);
    let mut content = format!("# {heading} (sprint {sprint})\n\n");
    for b in &picked {
        content.push_str(&format!("- {b}\n"));
    }
    let local = format!("/home/alex/notes/{file}");
    // An older draft of the same notes sits next to it; only the named file is right.
    let draft = format!("# {heading} (sprint {sprint}, draft)\n\n- {}\n", picked[0]);
    let fs = FsSeed {
        files: BTreeMap::from([
            (local.clone(), content.clone()),
            (format!("/home/alex/notes/drafts/{file}"), draft),
            (
                "/home/alex/todo.txt".to_string(),
                "- book flights\n- review budget\n".to_string(),
            ),
        ]),
        ..FsSeed::default()
    };
    let mut gh = mcpbench_server_github::sample_seed(rng);
    let branch = *rng.pick(BRANCHES);
    if branch != "main" {
        gh.repos[0].branches.push(BranchSeed {
            name: branch.into(),
            from: None,
        });
    }
    let (owner, name) = (gh.repos[0].owner.clone(), gh.repos[0].name.clone());
    let read = call::<Filesystem>("read_text_file", json!({ "path": local }));
    let references = vec![
        vec![
            read.clone(),
            call::<Github>(
                "create_or_update_file",
                json!({ "owner": owner, "repo": name, "path": repo_path, "content": content, "message": message, "branch": branch }),
            ),
        ],
        vec![
            read,
            call::<Github>(
                "push_files",
                json!({ "owner": owner, "repo": name, "branch": branch, "files": [{ "path": repo_path, "content": content }], "message": message }),
            ),
        ],
    ];
    let predicate = Pred::All(vec![
        Pred::Atom(Atom::github(mcpbench_server_github::Atom::FileEquals {
            owner: owner.clone(),
            repo: name.clone(),
            branch: branch.into(),
            path: repo_path.into(),
            content: content.clone(),
        })),
        Pred::Atom(Atom::github(mcpbench_server_github::Atom::CommitExists {
            owner: owner.clone(),
            repo: name.clone(),
            branch: branch.into(),
            message: message.into(),
        })),
    ]);
    Composed {
        max_steps: 5,
        goal: format!(
            "Publish my notes in {local} to the {owner}/{name} repository on GitHub: commit the file's exact content as {repo_path} on the {branch} branch, with the commit message \"{message}\"."
        ),
        initial_state: InitialState {
            filesystem: Some(fs),
            github: Some(gh),
            ..Default::default()
        },
        available_tools: tools(&[
            (
                "filesystem",
                &["read_text_file", "list_directory", "search_files"],
            ),
            (
                "github",
                &[
                    "get_file_contents",
                    "create_or_update_file",
                    "push_files",
                    "list_branches",
                    "list_commits",
                ],
            ),
        ]),
        success_predicate: predicate,
        faults: vec![],
        reference_solutions: references,
        params: params(&[
            ("local_path", json!(local)),
            ("repo", json!(format!("{owner}/{name}"))),
            ("path", json!(repo_path)),
            ("branch", json!(branch)),
            ("message", json!(message)),
        ]),
    }
}
