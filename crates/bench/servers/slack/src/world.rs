//! A builder of small, realistic workspaces for templates, this server's and cross-server ones:
//! a pool of people with unique handles, real names and titles, channel names, chatter, and
//! message timestamps that increase in the order messages are added.

use crate::state::{Channel, DEFAULT_BOT, Message, Seed, User, slack_id, ts};
use mcpbench_sim::Rng;

/// (handle, real name, title); titles and real names are unique.
pub const PEOPLE: &[(&str, &str, &str)] = &[
    ("ada.park", "Ada Park", "Staff Engineer"),
    ("omar.haddad", "Omar Haddad", "Product Manager"),
    ("li.wei", "Li Wei", "SRE Lead"),
    ("priya.nair", "Priya Nair", "Engineering Manager"),
    ("jonas.berg", "Jonas Berg", "Backend Engineer"),
    ("mei.tanaka", "Mei Tanaka", "Product Designer"),
    ("tariq.aziz", "Tariq Aziz", "Data Scientist"),
    ("ines.moreau", "Ines Moreau", "Support Lead"),
    ("kofi.mensah", "Kofi Mensah", "Security Engineer"),
    ("sven.olsen", "Sven Olsen", "QA Engineer"),
    ("lucia.romero", "Lucia Romero", "Marketing Manager"),
    ("dev.patel", "Dev Patel", "Frontend Engineer"),
];

/// Channel names a workspace draws from.
pub const CHANNELS: &[&str] = &[
    "general",
    "random",
    "deploys",
    "incidents",
    "eng-backend",
    "design",
    "support",
    "data-team",
    "releases",
    "marketing",
];

/// Services messages talk about.
pub const SERVICES: &[&str] = &[
    "billing", "search", "checkout", "auth", "gateway", "ledger", "notify", "ingest",
];

/// Everyday messages that mention none of the keywords templates ask about.
pub const CHATTER: &[&str] = &[
    "Morning everyone!",
    "Reminder: all-hands at 3pm today",
    "Who has the big meeting room booked this afternoon?",
    "Lunch is here, kitchen on floor 2",
    "Can someone take a look at my pull request?",
    "I'll be out tomorrow afternoon",
    "Thanks for the quick help earlier",
    "Notes from the weekly sync are in the team folder",
    "Welcome to the team, everyone say hi!",
    "Heads up: I'm moving the standup 15 minutes later",
    "Great demo today",
    "Does anyone have a spare HDMI adapter?",
];

/// The user id of a handle.
pub fn user_id(handle: &str) -> String {
    slack_id('U', handle)
}

/// The id of a seeded channel.
pub fn channel_id(name: &str) -> String {
    slack_id('C', name)
}

/// One member of the workspace.
#[derive(Clone, Debug, PartialEq)]
pub struct Person {
    pub id: String,
    pub handle: String,
    pub real_name: String,
    pub title: String,
}

/// A workspace being built: its seed, the people in it, and a message clock.
#[derive(Clone, Debug)]
pub struct World {
    pub seed: Seed,
    pub people: Vec<Person>,
    stamps: u64,
}

impl World {
    /// `n` people drawn from [`PEOPLE`], no channels yet.
    pub fn new(rng: &mut Rng, n: usize) -> Self {
        let people: Vec<Person> = rng
            .sample(PEOPLE, n)
            .into_iter()
            .map(|(h, r, t)| Person {
                id: user_id(h),
                handle: h.into(),
                real_name: r.into(),
                title: t.into(),
            })
            .collect();
        let users = people
            .iter()
            .map(|p| User {
                id: p.id.clone(),
                name: p.handle.clone(),
                real_name: p.real_name.clone(),
                title: p.title.clone(),
                is_bot: false,
            })
            .collect();
        World {
            seed: Seed {
                users,
                ..Seed::default()
            },
            people,
            stamps: 0,
        }
    }

    /// The bot's user id.
    pub fn bot(&self) -> &str {
        &self.seed.bot_user
    }

    /// Adds a public channel with every person as a member, and the bot when `bot_member`;
    /// returns its id.
    pub fn channel(&mut self, name: &str, bot_member: bool) -> String {
        let mut members: Vec<String> = self.people.iter().map(|p| p.id.clone()).collect();
        if bot_member {
            members.push(DEFAULT_BOT.into());
        }
        let id = channel_id(name);
        self.seed.channels.push(Channel {
            id: id.clone(),
            name: name.into(),
            topic: String::new(),
            purpose: format!("Everything about {name}"),
            members,
            is_private: false,
            archived: false,
        });
        id
    }

    /// The seeded channel with id `id`, to adjust (topic, archived, privacy).
    pub fn channel_mut(&mut self, id: &str) -> &mut Channel {
        self.seed
            .channels
            .iter_mut()
            .find(|c| c.id == id)
            .expect("a channel of this world")
    }

    fn next_ts(&mut self) -> String {
        self.stamps += 1;
        ts(1_699_990_000 + 53 * self.stamps, 100)
    }

    /// Adds a top-level message; returns its ts. Later messages get later timestamps.
    pub fn say(&mut self, channel: &str, user: &str, text: &str) -> String {
        let t = self.next_ts();
        let m = Message {
            channel: channel.into(),
            ts: t.clone(),
            user: user.into(),
            text: text.into(),
            thread_ts: None,
            reactions: vec![],
        };
        self.seed.messages.push(m);
        t
    }

    /// Adds a reply in the thread of `parent`; returns its ts.
    pub fn reply(&mut self, channel: &str, parent: &str, user: &str, text: &str) -> String {
        let t = self.say(channel, user, text);
        self.seed.messages.last_mut().expect("just added").thread_ts = Some(parent.into());
        t
    }

    /// `n` messages of [`CHATTER`] by random people, none repeated.
    pub fn chatter(&mut self, rng: &mut Rng, channel: &str, n: usize) {
        for text in rng.sample(CHATTER, n.min(CHATTER.len())) {
            let who = rng.pick(&self.people).id.clone();
            self.say(channel, &who, text);
        }
    }
}

/// A small fixed workspace: six people, #general and #deploys (the bot in both) and
/// #random (without the bot), with a little chatter and one thread.
pub fn sample_seed() -> Seed {
    let mut rng = Rng::new(7, 0);
    let mut w = World::new(&mut rng, 6);
    let general = w.channel("general", true);
    let deploys = w.channel("deploys", true);
    let random = w.channel("random", false);
    w.chatter(&mut rng, &general, 4);
    let (a, b) = (w.people[0].id.clone(), w.people[1].id.clone());
    let parent = w.say(&deploys, &a, "Deployed billing v2.4 to staging");
    w.reply(&deploys, &parent, &b, "Smoke tests pass on staging");
    w.chatter(&mut rng, &random, 2);
    w.seed
}
