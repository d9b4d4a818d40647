//! `compose.triage_unowned_to_channel` (tracker + slack): the open, unassigned issues of one
//! label in a tracker project named by its name go to a person named by their real name (a
//! namesake with the same first name is in the workspace), and each one's title is posted as
//! its own message in a Slack channel.

use super::{new_issue, next_number, slack, tools, tracker, transient_fault};
use mcpbench_server_slack::world::{CHANNELS, World};
use mcpbench_server_slack::{DEFAULT_BOT, Slack};
use mcpbench_server_tracker::{Issue, Status, Tracker, User};
use mcpbench_sim::{Pred, Rng, call, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;

/// (real name and username of the person to assign; real name and username of a namesake).
/// The namesake holds the handle a guess from the first name would give.
#[rustfmt::skip]
const ASSIGNEES: &[(&str, &str, &str, &str)] = &[
    ("Rosa Alvarez", "ralvarez", "Rosa Lindqvist", "rosa"),
    ("Marcus Webb", "mwebb", "Marcus Oyelaran", "marcus"),
    ("Hana Novak", "hnovak", "Hana Sato", "hana"),
    ("Felix Braun", "fbraun", "Felix Ortega", "felix"),
    ("Nadia Rahman", "nrahman", "Nadia Petrova", "nadia"),
    ("Theo Laurent", "tlaurent", "Theo Grant", "theo"),
    ("Amara Obi", "aobi", "Amara Quinn", "amara"),
];

/// What a user may say first: why they ask, or nothing.
const TRIAGE_OPENERS: &[&str] = &[
    "",
    "Monday triage. ",
    "The backlog is getting out of hand. ",
    "Before the planning meeting: ",
    "We have a new pair of hands this sprint. ",
    "Support has been asking about these. ",
    "End of sprint clean-up. ",
    "Quick one before lunch. ",
];

/// Labels of the sample workspace a triage round is about.
#[rustfmt::skip]
const TRIAGE_LABELS: &[&str] = &[
    "customer", "security", "bug", "performance", "tech-debt", "improvement",
];

#[rustfmt::skip]
const TRIAGE_CHANNELS: &[&str] = &[
    "support", "eng-backend", "triage", "customer-success", "on-call", "releases",
];

/// Titles of added issues; none is in the sample workspace, none contains another.
#[rustfmt::skip]
const TRIAGE_TITLES: &[&str] = &[
    "Refund button greyed out for partial orders", "Bulk import stalls at 10,000 rows",
    "Two-factor codes rejected after daylight saving change",
    "Invoice PDF shows the wrong VAT number", "Webhook signatures fail for payloads with emoji",
    "Team invite link expires after one hour", "Usage graph double-counts Sunday traffic",
    "Archived projects still send reminder emails", "Saved filters vanish after logout",
    "Slack integration posts duplicate alerts",
    "API keys page leaks the last four digits of other keys",
    "Calendar sync skips recurring events", "Password rules differ between web and mobile",
    "Map view freezes with over 500 pins", "Billing contact cannot be changed by admins",
    "Trial banner shown to paying customers", "Attachments over 20 MB upload silently fail",
    "Report scheduler ignores the account timezone",
    "SAML login loops for users with plus addresses", "Copy-paste from Excel loses leading zeros",
    "Mention autocomplete lists deactivated users", "Dashboard tiles reorder themselves on resize",
    "Audit log omits permission changes", "Print view cuts off the last table column",
];

/// Statuses an open issue can be in, without and with work started.
const NOT_STARTED: &[Status] = &[Status::Backlog, Status::Todo];
const STARTED: &[Status] = &[Status::Todo, Status::InProgress, Status::InReview];
const CLOSED: &[Status] = &[Status::Done, Status::Canceled];

#[derive(Clone, Copy, PartialEq)]
enum Role {
    /// Open, unassigned, labelled: to assign and announce.
    Target,
    /// Labelled and unassigned, but done or canceled.
    Closed,
    /// Labelled and open, but someone (the namesake) owns it.
    Owned,
    /// Open and unassigned, another label.
    OtherLabel,
    /// Anything without the label.
    Filler,
}

pub(super) fn triage(rng: &mut Rng) -> Composed {
    triage_with(rng, false)
}

pub(super) fn triage_after_fault(rng: &mut Rng) -> Composed {
    triage_with(rng, true)
}

fn triage_with(rng: &mut Rng, fault: bool) -> Composed {
    let mut seed = mcpbench_server_tracker::sample_seed(rng);
    let &(name, handle, twin_name, twin) = rng.pick(ASSIGNEES);
    for (n, u) in [(name, handle), (twin_name, twin)] {
        seed.users.push(User {
            username: u.into(),
            name: n.into(),
            email: format!("{u}@acme.test"),
            active: true,
        });
    }
    let label = *rng.pick(TRIAGE_LABELS);
    let others: Vec<String> = (seed.labels.iter())
        .map(|l| l.name.clone())
        .filter(|l| l != label)
        .collect();
    let p = rng.below(seed.projects.len() as u64) as usize;
    let project = seed.projects[p].clone();
    let elsewhere = seed.projects[(p + 1) % seed.projects.len()].key.clone();
    let key = project.key.clone();
    // In the project only the issues added below carry the label.
    let prefix = format!("{key}-");
    for i in seed.issues.iter_mut().filter(|i| i.id.starts_with(&prefix)) {
        i.labels.retain(|l| l != label);
    }
    let mut titles: Vec<&str> = (TRIAGE_TITLES.iter().copied())
        .filter(|t| seed.issues.iter().all(|i| i.title != *t))
        .collect();
    rng.shuffle(&mut titles);
    let mut titles = titles.into_iter();
    let n = rng.range(3, 5) as usize;
    let mut roles = vec![Role::Target; n];
    roles.extend([Role::Closed, Role::Owned, Role::OtherLabel]);
    roles.extend(vec![Role::OtherLabel; rng.range(0, 1) as usize]);
    roles.extend(vec![Role::Filler; rng.range(2, 4) as usize]);
    rng.shuffle(&mut roles);
    let first = next_number(&seed.issues, &key);
    let mut added: Vec<(Role, Issue)> = Vec::new();
    for (k, &role) in roles.iter().enumerate() {
        let id = format!("{key}-{}", first + k as u32);
        let title = titles.next().expect("enough titles");
        let other = rng.pick(&others).as_str();
        let person = rng.pick(&seed.users).username.clone();
        let (status, who, labels) = match role {
            Role::Target if rng.chance(1, 3) => (*rng.pick(NOT_STARTED), None, vec![label, other]),
            Role::Target => (*rng.pick(NOT_STARTED), None, vec![label]),
            Role::Closed => (*rng.pick(CLOSED), None, vec![label]),
            Role::Owned => (*rng.pick(STARTED), Some(twin), vec![label]),
            Role::OtherLabel => (*rng.pick(NOT_STARTED), None, vec![other]),
            Role::Filler => (*rng.pick(&Status::ALL), Some(person.as_str()), vec![other]),
        };
        let mut issue = new_issue(id, title, status, who, &labels);
        issue.priority = rng.range(0, 4) as u8;
        added.push((role, issue));
    }
    // The same kind of issue in another project: not this round's.
    let id = format!("{elsewhere}-{}", next_number(&seed.issues, &elsewhere));
    let title = titles.next().expect("enough titles");
    let stray = new_issue(id, title, Status::Todo, None, &[label]);
    seed.issues.extend(added.iter().map(|(_, i)| i.clone()));
    seed.issues.push(stray.clone());
    let targets: Vec<&Issue> = (added.iter())
        .filter(|(r, _)| *r == Role::Target)
        .map(|(_, i)| i)
        .collect();
    let owned = (added.iter())
        .find_map(|(r, i)| (*r == Role::Owned).then(|| i.title.clone()))
        .expect("one owned issue");

    let channel = *rng.pick(TRIAGE_CHANNELS);
    let mut w = World::new(rng, 5);
    let target_channel = w.channel(channel, true);
    w.chatter(rng, &target_channel, 3);
    // Someone already claimed the owned issue in the channel, in their own words.
    let claimer = w.people[0].id.clone();
    w.say(
        &target_channel,
        &claimer,
        &format!("Picking up \"{owned}\" today"),
    );
    let around: Vec<&str> = CHANNELS.iter().copied().filter(|c| *c != channel).collect();
    for other in rng.sample(&around, 2) {
        let id = w.channel(other, true);
        w.chatter(rng, &id, 2);
    }

    let bot = || Some(DEFAULT_BOT.to_string());
    let assignee = |i: &Issue, who: Option<String>| {
        tracker(mcpbench_server_tracker::Atom::IssueAssignee {
            id: i.id.clone(),
            assignee: who,
        })
    };
    let posted = |title: &str| {
        slack(mcpbench_server_slack::Atom::MessagePosted {
            channel: channel.into(),
            text: None,
            text_contains: Some(title.into()),
            user: bot(),
        })
    };
    let mut checks: Vec<Pred<Atom>> = Vec::new();
    for t in &targets {
        checks.push(assignee(t, Some(handle.into())));
        checks.push(posted(&t.title));
    }
    checks.push(slack(mcpbench_server_slack::Atom::MessageCount {
        channel: channel.into(),
        count: n as u32,
        text: None,
        user: bot(),
    }));
    for (role, i) in &added {
        if matches!(role, Role::Closed | Role::Owned | Role::OtherLabel) {
            checks.push(assignee(i, i.assignee.clone()));
        }
        if matches!(role, Role::Closed | Role::Owned) {
            checks.push(Pred::Not(Box::new(posted(&i.title))));
        }
    }
    checks.push(assignee(&stray, None));

    let mut steps = vec![
        call::<Tracker>("list_projects", json!({})),
        call::<Tracker>("search_issues", json!({ "project": key, "label": label })),
        call::<Tracker>("list_users", json!({ "query": name })),
        call::<Slack>("slack_list_channels", json!({})),
    ];
    for t in &targets {
        steps.push(call::<Tracker>(
            "assign_issue",
            json!({ "id": t.id, "assignee": handle }),
        ));
    }
    for t in &targets {
        steps.push(call::<Slack>(
            "slack_post_message",
            json!({ "channel_id": target_channel, "text": t.title }),
        ));
    }
    let writes = [
        ("tracker.assign_issue", "changed"),
        ("slack.slack_post_message", "posted"),
    ];
    let faults = transient_fault(rng, fault, &mut steps, n, writes);

    let first_name = name.split(' ').next().unwrap_or(name);
    let pname = &project.name;
    let opener = *rng.pick(TRIAGE_OPENERS);
    let goal = match rng.below(3) {
        0 => format!(
            "{opener}Triage round in the {pname} project of our issue tracker: every issue labelled {label} that is still open (not done or canceled) and has nobody assigned should go to {name}. Assign each of them to {first_name}, then post each one's title in the #{channel} Slack channel, one message per issue. Leave closed issues and ones someone already owns alone."
        ),
        1 => format!(
            "{opener}{name} is picking up the unowned {label} work in our tracker's {pname} project. Find the open issues there (neither done nor canceled) labelled {label} that have no assignee, assign each one to {first_name}, and announce them in #{channel} on Slack: a separate message per issue, containing its title. Don't touch issues that are closed or already assigned."
        ),
        _ => format!(
            "{opener}Please sort out the {label} issues nobody owns in the {pname} project of our issue tracker: each open one (not done or canceled) without an assignee should be assigned to {name}, and its title posted as its own message in our #{channel} Slack channel. Issues that are closed or already have an owner stay as they are."
        ),
    };
    Composed {
        max_steps: steps.len() as u32 + 6,
        goal,
        initial_state: InitialState {
            tracker: Some(seed),
            slack: Some(w.seed),
            ..Default::default()
        },
        available_tools: tools(
            "tracker.list_projects tracker.list_users tracker.search_issues tracker.get_issue \
             tracker.assign_issue tracker.update_issue tracker.add_comment \
             slack.slack_list_channels slack.slack_post_message \
             slack.slack_get_channel_history slack.slack_reply_to_thread \
             slack.slack_get_users",
        ),
        success_predicate: Pred::All(checks),
        params: params(&[
            ("project", json!(key)),
            ("label", json!(label)),
            ("assignee", json!(handle)),
            ("channel", json!(channel)),
            ("targets", json!(n)),
            ("error", json!(faults.first().map(|f| f.error.as_str()))),
        ]),
        faults,
        reference_solutions: vec![steps],
    }
}
