//! The values a goal states, sorted by their look: quoted text, the text after a colon,
//! `#channels`, `/paths`, addresses, dates, times, numbers, `owner/name` pairs, the word
//! after "named", capitalised phrases and upper-case codes. Nothing here knows a server.

use crate::words::content_stems;
use std::collections::BTreeSet;

const WEEKDAYS_AND_MONTHS: &[&str] = &[
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// What a goal states, each kind in the order the goal gives it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    /// Text between `"`, `` ` `` or curly quotes.
    pub quoted: Vec<String>,
    /// The rest of the line after the first `": "` ("says exactly: <text>").
    pub tail: Option<String>,
    /// `#name`, without the `#`.
    pub channels: Vec<String>,
    pub paths: Vec<String>,
    pub emails: Vec<String>,
    /// `YYYY-MM-DD`.
    pub dates: Vec<String>,
    /// `HH:MM`.
    pub times: Vec<String>,
    /// Numbers as written, currency signs and `#` left off.
    pub numbers: Vec<String>,
    /// `owner/name` and other words with a slash inside.
    pub slashed: Vec<String>,
    /// The word after "named" or "called".
    pub named: Vec<String>,
    /// Runs of capitalised words, one `, Country`-like part joined on.
    pub phrases: Vec<String>,
    /// Upper-case words and codes: `OPS`, `BKP-274`, `SPRING10`.
    pub codes: Vec<String>,
    /// The content stems of the goal's own words (its values left out).
    pub stems: BTreeSet<String>,
    /// Whether the goal asks for an answer.
    pub question: bool,
}

impl Facts {
    pub(crate) fn of(goal: &str) -> Self {
        let mut f = Facts {
            quoted: quoted(goal),
            tail: tail(goal),
            ..Facts::default()
        };
        let mut after_name_word = false;
        for raw in goal.split_whitespace() {
            let t = trim(raw);
            if after_name_word && !t.is_empty() {
                f.named.push(t.to_string());
            }
            after_name_word = matches!(t.to_lowercase().as_str(), "named" | "called");
            f.classify(t);
        }
        f.phrases = phrases(&unquoted(goal));
        // What the goal asks is in its own words: the texts it quotes or hands over after a
        // colon, and the paths, addresses and names it gives, are values, not the request.
        let own = instruction(goal);
        f.stems = content_stems(&own);
        let lower = own.to_lowercase();
        let first = lower.split_whitespace().next().unwrap_or_default();
        f.question = lower.contains('?')
            || ["what", "which", "how", "when", "who", "where"].contains(&first)
            || lower.contains("reply with")
            || lower.contains("answer with");
        f
    }

    fn classify(&mut self, t: &str) {
        let is_date = |s: &str| {
            s.len() == 10
                && s.char_indices().all(|(i, c)| {
                    if i == 4 || i == 7 {
                        c == '-'
                    } else {
                        c.is_ascii_digit()
                    }
                })
        };
        let is_time = |s: &str| {
            s.split_once(':').is_some_and(|(h, m)| {
                (1..=2).contains(&h.len())
                    && m.len() == 2
                    && h.chars().chain(m.chars()).all(|c| c.is_ascii_digit())
            })
        };
        if let Some(name) = t.strip_prefix('#') {
            if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
                self.channels.push(name.to_string());
            } else {
                self.numbers.extend(numbers_in(name));
            }
        } else if t.starts_with('/') && t.len() > 1 {
            self.paths.push(t.to_string());
        } else if t.contains('@') && t.contains('.') && !t.starts_with('@') {
            self.emails.push(t.to_string());
        } else if is_date(t) {
            self.dates.push(t.to_string());
        } else if is_time(t) {
            self.times.push(t.to_string());
        } else if t.contains('/') && !t.ends_with('/') {
            self.slashed.push(t.to_string());
        } else if is_code(t) {
            self.codes.push(t.to_string());
        } else {
            self.numbers.extend(numbers_in(t));
        }
    }
}

/// A token without the punctuation around it (and without a possessive `'s`).
fn trim(raw: &str) -> &str {
    let t = raw
        .trim_start_matches(|c: char| "(\"'`“‘[".contains(c))
        .trim_end_matches(|c: char| ".,;:!?)\"'`”’]".contains(c));
    t.strip_suffix("'s")
        .or_else(|| t.strip_suffix("’s"))
        .unwrap_or(t)
}

/// Upper-case letters (at least one), digits and dashes, two characters or more.
fn is_code(t: &str) -> bool {
    t.len() >= 2
        && t.chars().any(|c| c.is_ascii_uppercase())
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The numbers inside a token that starts like a number: `€19.90` is 19.90, `60-minute` is
/// 60, `15%` is 15; `v1.15` and `ops-25` hold none.
fn numbers_in(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !t.starts_with(|c: char| c.is_ascii_digit() || "-+€$£".contains(c)) {
        return out;
    }
    let mut cur = String::new();
    let chars: Vec<char> = t.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let digit_next = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit()
            || (c == '.' && !cur.is_empty() && digit_next)
            || (c == '-' && cur.is_empty() && i == 0 && digit_next)
        {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

const QUOTES: [(char, char); 3] = [('"', '"'), ('`', '`'), ('“', '”')];

fn quoted(goal: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<(char, String)> = None;
    for c in goal.chars() {
        match &mut open {
            Some((close, text)) if c == *close => {
                if !text.trim().is_empty() {
                    out.push(text.trim().to_string());
                }
                open = None;
            }
            Some((_, text)) => text.push(c),
            None => {
                if let Some((_, close)) = QUOTES.iter().find(|(o, _)| *o == c) {
                    open = Some((*close, String::new()));
                }
            }
        }
    }
    out
}

/// The goal with its quoted parts cut out (a break in their place).
fn unquoted(goal: &str) -> String {
    let mut out = String::new();
    let mut close: Option<char> = None;
    for c in goal.chars() {
        match close {
            Some(x) if c == x => {
                close = None;
                out.push_str(" | ");
            }
            Some(_) => {}
            None => match QUOTES.iter().find(|(o, _)| *o == c) {
                Some((_, x)) => close = Some(*x),
                None => out.push(c),
            },
        }
    }
    out
}

/// The goal without its quoted parts, the text after its first colon on that line, and the
/// tokens that are values (`/paths`, addresses, `#channels`, `owner/name`).
fn instruction(goal: &str) -> String {
    let text = unquoted(goal);
    let text = match text.split_once(": ") {
        Some((before, after)) => {
            let rest = after.split_once('\n').map_or("", |(_, rest)| rest);
            format!("{before}\n{rest}")
        }
        None => text,
    };
    text.split_whitespace()
        .filter(|raw| !trim(raw).contains(['/', '@', '#']))
        .collect::<Vec<_>>()
        .join(" ")
}

fn tail(goal: &str) -> Option<String> {
    let (_, rest) = goal.split_once(": ")?;
    let line = rest.lines().next().unwrap_or_default().trim();
    let line = line.trim_matches(|c| c == '`' || c == '"');
    (!line.is_empty()).then(|| line.to_string())
}

/// Runs of capitalised words that do not open a sentence: `Ada Park`, `Berlin, Germany`
/// (one comma part is joined on), never a weekday or a month.
fn phrases(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut joined = false;
    let mut sentence_start = true;
    let mut flush = |cur: &mut Vec<String>, joined: &mut bool| {
        if !cur.is_empty() {
            out.push(cur.join(" "));
            cur.clear();
        }
        *joined = false;
    };
    for raw in text.split_whitespace() {
        let t = trim(raw);
        let capital = t.starts_with(|c: char| c.is_uppercase())
            && t.chars().any(|c| c.is_lowercase())
            && !WEEKDAYS_AND_MONTHS.contains(&t)
            && !t.contains(['\'', '’', '/', '@', '#']);
        if capital && !sentence_start {
            cur.push(t.to_string());
        } else {
            flush(&mut cur, &mut joined);
        }
        let ends = raw.trim_end_matches(['"', ')', '`', '”']);
        sentence_start = ends.ends_with(['.', '?', '!', ':']);
        if ends.ends_with(',') && !cur.is_empty() {
            if joined {
                flush(&mut cur, &mut joined);
            } else {
                // `Berlin, Germany`: the next capitalised word joins this phrase.
                let last = cur.pop().unwrap_or_default();
                cur.push(format!("{last},"));
                joined = true;
            }
        } else if !capital || sentence_start || ends.ends_with([';', ')']) {
            flush(&mut cur, &mut joined);
        }
    }
    flush(&mut cur, &mut joined);
    out.into_iter()
        .map(|p| p.trim_end_matches(',').to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_sorted_by_their_look() {
        let f = Facts::of(
            "Email the report in /home/alex/reports/status.txt to sam.okafor@contoso.com with \
             the subject \"Falcon status\" by 2026-03-17 at 11:30, then post in #eng-backend.",
        );
        assert_eq!(f.paths, ["/home/alex/reports/status.txt"]);
        assert_eq!(f.emails, ["sam.okafor@contoso.com"]);
        assert_eq!(f.quoted, ["Falcon status"]);
        assert_eq!(f.dates, ["2026-03-17"]);
        assert_eq!(f.times, ["11:30"]);
        assert_eq!(f.channels, ["eng-backend"]);
        assert!(!f.question);
        assert!(f.stems.contains("subject") && f.stems.contains("post"));
        for value in ["falcon", "home", "alex", "sam", "eng"] {
            assert!(
                !f.stems.contains(value),
                "{value} is a value, not a request"
            );
        }
    }

    #[test]
    fn the_tail_after_a_colon_is_the_text_to_send() {
        let f = Facts::of("Change the topic of #deploys to exactly: On-call this week: Kofi");
        assert_eq!(f.tail.as_deref(), Some("On-call this week: Kofi"));
        let f = Facts::of("Post this in #a: Reminder at 19:00 today\nIf #a is archived, stop.");
        assert_eq!(f.tail.as_deref(), Some("Reminder at 19:00 today"));
        assert_eq!(Facts::of("Nothing here at 12:00.").tail, None);
        let f = Facts::of("Send it with exactly this body: Can you confirm? Thanks.");
        assert!(
            !f.question,
            "a question mark in the text to send asks nothing"
        );
    }

    #[test]
    fn numbers_codes_names_and_pairs() {
        let f = Facts::of(
            "Close issue #3 in acme/billing, set SKU BKP-274 to €19.90 for 15% off in a \
             60-minute slot, and create a channel named ops-harbor-25.",
        );
        assert_eq!(f.numbers, ["3", "19.90", "15", "60"]);
        assert_eq!(f.codes, ["SKU", "BKP-274"]);
        assert_eq!(f.slashed, ["acme/billing"]);
        assert_eq!(f.named, ["ops-harbor-25"]);
    }

    #[test]
    fn capitalised_phrases_skip_sentence_starts_dates_and_quotes() {
        let f = Facts::of(
            "What is the air quality in Berlin, Germany on Friday 27 March? Assign \"Fix Login\" \
             to Omar Haddad. Which of Osaka, Japan, Mumbai, India or Mexico City, Mexico is dry?",
        );
        assert_eq!(
            f.phrases,
            [
                "Berlin, Germany",
                "Omar Haddad",
                "Osaka, Japan",
                "Mumbai, India",
                "Mexico City, Mexico"
            ]
        );
        assert!(f.question);
    }
}
