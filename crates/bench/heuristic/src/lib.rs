//! The heuristic reference agent: pattern matching without reasoning, and no model.
//!
//! It reads the goal as a bag of its own words (the values it quotes or hands over left out)
//! and a list of values sorted by their look (quoted text, the text after a colon,
//! `#channels`, `/paths`, addresses, dates, numbers, capitalised names, codes), scores every
//! tool by the words its name, description and parameter names share with the goal, and
//! then:
//!
//! 1. reads: the listing that can name an identifier the best writing tool needs (a tool
//!    about channels for a `channel_id`), then the best reading tools (`list_`, `get_`,
//!    `search_`...), each only if every required argument can be filled;
//! 2. writes, unless the goal asks a question: the best writing tool whose required
//!    arguments can be filled, and the next one if it fails;
//! 3. answers: the field of a result whose key shares the question's words, the length of a
//!    list for "how many", or the first number; "done" after a write.
//!
//! Arguments come from the goal's values, matched by parameter name (`path` takes a `/path`,
//! `to` an address, `owner`/`repo` the halves of `owner/name`), and from fields of earlier
//! results whose key matches the parameter (`channel_id` from the listed channel most like
//! the goal). It never calls more than the budget, never retries a failed call as it was,
//! and uses no randomness: the same goal and tools make the same calls.
//!
//! It is a floor that measures a set, not an agent: a set where it passes more than a few
//! easy tasks rewards matching words over understanding them.

mod fill;
mod goal;
mod words;

use serde_json::Value;

/// One tool as an agent lists it. `name` is qualified, `server.tool`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// The tools of one run: a call's result, or the tool's error as text.
pub trait Tools {
    fn call(&mut self, tool: &str, arguments: &Value) -> Result<Value, String>;
}

/// Reading tools called besides the listing that names an identifier.
const MAX_READS: usize = 2;
/// Writing tools tried, the next only when the one before failed.
const MAX_WRITES: usize = 2;

/// Works on `goal` with `tools`, making at most `budget` calls through `env`, and gives the
/// final answer.
pub fn solve(
    goal: &str,
    tools: &[ToolInfo],
    budget: u32,
    env: &mut (impl Tools + ?Sized),
) -> Option<String> {
    let facts = goal::Facts::of(goal);
    let ranked = words::rank(tools, &facts.stems);
    // Whether the goal alone fills a tool's arguments (before anything is read).
    let fillable = |t: &ToolInfo| fill::arguments(&t.input_schema, &facts, &[]).is_some();
    let writes: Vec<&ToolInfo> = if facts.question {
        Vec::new()
    } else {
        ranked
            .iter()
            .copied()
            .filter(|t| !words::is_read(t))
            .filter(|t| fillable(t) || needs_ids(t))
            .take(MAX_WRITES)
            .collect()
    };
    let mut plan: Vec<&ToolInfo> = writes
        .first()
        .map(|w| feeders(w, tools, &facts))
        .unwrap_or_default();
    let reads = ranked
        .iter()
        .copied()
        .filter(|t| words::is_read(t) && fillable(t));
    for t in reads.take(MAX_READS) {
        if !plan.contains(&t) {
            plan.push(t);
        }
    }
    let mut seen = Vec::new();
    let mut calls = 0;
    let reserve = u32::from(!writes.is_empty());
    for tool in plan {
        if calls + reserve >= budget {
            break;
        }
        let Some(args) = fill::arguments(&tool.input_schema, &facts, &seen) else {
            continue;
        };
        calls += 1;
        if let Ok(v) = env.call(&tool.name, &args) {
            seen.push(v);
        }
    }
    for tool in writes {
        if calls >= budget {
            break;
        }
        let Some(args) = fill::arguments(&tool.input_schema, &facts, &seen) else {
            continue;
        };
        calls += 1;
        if let Ok(v) = env.call(&tool.name, &args) {
            seen.push(v);
            break;
        }
    }
    Some(fill::answer(&facts, &seen))
}

/// Whether a tool takes a required identifier, which a listing may supply.
fn needs_ids(tool: &ToolInfo) -> bool {
    fill::required(&tool.input_schema)
        .into_iter()
        .any(fill::is_id)
}

/// For each required identifier of `write` that names a thing (`channel_id`, `eventId`), the
/// reading tool of the same server whose name speaks of that thing, that needs no identifier
/// itself, and whose arguments the goal fills: the one taking most of the goal's values (a
/// search before a bare listing).
fn feeders<'t>(write: &ToolInfo, tools: &'t [ToolInfo], facts: &goal::Facts) -> Vec<&'t ToolInfo> {
    let server = write.name.split_once('.').map_or("", |(s, _)| s);
    let mut out = Vec::new();
    for param in fill::required(&write.input_schema) {
        if !fill::is_id(param) {
            continue;
        }
        let things = words::content_stems(param);
        let mut candidates: Vec<(usize, &ToolInfo)> = tools
            .iter()
            .filter(|t| t.name.split_once('.').is_some_and(|(s, _)| s == server))
            .filter(|t| words::is_read(t) && !needs_ids(t))
            .filter(|t| {
                let name = words::content_stems(&t.name);
                things.iter().any(|w| w != "id" && name.contains(w))
            })
            .filter(|t| fill::arguments(&t.input_schema, facts, &[]).is_some())
            .map(|t| (fill::required(&t.input_schema).len(), t))
            .collect();
        candidates.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        if let Some((_, t)) = candidates.first()
            && !out.contains(t)
        {
            out.push(*t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A tiny workspace: channels to list and post to.
    struct Chat {
        calls: Vec<(String, Value)>,
        posted: Vec<(String, String)>,
    }

    impl Tools for Chat {
        fn call(&mut self, tool: &str, args: &Value) -> Result<Value, String> {
            self.calls.push((tool.to_string(), args.clone()));
            match tool {
                "chat.list_channels" => Ok(json!({"channels": [
                    {"id": "C1", "name": "general", "members": 12},
                    {"id": "C2", "name": "deploys", "members": 4}
                ]})),
                "chat.post_message" => {
                    let id = args["channel_id"].as_str().unwrap_or_default();
                    if !["C1", "C2"].contains(&id) {
                        return Err(format!("no channel {id}"));
                    }
                    let text = args["text"].as_str().unwrap_or_default();
                    self.posted.push((id.into(), text.into()));
                    Ok(json!({"ok": true}))
                }
                _ => Err("unknown tool".into()),
            }
        }
    }

    fn tools() -> Vec<ToolInfo> {
        let tool = |name: &str, description: &str, schema: Value| ToolInfo {
            name: name.into(),
            description: description.into(),
            input_schema: schema,
        };
        vec![
            tool(
                "chat.list_channels",
                "List the channels with id, name and member count.",
                json!({"type": "object"}),
            ),
            tool(
                "chat.post_message",
                "Post a message to a channel, by channel id.",
                json!({"type": "object", "required": ["channel_id", "text"], "properties": {
                    "channel_id": {"type": "string"}, "text": {"type": "string"}}}),
            ),
            tool(
                "chat.set_topic",
                "Set the topic of a channel.",
                json!({"type": "object", "required": ["channel_id", "topic"], "properties": {
                    "channel_id": {"type": "string"}, "topic": {"type": "string"}}}),
            ),
        ]
    }

    #[test]
    fn it_lists_to_find_the_id_then_writes() {
        let mut chat = Chat {
            calls: Vec::new(),
            posted: Vec::new(),
        };
        let goal = "Post a message in #deploys that says exactly: Release 1.4 is out";
        let answer = solve(goal, &tools(), 4, &mut chat);
        assert_eq!(chat.posted, [("C2".into(), "Release 1.4 is out".into())]);
        assert_eq!(chat.calls[0].0, "chat.list_channels");
        assert_eq!(answer.as_deref(), Some("done"));
    }

    #[test]
    fn it_keeps_to_the_budget_and_answers_questions_without_writing() {
        let mut chat = Chat {
            calls: Vec::new(),
            posted: Vec::new(),
        };
        let answer = solve(
            "How many members does #deploys have? Reply with the number.",
            &tools(),
            1,
            &mut chat,
        );
        assert_eq!(chat.calls.len(), 1);
        assert!(chat.posted.is_empty(), "a question writes nothing");
        assert_eq!(answer.as_deref(), Some("4"));
        let mut chat = Chat {
            calls: Vec::new(),
            posted: Vec::new(),
        };
        solve("Post a message in #deploys: hi", &tools(), 0, &mut chat);
        assert!(chat.calls.is_empty());
    }

    #[test]
    fn the_same_goal_makes_the_same_calls_whatever_the_listing_order() {
        let goal = "Post a message in #general that says exactly: Lunch is here";
        let mut a = Chat {
            calls: Vec::new(),
            posted: Vec::new(),
        };
        let mut b = Chat {
            calls: Vec::new(),
            posted: Vec::new(),
        };
        let mut reversed = tools();
        reversed.reverse();
        solve(goal, &tools(), 4, &mut a);
        solve(goal, &reversed, 4, &mut b);
        assert_eq!(a.calls, b.calls);
    }
}
