//! What a goal's slots say of the family's values: a slot that writes a name or a field of one
//! (`{$p.title}`) binds it to its text; a slot that writes a value through a filter (`{$price
//! | euros}`, `{$names | and_list}`) is read back by trying the values its text could come
//! from until the family's own expression writes that text again.

use mcpbench_pack::{Bindings, Family, Known, path};
use serde_json::Value;

/// Binds in `b` what each `(slot's expression, its text)` says.
pub fn read(family: &Family, slots: &[(String, String)], b: &mut Bindings) {
    // A slot through a filter may read a name another slot binds plainly: plain ones first.
    let (plain, filtered): (Vec<_>, Vec<_>) =
        slots.iter().partition(|(source, _)| path(source).is_some());
    for (source, text) in plain {
        let (name, fields) = path(source).expect("partitioned on it");
        if b.known(name) == Known::Whole {
            // A constant of the family's data, or a value read already: the text adds nothing.
            continue;
        }
        let value = typed(text);
        if fields.is_empty() {
            b.set(name, &value);
        } else {
            b.set_path(name, &fields, &value);
        }
    }
    for (source, text) in &filtered {
        invert(family, source, text, &filtered, b);
    }
}

/// A slot's text as the value it most likely is: a whole number where the text writes one
/// exactly (an arguments' schema turns it back into text where text is wanted), else the text.
fn typed(text: &str) -> Value {
    match text.parse::<i64>() {
        Ok(n) if n.to_string() == text && n.unsigned_abs() < (1 << 53) => Value::from(n),
        _ => Value::String(text.to_string()),
    }
}

/// Reads a slot through a filter: the one name it reads that is not known yet, bound to the
/// first value whose rendering gives `text`.
fn invert(family: &Family, source: &str, text: &str, all: &[&(String, String)], b: &mut Bindings) {
    let Some(names) = family.slot_names(source) else {
        return;
    };
    let open: Vec<&String> = names
        .iter()
        .filter(|n| b.known(n) != Known::Whole)
        .collect();
    let [name] = open.as_slice() else {
        return;
    };
    // `$p.title | ascii_downcase`: the value tried is the field's.
    let head = source
        .trim()
        .split(|c: char| c.is_whitespace() || c == '|')
        .next();
    let fields = head
        .and_then(path)
        .filter(|(n, _)| n == name)
        .map(|(_, f)| f)
        .unwrap_or_default();
    // Then, as a script would, every whole number of a day's minutes and a little more (a
    // length, a count, a sum the text writes through arithmetic).
    let tried = candidates(text)
        .into_iter()
        .chain((-100..=1_500).map(Value::from));
    for candidate in tried {
        let mut trial = b.clone();
        if fields.is_empty() {
            trial.set(name, &candidate);
        } else {
            trial.set_path(name, &fields, &candidate);
        }
        // The other slots of the same one name must read back too: "Monday" alone names a
        // day of every week, beside "March 23" it names one.
        let agrees = |(other, said): &&(String, String)| {
            family.slot_names(other).as_deref() != Some(std::slice::from_ref(*name))
                || family.slot_text(other, &trial).as_deref() == Some(said.as_str())
        };
        if family.slot_text(source, &trial).as_deref() == Some(text) && all.iter().all(agrees) {
            *b = trial;
            return;
        }
    }
}

/// The values a slot's text could have been written from: the text, its numbers (as they
/// are, and as cents), its words as lists, and its case undone.
fn candidates(text: &str) -> Vec<Value> {
    let mut out = vec![Value::String(text.to_string())];
    for token in numbers(text) {
        if let Ok(n) = token.parse::<i64>() {
            out.push(Value::from(n));
            out.extend(n.checked_mul(100).map(Value::from));
        }
        if let Ok(f) = token.parse::<f64>() {
            out.push(Value::from(f));
            out.push(Value::from((f * 100.0).round() as i64));
        }
    }
    let list = |sep: &str| -> Value {
        let (head, last) = text.rsplit_once(sep).unwrap_or((text, ""));
        let mut items: Vec<Value> = head.split(", ").map(|s| Value::String(s.into())).collect();
        if !last.is_empty() {
            items.push(Value::String(last.into()));
        }
        Value::Array(items)
    };
    // A clock time as minutes of the day, a date as it is written.
    for (i, _) in text.match_indices(':') {
        let (h, m) = (
            text[..i].rsplit(|c: char| !c.is_ascii_digit()).next(),
            text.get(i + 1..i + 3),
        );
        if let (Some(Ok(h)), Some(Ok(m))) = (h.map(str::parse::<i64>), m.map(str::parse::<i64>)) {
            out.extend(
                h.checked_mul(60)
                    .and_then(|h| h.checked_add(m))
                    .map(Value::from),
            );
        }
    }
    for word in text.split(|c: char| c.is_whitespace() || c == ',') {
        if word.len() == 10 && word.as_bytes()[4] == b'-' {
            out.push(Value::String(word.to_string()));
        }
    }
    out.push(list(" and "));
    out.push(list(" or "));
    out.push(Value::Array(
        outside_brackets(text)
            .into_iter()
            .map(Value::from)
            .collect(),
    ));
    out.push(Value::String(text.to_lowercase()));
    let mut chars = text.chars();
    if let Some(first) = chars.next() {
        out.push(Value::String(first.to_lowercase().chain(chars).collect()));
    }
    out
}

/// `text` split at each ", " outside brackets: `id (integer, primary key), name (text)` is a
/// list of two.
fn outside_brackets(text: &str) -> Vec<&str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut cuts = Vec::new();
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 && text[i + 1..].starts_with(' ') => {
                cuts.push(&text[start..i]);
                start = i + 2;
            }
            _ => {}
        }
    }
    cuts.push(&text[start..]);
    cuts
}

/// The runs of digits (with a sign, a decimal point) in `text`.
fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit()
            || (c == '.' && !current.is_empty())
            || (c == '-' && current.is_empty())
        {
            current.push(c);
        } else {
            let token = current.trim_end_matches('.').to_string();
            if token.chars().any(|c| c.is_ascii_digit()) {
                out.push(token);
            }
            current.clear();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_candidates() {
        assert_eq!(numbers("EUR 24.90, then -3 and 7."), ["24.90", "-3", "7"]);
        let c = candidates("Ann, Bo and Cy");
        assert!(c.contains(&serde_json::json!(["Ann", "Bo", "Cy"])));
        assert!(candidates("24.90").contains(&Value::from(2490)));
        let columns = candidates("id (integer, primary key), email (text, unique), rating");
        assert!(columns.contains(&serde_json::json!([
            "id (integer, primary key)",
            "email (text, unique)",
            "rating"
        ])));
    }

    #[test]
    fn clock_times_are_minutes() {
        assert!(candidates("from 13:30").contains(&Value::from(810)));
    }
}
