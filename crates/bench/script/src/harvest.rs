//! What the servers' answers say of the family's values: an object the goal described in part
//! (`$p` with the title the goal gave) is the record an answer holds with those fields, and a
//! value the references need by a name (`$sha`) is the field of that name an answer holds.

use mcpbench_pack::{Bindings, Known};
use serde_json::{Map, Value};

/// Completes in `b` each object known in part from the records of `answer` that agree with
/// every field known of it.
pub fn records(answer: &Value, b: &mut Bindings) {
    let partial: Vec<String> = (b.names().iter())
        .filter(|n| b.known(n) == Known::Partial)
        .cloned()
        .collect();
    for name in partial {
        let Some(Value::Object(known)) = b.value(&name) else {
            continue;
        };
        if let Some(record) = find(answer, &|o| agrees(o, &known)) {
            let mut whole = record.clone();
            for (k, v) in known {
                whole.entry(k).or_insert(v);
            }
            b.set(&name, &Value::Object(whole));
        }
    }
}

/// The value of the field `key` in the latest of `answers` that holds one (searched depth
/// first), as a value the references need under that name.
pub fn by_key(answers: &[Value], key: &str) -> Option<Value> {
    answers.iter().rev().find_map(|a| {
        find(a, &|o| o.get(key).is_some_and(|v| !v.is_null())).and_then(|o| o.get(key).cloned())
    })
}

/// Whether `record` holds every field of `known` with the same value (numbers and their text
/// alike, text without regard to case).
fn agrees(record: &Map<String, Value>, known: &Map<String, Value>) -> bool {
    !known.is_empty()
        && known.iter().all(|(k, want)| match (record.get(k), want) {
            (Some(Value::Object(inner)), Value::Object(want)) => agrees(inner, want),
            (Some(got), want) => same(got, want),
            (None, _) => false,
        })
}

fn same(a: &Value, b: &Value) -> bool {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.to_lowercase()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    a == b || (text(a).is_some() && text(a) == text(b))
}

/// The first object in `value` (itself, then depth first) that `fits`.
fn find<'a>(
    value: &'a Value,
    fits: &dyn Fn(&Map<String, Value>) -> bool,
) -> Option<&'a Map<String, Value>> {
    match value {
        Value::Object(o) if fits(o) => Some(o),
        Value::Object(o) => o.values().find_map(|v| find(v, fits)),
        Value::Array(items) => items.iter().find_map(|v| find(v, fits)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_agree_loosely_and_keys_are_found_latest_first() {
        let known = json!({"title": "blue mug", "id": 7});
        let Value::Object(known) = known else {
            unreachable!()
        };
        let rec = json!({"id": "7", "title": "Blue Mug", "sku": "M-1"});
        let Value::Object(rec) = rec else {
            unreachable!()
        };
        assert!(agrees(&rec, &known));
        let answers = [json!({"sha": "a"}), json!({"items": [{"sha": "b"}]})];
        assert_eq!(by_key(&answers, "sha"), Some(json!("b")));
        assert_eq!(by_key(&answers, "nope"), None);
    }
}
