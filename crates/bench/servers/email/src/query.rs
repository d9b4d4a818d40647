//! The Gmail-style search language of `search_emails`: `from:`, `to:`, `cc:`, `subject:`,
//! `label:`, `in:`, `is:read` / `is:unread`, `after:` / `before:` (dates, `after` inclusive,
//! `before` exclusive) and free words, all ANDed, case-insensitive, values quotable
//! (`subject:"Q3 budget"`). Without `in:`, everything except the trash is searched.

use crate::state::{Folder, Message};
use mcpbench_sim::ToolError;

#[derive(Debug, PartialEq)]
enum Term {
    From(String),
    To(String),
    Cc(String),
    Subject(String),
    Label(String),
    In(Option<Folder>),
    Read(bool),
    After(String),
    Before(String),
    Text(String),
}

/// A parsed query.
#[derive(Debug, PartialEq)]
pub(crate) struct Query {
    terms: Vec<Term>,
}

/// Splits on white space, keeping double-quoted parts (also after `key:`) together.
fn tokens(query: &str) -> Result<Vec<String>, ToolError> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in query.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if quoted {
        return Err(ToolError::invalid(format!(
            "unbalanced double quote in query {query:?}"
        )));
    }
    if !current.is_empty() {
        out.push(current);
    }
    Ok(out)
}

/// `2026/03/02` or `2026-03-02` as `2026-03-02`.
fn day(value: &str) -> Result<String, ToolError> {
    let v = value.replace('/', "-");
    let b = v.as_bytes();
    let ok = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if ok {
        Ok(v)
    } else {
        Err(ToolError::invalid(format!(
            "date {value:?} is not YYYY/MM/DD"
        )))
    }
}

impl Query {
    pub(crate) fn parse(query: &str) -> Result<Query, ToolError> {
        let mut terms = Vec::new();
        for token in tokens(query)? {
            let Some((key, value)) = token
                .split_once(':')
                .filter(|(k, _)| k.chars().all(|c| c.is_ascii_alphabetic()))
            else {
                terms.push(Term::Text(token.to_lowercase()));
                continue;
            };
            if value.is_empty() {
                return Err(ToolError::invalid(format!(
                    "search operator {key}: needs a value"
                )));
            }
            let v = value.to_lowercase();
            terms.push(match key.to_lowercase().as_str() {
                "from" => Term::From(v),
                "to" => Term::To(v),
                "cc" => Term::Cc(v),
                "subject" => Term::Subject(v),
                "label" => Term::Label(v),
                "in" if v == "anywhere" => Term::In(None),
                "in" => Term::In(Some(Folder::parse(&v).ok_or_else(|| {
                    ToolError::invalid(format!("in:{value} is not a folder (inbox, sent, drafts, archive, trash, anywhere)"))
                })?)),
                "is" if v == "read" => Term::Read(true),
                "is" if v == "unread" => Term::Read(false),
                "is" => return Err(ToolError::invalid(format!("is:{value} is not supported (is:read, is:unread)"))),
                "after" => Term::After(day(value)?),
                "before" => Term::Before(day(value)?),
                other => {
                    return Err(ToolError::invalid(format!(
                        "unknown search operator {other}: (known: from, to, cc, subject, label, in, is, after, before)"
                    )));
                }
            });
        }
        Ok(Query { terms })
    }

    pub(crate) fn matches(&self, m: &Message) -> bool {
        let has = |hay: &str, needle: &str| hay.to_lowercase().contains(needle);
        let any = |list: &[String], needle: &str| list.iter().any(|a| has(a, needle));
        let scoped = self.terms.iter().any(|t| matches!(t, Term::In(_)));
        if !scoped && m.folder == Folder::Trash {
            return false;
        }
        self.terms.iter().all(|t| match t {
            Term::From(v) => has(&m.from, v),
            Term::To(v) => any(&m.to, v),
            Term::Cc(v) => any(&m.cc, v),
            Term::Subject(v) => has(&m.subject, v),
            Term::Label(v) => m.labels.iter().any(|l| l.to_lowercase() == *v),
            Term::In(f) => f.is_none_or(|f| m.folder == f),
            Term::Read(r) => m.read == *r,
            Term::After(d) => m.date.get(..10).is_some_and(|x| x >= d.as_str()),
            Term::Before(d) => m.date.get(..10).is_some_and(|x| x < d.as_str()),
            Term::Text(v) => {
                has(&m.subject, v) || has(&m.body, v) || has(&m.from, v) || any(&m.to, v)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_stay_together() {
        let q = Query::parse(r#"from:ana subject:"Q3 budget" is:unread report"#).unwrap();
        assert_eq!(
            q.terms,
            vec![
                Term::From("ana".into()),
                Term::Subject("q3 budget".into()),
                Term::Read(false),
                Term::Text("report".into())
            ]
        );
    }

    #[test]
    fn bad_operators_are_named() {
        let e = Query::parse("fro:ana").unwrap_err();
        assert!(e.message.contains("fro"), "{e}");
        assert!(Query::parse("in:spam").is_err());
        assert!(Query::parse("after:March").is_err());
        assert!(Query::parse("subject:\"open").is_err());
    }
}
