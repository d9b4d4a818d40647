//! Goals read as a script reads them: each wording of each family a regular expression, built
//! from the wording's shape (`Family::goal_shapes`), so no wording is typed twice and a family
//! added to the public pack is recognised at once.

use mcpbench_pack::{Pack, Shape};
use regex::Regex;

/// A goal recognised as a family's, with the text each slot of the matching wording holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Recognition {
    pub family: String,
    /// `(the slot's expression, the text it holds)`, in the wording's order; slots of choices
    /// not taken are left out.
    pub slots: Vec<(String, String)>,
}

impl Recognition {
    /// The text the first slot written `source` holds (`"$p.title"`).
    pub fn slot(&self, source: &str) -> Option<&str> {
        self.slots
            .iter()
            .find(|(s, _)| s == source)
            .map(|(_, text)| text.as_str())
    }
}

struct Wording {
    regex: Regex,
    /// The expression of each capture group, in group order (group `k + 1`).
    slots: Vec<String>,
}

/// Every wording of every family of a pack, as regular expressions.
pub struct Recognizer {
    families: Vec<(String, Vec<Wording>)>,
}

impl Recognizer {
    /// The recognizer of `pack`'s families. A wording with too little text of its own to tell
    /// it apart (a goal computed whole by an expression: `{$text}`), or whose expression the
    /// regex engine refuses (too large), is left out.
    pub fn new(pack: &Pack) -> Self {
        let families = pack
            .families
            .iter()
            .map(|f| {
                let wordings = (f.family.goal_shapes().iter())
                    .filter(|shape| literal_chars(shape) >= MIN_TEXT)
                    .filter_map(|shape| {
                        let mut slots = Vec::new();
                        let choices = |source: &str| f.family.slot_choices(source);
                        let pattern = format!("(?s)^{}$", pattern(shape, &choices, &mut slots));
                        Regex::new(&pattern)
                            .ok()
                            .map(|regex| Wording { regex, slots })
                    })
                    .collect();
                (f.family.id.clone(), wordings)
            })
            .collect();
        Self { families }
    }

    /// Every family one of whose wordings matches `goal` whole, with its slots' texts.
    pub fn recognize(&self, goal: &str) -> Vec<Recognition> {
        let mut out = Vec::new();
        for (family, wordings) in &self.families {
            for w in wordings {
                if let Some(caps) = w.regex.captures(goal) {
                    let slots = (w.slots.iter().enumerate())
                        .filter_map(|(k, source)| {
                            caps.get(k + 1)
                                .map(|m| (source.clone(), m.as_str().to_string()))
                        })
                        .collect();
                    out.push(Recognition {
                        family: family.clone(),
                        slots,
                    });
                    break;
                }
            }
        }
        out
    }
}

/// The texts a slot can hold, when the family's constants give them all.
type Choices<'a> = dyn Fn(&str) -> Option<Vec<String>> + 'a;

/// The least text of its own (outside its slots, in the shortest choices) a wording needs to
/// be told apart from others.
const MIN_TEXT: usize = 12;

/// The characters of a shape's own text, taking the shortest alternative of each choice.
fn literal_chars(shape: &[Shape]) -> usize {
    shape
        .iter()
        .map(|piece| match piece {
            Shape::Text(t) => t.chars().filter(|c| !c.is_whitespace()).count(),
            Shape::Slot(_) => 0,
            Shape::Choice(alts) | Shape::Drawn(_, alts) => {
                alts.iter().map(|a| literal_chars(a)).min().unwrap_or(0)
            }
        })
        .sum()
}

/// A choice's alternatives, those with the most text of their own first: the regex tries
/// alternatives in order, and a bare slot (`{$day | cal_long}`) would take the text a more
/// specific one (`{$day | cal_date} ({$day | cal_weekday})`) is written in.
fn specific_first(alts: &[Vec<Shape>]) -> Vec<&Vec<Shape>> {
    let mut sorted: Vec<&Vec<Shape>> = alts.iter().collect();
    sorted.sort_by_key(|a| std::cmp::Reverse(literal_chars(a)));
    sorted
}

/// The regular expression of a shape: its text escaped, its choices as alternatives, its slots
/// as lazy captures, a drawn text captured whole around its own (each slot's expression pushed
/// on `slots`).
fn pattern(shape: &[Shape], choices: &Choices, slots: &mut Vec<String>) -> String {
    let mut out = String::new();
    for piece in shape {
        match piece {
            Shape::Text(t) => out.push_str(&regex::escape(t)),
            // A slot whose every text the family's constants give is one of them, the longest
            // first (an opener before the name that follows it is no longer a guess).
            Shape::Slot(source) => {
                slots.push(source.clone());
                match choices(source) {
                    Some(mut texts) if !texts.is_empty() => {
                        texts.sort_by_key(|t| std::cmp::Reverse(t.len()));
                        let texts: Vec<String> = texts.iter().map(|t| regex::escape(t)).collect();
                        out.push_str(&format!("({})", texts.join("|")));
                    }
                    _ => out.push_str("(.+?)"),
                }
            }
            Shape::Choice(alts) => {
                let alts: Vec<String> = (specific_first(alts).into_iter())
                    .map(|a| pattern(a, choices, slots))
                    .collect();
                out.push_str(&format!("(?:{})", alts.join("|")));
            }
            // The drawn text is captured whole, then its own slots inside it: a group's number
            // is the order of its opening parenthesis.
            Shape::Drawn(source, alts) => {
                slots.push(source.clone());
                let alts: Vec<String> = (specific_first(alts).into_iter())
                    .map(|a| pattern(a, choices, slots))
                    .collect();
                out.push_str(&format!("((?:{}))", alts.join("|")));
            }
        }
    }
    out
}
