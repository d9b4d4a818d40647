//! The mailbox, its seed, and the rules every tool shares (addresses, folders, sending policy).

use crate::background::{self, Background, MAX_MESSAGES};
use mcpbench_sim::{Capacity, Ledger, SeedError, ToolError, Usage};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The system folders. Every message is in exactly one of them; custom labels come on top.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Folder {
    #[default]
    Inbox,
    Sent,
    Drafts,
    Archive,
    Trash,
}

impl Folder {
    pub const ALL: [Folder; 5] = [
        Folder::Inbox,
        Folder::Sent,
        Folder::Drafts,
        Folder::Archive,
        Folder::Trash,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Folder::Inbox => "inbox",
            Folder::Sent => "sent",
            Folder::Drafts => "drafts",
            Folder::Archive => "archive",
            Folder::Trash => "trash",
        }
    }

    pub fn parse(name: &str) -> Option<Folder> {
        Folder::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(name))
    }
}

fn is_inbox(f: &Folder) -> bool {
    *f == Folder::Inbox
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One message of the seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeedMessage {
    /// Unique message id, like `msg-1042`.
    pub id: String,
    /// Conversation id; defaults to the message's own id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    pub from: String,
    pub to: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cc: Vec<String>,
    pub subject: String,
    pub body: String,
    /// ISO 8601 timestamp, `2026-03-02T09:15:00Z`.
    pub date: String,
    #[serde(default, skip_serializing_if = "is_inbox")]
    pub folder: Folder,
    /// Custom labels; each must be listed in the seed's `labels`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub read: bool,
}

impl SeedMessage {
    /// An unread inbox message from `from` to `to`.
    pub fn received(id: &str, from: &str, to: &str, subject: &str, body: &str, date: &str) -> Self {
        SeedMessage {
            id: id.into(),
            thread_id: None,
            from: from.into(),
            to: vec![to.into()],
            cc: vec![],
            subject: subject.into(),
            body: body.into(),
            date: date.into(),
            folder: Folder::Inbox,
            labels: vec![],
            read: false,
        }
    }
}

pub(crate) fn default_address() -> String {
    "alex@northwind.io".into()
}

pub(crate) fn default_now() -> String {
    "2026-03-02T09:00:00Z".into()
}

/// `initial_state.email`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// The mailbox owner's address: the sender of everything sent from this mailbox.
    #[serde(default = "default_address")]
    pub address: String,
    /// The current time, stamped on sent messages and drafts.
    #[serde(default = "default_now")]
    pub now: String,
    /// Custom labels that exist (messages may carry only these).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// When non-empty, mail may only be sent to addresses at these domains; other recipients
    /// are refused with `permission_denied`. Drafts may be addressed to anyone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_domains: Vec<String>,
    #[serde(default)]
    pub messages: Vec<SeedMessage>,
    /// Months of ordinary mail beside `messages`, expanded when the mailbox is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

impl Default for Seed {
    fn default() -> Self {
        Seed {
            address: default_address(),
            now: default_now(),
            labels: vec![],
            allowed_domains: vec![],
            messages: vec![],
            background: None,
        }
    }
}

/// A message as the server keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Message {
    pub id: String,
    pub thread_id: String,
    pub from: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub body: String,
    pub date: String,
    pub folder: Folder,
    pub labels: BTreeSet<String>,
    pub read: bool,
}

impl Message {
    /// The listing form: everything but cc and the body, with a snippet of the body.
    pub(crate) fn summary(&self) -> Value {
        let snippet: String = self.body.split_whitespace().collect::<Vec<_>>().join(" ");
        let snippet = if snippet.chars().count() > 80 {
            format!("{}...", snippet.chars().take(77).collect::<String>())
        } else {
            snippet
        };
        json!({
            "id": self.id, "threadId": self.thread_id, "from": self.from, "to": self.to,
            "subject": self.subject, "date": self.date, "folder": self.folder,
            "labels": self.labels, "read": self.read, "snippet": snippet,
        })
    }

    pub(crate) fn full(&self) -> Value {
        serde_json::to_value(self).expect("a message serialises")
    }
}

/// A message as it went out, kept whatever later becomes of it (moved, deleted): what was sent
/// in the run cannot be unsent.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Outgoing {
    pub id: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub body: String,
}

impl Outgoing {
    pub(crate) fn of(m: &Message) -> Self {
        Outgoing {
            id: m.id.clone(),
            to: m.to.clone(),
            cc: m.cc.clone(),
            subject: m.subject.clone(),
            body: m.body.clone(),
        }
    }

    /// To and Cc together.
    pub(crate) fn recipients(&self) -> impl Iterator<Item = &String> {
        self.to.iter().chain(&self.cc)
    }
}

/// What a run's mailbox holds at most: a few hundred times a seed, and twenty times what a
/// whole run of the largest messages the tools take could add (100 calls of 20 kB bodies).
pub const MAILBOX: Capacity = Capacity {
    store: "mailbox",
    records: 2_000,
    noun: "messages and labels",
    bytes: 4 << 20,
};

/// The simulated server: one mailbox.
#[derive(Clone, Debug)]
pub struct Email {
    pub(crate) address: String,
    pub(crate) now: String,
    pub(crate) allowed_domains: Vec<String>,
    pub(crate) labels: BTreeSet<String>,
    pub(crate) messages: BTreeMap<String, Message>,
    /// Everything sent in this run, in order (the seed's sent mail is not in it).
    pub(crate) sent: Vec<Outgoing>,
    pub(crate) next_id: u64,
    /// What the messages, labels and log hold, against [`MAILBOX`] (`writes.rs`).
    pub(crate) ledger: Ledger,
}

/// Checks that `address` looks like `name@domain.tld`.
pub(crate) fn check_address(address: &str) -> Result<(), String> {
    let ok = match address.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !address.contains(char::is_whitespace)
        }
        None => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{address:?} is not an email address (expected name@domain.com)"
        ))
    }
}

/// The domain part of an address, lower-cased.
pub(crate) fn domain(address: &str) -> String {
    address.rsplit('@').next().unwrap_or("").to_lowercase()
}

/// Checks that `date` starts like `2026-03-02T09:15`.
pub(crate) fn check_date(date: &str) -> Result<(), String> {
    let b = date.as_bytes();
    let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15];
    let ok = b.len() >= 16
        && digits.iter().all(|&i| b[i].is_ascii_digit())
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':';
    if ok {
        Ok(())
    } else {
        Err(format!(
            "date {date:?} is not ISO 8601 (expected 2026-03-02T09:15:00Z)"
        ))
    }
}

/// The reserved names that are folders, not labels.
pub(crate) fn is_folder_name(name: &str) -> bool {
    Folder::parse(name).is_some()
}

impl Email {
    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("email", m);
        check_address(&seed.address).map_err(bad)?;
        check_date(&seed.now).map_err(bad)?;
        let mut labels = BTreeSet::new();
        for l in &seed.labels {
            if l.trim().is_empty() || is_folder_name(l) {
                return Err(bad(format!("label {l:?} is empty or the name of a folder")));
            }
            if !labels.insert(l.clone()) {
                return Err(bad(format!("label {l:?} is listed twice")));
            }
        }
        for d in &seed.allowed_domains {
            if d.is_empty() || d.contains('@') {
                return Err(bad(format!(
                    "allowed domain {d:?} is not a domain like example.com"
                )));
            }
        }
        let background = match &seed.background {
            Some(b) if b.messages > MAX_MESSAGES => {
                return Err(bad(format!(
                    "a background of {} messages is more than the {MAX_MESSAGES} a mailbox may hold",
                    b.messages
                )));
            }
            Some(b) => background::messages(b, seed),
            None => vec![],
        };
        let mut messages = BTreeMap::new();
        for m in seed.messages.iter().chain(&background) {
            if m.id.trim().is_empty() {
                return Err(bad("a message has an empty id".into()));
            }
            for a in std::iter::once(&m.from).chain(&m.to).chain(&m.cc) {
                check_address(a).map_err(|e| bad(format!("message {}: {e}", m.id)))?;
            }
            check_date(&m.date).map_err(|e| bad(format!("message {}: {e}", m.id)))?;
            if matches!(m.folder, Folder::Sent | Folder::Drafts)
                && !m.from.eq_ignore_ascii_case(&seed.address)
            {
                return Err(bad(format!(
                    "message {} is in {} but not from {}",
                    m.id,
                    m.folder.as_str(),
                    seed.address
                )));
            }
            for l in &m.labels {
                if !labels.contains(l) {
                    return Err(bad(format!(
                        "message {} has label {l:?}, which is not in labels",
                        m.id
                    )));
                }
            }
            let message = Message {
                id: m.id.clone(),
                thread_id: m.thread_id.clone().unwrap_or_else(|| m.id.clone()),
                from: m.from.clone(),
                to: m.to.clone(),
                cc: m.cc.clone(),
                subject: m.subject.clone(),
                body: m.body.clone(),
                date: m.date.clone(),
                folder: m.folder,
                labels: m.labels.iter().cloned().collect(),
                read: m.read || matches!(m.folder, Folder::Sent | Folder::Drafts),
            };
            if messages.insert(m.id.clone(), message).is_some() {
                return Err(bad(format!("message id {} is used twice", m.id)));
            }
        }
        let mut mailbox = Email {
            address: seed.address.clone(),
            now: seed.now.clone(),
            allowed_domains: seed
                .allowed_domains
                .iter()
                .map(|d| d.to_lowercase())
                .collect(),
            labels,
            messages,
            sent: vec![],
            next_id: 1,
            ledger: Ledger::new(MAILBOX, Usage::default()),
        };
        mailbox.ledger = Ledger::new(MAILBOX, mailbox.measure());
        Ok(mailbox)
    }

    pub(crate) fn get(&self, id: &str) -> Result<&Message, ToolError> {
        self.messages
            .get(id)
            .ok_or_else(|| ToolError::not_found(format!("no message with id {id}")))
    }

    /// Refuses recipients outside the allowed domains, naming the first one.
    pub(crate) fn may_send_to<'a>(
        &self,
        recipients: impl IntoIterator<Item = &'a String>,
    ) -> Result<(), ToolError> {
        if self.allowed_domains.is_empty() {
            return Ok(());
        }
        for r in recipients {
            if !self.allowed_domains.contains(&domain(r)) {
                return Err(ToolError::denied(format!(
                    "sending to {r} is not allowed: this account may only send mail to addresses at {}",
                    self.allowed_domains.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// The existing label named `name` (case-insensitively), if any.
    pub(crate) fn find_label(&self, name: &str) -> Option<&String> {
        self.labels.iter().find(|l| l.eq_ignore_ascii_case(name))
    }

    pub(crate) fn snapshot(&self) -> Value {
        json!({ "labels": self.labels, "messages": self.messages, "sent": self.sent })
    }
}

/// Validates a list of recipient addresses.
pub(crate) fn check_addresses(field: &str, addresses: &[String]) -> Result<(), ToolError> {
    for a in addresses {
        check_address(a).map_err(|e| ToolError::invalid(format!("{field}: {e}")))?;
    }
    Ok(())
}
