//! `slack.*` predicate atoms. A `channel` argument names a channel by id (`C0123ABCD`) or by
//! name (`deploys` or `#deploys`), so tasks can check channels the agent creates. `user` is
//! a user id; left out, any author counts.

use crate::state::{Message, Slack};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// A top-level message (not a thread reply) in `channel` whose text is exactly `text`
    /// and/or contains `text_contains`, by `user` when given.
    #[serde(rename = "slack.messagePosted")]
    MessagePosted {
        channel: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text_contains: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<String>,
    },
    /// A reply in the thread of `thread_ts` in `channel`, matched like `messagePosted`.
    #[serde(rename = "slack.threadReplyPosted")]
    ThreadReplyPosted {
        channel: String,
        thread_ts: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text_contains: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<String>,
    },
    /// The message `ts` in `channel` carries the reaction `reaction`, from `user` when given.
    #[serde(rename = "slack.reactionAdded")]
    ReactionAdded {
        channel: String,
        ts: String,
        reaction: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<String>,
    },
    /// The topic of `channel` is exactly `topic`.
    #[serde(rename = "slack.channelTopic")]
    ChannelTopic { channel: String, topic: String },
    /// A channel named `name` exists, private or not and archived or not as given.
    #[serde(rename = "slack.channelExists")]
    ChannelExists {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_private: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        archived: Option<bool>,
    },
    /// `user` is a member of `channel`.
    #[serde(rename = "slack.memberOf")]
    MemberOf { channel: String, user: String },
    /// `channel` holds exactly `count` top-level messages, counting only those by `user` and
    /// with exactly the text `text` when given.
    #[serde(rename = "slack.messageCount")]
    MessageCount {
        channel: String,
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<String>,
    },
    /// The thread of `thread_ts` in `channel` holds exactly `count` replies, counting only
    /// those by `user` when given: a guard against a reply posted twice.
    #[serde(rename = "slack.replyCount")]
    ReplyCount {
        channel: String,
        thread_ts: String,
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<String>,
    },
}

fn matches(
    m: &Message,
    text: &Option<String>,
    contains: &Option<String>,
    user: &Option<String>,
) -> bool {
    text.as_ref().is_none_or(|t| m.text == *t)
        && contains
            .as_ref()
            .is_none_or(|t| m.text.contains(t.as_str()))
        && user.as_ref().is_none_or(|u| m.user == *u)
}

impl Atom {
    pub(crate) fn holds(&self, s: &Slack) -> bool {
        let channel_id = |key: &str| s.find_channel(key).map(|c| c.id.clone());
        let in_channel = |key: &str| {
            let id = channel_id(key);
            s.messages
                .iter()
                .filter(move |m| Some(&m.channel) == id.as_ref())
        };
        match self {
            Atom::MessagePosted {
                channel,
                text,
                text_contains,
                user,
            } => in_channel(channel)
                .any(|m| m.thread_ts.is_none() && matches(m, text, text_contains, user)),
            Atom::ThreadReplyPosted {
                channel,
                thread_ts,
                text,
                text_contains,
                user,
            } => in_channel(channel).any(|m| {
                m.thread_ts.as_ref() == Some(thread_ts) && matches(m, text, text_contains, user)
            }),
            Atom::ReactionAdded {
                channel,
                ts,
                reaction,
                user,
            } => in_channel(channel).any(|m| {
                m.ts == *ts
                    && m.reactions.iter().any(|r| {
                        r.name == *reaction && user.as_ref().is_none_or(|u| r.users.contains(u))
                    })
            }),
            Atom::ChannelTopic { channel, topic } => {
                s.find_channel(channel).is_some_and(|c| c.topic == *topic)
            }
            Atom::ChannelExists {
                name,
                is_private,
                archived,
            } => s.channels.values().any(|c| {
                c.name == name.trim_start_matches('#')
                    && is_private.is_none_or(|p| c.is_private == p)
                    && archived.is_none_or(|a| c.archived == a)
            }),
            Atom::MemberOf { channel, user } => s
                .find_channel(channel)
                .is_some_and(|c| c.members.contains(user)),
            Atom::MessageCount {
                channel,
                count,
                text,
                user,
            } => {
                let n = in_channel(channel)
                    .filter(|m| m.thread_ts.is_none() && matches(m, text, &None, user))
                    .count();
                n == *count as usize
            }
            Atom::ReplyCount {
                channel,
                thread_ts,
                count,
                user,
            } => {
                let n = in_channel(channel)
                    .filter(|m| {
                        m.thread_ts.as_ref() == Some(thread_ts) && matches(m, &None, &None, user)
                    })
                    .count();
                n == *count as usize
            }
        }
    }
}
