//! The tools that change the workspace, and the tool list. They follow the reference Slack MCP
//! server (`slack_post_message`, `slack_reply_to_thread`, `slack_add_reaction`, ...), whose
//! results are the Slack Web API's JSON. `slack_post_ephemeral` is the near-duplicate of
//! `slack_post_message` an agent must not pick by mistake: its message reaches one person and
//! never appears in the channel.

use crate::reads;
use crate::state::{
    Channel, Ephemeral, Message, Reaction, Slack, channel_usage, ephemeral_usage, message_usage,
    new_channel_id, slack_id, valid_channel_name,
};
use mcpbench_sim::{Tool, ToolBox, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::LazyLock;

pub(crate) type Out = Result<Value, ToolError>;

/// Emoji names reactions may use (Slack refuses unknown names with `invalid_name`).
pub const EMOJI: &[&str] = &[
    "+1",
    "-1",
    "100",
    "bug",
    "clap",
    "coffee",
    "dart",
    "eyes",
    "fire",
    "heart",
    "heavy_check_mark",
    "hourglass",
    "joy",
    "memo",
    "pray",
    "raised_hands",
    "rocket",
    "rotating_light",
    "ship",
    "smile",
    "sparkles",
    "tada",
    "thinking_face",
    "thumbsdown",
    "thumbsup",
    "warning",
    "wave",
    "white_check_mark",
    "x",
    "zap",
];

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PostMessage {
    /// The id of the channel to post in (like C0123ABCD), not its name.
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
    /// The message text.
    #[schemars(length(min = 1, max = 4000))]
    text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReplyToThread {
    /// The id of the channel holding the thread.
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
    /// The ts of the thread's parent message, like 1699990060.000100.
    #[schemars(length(min = 1, max = 40))]
    thread_ts: String,
    /// The reply text.
    #[schemars(length(min = 1, max = 4000))]
    text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddReaction {
    /// The id of the channel holding the message.
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
    /// The ts of the message to react to.
    #[schemars(length(min = 1, max = 40))]
    timestamp: String,
    /// The emoji name, without colons (`eyes`, `white_check_mark`).
    #[schemars(length(min = 1, max = 64))]
    reaction: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetTopic {
    /// The id of the channel.
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
    /// The new topic; an empty string clears it.
    #[schemars(length(max = 250))]
    topic: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateChannel {
    /// Lower case letters, digits, `-` and `_`; no `#`, no spaces.
    #[schemars(length(min = 1, max = 80), regex(pattern = r"^[a-z0-9_-]+$"))]
    name: String,
    /// Create a private channel instead of a public one.
    #[serde(default)]
    is_private: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Invite {
    /// The id of the channel.
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
    /// User ids (like U0123ABCD) to add.
    #[schemars(length(min = 1, max = 30), inner(length(min = 1, max = 40)))]
    user_ids: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Join {
    /// The id of the public channel to join.
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PostEphemeral {
    /// The id of the channel.
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
    /// The id of the only user who will see the message; must be a member of the channel.
    #[schemars(length(min = 1, max = 40))]
    user_id: String,
    /// The message text.
    #[schemars(length(min = 1, max = 4000))]
    text: String,
}

fn post(s: &mut Slack, channel: &str, text: String, thread_ts: Option<String>) -> Out {
    // Built with the timestamp it will get, so that what is admitted is what is stored; the
    // timestamp is drawn only once admitted, so a refused post uses none.
    let m = Message {
        channel: channel.into(),
        ts: s.peek_ts(),
        user: s.bot.clone(),
        text,
        thread_ts,
        reactions: vec![],
    };
    let adding = message_usage(&m);
    s.ledger.admit(adding)?;
    let ts = s.next_ts();
    debug_assert_eq!(ts, m.ts);
    let shown = reads::message_json(s, &m);
    s.messages.push(m);
    s.ledger.add(adding);
    Ok(json!({ "ok": true, "channel": channel, "ts": ts, "message": shown }))
}

fn post_message(s: &mut Slack, a: PostMessage) -> Out {
    let id = s.writable(&a.channel_id)?.id.clone();
    post(s, &id, a.text, None)
}

fn reply_to_thread(s: &mut Slack, a: ReplyToThread) -> Out {
    let id = s.writable(&a.channel_id)?.id.clone();
    let i = s.message_index(&id, &a.thread_ts)?;
    // Like Slack, a reply to a reply lands in the parent's thread.
    let parent = s.messages[i]
        .thread_ts
        .clone()
        .unwrap_or_else(|| s.messages[i].ts.clone());
    post(s, &id, a.text, Some(parent))
}

fn add_reaction(s: &mut Slack, a: AddReaction) -> Out {
    let name = a.reaction.trim_matches(':').to_string();
    if !EMOJI.contains(&name.as_str()) {
        return Err(ToolError::invalid(format!(
            "invalid_name: there is no emoji named {:?}",
            a.reaction
        )));
    }
    let c = s.channel(&a.channel_id)?;
    if c.archived {
        return Err(ToolError::precondition(format!(
            "is_archived: #{} is archived",
            c.name
        )));
    }
    let id = c.id.clone();
    let i = s.message_index(&id, &a.timestamp)?;
    let bot = s.bot.clone();
    // The message as it will be, so that the edit is admitted for exactly what it adds (the
    // first reaction also adds the `reactions` field).
    let mut edited = s.messages[i].clone();
    match edited.reactions.iter_mut().find(|r| r.name == name) {
        Some(r) if r.users.contains(&bot) => {
            return Err(ToolError::conflict(format!(
                "already_reacted: the bot already reacted with :{name}: to {}",
                a.timestamp
            )));
        }
        Some(r) => r.users.push(bot),
        None => edited.reactions.push(Reaction {
            name,
            users: vec![bot],
        }),
    }
    let (before, after) = (message_usage(&s.messages[i]), message_usage(&edited));
    s.ledger.admit_change(before, after)?;
    s.messages[i] = edited;
    s.ledger.change(before, after);
    Ok(json!({ "ok": true }))
}

fn set_channel_topic(s: &mut Slack, a: SetTopic) -> Out {
    let id = s.writable(&a.channel_id)?.id.clone();
    let edited = Channel {
        topic: a.topic.clone(),
        ..s.channels[&id].clone()
    };
    change_channel(s, edited)?;
    Ok(json!({ "ok": true, "channel": id, "topic": a.topic }))
}

/// Replaces a channel by `edited`, admitted for what it grows by; a refusal changes nothing.
fn change_channel(s: &mut Slack, edited: Channel) -> Result<(), ToolError> {
    let before = channel_usage(&s.channels[&edited.id]);
    let after = channel_usage(&edited);
    s.ledger.admit_change(before, after)?;
    s.channels.insert(edited.id.clone(), edited);
    s.ledger.change(before, after);
    Ok(())
}

fn create_channel(s: &mut Slack, a: CreateChannel) -> Out {
    if !valid_channel_name(&a.name) {
        return Err(ToolError::invalid(format!(
            "invalid_name: {:?} is not a valid channel name",
            a.name
        )));
    }
    if let Some(c) = s.channels.values().find(|c| c.name == a.name) {
        return Err(ToolError::conflict(format!(
            "name_taken: a channel named #{} already exists ({})",
            c.name, c.id
        )));
    }
    let mut id = new_channel_id(&a.name);
    let mut n = 1;
    while s.channels.contains_key(&id) {
        id = slack_id('C', &format!("new-channel:{}:{n}", a.name));
        n += 1;
    }
    let c = Channel {
        id: id.clone(),
        name: a.name,
        topic: String::new(),
        purpose: String::new(),
        members: vec![s.bot.clone()],
        is_private: a.is_private,
        archived: false,
    };
    let adding = channel_usage(&c);
    s.ledger.admit(adding)?;
    s.channels.insert(id.clone(), c);
    s.ledger.add(adding);
    let shown = reads::channel_json(s, &s.channels[&id]);
    Ok(json!({ "ok": true, "channel": shown }))
}

fn invite_to_channel(s: &mut Slack, a: Invite) -> Out {
    let id = s.writable(&a.channel_id)?.id.clone();
    for u in &a.user_ids {
        s.user(u)?;
    }
    let mut c = s.channels[&id].clone();
    let fresh: Vec<String> = a
        .user_ids
        .iter()
        .filter(|u| !c.members.contains(u))
        .cloned()
        .collect();
    if fresh.is_empty() {
        return Err(ToolError::conflict(format!(
            "already_in_channel: every user given is already a member of #{}",
            c.name
        )));
    }
    for u in &fresh {
        if !c.members.contains(u) {
            c.members.push(u.clone());
        }
    }
    // Members are stored in the channel: a full workspace takes no more.
    change_channel(s, c)?;
    let shown = reads::channel_json(s, &s.channels[&id]);
    Ok(json!({ "ok": true, "channel": shown, "invited": fresh }))
}

fn join_channel(s: &mut Slack, a: Join) -> Out {
    let c = s.channel(&a.channel_id)?;
    if c.archived {
        return Err(ToolError::precondition(format!(
            "is_archived: #{} ({}) is archived and cannot be joined",
            c.name, c.id
        )));
    }
    let id = c.id.clone();
    let already = c.members.contains(&s.bot);
    if !already {
        let mut joined = c.clone();
        joined.members.push(s.bot.clone());
        change_channel(s, joined)?;
    }
    let shown = reads::channel_json(s, &s.channels[&id]);
    let mut out = json!({ "ok": true, "channel": shown });
    if already {
        out["already_in_channel"] = json!(true);
    }
    Ok(out)
}

fn post_ephemeral(s: &mut Slack, a: PostEphemeral) -> Out {
    let c = s.writable(&a.channel_id)?;
    let id = c.id.clone();
    if !c.members.contains(&a.user_id) {
        s.user(&a.user_id)?;
        return Err(ToolError::precondition(format!(
            "user_not_in_channel: {} is not a member of #{}",
            a.user_id, c.name
        )));
    }
    let note = Ephemeral {
        channel: id,
        user: a.user_id,
        text: a.text,
        ts: s.peek_ts(),
    };
    let adding = ephemeral_usage(&note);
    s.ledger.admit(adding)?;
    let ts = s.next_ts();
    debug_assert_eq!(ts, note.ts);
    s.ephemeral.push(note);
    s.ledger.add(adding);
    Ok(json!({ "ok": true, "message_ts": ts }))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Slack>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "slack_list_channels",
            "List the public channels of the workspace (and private ones the bot is in) with id, name, topic, member count and whether the bot is a member, by name, limit at a time (default 100). Archived channels are left out unless include_archived is true. Pass response_metadata.next_cursor as cursor for the next page.",
            reads::list_channels,
        ),
        Tool::write(
            "slack_post_message",
            "Post a new message to a channel, by channel id. The bot must be a member of the channel, and archived channels cannot be posted to. A run's workspace holds at most 5,000 messages and channels and 4 MiB in all.",
            post_message,
        ),
        Tool::write(
            "slack_reply_to_thread",
            "Reply in the thread of a message, given the channel id and the parent message's ts. A run's workspace holds at most 5,000 messages and channels and 4 MiB in all.",
            reply_to_thread,
        ),
        Tool::write(
            "slack_add_reaction",
            "Add an emoji reaction (name without colons) to a message, given the channel id and the message ts.",
            add_reaction,
        ),
        Tool::read(
            "slack_get_channel_history",
            "Get the top-level messages of a channel, newest first, limit at a time (default 10, at most 200). While has_more is true, pass response_metadata.next_cursor as cursor to get the next, older page. Thread replies are not included; parents show a reply_count.",
            reads::get_channel_history,
        ),
        Tool::read(
            "slack_get_thread_replies",
            "Get a thread: the parent message and all its replies, oldest first.",
            reads::get_thread_replies,
        ),
        Tool::read(
            "slack_get_users",
            "List the workspace's users with id, handle, real name and title, by handle, limit at a time (default 100). Pass response_metadata.next_cursor as cursor for the next page.",
            reads::get_users,
        ),
        Tool::read(
            "slack_get_user_profile",
            "Get the profile of one user by user id: real name, display name, title.",
            reads::get_user_profile,
        ),
        Tool::read(
            "slack_search_messages",
            "Search messages, thread replies included, newest first, count matches a page (default 20, at most 100); page (from 1) gets the others, and paging tells how many pages there are. Every word of the query must appear in the text (case-insensitive); \"quoted phrases\" match as a whole; in:#channel and from:@handle narrow the search.",
            reads::search_messages,
        ),
        Tool::write(
            "slack_set_channel_topic",
            "Set the topic of a channel the bot is a member of.",
            set_channel_topic,
        ),
        Tool::write(
            "slack_create_channel",
            "Create a channel (public unless is_private). The bot becomes its first member. Names must be unique. A run's workspace holds at most 5,000 messages and channels and 4 MiB in all.",
            create_channel,
        ),
        Tool::write(
            "slack_invite_to_channel",
            "Invite users, by user id, to a channel the bot is a member of.",
            invite_to_channel,
        ),
        Tool::write(
            "slack_join_channel",
            "Make the bot join a public channel, so that it can post there.",
            join_channel,
        ),
        Tool::write(
            "slack_post_ephemeral",
            "Show a message to one member of a channel only. It is not saved in the channel history and nobody else ever sees it. A run's workspace holds at most 5,000 messages and channels and 4 MiB in all.",
            post_ephemeral,
        ),
    ])
});
