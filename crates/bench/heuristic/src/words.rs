//! Words: the goal's content words, crudely stemmed, and how well a tool's name and
//! description match them.

use crate::ToolInfo;
use std::collections::BTreeSet;

/// Words that say nothing about which tool to pick.
const STOP: &[&str] = &[
    "a",
    "about",
    "according",
    "after",
    "again",
    "all",
    "also",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "both",
    "but",
    "by",
    "can",
    "could",
    "d",
    "did",
    "do",
    "does",
    "each",
    "either",
    "else",
    "every",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "here",
    "his",
    "how",
    "i",
    "if",
    "im",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "ll",
    "may",
    "me",
    "might",
    "must",
    "my",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "on",
    "once",
    "one",
    "only",
    "onto",
    "or",
    "our",
    "out",
    "over",
    "s",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "still",
    "t",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "too",
    "under",
    "up",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "yet",
    "you",
    "your",
];

/// The first word of a tool's own name that marks it as one that only reads.
const READ_VERBS: &[&str] = &[
    "list", "get", "search", "read", "find", "query", "describe", "count", "explain", "open",
    "show", "view", "lookup", "geocode", "fetch", "check",
];

/// A crude stem: common English endings cut off, so that "folders" meets "folder" and
/// "declined" meets "decline".
pub(crate) fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    let n = w.len();
    let cut = |suffix: &str, min: usize| w.ends_with(suffix) && n >= min + suffix.len();
    let base = if cut("ies", 2) {
        format!("{}y", &w[..n - 3])
    } else if cut("ing", 3) {
        w[..n - 3].to_string()
    } else if cut("ed", 3) || cut("es", 3) {
        w[..n - 2].to_string()
    } else if cut("s", 3) && !w.ends_with("ss") {
        w[..n - 1].to_string()
    } else {
        w
    };
    match base.strip_suffix('e') {
        Some(b) if b.len() >= 3 => b.to_string(),
        _ => base,
    }
}

/// Splits on anything not a letter or digit, and between a lower-case letter and an
/// upper-case one (`calendarId` is `calendar`, `Id`).
pub(crate) fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The stems of the content words of `text`: lower-cased, stop words and bare numbers left
/// out.
pub(crate) fn content_stems(text: &str) -> BTreeSet<String> {
    split(text)
        .into_iter()
        .filter(|w| !STOP.contains(&w.as_str()) && !w.chars().all(|c| c.is_ascii_digit()))
        .map(|w| stem(&w))
        .collect()
}

/// How well a tool matches the goal's stems: three points for each stem in its name (server
/// included), one for each other stem in its description or its parameters' names.
pub(crate) fn score(tool: &ToolInfo, goal: &BTreeSet<String>) -> u32 {
    let name = content_stems(&tool.name);
    let mut description = content_stems(&tool.description);
    if let Some(props) = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
    {
        description.extend(props.keys().flat_map(|k| content_stems(k)));
    }
    goal.iter()
        .map(|w| {
            if name.contains(w) {
                3
            } else {
                u32::from(description.contains(w))
            }
        })
        .sum()
}

/// The tool's own name, without its server (`slack.slack_post_message` is `post_message`).
fn own_words(name: &str) -> Vec<String> {
    let (server, tool) = name.split_once('.').unwrap_or(("", name));
    let mut words = split(tool);
    if words.first().is_some_and(|w| w == server) {
        words.remove(0);
    }
    words
}

/// Whether the tool's name starts with a verb that only reads (`list_`, `get_`, `search_`).
pub(crate) fn is_read(tool: &ToolInfo) -> bool {
    own_words(&tool.name)
        .first()
        .is_some_and(|w| READ_VERBS.contains(&w.as_str()))
}

/// The tools that match at all, best first; ties go by name, so the order the tools were
/// listed in does not matter.
pub(crate) fn rank<'t>(tools: &'t [ToolInfo], goal: &BTreeSet<String>) -> Vec<&'t ToolInfo> {
    let mut scored: Vec<(u32, &ToolInfo)> = tools
        .iter()
        .map(|t| (score(t, goal), t))
        .filter(|(s, _)| *s > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    scored.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            description: description.into(),
            input_schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn stems_meet_across_endings() {
        assert_eq!(stem("folders"), stem("folder"));
        assert_eq!(stem("declined"), stem("Decline"));
        assert_eq!(stem("directories"), stem("directory"));
        assert_eq!(stem("messages"), stem("message"));
        assert_eq!(stem("creating"), stem("create"));
        assert_eq!(stem("class"), "class");
    }

    #[test]
    fn words_split_on_punctuation_and_case() {
        assert_eq!(
            split("slack.slack_post_message"),
            ["slack", "slack", "post", "message"]
        );
        assert_eq!(split("calendarId"), ["calendar", "id"]);
        assert_eq!(split("get-file_info"), ["get", "file", "info"]);
    }

    #[test]
    fn stop_words_and_numbers_say_nothing() {
        let s = content_stems("Make sure the folder /srv/reports/2024 exists, with its parents.");
        assert!(s.contains("folder") && s.contains("srv") && s.contains("parent"));
        assert!(!s.contains("the") && !s.contains("2024") && !s.contains("with"));
    }

    #[test]
    fn the_tool_whose_name_holds_the_goal_words_ranks_first() {
        let tools = [
            tool("fs.write_file", "Create a new file or overwrite one."),
            tool(
                "fs.create_directory",
                "Create a directory, with any missing parents.",
            ),
            tool("fs.list_directory", "List the entries of a directory."),
            tool("mail.send_email", "Send an email."),
        ];
        let goal = content_stems("Create the directory /a/b with its missing parent folders.");
        let ranked: Vec<&str> = rank(&tools, &goal)
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(
            ranked,
            ["fs.create_directory", "fs.list_directory", "fs.write_file"]
        );
    }

    #[test]
    fn reads_are_told_by_their_first_verb() {
        assert!(is_read(&tool("slack.slack_list_channels", "")));
        assert!(is_read(&tool("weather.get_forecast", "")));
        assert!(!is_read(&tool("slack.slack_post_message", "")));
        assert!(
            !is_read(&tool("email.mark_as_read", "")),
            "read is not its verb"
        );
    }
}
