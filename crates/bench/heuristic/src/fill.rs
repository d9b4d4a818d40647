//! Arguments for a tool's required parameters, matched by name to the goal's values or to
//! what earlier calls returned, and the answer read off the results.

use crate::goal::Facts;
use crate::words::{content_stems, split};
use serde_json::{Map, Value};

/// The required arguments of `schema`, each filled; `None` when one cannot be.
pub(crate) fn arguments(schema: &Value, facts: &Facts, seen: &[Value]) -> Option<Value> {
    object(schema, facts, seen, &mut Vec::new())
}

/// The names of a schema's required properties.
pub(crate) fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether a parameter names an identifier (`id`, `channel_id`, `eventId`, `user_ids`).
pub(crate) fn is_id(name: &str) -> bool {
    split(name).last().is_some_and(|w| w == "id" || w == "ids")
}

/// `used` holds the values already given to this call, so that two parameters (`source`
/// and `destination`) take two values.
fn object(schema: &Value, facts: &Facts, seen: &[Value], used: &mut Vec<String>) -> Option<Value> {
    let props = schema.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for name in required(schema) {
        let prop = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        out.insert(name.to_string(), value(name, prop, facts, seen, used)?);
    }
    Some(Value::Object(out))
}

/// A schema's type, the first that is not `null` (`["array", "null"]` is an array).
fn kind(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    }
}

fn value(
    name: &str,
    prop: &Value,
    facts: &Facts,
    seen: &[Value],
    used: &mut Vec<String>,
) -> Option<Value> {
    let alternative = prop
        .get("anyOf")
        .or_else(|| prop.get("oneOf"))
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find(|s| kind(s) != "null"));
    if let Some(alternative) = alternative {
        return value(name, alternative, facts, seen, used);
    }
    if let Some(members) = prop.get("enum").and_then(Value::as_array) {
        // The member the goal speaks of ("Decline" is `declined`), else the first.
        let spoken = members.iter().find(|m| {
            m.as_str()
                .is_some_and(|s| content_stems(s).iter().any(|w| facts.stems.contains(w)))
        });
        return spoken
            .or_else(|| members.iter().find(|m| !m.is_null()))
            .cloned();
    }
    match kind(prop) {
        "object" => object(prop, facts, seen, used),
        "array" => {
            let items = prop.get("items").unwrap_or(&Value::Null);
            Some(Value::Array(vec![value(name, items, facts, seen, used)?]))
        }
        "boolean" => Some(Value::Bool(
            content_stems(name).iter().any(|w| facts.stems.contains(w)),
        )),
        k @ ("integer" | "number") => number(name, k == "integer", facts, seen, used),
        _ => text(name, facts, seen, used),
    }
}

fn number(
    name: &str,
    integer: bool,
    facts: &Facts,
    seen: &[Value],
    used: &mut Vec<String>,
) -> Option<Value> {
    let parse = |s: &str| -> Option<Value> {
        if integer {
            s.parse::<i64>().ok().map(Value::from)
        } else {
            s.parse::<f64>().ok().map(Value::from)
        }
    };
    for n in &facts.numbers {
        if !used.contains(n)
            && let Some(v) = parse(n)
        {
            used.push(n.clone());
            return Some(v);
        }
    }
    match found(name, facts, seen)? {
        Value::String(s) => parse(&s),
        v @ Value::Number(_) => Some(v),
        _ => None,
    }
}

fn text(name: &str, facts: &Facts, seen: &[Value], used: &mut Vec<String>) -> Option<Value> {
    let as_text = |v: Value| match v {
        Value::String(s) => Value::String(s),
        other => Value::String(other.to_string()),
    };
    if is_id(name)
        && let Some(v) = found(name, facts, seen)
    {
        return Some(as_text(v));
    }
    for source in sources(name, facts) {
        if let Some(v) = source.into_iter().find(|v| !used.contains(v)) {
            used.push(v.clone());
            return Some(Value::String(v));
        }
    }
    found(name, facts, seen).map(as_text)
}

/// Where a string parameter's value may come from in the goal, by the words of its name,
/// most likely first.
fn sources(name: &str, f: &Facts) -> Vec<Vec<String>> {
    let words = split(name);
    let has = |ws: &[&str]| words.iter().any(|w| ws.contains(&w.as_str()));
    let one = |v: &Option<String>| v.iter().cloned().collect::<Vec<_>>();
    let half = |first: bool| -> Vec<String> {
        f.slashed
            .iter()
            .filter_map(|s| s.split_once('/'))
            .map(|(a, b)| if first { a } else { b }.to_string())
            .collect()
    };
    // Codes with a digit or a dash (`BKP-274`) before plain upper-case words (`SKU`).
    let mut codes = f.codes.clone();
    codes.sort_by_key(|c| !c.contains(|x: char| x.is_ascii_digit() || x == '-'));
    if is_id(name) {
        return vec![codes, f.numbers.clone()];
    }
    if has(&["owner", "org", "organization"]) {
        vec![half(true)]
    } else if has(&["repo", "repository"]) {
        vec![half(false)]
    } else if has(&[
        "path",
        "paths",
        "source",
        "destination",
        "file",
        "directory",
        "dir",
    ]) {
        vec![f.paths.clone(), f.slashed.clone()]
    } else if has(&[
        "email",
        "emails",
        "to",
        "cc",
        "recipient",
        "recipients",
        "address",
    ]) {
        vec![f.emails.clone(), f.phrases.clone()]
    } else if has(&["date", "day", "start", "end", "time", "min", "max"]) {
        vec![f.dates.clone(), f.times.clone()]
    } else if has(&["channel"]) {
        vec![f.channels.clone()]
    } else if has(&["branch", "head", "base", "ref"]) {
        vec![f.named.clone(), f.slashed.clone()]
    } else if has(&[
        "content",
        "contents",
        "body",
        "text",
        "message",
        "topic",
        "description",
        "comment",
        "note",
        "observation",
        "observations",
    ]) {
        vec![one(&f.tail), f.quoted.clone()]
    } else if has(&["sku", "code", "key", "project"]) {
        vec![codes, f.quoted.clone(), f.named.clone()]
    } else if has(&["location", "place", "city", "country", "region"]) {
        vec![f.phrases.clone()]
    } else if has(&["query", "q", "search", "pattern"]) {
        vec![f.quoted.clone(), f.phrases.clone(), f.named.clone(), codes]
    } else {
        vec![
            f.quoted.clone(),
            f.named.clone(),
            f.phrases.clone(),
            codes,
            one(&f.tail),
        ]
    }
}

/// A parameter name or a key, compared without case, underscores or a plural `s`.
fn norm(key: &str) -> String {
    let k: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    k.strip_suffix('s').map(str::to_string).unwrap_or(k)
}

/// A value for parameter `name` read from earlier results: among the objects that carry a
/// key of that name (or `id`, for an identifier), the one that holds most of the goal's
/// values; the latest result first on a tie.
pub(crate) fn found(name: &str, facts: &Facts, seen: &[Value]) -> Option<Value> {
    let mut keys = vec![norm(name)];
    if is_id(name) {
        keys.push("id".into());
    }
    let mut best: Option<(usize, Value)> = None;
    for result in seen.iter().rev() {
        objects(result, &mut |o| {
            let hit = entries(o)
                .into_iter()
                .find(|(k, v)| keys.contains(&norm(k)) && (v.is_string() || v.is_number()));
            if let Some((_, v)) = hit {
                let s = likeness(o, facts);
                if best.as_ref().is_none_or(|(b, _)| s > *b) {
                    best = Some((s, v.clone()));
                }
            }
        });
    }
    best.map(|(_, v)| v)
}

/// An object's entries by key: the order does not hang on how a map was built.
fn entries(o: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut e: Vec<_> = o.iter().collect();
    e.sort_by(|a, b| a.0.cmp(b.0));
    e
}

/// Every object inside `v`, outermost first.
fn objects<'v>(v: &'v Value, visit: &mut dyn FnMut(&'v Map<String, Value>)) {
    match v {
        Value::Object(o) => {
            visit(o);
            for (_, x) in entries(o) {
                objects(x, visit);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| objects(x, visit)),
        _ => {}
    }
}

/// How many of the goal's values an object's own fields hold: two points for an equal
/// field, one for a field that contains the value or is contained in it.
fn likeness(o: &Map<String, Value>, f: &Facts) -> usize {
    let fields: Vec<String> = o
        .values()
        .filter_map(|v| match v {
            Value::String(s) => Some(s.to_lowercase()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .collect();
    let goal = [
        &f.quoted,
        &f.channels,
        &f.phrases,
        &f.named,
        &f.emails,
        &f.codes,
        &f.slashed,
        &f.paths,
        &f.numbers,
    ];
    goal.into_iter()
        .flatten()
        .map(|g| g.to_lowercase())
        .map(|g| {
            let near = |x: &String| {
                g.len() >= 4 && x.len() >= 4 && (x.contains(g.as_str()) || g.contains(x.as_str()))
            };
            if fields.contains(&g) {
                2
            } else {
                usize::from(fields.iter().any(near))
            }
        })
        .sum()
}

/// The answer: for a question, the field whose key shares most words with the goal (in the
/// object most like the goal), else the length of a list when it asks "how many", else the
/// first number; otherwise a word that the work is done.
pub(crate) fn answer(facts: &Facts, seen: &[Value]) -> String {
    if !facts.question {
        return "done".into();
    }
    let mut best: Option<((usize, usize), String)> = None;
    for result in seen.iter().rev() {
        objects(result, &mut |o| {
            for (k, v) in entries(o) {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => continue,
                };
                let key = content_stems(k).intersection(&facts.stems).count();
                let score = (key, likeness(o, facts));
                if key > 0 && best.as_ref().is_none_or(|(b, _)| score > *b) {
                    best = Some((score, text));
                }
            }
        });
    }
    if let Some((_, text)) = best {
        return text;
    }
    let Some(last) = seen.last() else {
        return "unknown".into();
    };
    if facts.stems.contains("many") {
        let mut len = None;
        walk_arrays(last, &mut |a| {
            len.get_or_insert(a.len());
        });
        if let Some(n) = len {
            return n.to_string();
        }
    }
    first_number(last).unwrap_or_else(|| "unknown".into())
}

fn walk_arrays(v: &Value, visit: &mut dyn FnMut(&Vec<Value>)) {
    match v {
        Value::Array(a) => {
            visit(a);
            a.iter().for_each(|x| walk_arrays(x, visit));
        }
        Value::Object(o) => entries(o)
            .into_iter()
            .for_each(|(_, x)| walk_arrays(x, visit)),
        _ => {}
    }
}

fn first_number(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::Array(a) => a.iter().find_map(first_number),
        Value::Object(o) => entries(o).into_iter().find_map(|(_, x)| first_number(x)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parameters_take_the_goal_values_their_names_ask_for() {
        let f = Facts::of(
            "Email sam@contoso.com with the subject \"Status\" and exactly this body: All good.",
        );
        let schema = json!({
            "type": "object",
            "required": ["to", "subject", "body"],
            "properties": {
                "to": {"type": "array", "items": {"type": "string"}},
                "subject": {"type": "string"},
                "body": {"type": "string"},
                "cc": {"type": "string"}
            }
        });
        assert_eq!(
            arguments(&schema, &f, &[]),
            Some(json!({"to": ["sam@contoso.com"], "subject": "Status", "body": "All good."}))
        );
    }

    #[test]
    fn two_parameters_of_one_kind_take_two_values() {
        let f = Facts::of("Rename /home/a/draft.md to /home/a/final.md.");
        let schema = json!({
            "type": "object",
            "required": ["source", "destination"],
            "properties": {"source": {"type": "string"}, "destination": {"type": "string"}}
        });
        assert_eq!(
            arguments(&schema, &f, &[]),
            Some(json!({"source": "/home/a/draft.md", "destination": "/home/a/final.md"}))
        );
    }

    #[test]
    fn owner_repo_numbers_enums_and_booleans() {
        let f = Facts::of("Land pull request #2 in stark-ind/notify by rebasing it.");
        let schema = json!({
            "type": "object",
            "required": ["owner", "repo", "pull_number", "merge_method", "draft"],
            "properties": {
                "owner": {"type": "string"},
                "repo": {"type": "string"},
                "pull_number": {"type": "integer"},
                "merge_method": {"enum": ["merge", "squash", "rebase"]},
                "draft": {"type": "boolean"}
            }
        });
        assert_eq!(
            arguments(&schema, &f, &[]),
            Some(json!({
                "owner": "stark-ind", "repo": "notify", "pull_number": 2,
                "merge_method": "rebase", "draft": false
            }))
        );
        let f = Facts::of("Create a new private channel named ops-harbor.");
        let schema = json!({
            "type": "object",
            "required": ["name", "is_private"],
            "properties": {"name": {"type": "string"}, "is_private": {"type": "boolean"}}
        });
        assert_eq!(
            arguments(&schema, &f, &[]),
            Some(json!({"name": "ops-harbor", "is_private": true}))
        );
    }

    #[test]
    fn what_the_goal_lacks_cannot_be_filled() {
        let f = Facts::of("Count the rows of the orders table.");
        let schema = json!({
            "type": "object",
            "required": ["sql"],
            "properties": {"sql": {"type": "string"}}
        });
        assert_eq!(arguments(&schema, &f, &[]), None);
    }

    #[test]
    fn an_id_is_read_from_the_listed_object_most_like_the_goal() {
        let f = Facts::of("Post a message in #eng-backend that says exactly: Deployed");
        let listing = json!({"channels": [
            {"id": "C1", "name": "general"},
            {"id": "C2", "name": "eng-backend"},
            {"id": "C3", "name": "eng-frontend"}
        ]});
        let schema = json!({
            "type": "object",
            "required": ["channel_id", "text"],
            "properties": {"channel_id": {"type": "string"}, "text": {"type": "string"}}
        });
        assert_eq!(
            arguments(&schema, &f, &[listing]),
            Some(json!({"channel_id": "C2", "text": "Deployed"}))
        );
        assert_eq!(arguments(&schema, &f, &[]), None, "no listing, no id");
    }

    #[test]
    fn the_answer_is_the_field_the_question_names() {
        let f = Facts::of("What is Ada Park's job title? Answer with the title.");
        let users = json!({"users": [
            {"real_name": "Li Wei", "title": "Designer"},
            {"real_name": "Ada Park", "title": "Staff Engineer"}
        ]});
        assert_eq!(answer(&f, &[users]), "Staff Engineer");
        let f = Facts::of("How many open issues carry the label bug?");
        assert_eq!(answer(&f, &[json!({"issues": [{"n": 1}, {"n": 2}]})]), "2");
        let f = Facts::of("What is the air quality index (US AQI) in Berlin, Germany?");
        assert_eq!(answer(&f, &[json!({"us_aqi": 84, "pm": 3})]), "84");
        assert_eq!(answer(&Facts::of("Archive it."), &[]), "done");
    }
}
