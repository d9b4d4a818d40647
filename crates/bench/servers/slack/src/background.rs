//! A workspace's life beside the task's own messages: channels, people and months of chatter,
//! written in the seed as a seed and counts and expanded when the workspace is built. Its
//! people, channel names and texts belong to no template (no goal names them, no template's
//! search or predicate can match them); its messages run through the seed's own channels too,
//! dated among the task's own messages and after them, so that neither a page of history nor
//! a timestamp tells the two apart. It changes none of the seed's records: it never replies
//! to, reacts to or joins anything of the seed's.

use crate::state::{Channel, Message, Reaction, Seed, User, parse_ts, slack_id, ts};
use mcpbench_sim::Rng;
use mcpbench_sim::background::{minutes_ago, one_slip_apart, person};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The most background messages a seed may ask for.
pub const MAX_MESSAGES: u32 = 1_000;
/// The most background people a seed may ask for.
pub const MAX_USERS: u32 = 100;
/// The most background channels a seed may ask for: one of each name of the pool.
pub const MAX_CHANNELS: u32 = CHANNELS.len() as u32;

/// `initial_state.slack.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the workspace's life is drawn from.
    pub seed: u32,
    /// How many channels of its own, at most 32 (some archived, some private).
    #[schemars(range(max = 32))]
    pub channels: u32,
    /// How many people of its own, at most 100.
    #[schemars(range(max = 100))]
    pub users: u32,
    /// How many messages by its people, at most 1,000, in its channels and the seed's.
    #[schemars(range(max = 1000))]
    pub messages: u32,
}

impl Background {
    /// 8 to 20 channels, 12 to 30 people and 150 to 400 messages.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            channels: rng.range(8, 20) as u32,
            users: rng.range(12, 30) as u32,
            messages: rng.range(150, 400) as u32,
        }
    }
}

/// Channels of the background with their purposes; no template seeds, names or creates them.
const CHANNELS: &[(&str, &str)] = &[
    ("book-club", "One book a month, spoilers in threads"),
    ("running-club", "Routes, times and who is in"),
    ("plant-swap", "Cuttings, pots and watering rotas"),
    ("lunch-crew", "Where we eat today"),
    ("music", "What is playing on your headphones"),
    ("pets", "Photos of the office's extended family"),
    ("photography", "Shots, gear and photo walks"),
    ("boardgames", "Game nights and the shelf by the kitchen"),
    ("cycling", "Commutes, rides and bike repairs"),
    ("cooking", "Recipes and kitchen wins"),
    ("gardening", "Allotments, balconies and seeds"),
    ("language-exchange", "Practise a language over lunch"),
    ("desk-setups", "Show your desk"),
    ("podcasts", "Episodes worth a listen"),
    ("film-night", "What we watch on Thursdays"),
    ("chess", "The ladder and friendly games"),
    ("kudos", "Say thanks out loud"),
    ("til", "Today I learned"),
    ("watercooler", "Anything and everything"),
    ("office-lisbon", "News from the Lisbon office"),
    ("office-oslo", "News from the Oslo office"),
    ("climbing", "Bouldering sessions after work"),
    ("knitting", "Needles at lunch"),
    ("baking", "Bread, cakes and sourdough starters"),
    ("hiking", "Weekend trails"),
    ("trivia", "Pub quiz team and practice rounds"),
    ("wellbeing", "Stretching, breaks and quiet rooms"),
    ("volunteering", "Ways to help out locally"),
    ("parents", "School runs and sleepless nights"),
    ("remote-life", "Working from anywhere"),
    ("art-corner", "Sketches, paintings and crafts"),
    ("lost-and-found", "Things left behind around the office"),
];

/// Titles of background people; no template's people hold them or a word of them.
const TITLES: &[&str] = &[
    "Office Coordinator",
    "Account Executive",
    "Recruiter",
    "Technical Writer",
    "Financial Analyst",
    "Legal Counsel",
    "Solutions Architect",
    "Content Strategist",
    "Sales Director",
    "IT Administrator",
    "Payroll Specialist",
    "Community Advocate",
    "Partnerships Director",
    "Executive Assistant",
    "Facilities Coordinator",
    "Copywriter",
];

/// Office chatter: none mentions a service, a keyword, a topic or a meeting a template
/// searches for or checks (a test keeps it so).
pub(crate) const CHATTER: &[&str] = &[
    "Anyone up for a walk at lunch?",
    "The plants by the window need watering, I did the ones on the left",
    "Book club picks for next month are in the doc",
    "Does anyone know a good bakery near the office?",
    "Running group meets at 7 tomorrow by the river",
    "Lost: a blue umbrella, last seen in the kitchen",
    "Found a set of keys on the second floor, they are at reception",
    "The quiet room is free all afternoon if anyone needs it",
    "Sharing some photos from the weekend hike",
    "Chess ladder is updated, three new challengers this week",
    "Who left the amazing banana bread in the kitchen?",
    "Please return the borrowed board games to the shelf",
    "New episode about city gardening, worth a listen",
    "Recommendations for a quiet cafe to work from on Friday?",
    "Happy birthday to our favourite desk neighbour!",
    "The bike racks out front are full again",
    "Knitting circle is moving to Wednesdays",
    "Pub quiz team needs one more person",
    "Has anyone tried the new ramen place around the corner?",
    "Window seats in the east wing get great light in the morning",
    "Clearing out the fridge on Friday afternoon, label your things",
    "Spare concert ticket for Saturday if anyone wants it",
    "The lift on the left is slow today, take the stairs",
    "Language tables this week: Portuguese and Finnish",
    "Fresh fruit now comes on Tuesdays",
    "Can someone recommend a good standing mat?",
    "The mural in the lobby is finally finished",
    "Lunch and learn on sourdough starters next week",
    "Desk plant swap table is by the printers",
    "Thanks for the farewell card, it made my day",
    "Board game night on Thursday, bring your favourites",
    "Does the big printer still jam on double-sided?",
    "New books arrived for the office library",
    "The smoothie stand downstairs is back",
    "Who wants to split a pizza order tonight?",
    "Finished the puzzle in the lounge, 1000 pieces!",
];

/// Answers in the background's own threads.
const REPLIES: &[&str] = &[
    "Count me in",
    "Same here",
    "Thanks!",
    "Nice one",
    "I can help with that",
    "Good to know",
    "Ha, that was me",
    "Sounds lovely",
    "I'll be there",
    "Not this time, sorry",
    "Great idea",
    "Saving this for later",
];

/// Reactions on background messages.
const EMOJI: &[&str] = &[
    "heart",
    "joy",
    "clap",
    "+1",
    "sparkles",
    "smile",
    "raised_hands",
];

/// The background's users, channels and messages, to add to the seed's.
#[derive(Default)]
pub(crate) struct Expanded {
    pub users: Vec<User>,
    pub channels: Vec<Channel>,
    pub messages: Vec<Message>,
}

pub(crate) fn expand(background: &Background, seed: &Seed) -> Expanded {
    let mut rng = Rng::new(u64::from(background.seed), 0x736c_6163);
    let users = people(&mut rng, background.users.min(MAX_USERS) as usize, seed);
    let channels = channels(
        &mut rng,
        background.channels.min(MAX_CHANNELS) as usize,
        seed,
        &users,
    );
    let mut messages = if users.is_empty() {
        vec![]
    } else {
        let n = background.messages.min(MAX_MESSAGES) as usize;
        messages(&mut rng, n, seed, &users, &channels)
    };
    threads(&mut rng, &mut messages, &users);
    Expanded {
        users,
        channels,
        messages,
    }
}

/// `n` people of the pools (fewer if the seed holds their handles), with ids of their own.
fn people(rng: &mut Rng, n: usize, seed: &Seed) -> Vec<User> {
    let mut handles: BTreeSet<String> = seed.users.iter().map(|u| u.name.clone()).collect();
    let mut out: Vec<User> = Vec::with_capacity(n);
    for _ in 0..n * 20 {
        if out.len() == n {
            break;
        }
        let (first, last) = person(rng);
        let handle = format!("{}.{}", first.to_lowercase(), last.to_lowercase());
        let id = slack_id('U', &format!("background:{handle}"));
        let clash = |o: &str| o == id || one_slip_apart(o, &id);
        if handles.contains(&handle)
            || seed.users.iter().any(|u| clash(&u.id))
            || clash(&seed.bot_user)
        {
            continue;
        }
        handles.insert(handle.clone());
        out.push(User {
            id,
            name: handle,
            real_name: format!("{first} {last}"),
            title: rng.pick(TITLES).to_string(),
            is_bot: false,
        });
    }
    out
}

/// `n` channels of the pool the seed does not use: one in five archived, one in six private,
/// the bot in half of them; members from the background's people and a few of the seed's.
fn channels(rng: &mut Rng, n: usize, seed: &Seed, users: &[User]) -> Vec<Channel> {
    let free: Vec<(&str, &str)> = CHANNELS
        .iter()
        .copied()
        .filter(|(name, _)| seed.channels.iter().all(|c| c.name != *name))
        .collect();
    let own_people: Vec<&User> = seed
        .users
        .iter()
        .filter(|u| !u.is_bot && u.id != seed.bot_user)
        .collect();
    let mut out = Vec::new();
    for (name, purpose) in rng.sample(&free, n.min(free.len())) {
        let mut id = slack_id('C', &format!("background:{name}"));
        let mut k = 0;
        while seed
            .channels
            .iter()
            .any(|c| c.id == id || one_slip_apart(&c.id, &id))
        {
            k += 1;
            id = slack_id('C', &format!("background:{name}:{k}"));
        }
        let mut members: Vec<String> = if users.is_empty() {
            vec![]
        } else {
            let k = rng.range(3.min(users.len() as i64), users.len().min(14) as i64);
            rng.sample(users, k as usize)
                .into_iter()
                .map(|u| u.id)
                .collect()
        };
        members.extend(
            own_people
                .iter()
                .filter(|_| rng.chance(1, 4))
                .map(|u| u.id.clone()),
        );
        if rng.chance(1, 2) {
            members.push(seed.bot_user.clone());
        }
        out.push(Channel {
            id,
            name: name.to_string(),
            topic: String::new(),
            purpose: purpose.to_string(),
            members,
            is_private: rng.chance(1, 6),
            archived: rng.chance(1, 5),
        });
    }
    out
}

/// A channel a background message may go to, with the seed's own messages there: when they
/// run from and to, and their timestamps.
struct Target<'a> {
    id: &'a str,
    own: Option<(u64, u64)>,
    own_ts: Vec<&'a str>,
}

impl<'a> Target<'a> {
    fn new(id: &'a str) -> Self {
        Target {
            id,
            own: None,
            own_ts: vec![],
        }
    }
}

/// `n` top-level messages by the background's people: two in five in the seed's channels,
/// half of those dated among the seed's own messages there or after them (up to "now"); the
/// rest over the last weeks, weighted to the last days.
fn messages(
    rng: &mut Rng,
    n: usize,
    seed: &Seed,
    users: &[User],
    channels: &[Channel],
) -> Vec<Message> {
    let mut own: BTreeMap<&str, Target> = (seed.channels.iter())
        .map(|c| (c.id.as_str(), Target::new(&c.id)))
        .collect();
    let mut taken: BTreeSet<(&str, String)> = BTreeSet::new();
    let mut micros: Vec<u32> = Vec::new();
    for m in &seed.messages {
        let (Some(t), Some((secs, us))) = (own.get_mut(m.channel.as_str()), parse_ts(&m.ts)) else {
            continue;
        };
        t.own = Some(
            t.own
                .map_or((secs, secs), |(a, b)| (a.min(secs), b.max(secs))),
        );
        t.own_ts.push(&m.ts);
        micros.push(us);
        taken.insert((m.channel.as_str(), m.ts.clone()));
    }
    // Fractions of a second as the seed's own messages have them, so that they tell nothing.
    if micros.is_empty() {
        micros.push(100);
    }
    let own: Vec<Target> = own.into_values().collect();
    let theirs: Vec<Target> = channels.iter().map(|c| Target::new(&c.id)).collect();
    let now = seed.now;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let target = match (own.is_empty(), theirs.is_empty()) {
            (true, true) => break,
            (false, true) => rng.pick(&own),
            (true, false) => rng.pick(&theirs),
            (false, false) if rng.chance(2, 5) => rng.pick(&own),
            _ => rng.pick(&theirs),
        };
        let mut secs = match target.own {
            Some((lo, hi)) if rng.chance(1, 2) => {
                if rng.chance(1, 2) || hi + 60 >= now {
                    rng.range(lo as i64, hi as i64) as u64
                } else {
                    rng.range(hi as i64 + 1, now as i64 - 60) as u64
                }
            }
            _ => now.saturating_sub(minutes_ago(rng, 2, 45) as u64 * 60 + rng.below(60)),
        };
        let us = *rng.pick(&micros);
        let stamp = loop {
            let t = ts(secs, us);
            if !taken.contains(&(target.id, t.clone()))
                && !target.own_ts.iter().any(|o| one_slip_apart(o, &t))
            {
                break t;
            }
            secs = secs.saturating_sub(1 + rng.below(7));
        };
        taken.insert((target.id, stamp.clone()));
        out.push(Message {
            channel: target.id.to_string(),
            ts: stamp,
            user: rng.pick(users).id.clone(),
            text: rng.pick(CHATTER).to_string(),
            thread_ts: None,
            reactions: vec![],
        });
    }
    out
}

/// Makes one in five background messages a reply in the thread of an earlier background
/// message of its channel, and gives one in six top-level ones reactions of the background's
/// people.
fn threads(rng: &mut Rng, messages: &mut [Message], users: &[User]) {
    let mut order: Vec<(String, (u64, u32), usize)> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| (m.channel.clone(), parse_ts(&m.ts).unwrap_or_default(), i))
        .collect();
    order.sort();
    let mut tops: Vec<usize> = Vec::new();
    let mut channel = String::new();
    for (c, _, i) in order {
        if c != channel {
            tops.clear();
            channel = c;
        }
        if !tops.is_empty() && rng.chance(1, 5) {
            let parent = messages[*rng.pick(&tops)].ts.clone();
            messages[i].thread_ts = Some(parent);
            messages[i].text = rng.pick(REPLIES).to_string();
            continue;
        }
        tops.push(i);
        if rng.chance(1, 6) {
            let k = rng.range(1, 2) as usize;
            let names = rng.sample(EMOJI, k);
            messages[i].reactions = names
                .into_iter()
                .map(|name| {
                    let k = rng.range(1, 3.min(users.len() as i64));
                    Reaction {
                        name: name.to_string(),
                        users: rng
                            .sample(users, k as usize)
                            .into_iter()
                            .map(|u| u.id)
                            .collect(),
                    }
                })
                .collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::templates::{KEYWORDS, TOPICS};
    use crate::world::{CHANNELS as SEEDED, CHATTER as SEEDED_CHATTER, PEOPLE, SERVICES};

    /// Words templates search for or check, lower case: their keywords, topics, services and
    /// meetings (in `mcpbench-tasks`), and what every announcement says.
    fn searched() -> Vec<String> {
        let mut words: Vec<String> = KEYWORDS.iter().map(|k| k.to_lowercase()).collect();
        words.extend(TOPICS.iter().map(|(_, _, w)| w.to_lowercase()));
        words.extend(SERVICES.iter().map(|s| s.to_string()));
        words.extend(
            [
                "open ",
                "meeting",
                "review",
                "planning",
                "workshop",
                "hiring",
                "demo",
                "deploy",
                "release",
                "maintenance",
                "on-call",
                "picking up",
                "migration",
                "staging",
                "smoke test",
                "merged",
                "forecast",
                "proj-",
                "welcome to",
            ]
            .map(String::from),
        );
        words
    }

    #[test]
    fn no_background_text_meets_a_templates_search_or_check() {
        let words = searched();
        for text in CHATTER.iter().chain(REPLIES) {
            let lower = text.to_lowercase();
            for w in &words {
                assert!(!lower.contains(w.as_str()), "{text:?} contains {w:?}");
            }
            assert!(
                !SEEDED_CHATTER.contains(text),
                "{text:?} is template chatter"
            );
        }
    }

    #[test]
    fn no_background_name_or_title_is_a_templates() {
        for (name, _) in CHANNELS {
            assert!(!SEEDED.contains(name), "{name}");
        }
        for title in TITLES {
            for (_, _, theirs) in PEOPLE {
                for word in theirs.split(' ') {
                    assert!(!title.contains(word), "{title} shares {word} with {theirs}");
                }
            }
        }
    }
}
