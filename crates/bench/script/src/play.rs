//! The script's play on one task: the family its goal is worded as, the family's values read
//! off the goal's slots, then the family's first reference followed call by call, each worked
//! out with what the goal and the answers so far have shown. What it cannot work out, it
//! guesses as a script does (a field of that name in an answer, the text just read); an error
//! that sounds passing is retried blindly.

use crate::harvest;
use crate::hints::{self, Hint};
use crate::schema;
use crate::slots;
use mcpbench_heuristic::{ToolInfo, Tools};
use mcpbench_pack::{Bindings, Family, Known, UNKNOWN};
use serde_json::{Map, Value};

/// Blind retries of one call whose error sounds passing.
const RETRIES: u32 = 2;

pub struct Play<'a, E: Tools + ?Sized> {
    pub family: &'a Family,
    pub hints: &'a [Hint],
    pub tools: &'a [ToolInfo],
    pub budget: u32,
    pub env: &'a mut E,
}

impl<E: Tools + ?Sized> Play<'_, E> {
    /// Plays the family's first reference with what `slots` say, and gives the answer.
    pub fn run(self, slot_texts: &[(String, String)]) -> Option<String> {
        let Play {
            family,
            hints,
            tools,
            budget,
            env,
        } = self;
        let mut b = family.bindings();
        slots::read(family, slot_texts, &mut b);
        // The public families that draw whether a fault lands name it `landed`, and plan the
        // landed path as the write then a read; played that way, the retry below still goes
        // again when the error says nothing was done.
        if b.known("landed") == Known::No {
            b.set("landed", &Value::Bool(true));
        }
        // The fallback families draw whether the goal's first choice is blocked and name it
        // `blocked`: the script tries the first choice and, on the first refusal, plays the
        // fallback's plan from the start (without the calls already made: what was answered
        // is known, and what was refused would be refused again). `set` tells whether the
        // family has the name at all: a family without it plays as before.
        let mut guessing_open =
            b.known("blocked") == Known::No && b.set("blocked", &Value::Bool(false));
        let mut made: Vec<(String, Value)> = Vec::new();
        let mut replaying = false;
        family.derive(&mut b);
        settle_hints(family, hints, &mut b);
        let mut answers: Vec<Value> = Vec::new();
        let mut calls = 0u32;
        // A postgres family's statements are written in the names its database was drawn
        // under: read them first (then the reference's own listing and descriptions add
        // nothing).
        let mut schema_read = false;
        if b.names().iter().any(|n| n == schema::BINDING)
            && b.known(schema::BINDING) == Known::No
            && let Some(read) = schema::read(tools, budget, env)
        {
            calls += read.calls;
            schema_read = true;
            b.set(schema::BINDING, &read.names);
            harvest::records(&read.records, &mut b);
            family.derive(&mut b);
            hints::apply(hints, Some(schema::RECORDS), &read.records, &mut b);
            settle_hints(family, hints, &mut b);
            answers.push(read.records);
        }
        let mut answer = None;
        let mut probed: Vec<String> = Vec::new();
        let mut k = 0;
        while let Some(step) = step_at(family, &b, k) {
            k += 1;
            if let Some(a) = step.get("answer") {
                answer = text_of(a).or_else(|| answers.last().and_then(text_of));
                continue;
            }
            let Some(tool) = step.get("tool").and_then(Value::as_str) else {
                continue;
            };
            if schema_read && schema::READS.contains(&tool) {
                continue;
            }
            let Some(info) = tools.iter().find(|t| t.name == tool) else {
                continue;
            };
            let arguments = step.get("arguments").cloned().unwrap_or(Value::Null);
            let arguments = match settle(arguments, &info.input_schema, &answers) {
                Some(a) => a,
                None => {
                    // What the call needs is not known: list what its server lists without
                    // being asked anything, and try again.
                    let server = tool.split_once('.').map_or("", |(s, _)| s);
                    for probe in listings(tools, server, &probed) {
                        if calls >= budget {
                            break;
                        }
                        calls += 1;
                        probed.push(probe.to_string());
                        if let Ok(v) = env.call(probe, &Value::Object(Map::new())) {
                            harvest::records(&v, &mut b);
                            family.derive(&mut b);
                            answers.push(v);
                        }
                    }
                    let Some(step) = step_at(family, &b, k - 1) else {
                        continue;
                    };
                    // What was learnt may have moved the steps: play this one only if it is
                    // still the same tool's.
                    if step.get("tool").and_then(Value::as_str) != Some(tool) {
                        continue;
                    }
                    let arguments = step.get("arguments").cloned().unwrap_or(Value::Null);
                    match settle(arguments, &info.input_schema, &answers) {
                        Some(a) => a,
                        None => continue,
                    }
                }
            };
            if replaying && made.iter().any(|(t, a)| t == tool && *a == arguments) {
                continue;
            }
            let mut tries = 0;
            let mut refused = false;
            loop {
                if calls >= budget {
                    return answer.or(Some("Done.".into()));
                }
                calls += 1;
                match env.call(tool, &arguments) {
                    Ok(v) => {
                        harvest::records(&v, &mut b);
                        family.derive(&mut b);
                        hints::apply(hints, Some(tool), &v, &mut b);
                        settle_hints(family, hints, &mut b);
                        answers.push(v);
                        // A reference written for a fault calls again; one call went through.
                        if next_is_same(family, &b, k, info, &arguments, &answers) {
                            k += 1;
                        }
                        break;
                    }
                    Err(e) if passing(&e) && !maybe_landed(&e) && tries < RETRIES => {
                        // The reference's own retry, when it has one, is the next step.
                        if next_is_same(family, &b, k, info, &arguments, &answers) {
                            break;
                        }
                        tries += 1;
                    }
                    Err(_) => {
                        refused = true;
                        break;
                    }
                }
            }
            made.push((tool.to_string(), arguments));
            if refused && guessing_open {
                guessing_open = false;
                replaying = true;
                b.set("blocked", &Value::Bool(true));
                family.derive(&mut b);
                settle_hints(family, hints, &mut b);
                k = 0;
            }
        }
        answer.or(Some("Done.".into()))
    }
}

/// The listings a server offers that take no argument and have not been called to probe yet:
/// at most two, the tools named `list_...` first.
fn listings<'t>(tools: &'t [ToolInfo], server: &str, probed: &[String]) -> Vec<&'t str> {
    let mut found: Vec<&str> = (tools.iter())
        .filter(|t| t.name.split_once('.').is_some_and(|(s, _)| s == server))
        .filter(|t| {
            let required = t.input_schema.get("required").and_then(Value::as_array);
            required.is_none_or(|r| r.is_empty())
        })
        .filter(|t| {
            let bare = t.name.split_once('.').map_or("", |(_, n)| n);
            ["list_", "search_", "get_", "read_"]
                .iter()
                .any(|p| bare.starts_with(p) || bare.contains(&format!("_{p}")))
        })
        .map(|t| t.name.as_str())
        .filter(|n| !probed.iter().any(|p| p == n))
        .collect();
    found.sort_by_key(|n| !n.contains("list_"));
    found.truncate(2);
    found
}

/// The hints over the goal's values alone and what follows from them, until nothing more does
/// (a hint may need what another, or a step, works out).
fn settle_hints(family: &Family, hints: &[Hint], b: &mut Bindings) {
    for _ in 0..16 {
        let told = hints::apply(hints, None, &Value::Null, b);
        let derived = family.derive(b);
        if !(told || derived) {
            return;
        }
    }
}

/// Step `k` of the family's first reference, worked out with `b`.
fn step_at(family: &Family, b: &Bindings, k: usize) -> Option<Value> {
    let refs = family.references_known(b);
    refs.get(0)?.as_array()?.get(k).cloned()
}

/// Whether step `k` makes the call just made (`tool` with `args`, as sent: guessed and typed
/// the same way).
fn next_is_same(
    family: &Family,
    b: &Bindings,
    k: usize,
    info: &ToolInfo,
    args: &Value,
    answers: &[Value],
) -> bool {
    step_at(family, b, k).is_some_and(|s| {
        s.get("tool").and_then(Value::as_str) == Some(info.name.as_str())
            && settle(
                s.get("arguments").cloned().unwrap_or(Value::Null),
                &info.input_schema,
                answers,
            )
            .as_ref()
                == Some(args)
    })
}

/// An error that says the call may have been carried out though it failed (a fault that
/// landed): a script that has read the public families' messages does not repeat the write.
fn maybe_landed(error: &str) -> bool {
    let e = error.to_lowercase();
    [
        "may ",
        "might ",
        "unknown",
        "could not be confirmed",
        "not confirmed",
        "whether",
        "check ",
        "verify",
        "accepted the request",
        "after the request",
        "was lost",
    ]
    .iter()
    .any(|w| e.contains(w))
}

/// An error a script takes for a passing one, worth the same call again.
fn passing(error: &str) -> bool {
    let e = error.to_lowercase();
    [
        "try again",
        "retry",
        "timed out",
        "timeout",
        "unavailable",
        "rate limit",
        "too many requests",
        "temporar",
        "busy",
        "overloaded",
    ]
    .iter()
    .any(|w| e.contains(w))
}

/// A call's arguments with every value not known yet guessed (the field of its name in an
/// answer so far, else the text just read) or, where nothing fits, left out when optional;
/// `None` when a required one stays unknown. Values are given the types the schema asks.
fn settle(arguments: Value, schema: &Value, answers: &[Value]) -> Option<Value> {
    let Value::Object(args) = arguments else {
        return Some(Value::Object(Map::new()));
    };
    if args.contains_key(UNKNOWN) {
        // The arguments are worked out whole by one expression that is not known yet.
        return None;
    }
    let required: Vec<&str> = (schema.get("required").and_then(Value::as_array))
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let props = schema.get("properties");
    let mut out = Map::new();
    for (key, value) in args {
        let kind = props
            .and_then(|p| p.get(&key))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str);
        let value = match guess(value, &key, answers) {
            Some(v) => v,
            None if required.contains(&key.as_str()) => return None,
            None => continue,
        };
        out.insert(key, coerce(value, kind));
    }
    Some(Value::Object(out))
}

/// `value` with its unknown parts guessed; `None` when one cannot be.
fn guess(value: Value, key: &str, answers: &[Value]) -> Option<Value> {
    match value {
        Value::Object(o) if o.contains_key(UNKNOWN) => {
            let source = o.get(UNKNOWN).and_then(Value::as_str).unwrap_or_default();
            let name = source.trim().trim_start_matches('$');
            let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (plain.then(|| harvest::by_key(answers, name)).flatten())
                .or_else(|| harvest::by_key(answers, key))
                .or_else(|| answers.last().and_then(read_text).map(Value::String))
        }
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, v) in o {
                out.insert(k.clone(), guess(v, &k, answers)?);
            }
            Some(Value::Object(out))
        }
        Value::Array(items) => items
            .into_iter()
            .map(|v| guess(v, key, answers))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array),
        other => Some(other),
    }
}

/// The text an answer holds when it holds one text: itself, or its one long string field
/// (`content`, `text`, `body`).
fn read_text(answer: &Value) -> Option<String> {
    match answer {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => ["content", "text", "body"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str).map(str::to_string)),
        _ => None,
    }
}

/// A value as the schema's type wants it: text for text, a number for a number.
fn coerce(value: Value, kind: Option<&str>) -> Value {
    match (kind, &value) {
        (Some("string"), Value::Number(n)) => Value::String(n.to_string()),
        (Some("integer"), Value::String(s)) => s.parse::<i64>().map_or(value, Value::from),
        (Some("number"), Value::String(s)) => s.parse::<f64>().map_or(value, Value::from),
        _ => value,
    }
}

/// An answer step's value, or an answer's, as the text to give.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
