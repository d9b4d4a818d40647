//! Canonical JSON, RFC 8785 (JCS): the exact bytes a task's commitment is taken over.
//!
//! Members are sorted by their names as UTF-16 code units, strings escape only what JSON
//! requires, and numbers are written as ECMAScript writes the IEEE double. Numbers past 2^53 in
//! magnitude are refused: beyond it a double no longer holds every integer, so two verifiers
//! could read the same digits as different numbers.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// The largest magnitude a number may have.
const MAX_SAFE: f64 = 9_007_199_254_740_992.0; // 2^53

/// Why a value has no canonical form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JcsError(String);

/// How deep arrays and objects may nest in a committed value (the value itself is level 1).
/// Both verifiers refuse deeper values, so no parser's own recursion limit decides a verdict.
pub const MAX_DEPTH: usize = 64;

/// The RFC 8785 bytes of `value`.
pub fn canonical(value: &Value) -> Result<Vec<u8>, JcsError> {
    let mut out = String::new();
    write_value(value, &mut out, 1)?;
    Ok(out.into_bytes())
}

fn write_value(value: &Value, out: &mut String, depth: usize) -> Result<(), JcsError> {
    if matches!(value, Value::Array(_) | Value::Object(_)) && depth > MAX_DEPTH {
        return Err(JcsError(format!("nested deeper than {MAX_DEPTH} levels")));
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out)?,
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out, depth + 1)?;
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut names: Vec<&String> = members.keys().collect();
            names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, name) in names.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_value(&members[name], out, depth + 1)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_number(n: &Number, out: &mut String) -> Result<(), JcsError> {
    // The value is not repeated: a private task's numbers stay out of error messages.
    let too_big = || JcsError("a number is beyond +-2^53".into());
    if let Some(i) = n.as_i64() {
        if i.unsigned_abs() > 1 << 53 {
            return Err(too_big());
        }
        out.push_str(&i.to_string());
    } else if let Some(u) = n.as_u64() {
        if u > 1 << 53 {
            return Err(too_big());
        }
        out.push_str(&u.to_string());
    } else {
        let x = n.as_f64().ok_or_else(too_big)?;
        if !x.is_finite() || (x.abs() > MAX_SAFE) {
            return Err(too_big());
        }
        out.push_str(&es6_number(x));
    }
    Ok(())
}

/// `Number.prototype.toString` of a finite double (ECMA-262, Number::toString): the shortest
/// digits that read back as `x`, placed by the exponent rules of JavaScript.
fn es6_number(x: f64) -> String {
    if x == 0.0 {
        return "0".into(); // -0 too
    }
    if x < 0.0 {
        return format!("-{}", es6_number(-x));
    }
    // `{:e}` gives Rust's shortest round-trip digits, e.g. "5.249e1".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').expect("LowerExp writes an exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    let n = exp.parse::<i32>().expect("a decimal exponent") + 1;
    if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let sign = if e < 0 { '-' } else { '+' };
        let rest = if k > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        format!("{}{rest}e{sign}{}", &digits[..1], e.abs())
    }
}

/// JSON read strictly: like `serde_json::Value`, but a member name given twice in one object
/// is an error rather than "the last one wins", so that no two readers see different values.
#[derive(Debug, Clone, PartialEq)]
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            if members.contains_key(&name) {
                return Err(de::Error::custom(format!(
                    "the member {name:?} appears twice"
                )));
            }
            let StrictValue(v) = map.next_value()?;
            members.insert(name, v);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jcs(v: &Value) -> String {
        String::from_utf8(canonical(v).unwrap()).unwrap()
    }

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        // RFC 8785 appendix B and the ECMAScript exponent thresholds.
        for (x, want) in [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (52.49, "52.49"),
            (-104.99, "-104.99"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123456789.125, "123456789.125"),
            (5e-324, "5e-324"),
            (0.1 + 0.2, "0.30000000000000004"),
            (9007199254740992.0, "9007199254740992"),
        ] {
            assert_eq!(es6_number(x), want, "{x:e}");
        }
        assert_eq!(jcs(&json!(52.49)), "52.49");
        assert_eq!(jcs(&json!(1.0)), "1");
        assert!(
            canonical(&json!(1e20)).is_err(),
            "past 2^53, even as a double"
        );
        assert_eq!(jcs(&json!(-42)), "-42");
        assert!(canonical(&json!(9007199254740993u64)).is_err());
        assert!(canonical(&json!(1e300)).is_err());
        assert!(canonical(&json!(-9007199254740993i64)).is_err());
    }

    #[test]
    fn members_sort_by_utf16_and_strings_escape_only_what_json_needs() {
        // U+E000 sorts after U+1F600 in UTF-8 but before it in UTF-16 (a surrogate pair).
        let v = json!({"b": 1, "a": [true, null, "x"], "\u{1F600}": 2, "\u{E000}": 3, "": 0});
        assert_eq!(
            jcs(&v),
            "{\"\":0,\"a\":[true,null,\"x\"],\"b\":1,\"\u{1F600}\":2,\"\u{E000}\":3}"
        );
        let s = json!("q\"b\\\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}/\u{2028}é");
        assert_eq!(
            jcs(&s),
            "\"q\\\"b\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}/\u{2028}é\""
        );
    }

    #[test]
    fn values_nest_at_most_max_depth_levels() {
        let nest = |levels: usize| (1..levels).fold(json!([]), |inner, _| json!([inner]));
        assert!(canonical(&nest(MAX_DEPTH)).is_ok());
        let err = canonical(&nest(MAX_DEPTH + 1)).unwrap_err();
        assert!(err.to_string().contains("deeper than 64"), "{err}");
    }

    #[test]
    fn strict_parsing_refuses_a_member_named_twice() {
        let ok: StrictValue = serde_json::from_str(r#"{"a":{"b":[1,{"c":2}]}}"#).unwrap();
        assert_eq!(ok.0, json!({"a": {"b": [1, {"c": 2}]}}));
        for bad in [r#"{"a":1,"a":1}"#, r#"[{"x":{"y":1,"y":2}}]"#] {
            let err = serde_json::from_str::<StrictValue>(bad).unwrap_err();
            assert!(err.to_string().contains("appears twice"), "{err}");
        }
    }
}
