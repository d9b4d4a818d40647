//! Random arguments that fit a JSON Schema, for the `random` agent: enums from their
//! members, numbers within their ranges, strings within their lengths, required properties
//! always and optional ones by a coin flip. Patterns are not honoured, so some calls are
//! schema-invalid, as a careless agent's would be.

use mcpbench_sim::Rng;
use serde_json::{Map, Value};

const WORDS: &[&str] = &[
    "alpha",
    "report",
    "main",
    "notes",
    "42",
    "/tmp/x",
    "team",
    "2026-03-04",
];

pub(crate) fn value_for(schema: &Value, rng: &mut Rng, depth: u32) -> Value {
    if depth > 4 {
        return Value::Null;
    }
    if let Some(options) = schema
        .get("enum")
        .and_then(Value::as_array)
        .filter(|o| !o.is_empty())
    {
        return rng.pick(options).clone();
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    let alternatives = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array);
    if let Some(alternatives) = alternatives.filter(|a| !a.is_empty()) {
        return value_for(rng.pick(alternatives), rng, depth + 1);
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null")
            .to_string(),
        _ => "string".to_string(),
    };
    let bound =
        |key: &str, default: i64| schema.get(key).and_then(Value::as_i64).unwrap_or(default);
    match kind.as_str() {
        "object" => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let mut out = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    if required.contains(&name.as_str()) || rng.chance(1, 2) {
                        out.insert(name.clone(), value_for(prop, rng, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => {
            let min = bound("minItems", 0).max(0);
            let max = bound("maxItems", min + 2).min(min + 2);
            let n = rng.range(min, max.max(min));
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            Value::Array((0..n).map(|_| value_for(&items, rng, depth + 1)).collect())
        }
        "integer" => {
            let lo = bound("minimum", 0);
            let hi = bound("maximum", lo + 20).min(lo.saturating_add(1000));
            Value::from(rng.range(lo, hi.max(lo)))
        }
        "number" => Value::from(rng.range(0, 100) as f64 / 4.0),
        "boolean" => Value::Bool(rng.chance(1, 2)),
        "null" => Value::Null,
        _ => {
            let min = bound("minLength", 1).max(0) as usize;
            let max = bound("maxLength", 64).max(1) as usize;
            let mut s = rng.pick(WORDS).to_string();
            while s.len() < min {
                s.push('x');
            }
            s.truncate(max);
            Value::String(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_respect_types_enums_ranges_and_required_fields() {
        let schema = json!({
            "type": "object",
            "required": ["path", "mode"],
            "properties": {
                "path": {"type": "string", "minLength": 10},
                "mode": {"enum": ["a", "b"]},
                "count": {"type": "integer", "minimum": 3, "maximum": 5},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 1}
            }
        });
        for seed in 0..50 {
            let v = value_for(&schema, &mut Rng::new(seed, 0), 0);
            assert!(v["path"].as_str().unwrap().len() >= 10);
            assert!(["a", "b"].contains(&v["mode"].as_str().unwrap()));
            if let Some(c) = v.get("count") {
                assert!((3..=5).contains(&c.as_i64().unwrap()));
            }
            if let Some(t) = v.get("tags") {
                assert!(t.as_array().unwrap().len() <= 1);
            }
        }
    }
}
