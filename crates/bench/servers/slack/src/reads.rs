//! The tools that only read, and the JSON shapes of channels, messages and users (the Slack
//! Web API's, trimmed to what the simulation has).

use crate::state::{Channel, Message, Seed, Slack, User, parse_ts};
use crate::tools::Out;
use mcpbench_sim::{ToolError, page, token_for};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListChannels {
    /// How many channels to return (default 100).
    #[schemars(range(min = 1, max = 200))]
    limit: Option<u32>,
    /// The next_cursor of a previous page.
    #[schemars(length(max = 100))]
    cursor: Option<String>,
    /// Include archived channels too.
    #[serde(default)]
    include_archived: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct History {
    /// The id of the channel (like C0123ABCD).
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
    /// How many messages to return, newest first (default 10).
    #[schemars(range(min = 1, max = 200))]
    limit: Option<u32>,
    /// The response_metadata.next_cursor of the previous page, for older messages.
    #[schemars(length(max = 100))]
    cursor: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Replies {
    /// The id of the channel holding the thread.
    #[schemars(length(min = 1, max = 40))]
    channel_id: String,
    /// The ts of the thread's parent message.
    #[schemars(length(min = 1, max = 40))]
    thread_ts: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Users {
    /// The next_cursor of a previous page.
    #[schemars(length(max = 100))]
    cursor: Option<String>,
    /// How many users to return (default 100).
    #[schemars(range(min = 1, max = 200))]
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Profile {
    /// The user's id (like U0123ABCD).
    #[schemars(length(min = 1, max = 40))]
    user_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Search {
    /// Words to find; "quoted phrases", in:#channel and from:@handle are understood.
    #[schemars(length(min = 1, max = 500))]
    query: String,
    /// How many matches to return per page (default 20).
    #[schemars(range(min = 1, max = 100))]
    count: Option<u32>,
    /// Which page of matches to return, from 1 (default 1).
    #[schemars(range(min = 1, max = 100))]
    page: Option<u32>,
}

pub(crate) fn channel_json(s: &Slack, c: &Channel) -> Value {
    json!({
        "id": c.id, "name": c.name, "is_channel": true, "is_private": c.is_private,
        "is_archived": c.archived, "is_member": c.members.contains(&s.bot),
        "topic": { "value": c.topic }, "purpose": { "value": c.purpose }, "num_members": c.members.len(),
    })
}

pub(crate) fn message_json(s: &Slack, m: &Message) -> Value {
    let replies = s
        .messages
        .iter()
        .filter(|r| r.channel == m.channel && r.thread_ts.as_ref() == Some(&m.ts))
        .count();
    shown(m, replies)
}

/// A message as Slack shows it, with the number of replies in its thread.
fn shown(m: &Message, replies: usize) -> Value {
    let mut v = json!({ "type": "message", "user": m.user, "text": m.text, "ts": m.ts });
    if let Some(t) = &m.thread_ts {
        v["thread_ts"] = json!(t);
    } else if replies > 0 {
        v["thread_ts"] = json!(m.ts);
        v["reply_count"] = json!(replies);
    }
    if !m.reactions.is_empty() {
        let rs: Vec<Value> = m
            .reactions
            .iter()
            .map(|r| json!({ "name": r.name, "count": r.users.len(), "users": r.users }))
            .collect();
        v["reactions"] = json!(rs);
    }
    v
}

fn user_json(u: &User) -> Value {
    json!({
        "id": u.id, "name": u.name, "real_name": u.real_name, "is_bot": u.is_bot,
        "profile": { "real_name": u.real_name, "display_name": u.name, "title": u.title },
    })
}

/// The page of `items` that `cursor` points at (the first without one), `limit` long, and the
/// cursor of the next page ("" on the last): `query` names the listing, so that a cursor of
/// another listing is refused.
fn cursor_page<'a, T>(
    items: &'a [T],
    cursor: &Option<String>,
    limit: Option<u32>,
    default: u32,
    query: &str,
) -> Result<(&'a [T], String), ToolError> {
    let p = page(
        items,
        cursor.as_deref(),
        limit.unwrap_or(default) as usize,
        query,
    )
    .map_err(|e| {
        let why = e.message.replace("page token", "cursor");
        ToolError::invalid(format!("invalid_cursor: {why}"))
    })?;
    Ok((p.items, p.next.unwrap_or_default()))
}

/// What a channel's history cursor is bound to.
fn history_query(channel: &str) -> String {
    format!("conversations.history {channel}")
}

pub(crate) fn list_channels(s: &Slack, a: ListChannels) -> Out {
    let mut listed: Vec<&Channel> = s
        .channels
        .values()
        .filter(|c| s.visible(c) && (a.include_archived || !c.archived))
        .collect();
    listed.sort_by(|x, y| x.name.cmp(&y.name));
    let query = format!("conversations.list archived={}", a.include_archived);
    let (items, next) = cursor_page(&listed, &a.cursor, a.limit, 100, &query)?;
    let channels: Vec<Value> = items.iter().map(|c| channel_json(s, c)).collect();
    Ok(json!({ "ok": true, "channels": channels, "response_metadata": { "next_cursor": next } }))
}

fn newest_first(a: &&Message, b: &&Message) -> std::cmp::Ordering {
    parse_ts(&b.ts).cmp(&parse_ts(&a.ts))
}

/// The top-level messages of channel `id`, newest first.
fn top_level<'a>(s: &'a Slack, id: &str) -> Vec<&'a Message> {
    let mut top: Vec<&Message> = (s.messages.iter())
        .filter(|m| m.channel == id && m.thread_ts.is_none())
        .collect();
    top.sort_by(newest_first);
    top
}

pub(crate) fn get_channel_history(s: &Slack, a: History) -> Out {
    let id = s.channel(&a.channel_id)?.id.clone();
    let top = top_level(s, &id);
    let (items, next) = cursor_page(&top, &a.cursor, a.limit, 10, &history_query(&id))?;
    // Reply counts of the whole channel in one pass, not one pass per message shown.
    let mut replies: BTreeMap<&str, usize> = BTreeMap::new();
    for m in s.messages.iter().filter(|m| m.channel == id) {
        if let Some(t) = &m.thread_ts {
            *replies.entry(t).or_default() += 1;
        }
    }
    let messages: Vec<Value> = (items.iter())
        .map(|m| shown(m, replies.get(m.ts.as_str()).copied().unwrap_or(0)))
        .collect();
    Ok(json!({
        "ok": true, "messages": messages, "has_more": !next.is_empty(),
        "response_metadata": { "next_cursor": next },
    }))
}

/// The arguments of the `slack_get_channel_history` calls that read channel `channel` of the
/// workspace `seed` builds (its background included), newest first and `limit` messages a
/// page, down to the page holding the top-level message `ts`, or every page when `ts` is
/// `None`: what a reference reads to find a message wherever a long history puts it.
///
/// # Panics
/// When the seed is invalid or `ts` is not a top-level message of the channel (a template's
/// mistake).
pub fn history_reads(seed: &Seed, channel: &str, limit: u32, ts: Option<&str>) -> Vec<Value> {
    let s = Slack::from_seed(seed).expect("a template's seed is valid");
    let top = top_level(&s, channel);
    let upto = match ts {
        Some(ts) => top
            .iter()
            .position(|m| m.ts == ts)
            .expect("a top-level message of the channel"),
        None => top.len().saturating_sub(1),
    };
    let limit = limit.max(1) as usize;
    (0..=upto / limit)
        .map(|k| {
            let mut args = json!({ "channel_id": channel, "limit": limit });
            if k > 0 {
                args["cursor"] = json!(token_for(k * limit, &history_query(channel)));
            }
            args
        })
        .collect()
}

pub(crate) fn get_thread_replies(s: &Slack, a: Replies) -> Out {
    let id = s.channel(&a.channel_id)?.id.clone();
    let i = s.message_index(&id, &a.thread_ts)?;
    let root = s.messages[i]
        .thread_ts
        .clone()
        .unwrap_or_else(|| s.messages[i].ts.clone());
    let mut thread: Vec<&Message> = s
        .messages
        .iter()
        .filter(|m| m.channel == id && (m.ts == root || m.thread_ts.as_ref() == Some(&root)))
        .collect();
    thread.sort_by(|x, y| newest_first(y, x));
    let messages: Vec<Value> = thread.iter().map(|m| message_json(s, m)).collect();
    Ok(json!({ "ok": true, "messages": messages, "has_more": false }))
}

pub(crate) fn get_users(s: &Slack, a: Users) -> Out {
    let mut all: Vec<&User> = s.users.values().collect();
    all.sort_by(|x, y| x.name.cmp(&y.name));
    let (items, next) = cursor_page(&all, &a.cursor, a.limit, 100, "users.list")?;
    let members: Vec<Value> = items.iter().map(|u| user_json(u)).collect();
    Ok(json!({ "ok": true, "members": members, "response_metadata": { "next_cursor": next } }))
}

pub(crate) fn get_user_profile(s: &Slack, a: Profile) -> Out {
    let u = s.user(&a.user_id)?;
    Ok(json!({
        "ok": true,
        "profile": { "real_name": u.real_name, "display_name": u.name, "title": u.title, "is_bot": u.is_bot },
    }))
}

/// The query's plain terms (lower case), channel filter and author filter.
fn parse_query(q: &str) -> (Vec<String>, Option<String>, Option<String>) {
    let (mut terms, mut channel, mut author) = (Vec::new(), None, None);
    let mut rest = q.trim();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('"') {
            let (phrase, tail) = after.split_once('"').unwrap_or((after, ""));
            if !phrase.trim().is_empty() {
                terms.push(phrase.trim().to_lowercase());
            }
            rest = tail.trim_start();
            continue;
        }
        let (word, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if let Some(c) = word.strip_prefix("in:") {
            channel = Some(c.trim_start_matches('#').to_string());
        } else if let Some(u) = word.strip_prefix("from:") {
            author = Some(
                u.trim_start_matches("<@")
                    .trim_start_matches('@')
                    .trim_end_matches('>')
                    .to_string(),
            );
        } else {
            terms.push(word.to_lowercase());
        }
        rest = tail.trim_start();
    }
    (terms, channel, author)
}

pub(crate) fn search_messages(s: &Slack, a: Search) -> Out {
    let (terms, channel, author) = parse_query(&a.query);
    if terms.is_empty() && channel.is_none() && author.is_none() {
        return Err(ToolError::invalid("the query has no words to search for"));
    }
    let mut hits: Vec<&Message> = s
        .messages
        .iter()
        .filter(|m| {
            let c = &s.channels[&m.channel];
            let u = &s.users[&m.user];
            let text = m.text.to_lowercase();
            s.visible(c)
                && channel.as_ref().is_none_or(|f| *f == c.name || *f == c.id)
                && author.as_ref().is_none_or(|f| *f == u.name || *f == u.id)
                && terms.iter().all(|t| text.contains(t.as_str()))
        })
        .collect();
    hits.sort_by(|x, y| newest_first(x, y).then_with(|| x.channel.cmp(&y.channel)));
    let total = hits.len();
    let (count, at) = (
        a.count.unwrap_or(20) as usize,
        a.page.unwrap_or(1).max(1) as usize,
    );
    let matches: Vec<Value> = hits
        .iter()
        .skip((at - 1) * count)
        .take(count)
        .map(|m| {
            let c = &s.channels[&m.channel];
            let mut v = json!({
                "channel": { "id": c.id, "name": c.name }, "user": m.user,
                "username": s.users[&m.user].name, "text": m.text, "ts": m.ts,
            });
            if let Some(t) = &m.thread_ts {
                v["thread_ts"] = json!(t);
            }
            v
        })
        .collect();
    let paging =
        json!({ "count": count, "total": total, "page": at, "pages": total.div_ceil(count) });
    Ok(json!({
        "ok": true, "query": a.query,
        "messages": { "total": total, "matches": matches, "paging": paging },
    }))
}
