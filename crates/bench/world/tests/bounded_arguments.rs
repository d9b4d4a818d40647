//! Every tool argument is bounded in its schema: a string by `maxLength`, an enum or a pattern
//! of fixed length, an array by `maxItems`, a map by `maxProperties`. The gateway refuses
//! arguments outside the schema before a server sees them, so with a run's call budget this
//! bounds what an agent can send, and so what a server can be asked to hold.

use mcpbench_world::{SERVERS, catalog};
use serde_json::{Map, Value};

/// A pattern whose matches have a bounded length: anchored at both ends, with no unbounded
/// repetition (`*`, `+`, `{n,}`).
fn bounded_pattern(p: &str) -> bool {
    p.starts_with('^')
        && p.ends_with('$')
        && !p.contains('*')
        && !p.contains('+')
        && !p.contains(",}")
}

fn is_type(m: &Map<String, Value>, t: &str) -> bool {
    match m.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|x| x == t),
        _ => false,
    }
}

/// The paths under `v` whose values an agent could make as large as it likes.
fn unbounded(v: &Value, at: &str, out: &mut Vec<String>) {
    let Some(m) = v.as_object() else { return };
    let has = |k: &str| m.contains_key(k);
    if is_type(m, "string")
        && !has("maxLength")
        && !has("enum")
        && !has("const")
        && !m
            .get("pattern")
            .and_then(Value::as_str)
            .is_some_and(bounded_pattern)
    {
        out.push(format!("{at}: a string without maxLength"));
    }
    if is_type(m, "array") && !has("maxItems") {
        out.push(format!("{at}: an array without maxItems"));
    }
    if m.get("additionalProperties").is_some_and(Value::is_object) && !has("maxProperties") {
        out.push(format!("{at}: a map without maxProperties"));
    }
    for (k, sub) in m {
        match (k.as_str(), sub) {
            ("properties", Value::Object(props)) => {
                for (p, s) in props {
                    unbounded(s, &format!("{at}.{p}"), out);
                }
            }
            ("items" | "additionalProperties", _) => unbounded(sub, &format!("{at}[]"), out),
            ("anyOf" | "oneOf" | "allOf", Value::Array(alts)) => {
                for s in alts {
                    unbounded(s, at, out);
                }
            }
            ("$defs" | "definitions", Value::Object(defs)) => {
                for (d, s) in defs {
                    unbounded(s, &format!("#{d}"), out);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn every_tool_argument_is_bounded() {
    let mut problems = Vec::new();
    let mut tools = 0;
    for server in SERVERS {
        for tool in catalog(server).expect("a listed server has a catalog") {
            tools += 1;
            let mut out = Vec::new();
            unbounded(tool.input_schema, "", &mut out);
            problems.extend(
                out.into_iter()
                    .map(|p| format!("{server}.{}{p}", tool.name)),
            );
        }
    }
    assert!(tools > 50, "only {tools} tools seen");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_check_sees_an_unbounded_argument() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "ok": {"type": "string", "maxLength": 10},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "free": {"type": ["string", "null"], "pattern": "^a+$"},
            "list": {"type": "array", "items": {"type": "string", "maxLength": 5}},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}}
        }
    });
    let mut out = Vec::new();
    unbounded(&schema, "", &mut out);
    assert_eq!(
        out,
        [
            ".free: a string without maxLength",
            ".list: an array without maxItems",
            ".tags: a map without maxProperties",
            ".tags[]: a string without maxLength",
        ]
    );
}
