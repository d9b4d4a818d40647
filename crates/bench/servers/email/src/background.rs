//! A mailbox's history beside the task's own messages: months of ordinary mail across the
//! folders, written in the seed as a seed and a count and expanded when the mailbox is built.
//! Its correspondents, domains and topics belong to no template, its dates run through the
//! task's own, and its ids sit among theirs (never one digit away from one of them).

use crate::state::{Folder, Seed, SeedMessage};
use mcpbench_sim::Rng;
use mcpbench_sim::background::{fresh_id, minutes_ago, person};
use mcpbench_sim::dates::{format_datetime, parse_datetime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The most background messages a seed may ask for.
pub const MAX_MESSAGES: u32 = 1_000;

/// `initial_state.email.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the messages are drawn from.
    pub seed: u32,
    /// How many messages, at most 1,000.
    #[schemars(range(max = 1000))]
    pub messages: u32,
}

impl Background {
    /// A history of 180 to 420 messages.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            messages: rng.range(180, 420) as u32,
        }
    }
}

/// Domains of background correspondents outside the company; no template writes to them.
const DOMAINS: &[&str] = &[
    "brightwater.io",
    "quillfield.com",
    "tallpine.org",
    "ostara-design.eu",
    "harbourview.net",
    "lumen-atelier.com",
];

/// Subjects of background mail: office life, far from any task's topic.
const SUBJECTS: &[&str] = &[
    "Lunch on Thursday?",
    "Notes from the design crit",
    "Parking spot swap",
    "Book recommendation",
    "Slides from my meetup talk",
    "Team photo",
    "Office plants rota",
    "Printer on the third floor",
    "Coffee machine descaling",
    "Desk move next week",
    "Reading group, chapter four",
    "Recipe from the potluck",
    "Bike to work week",
    "Volunteering day sign-up",
    "Alumni meetup",
    "Podcast episode you mentioned",
    "Language exchange evening",
    "Photo walk on Sunday",
    "Whiteboard markers",
    "Quiet room booking etiquette",
    "Chess club ladder",
    "Running group route",
    "Standing desk trial",
    "Houseplant cuttings",
];

const OPENERS: &[&str] = &["Hi", "Hello", "Hey", "Morning"];

const SENTENCES: &[&str] = &[
    "Sounds good to me.",
    "I left a copy on the shelf by the window.",
    "Let me know if another day suits you better.",
    "No rush on this one.",
    "I can bring a few extra along.",
    "The link is in the shared folder.",
    "Happy to swap if that helps.",
    "It was great catching up.",
    "I will ask around and get back to you.",
    "Count me in.",
    "Maybe next month instead?",
    "Thanks again for organising it.",
];

/// The background's messages for `seed`'s mailbox, each with an id the seed does not use.
pub(crate) fn messages(background: &Background, seed: &Seed) -> Vec<SeedMessage> {
    let mut rng = Rng::new(u64::from(background.seed), 0x6d61_696c);
    let now = seed
        .now
        .get(..16)
        .and_then(|n| parse_datetime(n).ok())
        .unwrap_or(0);
    let own: Vec<&str> = seed.messages.iter().map(|m| m.id.as_str()).collect();
    let mut taken: BTreeSet<String> = own.iter().map(|s| s.to_string()).collect();
    let owner = capitalised(seed.address.split(['@', '.']).next().unwrap_or("there"));
    // The first message on each topic, which later ones may answer (a map, not a scan: the
    // mailbox is built for every run).
    let mut first_on: BTreeMap<&str, String> = BTreeMap::new();
    let mut out: Vec<SeedMessage> = Vec::with_capacity(background.messages as usize);
    for _ in 0..background.messages.min(MAX_MESSAGES) {
        let id = fresh_id(&mut rng, &mut taken, &own, (1000, 8999), |n| {
            format!("msg-{n}")
        });
        let (first, last) = person(&mut rng);
        let domain = if rng.chance(1, 2) {
            seed.address.rsplit('@').next().unwrap_or("northwind.io")
        } else {
            rng.pick(DOMAINS)
        };
        let them = format!("{}.{}@{domain}", first.to_lowercase(), last.to_lowercase());
        let folder = match rng.below(100) {
            0..45 => Folder::Inbox,
            45..75 => Folder::Archive,
            75..90 => Folder::Sent,
            90..96 => Folder::Trash,
            _ => Folder::Drafts,
        };
        let mine = matches!(folder, Folder::Sent | Folder::Drafts);
        let (from, to, greeted) = if mine {
            (seed.address.clone(), them, first.to_string())
        } else {
            (them, seed.address.clone(), owner.clone())
        };
        let topic = *rng.pick(SUBJECTS);
        // A third answer the first message on the same topic, in its thread.
        let earlier = first_on.get(topic).cloned();
        let (subject, thread_id) = match earlier {
            Some(t) if rng.chance(1, 3) => (format!("Re: {topic}"), Some(t)),
            _ => {
                first_on.entry(topic).or_insert_with(|| id.clone());
                (topic.to_string(), None)
            }
        };
        let signature = if mine { owner.as_str() } else { first };
        let body = format!(
            "{} {greeted},\n\n{}\n\n{signature}",
            rng.pick(OPENERS),
            rng.sample(SENTENCES, 2).join(" ")
        );
        let date = format!(
            "{}:{:02}Z",
            format_datetime(now - minutes_ago(&mut rng, 14, 120)),
            rng.below(60)
        );
        out.push(SeedMessage {
            id,
            thread_id,
            from,
            to: vec![to],
            cc: vec![],
            subject,
            body,
            date,
            folder,
            labels: vec![],
            read: folder != Folder::Inbox || rng.chance(6, 7),
        });
    }
    out
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
