//! Wordings: text with slots and choices, so that a family words its goals many ways.
//!
//! - `{expr}` inserts the value of a jq expression (a string as it is, a number as JSON
//!   writes it);
//! - `[a|b|c]` is one of its alternatives, drawn from the family's stream; alternatives nest,
//!   and an empty one makes the rest optional (`[please |]`);
//! - `\{`, `\}`, `\[`, `\]`, `\|` and `\\` stand for the character itself.
//!
//! A choice draws only when it is rendered, first to last, so one wording's choices never move
//! another's.

use crate::expr::{Expr, ExprError, Exprs, to_text};
use jaq_json::Val;
use mcpbench_sim::Rng;

/// A parsed wording.
#[derive(Clone, Debug)]
pub struct Wording(Vec<Piece>);

#[derive(Clone, Debug)]
enum Piece {
    Text(String),
    Slot(Expr),
    Choice(Vec<Vec<Piece>>),
}

/// A wording as its reader sees it: text, slots (by their expression's source) and choices.
/// What a script written against a family knows of its goals.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Text(String),
    Slot(String),
    Choice(Vec<Vec<Shape>>),
    /// A slot that only repeats a text a `wording` step drew (`{$text}`), with that step's
    /// wordings ([`crate::Family::goal_shapes`]): the whole text is the name's value, and its
    /// own slots hold the values it was drawn from.
    Drawn(String, Vec<Vec<Shape>>),
}

fn shape(pieces: &[Piece]) -> Vec<Shape> {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => Shape::Text(t.clone()),
            Piece::Slot(e) => Shape::Slot(e.source().to_string()),
            Piece::Choice(alts) => Shape::Choice(alts.iter().map(|a| shape(a)).collect()),
        })
        .collect()
}

/// Why a wording did not parse or render.
#[derive(Debug, thiserror::Error)]
pub enum WordingError {
    #[error("{0}")]
    Syntax(String),
    #[error("slot {{{code}}} {error}")]
    Slot { code: String, error: ExprError },
}

impl Wording {
    /// Parses `text`, adding every slot to `exprs` as written where `scope` is bound (`at`
    /// names the wording in errors).
    pub fn parse(
        text: &str,
        scope: &[String],
        exprs: &mut Exprs,
        at: &str,
    ) -> Result<Self, WordingError> {
        let chars: Vec<char> = text.chars().collect();
        let mut parser = Parser {
            chars: &chars,
            at: 0,
            scope,
            exprs,
            place: at,
        };
        let pieces = parser.sequence(false)?;
        match parser.peek() {
            None => Ok(Wording(pieces)),
            Some(c) => Err(WordingError::Syntax(format!(
                "unexpected {c:?} at character {}; a literal one is written \\{c}",
                parser.at
            ))),
        }
    }

    /// The wording's shape.
    pub fn shape(&self) -> Vec<Shape> {
        shape(&self.0)
    }

    /// Every slot's expression, in every choice.
    pub fn slots(&self) -> Vec<&Expr> {
        fn walk<'a>(pieces: &'a [Piece], out: &mut Vec<&'a Expr>) {
            for p in pieces {
                match p {
                    Piece::Text(_) => {}
                    Piece::Slot(e) => out.push(e),
                    Piece::Choice(alts) => alts.iter().for_each(|a| walk(a, out)),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.0, &mut out);
        out
    }

    /// Renders the wording with the values of `scope`, drawing its choices from `rng`.
    pub fn render(&self, scope: &[Val], rng: &mut Rng) -> Result<String, WordingError> {
        let mut out = String::new();
        render(&self.0, scope, rng, &mut out)?;
        Ok(out)
    }
}

fn render(
    pieces: &[Piece],
    scope: &[Val],
    rng: &mut Rng,
    out: &mut String,
) -> Result<(), WordingError> {
    for piece in pieces {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Slot(e) => {
                let text = e.eval(scope).and_then(|v| to_text(&v)).map_err(|error| {
                    WordingError::Slot {
                        code: e.source().to_string(),
                        error,
                    }
                })?;
                out.push_str(&text);
            }
            Piece::Choice(alts) => {
                let k = rng.below(alts.len() as u64) as usize;
                render(&alts[k], scope, rng, out)?;
            }
        }
    }
    Ok(())
}

struct Parser<'a> {
    chars: &'a [char],
    at: usize,
    scope: &'a [String],
    exprs: &'a mut Exprs,
    /// The wording's place, for errors.
    place: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// Pieces up to the end, or (inside a choice) up to its `|` or `]`.
    fn sequence(&mut self, in_choice: bool) -> Result<Vec<Piece>, WordingError> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        while let Some(c) = self.peek() {
            match c {
                '\\' => {
                    let next = self.chars.get(self.at + 1).copied();
                    match next {
                        Some(e @ ('{' | '}' | '[' | ']' | '|' | '\\')) => {
                            text.push(e);
                            self.at += 2;
                        }
                        _ => {
                            return Err(WordingError::Syntax(format!(
                                "a backslash at character {} escapes one of {{ }} [ ] | \\",
                                self.at
                            )));
                        }
                    }
                }
                '{' => {
                    flush(&mut text, &mut pieces);
                    pieces.push(self.slot()?);
                }
                '[' => {
                    flush(&mut text, &mut pieces);
                    pieces.push(self.choice()?);
                }
                '|' | ']' if in_choice => break,
                '|' | ']' | '}' => {
                    return Err(WordingError::Syntax(format!(
                        "unexpected {c:?} at character {}; a literal one is written \\{c}",
                        self.at
                    )));
                }
                _ => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
        flush(&mut text, &mut pieces);
        Ok(pieces)
    }

    fn choice(&mut self) -> Result<Piece, WordingError> {
        let open = self.at;
        self.at += 1;
        let mut alts = vec![self.sequence(true)?];
        loop {
            match self.peek() {
                Some('|') => {
                    self.at += 1;
                    alts.push(self.sequence(true)?);
                }
                Some(']') => {
                    self.at += 1;
                    return Ok(Piece::Choice(alts));
                }
                _ => {
                    return Err(WordingError::Syntax(format!(
                        "the choice opened at character {open} is not closed with ]"
                    )));
                }
            }
        }
    }

    fn slot(&mut self) -> Result<Piece, WordingError> {
        let open = self.at;
        let end = code_end(self.chars, open + 1, '}').ok_or_else(|| {
            WordingError::Syntax(format!(
                "the slot opened at character {open} is not closed with }}"
            ))
        })?;
        let source: String = self.chars[open + 1..end].iter().collect();
        self.at = end + 1;
        if source.trim().is_empty() {
            return Err(WordingError::Syntax(format!(
                "the slot at character {open} is empty"
            )));
        }
        let at = format!("{}: slot {{{source}}}", self.place);
        Ok(Piece::Slot(self.exprs.add(&source, self.scope, &at)))
    }
}

fn flush(text: &mut String, pieces: &mut Vec<Piece>) {
    if !text.is_empty() {
        pieces.push(Piece::Text(std::mem::take(text)));
    }
}

/// Where the jq code starting at `from` ends: the index of the `close` that balances it,
/// skipping brackets inside strings (and the code inside their `\(...)`).
fn code_end(chars: &[char], from: usize, close: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            '"' => i = string_end(chars, i + 1)?,
            '{' | '(' | '[' => depth += 1,
            c @ ('}' | ')' | ']') => {
                if depth == 0 {
                    return (c == close).then_some(i);
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote closing the jq string whose text starts at `from`.
fn string_end(chars: &[char], from: usize) -> Option<usize> {
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            '\\' if chars.get(i + 1) == Some(&'(') => i = code_end(chars, i + 2, ')')?,
            '\\' => i += 1,
            '"' => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::from_json;
    use serde_json::json;

    /// Parses `text` and compiles its slots.
    fn parsed(text: &str, names: &[String]) -> Result<Wording, String> {
        let mut exprs = Exprs::new("");
        let w = Wording::parse(text, names, &mut exprs, "w").map_err(|e| e.to_string())?;
        exprs.finish().map_err(|p| p.join("; "))?;
        Ok(w)
    }

    fn scope() -> (Vec<String>, Vec<Val>) {
        (
            vec!["name".into(), "n".into()],
            vec![from_json(&json!("Ada")), from_json(&json!(3))],
        )
    }

    #[test]
    fn renders_slots_and_choices() {
        let (names, vals) = scope();
        let w = parsed(
            "[Please |Could you ]send {$name} {$n * 2} [apples|pears|{ {a: $n}.a } plums].",
            &names,
        )
        .unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for s in 0..200 {
            seen.insert(w.render(&vals, &mut Rng::new(s, 0)).unwrap());
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
        assert!(seen.contains("Please send Ada 6 3 plums."), "{seen:?}");
    }

    #[test]
    fn slots_hold_jq_with_braces_and_strings() {
        let (names, vals) = scope();
        let w = parsed(r#"{ "}\($name)}" } and \{literal\}"#, &names).unwrap();
        assert_eq!(
            w.render(&vals, &mut Rng::new(1, 1)).unwrap(),
            "}Ada} and {literal}"
        );
    }

    #[test]
    fn errors_say_where() {
        let (names, vals) = scope();
        for (text, want) in [
            ("[a|b", "not closed"),
            ("{ $name", "not closed"),
            ("a ] b", "unexpected"),
            ("{}", "empty"),
            ("{ $other }", "$other"),
            ("a \\x", "backslash"),
        ] {
            let e = parsed(text, &names).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
        let w = parsed("{ [1] }", &names).unwrap();
        let e = w
            .render(&vals, &mut Rng::new(0, 0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("string or a number"), "{e}");
    }
}
