//! `email.*` predicate atoms. Addresses compare case-insensitively and as sets; subjects and
//! bodies compare exactly.

use crate::state::{Email, Folder, Message};
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
            Atom::InFolder { id, folder } => {
                mb.messages.get(id).is_some_and(|m| m.folder == *folder)
            }
            Atom::IsRead { id } => mb.messages.get(id).is_some_and(|m| m.read),
            Atom::HasLabel { id, label } => mb
                .messages
                .get(id)
                .is_some_and(|m| m.labels.contains(label)),
            Atom::MessageExists { id } => mb.messages.contains_key(id),
        }
    }
}
