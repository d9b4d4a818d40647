//! A workspace's backlog beside the task's own issues: a hundred or more issues across its
//! projects, filed and worked by people of their own, written in the seed as a seed and a count
//! and expanded when the tracker is built. Its people, labels and titles belong to no template,
//! and its issue numbers run through the task's own, so that no range of ids marks either.

use crate::state::{Comment, Issue, Label, Seed, Status, User};
use mcpbench_sim::Rng;
use mcpbench_sim::background::person;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The most background issues a seed may ask for.
pub const MAX_ISSUES: u32 = 1_000;

/// `initial_state.tracker.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the issues are drawn from.
    pub seed: u32,
    /// How many issues, at most 1,000, spread over the seed's projects.
    #[schemars(range(max = 1000))]
    pub issues: u32,
}

impl Background {
    /// A backlog of 100 to 220 issues.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            issues: rng.range(100, 220) as u32,
        }
    }
}

/// Labels of background issues; no template uses or creates them.
const LABELS: &[&str] = &["chore", "infra", "copy", "research"];

/// Titles of background issues: upkeep far from any task's topic.
const TITLES: &[&str] = &[
    "Refresh the README screenshots",
    "Upgrade the linter configuration",
    "Archive the old sprint boards",
    "Tidy the shared drive folders",
    "Rename the staging buckets",
    "Spike: evaluate a new charting library",
    "Move the team wiki to the new space",
    "Update the holiday calendar in the handbook",
    "Trim unused feature flags",
    "Replace the placeholder icons",
    "Clean up stale branches",
    "Document the release train",
    "Rework the empty states copy",
    "Audit the third-party licences",
    "Retire the legacy cron host",
    "Collect quotes for the new monitors",
    "Sort the design tokens",
    "Write the quarterly engineering newsletter",
    "Prepare the intern starter project",
    "Compare hosted CI runners",
    "Polish the changelog template",
    "Review the office network diagram",
    "Benchmark the cold build",
    "Translate the footer links",
    "Record the architecture walkthrough",
    "Map the dependency graph of the monorepo",
    "Survey the team about meeting load",
    "Consolidate the duplicate style sheets",
];

/// What tells apart the issues a long backlog files under one title.
const AGAIN: &[&str] = &["", "", "", " (follow-up)", " (part 2)", " (second pass)"];

const DESCRIPTIONS: &[&str] = &[
    "Nothing urgent; pick it up when there is slack.",
    "Came out of the last retro.",
    "Small and self-contained, good for a first week.",
    "Needs a short write-up before anyone starts.",
    "Half done on an old branch, worth finishing.",
    "",
];

const REMARKS: &[&str] = &[
    "I can take this next sprint.",
    "Still relevant?",
    "Linked the notes from the retro.",
    "Parking this until the migration lands.",
];

/// The background's users (as many as the seed's, six at least) and its labels, to add to the
/// seed's; and its issues, numbered among the seed's own in each project.
#[derive(Default)]
pub(crate) struct Expanded {
    pub users: Vec<User>,
    pub labels: Vec<Label>,
    pub issues: Vec<Issue>,
}

pub(crate) fn expand(background: &Background, seed: &Seed) -> Expanded {
    let mut rng = Rng::new(u64::from(background.seed), 0x7472_6163);
    let mut out = Expanded::default();
    if seed.projects.is_empty() {
        return out;
    }
    let domain = seed
        .users
        .first()
        .and_then(|u| u.email.rsplit('@').next())
        .unwrap_or("acme.test")
        .to_string();
    let taken = |name: &str, users: &[User]| {
        seed.users
            .iter()
            .chain(users)
            .any(|u| u.username == name || u.email.starts_with(&format!("{name}@")))
    };
    for _ in 0..seed.users.len().max(6) {
        let (first, last) = person(&mut rng);
        let username = first.to_lowercase();
        if !taken(&username, &out.users) {
            out.users.push(User {
                email: format!("{username}@{domain}"),
                name: format!("{first} {last}"),
                username,
                active: true,
            });
        }
    }
    out.labels = LABELS
        .iter()
        .filter(|l| !seed.labels.iter().any(|s| s.name.eq_ignore_ascii_case(l)))
        .map(|l| Label {
            name: l.to_string(),
            description: String::new(),
        })
        .collect();
    let mut used: BTreeSet<String> = seed.issues.iter().map(|i| i.id.clone()).collect();
    // Numbers run from 1 to past the highest of the task's own, so theirs sit among these.
    let top = seed
        .issues
        .iter()
        .filter_map(|i| {
            i.id.rsplit_once('-')
                .and_then(|(_, n)| n.parse::<u32>().ok())
        })
        .max()
        .unwrap_or(0);
    let per_project = background.issues.min(MAX_ISSUES) as usize / seed.projects.len() + 1;
    let span = (top as usize + per_project * 3 / 2).max(per_project + seed.issues.len()) as i64;
    for n in 0..background.issues.min(MAX_ISSUES) as usize {
        let project = &seed.projects[n % seed.projects.len()].key;
        let id = loop {
            let id = format!("{project}-{}", rng.range(1, span));
            if used.insert(id.clone()) {
                break id;
            }
        };
        // Mostly history: done or canceled; the rest spread over the open statuses.
        let status = match rng.below(10) {
            0..5 => Status::Done,
            5 => Status::Canceled,
            _ => *rng.pick(&[
                Status::Backlog,
                Status::Todo,
                Status::InProgress,
                Status::InReview,
            ]),
        };
        let assignee = (!out.users.is_empty() && rng.chance(3, 4))
            .then(|| rng.pick(&out.users).username.clone());
        let labels = if out.labels.is_empty() || rng.chance(1, 3) {
            vec![]
        } else {
            vec![rng.pick(&out.labels).name.clone()]
        };
        let comments = if out.users.is_empty() || rng.chance(3, 4) {
            vec![]
        } else {
            vec![Comment {
                author: rng.pick(&out.users).username.clone(),
                body: rng.pick(REMARKS).to_string(),
            }]
        };
        out.issues.push(Issue {
            id,
            title: format!("{}{}", rng.pick(TITLES), rng.pick(AGAIN)),
            description: rng.pick(DESCRIPTIONS).to_string(),
            status,
            priority: rng.range(0, 4) as u8,
            assignee,
            labels,
            estimate: rng.chance(1, 2).then(|| *rng.pick(&[1u32, 2, 3, 5, 8])),
            parent: None,
            comments,
        });
    }
    out
}
