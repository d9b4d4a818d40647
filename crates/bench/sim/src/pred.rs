//! Success predicates: a tree of `all` / `any` / `not` over server-namespaced atoms
//! (`{"filesystem.fileExists": {"path": "/a"}}`) and checks of the agent's final answer
//! (`{"answer.matches": {"value": "42"}}`).
//!
//! Atoms are typed per server, so an unknown predicate name or a wrong argument fails when the
//! task loads, with serde's message naming the place, never as a silent `false` at scoring time.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A success predicate over atoms of type `A`.
#[derive(Clone, Debug, PartialEq)]
pub enum Pred<A> {
    All(Vec<Pred<A>>),
    Any(Vec<Pred<A>>),
    Not(Box<Pred<A>>),
    Answer(AnswerCheck),
    Atom(A),
}

/// Checks of the agent's final answer, after [`normalize_answer`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum AnswerCheck {
    /// The normalised answer contains the normalised value as a whole phrase.
    #[serde(rename = "answer.matches")]
    Matches { value: String },
    /// The answer states a number within `tolerance` of `value`, and at most three distinct
    /// numbers in all (listing many guesses does not pass).
    #[serde(rename = "answer.number")]
    Number {
        value: f64,
        #[serde(default)]
        tolerance: f64,
    },
    /// The answer states a number within `tolerance` of `value` and no other number (dates and
    /// times are not numbers here): a spray of guesses never passes.
    #[serde(rename = "answer.only_number")]
    OnlyNumber {
        value: f64,
        #[serde(default)]
        tolerance: f64,
    },
    /// The answer names `value` (as `answer.matches` does) and none of `others`, the other
    /// candidates a careless answer could name: listing every candidate never passes.
    #[serde(rename = "answer.names")]
    Names { value: String, others: Vec<String> },
}

impl<A> Pred<A> {
    /// Evaluates the tree; `atom` decides the atoms against the final state.
    pub fn eval(&self, answer: Option<&str>, atom: &mut impl FnMut(&A) -> bool) -> bool {
        match self {
            Pred::All(ps) => ps.iter().all(|p| p.eval(answer, atom)),
            Pred::Any(ps) => ps.iter().any(|p| p.eval(answer, atom)),
            Pred::Not(p) => !p.eval(answer, atom),
            Pred::Answer(check) => answer.is_some_and(|a| check.holds(a)),
            Pred::Atom(a) => atom(a),
        }
    }

    /// Maps the atoms, keeping the tree (a server's atoms into the union of all servers').
    pub fn map<B>(self, f: &impl Fn(A) -> B) -> Pred<B> {
        match self {
            Pred::All(ps) => Pred::All(ps.into_iter().map(|p| p.map(f)).collect()),
            Pred::Any(ps) => Pred::Any(ps.into_iter().map(|p| p.map(f)).collect()),
            Pred::Not(p) => Pred::Not(Box::new(p.map(f))),
            Pred::Answer(c) => Pred::Answer(c),
            Pred::Atom(a) => Pred::Atom(f(a)),
        }
    }

    /// Every atom in the tree, depth first.
    pub fn atoms(&self) -> Vec<&A> {
        let mut out = Vec::new();
        self.collect_atoms(&mut out);
        out
    }

    fn collect_atoms<'a>(&'a self, out: &mut Vec<&'a A>) {
        match self {
            Pred::All(ps) | Pred::Any(ps) => ps.iter().for_each(|p| p.collect_atoms(out)),
            Pred::Not(p) => p.collect_atoms(out),
            Pred::Answer(_) => {}
            Pred::Atom(a) => out.push(a),
        }
    }

    /// Every answer check in the tree, depth first.
    pub fn answer_checks(&self) -> Vec<&AnswerCheck> {
        match self {
            Pred::All(ps) | Pred::Any(ps) => ps.iter().flat_map(Pred::answer_checks).collect(),
            Pred::Not(p) => p.answer_checks(),
            Pred::Answer(c) => vec![c],
            Pred::Atom(_) => Vec::new(),
        }
    }

    /// Whether the tree looks at the agent's final answer anywhere.
    pub fn uses_answer(&self) -> bool {
        match self {
            Pred::All(ps) | Pred::Any(ps) => ps.iter().any(Pred::uses_answer),
            Pred::Not(p) => p.uses_answer(),
            Pred::Answer(_) => true,
            Pred::Atom(_) => false,
        }
    }
}

/// The longest explanation [`Pred::unmet`] gives; past it the text is cut at a character.
const UNMET_CHARS: usize = 600;

impl<A: Serialize> Pred<A> {
    /// Why the tree does not hold, for the vendor reading a failed run: the first failing part
    /// of an `all`, every part of an `any`, a `not` whose part held. `None` exactly when
    /// [`Pred::eval`] is true. The text quotes the predicate, so it is as private as the task.
    pub fn unmet(&self, answer: Option<&str>, atom: &mut impl FnMut(&A) -> bool) -> Option<String> {
        let why = self.unmet_inner(answer, atom)?;
        Some(match why.char_indices().nth(UNMET_CHARS) {
            Some((cut, _)) => format!("{}…", &why[..cut]),
            None => why,
        })
    }

    fn unmet_inner(
        &self,
        answer: Option<&str>,
        atom: &mut impl FnMut(&A) -> bool,
    ) -> Option<String> {
        match self {
            Pred::All(ps) => ps.iter().find_map(|p| p.unmet_inner(answer, atom)),
            Pred::Any(ps) => {
                let mut whys = Vec::with_capacity(ps.len());
                for p in ps {
                    whys.push(p.unmet_inner(answer, atom)?);
                }
                Some(format!("none of these holds: {}", whys.join("; ")))
            }
            Pred::Not(p) => p
                .eval(answer, atom)
                .then(|| format!("{} holds, and must not", quote(p))),
            Pred::Answer(check) => match answer {
                None => Some(format!("no answer was given ({} expected)", quote(check))),
                Some(a) if !check.holds(a) => Some(check.unmet(a)),
                Some(_) => None,
            },
            Pred::Atom(a) => (!atom(a)).then(|| format!("{} is false", quote(a))),
        }
    }
}

/// A part of a predicate as its task file writes it.
fn quote(part: &impl Serialize) -> String {
    serde_json::to_string(part).unwrap_or_else(|_| "(a part of the predicate)".into())
}

impl AnswerCheck {
    /// Why `answer` fails the check (which [`AnswerCheck::holds`] said).
    fn unmet(&self, answer: &str) -> String {
        match self {
            AnswerCheck::OnlyNumber { value, tolerance } => {
                let others = numbers_in(answer)
                    .into_iter()
                    .filter(|n| (n - value).abs() > *tolerance + 1e-9)
                    .count();
                if others > 0 {
                    format!(
                        "the answer states {others} other number(s); it must state only {value}"
                    )
                } else {
                    format!("the answer does not state {value}")
                }
            }
            AnswerCheck::Names { value, others } => {
                match others.iter().find(|o| contains_phrase(answer, o)) {
                    Some(o) => format!("the answer names {o:?}, which is not the answer"),
                    None => format!("the answer does not contain {value:?}"),
                }
            }
            AnswerCheck::Matches { value } => {
                format!("the answer does not contain {value:?}")
            }
            AnswerCheck::Number { value, tolerance } => {
                let wanted = match *tolerance {
                    0.0 => format!("{value}"),
                    _ => format!("a number within {tolerance} of {value}"),
                };
                let mut numbers = numbers_in(answer);
                numbers.sort_by(f64::total_cmp);
                numbers.dedup();
                if numbers.len() > 3 {
                    format!(
                        "the answer states {} numbers (at most three count); it must state {wanted}",
                        numbers.len()
                    )
                } else {
                    format!("the answer does not state {wanted}")
                }
            }
        }
    }

    /// `answer.names` for `value` among the `candidates` a careless answer could name (the
    /// state's other titles, names, files, ...): a candidate equal to `value` or named by it is
    /// left out, since nothing could pass with it.
    pub fn names<'a>(value: &str, candidates: impl IntoIterator<Item = &'a str>) -> Self {
        let mut others: Vec<String> = Vec::new();
        for c in candidates {
            let kept = normalize_answer(c) != normalize_answer(value)
                && !normalize_answer(c).is_empty()
                && !contains_phrase(value, c)
                && !others.iter().any(|o| o == c);
            if kept {
                others.push(c.to_string());
            }
        }
        AnswerCheck::Names {
            value: value.to_string(),
            others,
        }
    }

    /// What makes the check unusable, if anything: a phrase that normalises to nothing, or an
    /// `answer.names` whose wrong candidates include the right one (nothing could pass).
    pub fn problem(&self) -> Option<String> {
        let empty = |s: &str| normalize_answer(s).is_empty();
        match self {
            AnswerCheck::Matches { value } if empty(value) => Some("value is empty".into()),
            AnswerCheck::Names { value, others } => {
                if empty(value) {
                    Some("value is empty".into())
                } else if let Some(o) = others.iter().find(|o| empty(o)) {
                    Some(format!("others holds an empty candidate {o:?}"))
                } else {
                    others.iter().find(|o| contains_phrase(value, o)).map(|o| {
                        format!("the right answer {value:?} names the wrong candidate {o:?}")
                    })
                }
            }
            _ => None,
        }
    }

    pub fn holds(&self, answer: &str) -> bool {
        match self {
            AnswerCheck::Matches { value } => contains_phrase(answer, value),
            AnswerCheck::Names { value, others } => {
                contains_phrase(answer, value) && !others.iter().any(|o| contains_phrase(answer, o))
            }
            AnswerCheck::OnlyNumber { value, tolerance } => {
                let numbers = numbers_in(answer);
                !numbers.is_empty()
                    && numbers
                        .iter()
                        .all(|n| (n - value).abs() <= *tolerance + 1e-9)
            }
            AnswerCheck::Number { value, tolerance } => {
                let mut numbers = numbers_in(answer);
                numbers.sort_by(f64::total_cmp);
                numbers.dedup();
                numbers.len() <= 3
                    && numbers
                        .iter()
                        .any(|n| (n - value).abs() <= *tolerance + 1e-9)
            }
        }
    }
}

/// Whether the normalised `answer` holds the normalised `phrase` as whole words ("Park run
/// (rain plan)" holds "RAIN  plan"); an empty phrase is held by nothing. Answer checks and the
/// servers' `contains` predicates share it.
pub fn contains_phrase(answer: &str, phrase: &str) -> bool {
    let want = normalize_answer(phrase);
    let have = normalize_answer(answer);
    !want.is_empty() && format!(" {have} ").contains(&format!(" {want} "))
}

/// Lower case, punctuation at word edges dropped, thousands separators removed from numbers,
/// trailing zeros of decimals dropped, white space folded: "The total is $1,250.50." and
/// "the total is 1250.5" compare equal.
pub fn normalize_answer(text: &str) -> String {
    text.split_whitespace()
        .map(|word| {
            let word = word.to_lowercase();
            let trimmed = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '/');
            let trimmed = trimmed.trim_start_matches(['$', '€', '£']);
            match parse_number(trimmed) {
                Some(n) => format_number(n),
                None => trimmed.to_string(),
            }
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn parse_number(word: &str) -> Option<f64> {
    let cleaned: String = word.chars().filter(|&c| c != ',').collect();
    if cleaned.is_empty() || !cleaned.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    if !cleaned
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
    {
        return None;
    }
    cleaned.parse::<f64>().ok().filter(|n| n.is_finite())
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        let s = format!("{n:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The numbers an answer states, one per word: "63°F" and "$1,250.50" count, dates and
/// clock times ("2026-03-04", "13:30") do not, since they restate the question.
fn numbers_in(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .filter_map(|word| {
            let word = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '$');
            let word = word.trim_start_matches(['$', '€', '£']);
            let inner = word.trim_start_matches('-');
            let looks_like_date = inner.contains(|c: char| c.is_ascii_digit())
                && inner
                    .split(['-', '/', ':'])
                    .filter(|p| !p.is_empty())
                    .count()
                    > 1;
            if looks_like_date {
                return None;
            }
            let end = word
                .char_indices()
                .find(|&(i, c)| {
                    !(c.is_ascii_digit() || c == '.' || c == ',' || (i == 0 && c == '-'))
                })
                .map_or(word.len(), |(i, _)| i);
            parse_number(word[..end].trim_end_matches(['.', ',']))
        })
        .collect()
}

impl<A: Serialize> Serialize for Pred<A> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Pred::All(ps) => single(s, "all", ps),
            Pred::Any(ps) => single(s, "any", ps),
            Pred::Not(p) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("not", p)?;
                m.end()
            }
            Pred::Answer(c) => c.serialize(s),
            Pred::Atom(a) => a.serialize(s),
        }
    }
}

fn single<S: Serializer, T: Serialize>(s: S, key: &str, value: &T) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(1))?;
    m.serialize_entry(key, value)?;
    m.end()
}

impl<'de, A: DeserializeOwned> Deserialize<'de> for Pred<A> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Pred::from_value(value).map_err(D::Error::custom)
    }
}

impl<A: DeserializeOwned> Pred<A> {
    fn from_value(value: Value) -> Result<Self, String> {
        let Value::Object(map) = value else {
            return Err(format!(
                "a predicate is an object with one key, found {}",
                kind(&value)
            ));
        };
        if map.len() != 1 {
            let keys: Vec<&String> = map.keys().collect();
            return Err(format!("a predicate has exactly one key, found {keys:?}"));
        }
        let (key, inner) = map.into_iter().next().expect("one entry");
        let list = |inner: Value| -> Result<Vec<Pred<A>>, String> {
            let Value::Array(items) = inner else {
                return Err(format!("`{key}` takes a list of predicates"));
            };
            if items.is_empty() {
                return Err(format!("`{key}` needs at least one predicate"));
            }
            items
                .into_iter()
                .enumerate()
                .map(|(i, p)| Pred::from_value(p).map_err(|e| format!("{key}[{i}]: {e}")))
                .collect()
        };
        match key.as_str() {
            "all" => Ok(Pred::All(list(inner)?)),
            "any" => Ok(Pred::Any(list(inner)?)),
            "not" => Ok(Pred::Not(Box::new(
                Pred::from_value(inner).map_err(|e| format!("not: {e}"))?,
            ))),
            k if k.starts_with("answer.") => {
                let mut m = Map::new();
                m.insert(key.clone(), inner);
                serde_json::from_value(Value::Object(m))
                    .map(Pred::Answer)
                    .map_err(|e| e.to_string())
            }
            _ => {
                let mut m = Map::new();
                m.insert(key.clone(), inner);
                serde_json::from_value(Value::Object(m))
                    .map(Pred::Atom)
                    .map_err(|e| e.to_string())
            }
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

impl<A: JsonSchema> JsonSchema for Pred<A> {
    fn schema_name() -> Cow<'static, str> {
        format!("Predicate_{}", A::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let me = generator.subschema_for::<Self>();
        let answer = generator.subschema_for::<AnswerCheck>();
        let atom = generator.subschema_for::<A>();
        let list = json_schema!({ "type": "array", "minItems": 1, "items": me });
        json_schema!({
            "description": "A success predicate: `all` / `any` / `not` over server-namespaced atoms and answer checks.",
            "oneOf": [
                { "type": "object", "properties": { "all": list }, "required": ["all"], "additionalProperties": false },
                { "type": "object", "properties": { "any": list }, "required": ["any"], "additionalProperties": false },
                { "type": "object", "properties": { "not": me }, "required": ["not"], "additionalProperties": false },
                answer,
                atom
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    enum Toy {
        #[serde(rename = "toy.isOn")]
        IsOn { name: String },
    }

    #[test]
    fn trees_round_trip_and_evaluate() {
        let json = serde_json::json!({"all": [
            {"toy.isOn": {"name": "a"}},
            {"not": {"toy.isOn": {"name": "b"}}},
            {"any": [{"answer.matches": {"value": "Paris"}}, {"answer.number": {"value": 3.5, "tolerance": 0.5}}]}
        ]});
        let p: Pred<Toy> = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(serde_json::to_value(&p).unwrap(), json);
        let on = |t: &Toy| matches!(t, Toy::IsOn { name } if name == "a");
        assert!(p.eval(Some("It is paris."), &mut { on }));
        assert!(!p.eval(Some("It is Lyon."), &mut { on }));
        assert!(!p.eval(None, &mut { on }));
    }

    #[test]
    fn unmet_names_the_failing_part_exactly_when_the_tree_is_false() {
        let json = serde_json::json!({"all": [
            {"toy.isOn": {"name": "a"}},
            {"not": {"toy.isOn": {"name": "b"}}},
            {"any": [{"answer.matches": {"value": "Paris"}}, {"answer.number": {"value": 3.5, "tolerance": 0.5}}]}
        ]});
        let p: Pred<Toy> = serde_json::from_value(json).unwrap();
        let cases: [(&[&str], Option<&str>, Option<&str>); 6] = [
            (&["a"], Some("Paris"), None),
            (&["a"], Some("about 3.4"), None),
            (
                &[],
                Some("Paris"),
                Some(r#"{"toy.isOn":{"name":"a"}} is false"#),
            ),
            (
                &["a", "b"],
                Some("Paris"),
                Some(r#"{"toy.isOn":{"name":"b"}} holds, and must not"#),
            ),
            (
                &["a"],
                Some("Lyon, 7"),
                Some(
                    "none of these holds: the answer does not contain \"Paris\"; the answer \
                     does not state a number within 0.5 of 3.5",
                ),
            ),
            (
                &["a"],
                None,
                Some(
                    r#"none of these holds: no answer was given ({"answer.matches":{"value":"Paris"}} expected); no answer"#,
                ),
            ),
        ];
        for (on, answer, want) in cases {
            let mut atom = |t: &Toy| matches!(t, Toy::IsOn { name } if on.contains(&name.as_str()));
            let why = p.unmet(answer, &mut atom);
            assert_eq!(
                why.is_none(),
                p.eval(answer, &mut atom),
                "{on:?} {answer:?}"
            );
            match want {
                Some(want) => assert!(why.as_deref().unwrap().starts_with(want), "{why:?}"),
                None => assert_eq!(why, None),
            }
        }
        let exact = AnswerCheck::Number {
            value: 1.0,
            tolerance: 0.0,
        };
        assert_eq!(exact.unmet("2"), "the answer does not state 1");
        assert_eq!(
            exact.unmet("1 2 3 4"),
            "the answer states 4 numbers (at most three count); it must state 1"
        );
        let long = Pred::Atom(Toy::IsOn {
            name: "x".repeat(5_000),
        });
        let why = long.unmet(None, &mut |_| false).unwrap();
        assert!(why.chars().count() <= UNMET_CHARS + 1, "{}", why.len());
    }

    #[test]
    fn unknown_atoms_and_bad_arguments_are_load_errors() {
        let bad = [
            serde_json::json!({"toy.isOff": {"name": "a"}}),
            serde_json::json!({"toy.isOn": {"nme": "a"}}),
            serde_json::json!({"toy.isOn": {"name": 3}}),
            serde_json::json!({"all": []}),
            serde_json::json!({"all": [1]}),
            serde_json::json!({"answer.matches": {"value": "x", "extra": 1}}),
            serde_json::json!({"toy.isOn": {"name": "a"}, "all": []}),
        ];
        for b in bad {
            let r: Result<Pred<Toy>, _> = serde_json::from_value(b.clone());
            assert!(r.is_err(), "{b} should not load");
        }
    }

    #[test]
    fn answers_normalise_numbers_case_and_punctuation() {
        let m = AnswerCheck::Matches {
            value: "1250.50".into(),
        };
        assert!(m.holds("The total is $1,250.5."));
        assert!(!m.holds("The total is 11250.5"));
        let m = AnswerCheck::Matches {
            value: "Ada Lovelace".into(),
        };
        assert!(m.holds("It was ADA lovelace!"));
        assert!(!m.holds("It was Ada Lovelaces"));
        let n = AnswerCheck::Number {
            value: 12.5,
            tolerance: 0.1,
        };
        assert!(n.holds("About 12.55 degrees"));
        assert!(!n.holds("About 13 degrees"));
        assert!(
            !n.holds("1 2 3 4 12.5"),
            "listing many numbers does not pass"
        );
        assert!(
            AnswerCheck::Number {
                value: -4.0,
                tolerance: 0.0
            }
            .holds("-4 C")
        );
        let high = AnswerCheck::Number {
            value: 63.0,
            tolerance: 0.0,
        };
        assert!(high.holds("The high in Lisbon on 2026-03-04 at 13:00 will be 63°F."));
        assert!(!high.holds("The high in Lisbon on 2026-03-04 will be 64°F."));
    }
}
