//! `email.*` predicate atoms. Addresses compare case-insensitively (and as sets where a list
//! is matched); subjects and bodies compare exactly, except in `email.sentCount`, whose texts
//! compare normalised (as answers do) by containment.

use crate::state::{Email, Folder, Message, Outgoing};
use mcpbench_sim::normalize_answer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all_fields = "camelCase")]
pub enum Atom {
    /// A message in the sent folder went to exactly the addresses `to` (and exactly `cc` when
    /// given) with exactly `subject`; its body equals `body` / contains `bodyContains` when
    /// given; it is in the same thread as message `threadOf` when given.
    #[serde(rename = "email.sent")]
    Sent {
        to: Vec<String>,
        subject: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cc: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body_contains: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thread_of: Option<String>,
    },
    /// A draft addressed to exactly `to` with exactly `subject` exists (body checked likewise).
    #[serde(rename = "email.draftExists")]
    DraftExists {
        to: Vec<String>,
        subject: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body_contains: Option<String>,
    },
    /// The drafts folder holds exactly `count` drafts, counting only those with `to` among
    /// their recipients when it is given: a guard against a draft saved twice.
    #[serde(rename = "email.draftCount")]
    DraftCount {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<String>,
        count: u32,
    },
    /// Message `id` exists and is in `folder`.
    #[serde(rename = "email.inFolder")]
    InFolder { id: String, folder: Folder },
    /// Message `id` exists and is read.
    #[serde(rename = "email.isRead")]
    IsRead { id: String },
    /// Message `id` exists and carries the custom label `label`.
    #[serde(rename = "email.hasLabel")]
    HasLabel { id: String, label: String },
    /// Message `id` exists (in any folder, the trash included).
    #[serde(rename = "email.messageExists")]
    MessageExists { id: String },
    /// Exactly `count` messages were sent in the run (new mail, replies, forwards and drafts
    /// sent, whatever became of them afterwards; the seed's sent mail does not count),
    /// counting only those with `to` among their recipients (To or Cc), whose subject contains
    /// `subjectContains` and whose body contains `bodyContains`, when given. Those texts
    /// compare after normalisation (case, white space, punctuation at word edges and number
    /// formatting aside: "Order #1,204." contains "order 1204"); one that normalises to
    /// nothing matches no message.
    #[serde(rename = "email.sentCount")]
    SentCount {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject_contains: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body_contains: Option<String>,
        count: u32,
    },
    /// Every message sent in the run went only to addresses among `addresses` (To and Cc
    /// alike); holds when nothing was sent.
    #[serde(rename = "email.sentOnlyTo")]
    SentOnlyTo { addresses: Vec<String> },
}

fn same_addresses(have: &[String], want: &[String]) -> bool {
    let norm = |list: &[String]| {
        let mut v: Vec<String> = list.iter().map(|a| a.trim().to_lowercase()).collect();
        v.sort();
        v.dedup();
        v
    };
    norm(have) == norm(want)
}

fn same_address(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// Whether `text` holds `part` once both are normalised like answers; never for a `part` that
/// normalises to nothing.
fn holds_text(text: &str, part: &str) -> bool {
    let part = normalize_answer(part);
    !part.is_empty() && normalize_answer(text).contains(&part)
}

/// Whether a sent message passes the filters of `email.sentCount`.
fn sent_matches(
    m: &Outgoing,
    to: &Option<String>,
    subject: &Option<String>,
    body: &Option<String>,
) -> bool {
    to.as_ref()
        .is_none_or(|to| m.recipients().any(|r| same_address(r, to)))
        && subject.as_ref().is_none_or(|s| holds_text(&m.subject, s))
        && body.as_ref().is_none_or(|b| holds_text(&m.body, b))
}

fn body_ok(m: &Message, body: &Option<String>, contains: &Option<String>) -> bool {
    body.as_ref().is_none_or(|b| m.body == *b)
        && contains
            .as_ref()
            .is_none_or(|c| m.body.contains(c.as_str()))
}

impl Atom {
    pub(crate) fn holds(&self, mb: &Email) -> bool {
        match self {
            Atom::Sent {
                to,
                subject,
                cc,
                body,
                body_contains,
                thread_of,
            } => {
                let thread = match thread_of {
                    Some(id) => match mb.messages.get(id) {
                        Some(m) => Some(m.thread_id.as_str()),
                        None => return false,
                    },
                    None => None,
                };
                mb.messages.values().any(|m| {
                    m.folder == Folder::Sent
                        && same_addresses(&m.to, to)
                        && cc.as_ref().is_none_or(|cc| same_addresses(&m.cc, cc))
                        && m.subject == *subject
                        && body_ok(m, body, body_contains)
                        && thread
                            .is_none_or(|t| m.thread_id == t && Some(&m.id) != thread_of.as_ref())
                })
            }
            Atom::DraftExists {
                to,
                subject,
                body,
                body_contains,
            } => mb.messages.values().any(|m| {
                m.folder == Folder::Drafts
                    && same_addresses(&m.to, to)
                    && m.subject == *subject
                    && body_ok(m, body, body_contains)
            }),
            Atom::DraftCount { to, count } => {
                let n = (mb.messages.values())
                    .filter(|m| m.folder == Folder::Drafts)
                    .filter(|m| {
                        to.as_ref()
                            .is_none_or(|a| m.to.iter().any(|r| same_address(r, a)))
                    })
                    .count();
                n == *count as usize
            }
            Atom::InFolder { id, folder } => {
                mb.messages.get(id).is_some_and(|m| m.folder == *folder)
            }
            Atom::IsRead { id } => mb.messages.get(id).is_some_and(|m| m.read),
            Atom::HasLabel { id, label } => mb
                .messages
                .get(id)
                .is_some_and(|m| m.labels.contains(label)),
            Atom::MessageExists { id } => mb.messages.contains_key(id),
            Atom::SentCount {
                to,
                subject_contains,
                body_contains,
                count,
            } => {
                let n = (mb.sent.iter())
                    .filter(|m| sent_matches(m, to, subject_contains, body_contains))
                    .count();
                n == *count as usize
            }
            Atom::SentOnlyTo { addresses } => mb.sent.iter().all(|m| {
                m.recipients()
                    .all(|r| addresses.iter().any(|a| same_address(r, a)))
            }),
        }
    }
}
