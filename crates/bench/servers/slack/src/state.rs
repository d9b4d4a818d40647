//! The workspace, its seed, and the rules every tool shares: who the bot is, which channels it
//! can see and write to, and how message timestamps are made.

use crate::background::{self, Background, MAX_CHANNELS, MAX_MESSAGES, MAX_USERS};
use mcpbench_sim::{Capacity, Ledger, SeedError, ToolError, Usage, footprint};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The user id the bot has when the seed does not name one.
pub const DEFAULT_BOT: &str = "U0BOT00001";
/// The clock (Unix seconds) when the seed does not set one.
pub const DEFAULT_NOW: u64 = 1_700_000_000;

/// `initial_state.slack`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// The user id of the bot every call acts as. When no user in `users` has this id, a bot
    /// user named `assistant` is added.
    #[serde(default = "default_bot", skip_serializing_if = "is_default_bot")]
    pub bot_user: String,
    /// Unix seconds of "now": the first message posted gets `now + 1` as its timestamp.
    #[serde(default = "default_now", skip_serializing_if = "is_default_now")]
    pub now: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<User>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<Channel>,
    /// Every message of every channel, thread replies included, in any order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Message>,
    /// Channels, people and months of chatter beside the task's own, expanded when the
    /// workspace is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

impl Default for Seed {
    fn default() -> Self {
        Seed {
            bot_user: default_bot(),
            now: DEFAULT_NOW,
            users: vec![],
            channels: vec![],
            messages: vec![],
            background: None,
        }
    }
}

fn default_bot() -> String {
    DEFAULT_BOT.into()
}
fn is_default_bot(s: &str) -> bool {
    s == DEFAULT_BOT
}
fn default_now() -> u64 {
    DEFAULT_NOW
}
fn is_default_now(n: &u64) -> bool {
    *n == DEFAULT_NOW
}
fn is_false(b: &bool) -> bool {
    !*b
}

/// A member of the workspace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct User {
    /// `U` followed by upper-case letters and digits.
    pub id: String,
    /// The handle, unique in the workspace (`ada.park`).
    pub name: String,
    pub real_name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_bot: bool,
}

/// A channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Channel {
    /// `C` followed by upper-case letters and digits.
    pub id: String,
    /// Lower case letters, digits, `-` and `_`, unique in the workspace.
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub topic: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub purpose: String,
    /// User ids of the members.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_private: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub archived: bool,
}

/// One message, top-level or a thread reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// The channel id.
    pub channel: String,
    /// `<seconds>.<6 digits>`, unique in its channel (`1699990060.000100`).
    pub ts: String,
    /// The author's user id.
    pub user: String,
    pub text: String,
    /// For a thread reply, the `ts` of the thread's top-level message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_ts: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reactions: Vec<Reaction>,
}

/// An emoji reaction on a message, with the users who added it in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reaction {
    /// Emoji name without colons (`eyes`).
    pub name: String,
    pub users: Vec<String>,
}

/// A message shown to one member only; never part of the channel history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Ephemeral {
    pub channel: String,
    pub user: String,
    pub text: String,
    pub ts: String,
}

/// What a run's workspace holds at most: a hundred times a seed, and ten times what a whole
/// run of the longest messages the tools take could add (100 calls of 4,000 characters).
pub const WORKSPACE: Capacity = Capacity {
    store: "workspace",
    records: 5_000,
    noun: "messages and channels",
    bytes: 4 << 20,
};

/// The simulated server: users, channels, messages, and the message clock.
#[derive(Clone, Debug)]
pub struct Slack {
    pub(crate) bot: String,
    pub(crate) users: BTreeMap<String, User>,
    pub(crate) channels: BTreeMap<String, Channel>,
    pub(crate) messages: Vec<Message>,
    pub(crate) ephemeral: Vec<Ephemeral>,
    /// Seconds of the last timestamp handed out.
    pub(crate) clock: u64,
    /// How many messages (ephemeral ones included) this server has posted.
    pub(crate) posted: u64,
    /// What the workspace holds against [`WORKSPACE`], kept as each write changes it.
    pub(crate) ledger: Ledger,
}

/// The timestamp Slack would give: `<seconds>.<micros as 6 digits>`.
pub fn ts(seconds: u64, micros: u32) -> String {
    format!("{seconds}.{micros:06}")
}

/// `ts` as a sortable pair, or `None` when it is not `<digits>.<6 digits>`.
pub(crate) fn parse_ts(ts: &str) -> Option<(u64, u32)> {
    let (s, m) = ts.split_once('.')?;
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    if !digits(s) || m.len() != 6 || !digits(m) || s.len() > 12 {
        return None;
    }
    Some((s.parse().ok()?, m.parse().ok()?))
}

/// A Slack-style id: `prefix` and nine upper-case letters or digits derived from `key`.
pub fn slack_id(prefix: char, key: &str) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKLMNPQRSTUVWXYZ";
    let mut h = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut out = String::from(prefix);
    for _ in 0..9 {
        out.push(ALPHABET[(h % ALPHABET.len() as u64) as usize] as char);
        h /= ALPHABET.len() as u64;
    }
    out
}

/// The id a channel created with `name` gets (when no channel has that id yet).
pub fn new_channel_id(name: &str) -> String {
    slack_id('C', &format!("new-channel:{name}"))
}

pub(crate) fn valid_channel_name(name: &str) -> bool {
    (1..=80).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

fn valid_id(id: &str, prefixes: &[char]) -> bool {
    id.len() >= 3
        && id.starts_with(prefixes)
        && id
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

impl Slack {
    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("slack", m);
        let extra = match &seed.background {
            Some(b)
                if b.channels > MAX_CHANNELS
                    || b.users > MAX_USERS
                    || b.messages > MAX_MESSAGES =>
            {
                return Err(bad(format!(
                    "a background of {} channels, {} users and {} messages is more than a workspace's {MAX_CHANNELS} channels, {MAX_USERS} users and {MAX_MESSAGES} messages of background",
                    b.channels, b.users, b.messages
                )));
            }
            Some(b) => background::expand(b, seed),
            None => background::Expanded::default(),
        };
        let mut users = BTreeMap::new();
        let mut names = BTreeSet::new();
        for u in seed.users.iter().chain(&extra.users) {
            if !valid_id(&u.id, &['U', 'W']) {
                return Err(bad(format!("user id {:?} is not like U0123ABCD", u.id)));
            }
            if u.name.is_empty() || !names.insert(u.name.clone()) {
                return Err(bad(format!(
                    "user name {:?} is empty or used twice",
                    u.name
                )));
            }
            if users.insert(u.id.clone(), u.clone()).is_some() {
                return Err(bad(format!("user id {} is used twice", u.id)));
            }
        }
        if !valid_id(&seed.bot_user, &['U', 'W']) {
            return Err(bad(format!(
                "bot_user {:?} is not like U0123ABCD",
                seed.bot_user
            )));
        }
        if !users.contains_key(&seed.bot_user) {
            if names.contains("assistant") {
                return Err(bad(
                    "the implicit bot user needs the name `assistant`, which is taken".into(),
                ));
            }
            let bot = User {
                id: seed.bot_user.clone(),
                name: "assistant".into(),
                real_name: "Assistant".into(),
                title: "Workspace bot".into(),
                is_bot: true,
            };
            users.insert(bot.id.clone(), bot);
        }
        let mut channels = BTreeMap::new();
        let mut channel_names = BTreeSet::new();
        for c in seed.channels.iter().chain(&extra.channels) {
            if !valid_id(&c.id, &['C', 'G']) {
                return Err(bad(format!("channel id {:?} is not like C0123ABCD", c.id)));
            }
            if !valid_channel_name(&c.name) || !channel_names.insert(c.name.clone()) {
                return Err(bad(format!(
                    "channel name {:?} is invalid or used twice",
                    c.name
                )));
            }
            let mut seen = BTreeSet::new();
            for m in &c.members {
                if !users.contains_key(m) || !seen.insert(m) {
                    return Err(bad(format!(
                        "member {m} of #{} is unknown or listed twice",
                        c.name
                    )));
                }
            }
            if channels.insert(c.id.clone(), c.clone()).is_some() {
                return Err(bad(format!("channel id {} is used twice", c.id)));
            }
        }
        let mut stamps: BTreeMap<(&str, &str), Option<&str>> = BTreeMap::new();
        let mut clock = seed.now;
        let messages: Vec<Message> = (seed.messages.iter().cloned())
            .chain(extra.messages)
            .collect();
        for m in &messages {
            let Some((secs, _)) = parse_ts(&m.ts) else {
                return Err(bad(format!(
                    "message ts {:?} is not like 1699990060.000100",
                    m.ts
                )));
            };
            clock = clock.max(secs);
            if !channels.contains_key(&m.channel) || !users.contains_key(&m.user) {
                return Err(bad(format!(
                    "message {} names an unknown channel or user",
                    m.ts
                )));
            }
            if stamps
                .insert((&m.channel, &m.ts), m.thread_ts.as_deref())
                .is_some()
            {
                return Err(bad(format!(
                    "message ts {} is used twice in {}",
                    m.ts, m.channel
                )));
            }
            for r in &m.reactions {
                if r.users.is_empty() || r.users.iter().any(|u| !users.contains_key(u)) {
                    return Err(bad(format!(
                        "reaction {} on {} has no or unknown users",
                        r.name, m.ts
                    )));
                }
            }
        }
        for m in &messages {
            if let Some(parent) = &m.thread_ts {
                let top = stamps.get(&(m.channel.as_str(), parent.as_str()));
                if top != Some(&None) || parse_ts(parent) >= parse_ts(&m.ts) {
                    return Err(bad(format!(
                        "reply {} needs an earlier top-level message {parent} in {}",
                        m.ts, m.channel
                    )));
                }
            }
        }
        let mut slack = Slack {
            bot: seed.bot_user.clone(),
            users,
            channels,
            messages,
            ephemeral: Vec::new(),
            clock,
            posted: 0,
            ledger: Ledger::new(WORKSPACE, Usage::default()),
        };
        slack.ledger = Ledger::new(WORKSPACE, slack.measure());
        Ok(slack)
    }

    /// What the workspace holds, measured from scratch: the sum of [`message_usage`],
    /// [`ephemeral_usage`] and [`channel_usage`] over every record. Users are the seed's and
    /// never grow. Only the state's build and [`audit`](mcpbench_sim::Simulated::audit)
    /// measure; a write moves [`Slack::ledger`] by what it changed.
    pub(crate) fn measure(&self) -> Usage {
        let messages = self.messages.iter().map(message_usage);
        let ephemeral = self.ephemeral.iter().map(ephemeral_usage);
        let channels = self.channels.values().map(channel_usage);
        messages
            .chain(ephemeral)
            .chain(channels)
            .fold(Usage::default(), |a, b| a + b)
    }

    /// The timestamp [`Slack::next_ts`] hands out next, without drawing it: a post is admitted
    /// for the record it stores, its timestamp included.
    pub(crate) fn peek_ts(&self) -> String {
        ts(self.clock + 1, ((self.posted + 1) * 100 % 1_000_000) as u32)
    }

    /// The next message timestamp: one second later, micros counting posts.
    pub(crate) fn next_ts(&mut self) -> String {
        let next = self.peek_ts();
        self.clock += 1;
        self.posted += 1;
        next
    }

    /// Whether the bot can see the channel at all (private channels only when a member).
    pub(crate) fn visible(&self, c: &Channel) -> bool {
        !c.is_private || c.members.contains(&self.bot)
    }

    /// A channel the bot can see, by id. Names are a helpful error, not a lookup.
    pub(crate) fn channel(&self, id: &str) -> Result<&Channel, ToolError> {
        match self.channels.get(id).filter(|c| self.visible(c)) {
            Some(c) => Ok(c),
            None => {
                let name = id.trim_start_matches('#');
                let hint = match self
                    .channels
                    .values()
                    .find(|c| c.name == name && self.visible(c))
                {
                    Some(c) => format!("; #{} has the id {}", c.name, c.id),
                    None => {
                        "; channel ids look like C0123ABCD, list the channels to find one".into()
                    }
                };
                Err(ToolError::not_found(format!(
                    "channel_not_found: no channel with id {id:?}{hint}"
                )))
            }
        }
    }

    /// A channel the bot may write to: visible, not archived, and joined.
    pub(crate) fn writable(&self, id: &str) -> Result<&Channel, ToolError> {
        let c = self.channel(id)?;
        if c.archived {
            return Err(ToolError::precondition(format!(
                "is_archived: #{} ({}) is archived; nothing can be posted or changed there",
                c.name, c.id
            )));
        }
        if !c.members.contains(&self.bot) {
            return Err(ToolError::denied(format!(
                "not_in_channel: the bot is not a member of #{} ({}); join the channel first",
                c.name, c.id
            )));
        }
        Ok(c)
    }

    pub(crate) fn user(&self, id: &str) -> Result<&User, ToolError> {
        self.users.get(id).ok_or_else(|| {
            ToolError::not_found(format!(
                "user_not_found: no user with id {id:?}; user ids look like U0123ABCD"
            ))
        })
    }

    /// The message `ts` of channel `channel`.
    pub(crate) fn message_index(&self, channel: &str, ts: &str) -> Result<usize, ToolError> {
        self.messages
            .iter()
            .position(|m| m.channel == channel && m.ts == ts)
            .ok_or_else(|| {
                ToolError::not_found(format!(
                    "message_not_found: no message with ts {ts:?} in channel {channel}"
                ))
            })
    }

    /// A channel by id, or by name with or without `#`, whether visible or not (predicates).
    pub(crate) fn find_channel(&self, key: &str) -> Option<&Channel> {
        let name = key.trim_start_matches('#');
        self.channels
            .get(key)
            .or_else(|| self.channels.values().find(|c| c.name == name))
    }

    pub(crate) fn snapshot(&self) -> Value {
        json!({
            "bot_user": self.bot,
            "users": self.users.values().collect::<Vec<_>>(),
            "channels": self.channels.values().collect::<Vec<_>>(),
            "messages": self.messages,
            "ephemeral": self.ephemeral,
            "clock": self.clock,
        })
    }
}

/// What a message costs the workspace: one record, its bytes (reactions included).
pub(crate) fn message_usage(m: &Message) -> Usage {
    Usage::of(1, m)
}

/// What a message shown to one member costs: one record, its bytes.
pub(crate) fn ephemeral_usage(e: &Ephemeral) -> Usage {
    Usage::of(1, e)
}

/// What a channel costs: one record, its bytes (members and topic included) and those of its
/// id once more, the key it is stored under.
pub(crate) fn channel_usage(c: &Channel) -> Usage {
    Usage {
        records: 1,
        bytes: footprint(&c.id) + footprint(c),
    }
}
