//! The tools, modelled on Gmail MCP servers (`search_emails`, `read_email`, `send_email`,
//! `draft_email`, ...). Near-duplicates an agent must choose between: `list_emails` (structured
//! filters) vs `search_emails` (query language), `archive_email` vs `move_email`, `draft_email`
//! vs `send_email`, and `delete_email` (permanent) vs moving to the trash.

use crate::query::Query;
use crate::state::{Email, Folder, Message, check_addresses, is_folder_name};
use mcpbench_sim::{Tool, ToolBox, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::LazyLock;

type Out = Result<Value, ToolError>;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Search {
    /// Gmail-style query: `from:ana@x.com subject:"Q3 budget" is:unread label:Receipts in:inbox
    /// after:2026/03/01 before:2026/03/05` plus free words matched in subject, body and addresses.
    #[schemars(length(min = 1, max = 500))]
    query: String,
    /// At most this many results, newest first (default 20).
    #[schemars(range(min = 1, max = 100))]
    max_results: Option<u32>,
    /// The nextPageToken of the previous page, for the page after it.
    #[schemars(length(min = 1, max = 64))]
    page_token: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct List {
    /// Folder to list (default inbox).
    folder: Option<Folder>,
    /// Only messages carrying this custom label.
    #[schemars(length(min = 1, max = 100))]
    label: Option<String>,
    /// Only unread messages.
    #[serde(default)]
    unread_only: bool,
    /// At most this many results, newest first (default 20).
    #[schemars(range(min = 1, max = 100))]
    max_results: Option<u32>,
    /// The nextPageToken of the previous page, for the page after it.
    #[schemars(length(min = 1, max = 64))]
    page_token: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MessageId {
    /// The message id, as returned by search_emails (`msg-1042`).
    #[schemars(length(min = 1, max = 100))]
    message_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Compose {
    /// Recipient addresses.
    #[schemars(length(min = 1, max = 20), inner(length(max = 254)))]
    to: Vec<String>,
    /// Copy recipients.
    #[schemars(length(max = 20), inner(length(max = 254)))]
    cc: Option<Vec<String>>,
    /// Subject line.
    #[schemars(length(min = 1, max = 300))]
    subject: String,
    /// Plain-text body, used exactly as given.
    #[schemars(length(max = 20000))]
    body: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SendDraft {
    /// Id of a message in the drafts folder.
    #[schemars(length(min = 1, max = 100))]
    draft_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Reply {
    /// Id of the message to answer.
    #[schemars(length(min = 1, max = 100))]
    message_id: String,
    /// Plain-text body of the reply, used exactly as given.
    #[schemars(length(min = 1, max = 20000))]
    body: String,
    /// Also reply to everyone else on the original's To and Cc lines (default false).
    #[serde(default)]
    reply_all: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Forward {
    /// Id of the message to forward.
    #[schemars(length(min = 1, max = 100))]
    message_id: String,
    /// Recipient addresses.
    #[schemars(length(min = 1, max = 20), inner(length(max = 254)))]
    to: Vec<String>,
    /// Optional note placed above the forwarded message.
    #[schemars(length(max = 20000))]
    body: Option<String>,
}

/// Where a message can be moved.
#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Target {
    Inbox,
    Archive,
    Trash,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Move {
    /// Id of the message to move.
    #[schemars(length(min = 1, max = 100))]
    message_id: String,
    /// Destination folder.
    folder: Target,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MarkRead {
    /// Ids of the messages to mark as read.
    #[schemars(length(min = 1, max = 100), inner(length(max = 100)))]
    message_ids: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AddLabel {
    /// Id of the message to label.
    #[schemars(length(min = 1, max = 100))]
    message_id: String,
    /// Custom label name; created if it does not exist yet.
    #[schemars(length(min = 1, max = 100))]
    label: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// Newest first, then by id; one page of `max` (default 20) from `token`, with the token of
/// the next page while more follow. `query` names the filters the token is bound to.
fn listing<'a>(
    hits: impl Iterator<Item = &'a Message>,
    max: Option<u32>,
    token: Option<&str>,
    query: &str,
) -> Out {
    let mut hits: Vec<&Message> = hits.collect();
    hits.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.id.cmp(&b.id)));
    let page = mcpbench_sim::page(&hits, token, max.unwrap_or(20) as usize, query)?;
    let shown: Vec<Value> = page.items.iter().map(|m| m.summary()).collect();
    let mut out = json!({ "total": hits.len(), "messages": shown });
    if let Some(next) = page.next {
        out["nextPageToken"] = json!(next);
    }
    Ok(out)
}

fn search_emails(mb: &Email, a: Search) -> Out {
    let q = Query::parse(&a.query)?;
    listing(
        mb.messages.values().filter(|m| q.matches(m)),
        a.max_results,
        a.page_token.as_deref(),
        &format!("search {}", a.query),
    )
}

fn list_emails(mb: &Email, a: List) -> Out {
    let folder = a.folder.unwrap_or_default();
    let label = match &a.label {
        Some(l) => Some(
            mb.find_label(l)
                .ok_or_else(|| ToolError::not_found(format!("no label named {l:?}")))?
                .clone(),
        ),
        None => None,
    };
    let hits = mb
        .messages
        .values()
        .filter(|m| m.folder == folder)
        .filter(|m| label.as_ref().is_none_or(|l| m.labels.contains(l)))
        .filter(|m| !a.unread_only || !m.read);
    let query = format!("list {folder:?} {label:?} {}", a.unread_only);
    listing(hits, a.max_results, a.page_token.as_deref(), &query)
}

fn read_email(mb: &Email, a: MessageId) -> Out {
    Ok(mb.get(&a.message_id)?.full())
}

fn check_compose(a: &Compose) -> Result<(), ToolError> {
    check_addresses("to", &a.to)?;
    check_addresses("cc", a.cc.as_deref().unwrap_or_default())
}

fn send_email(mb: &mut Email, a: Compose) -> Out {
    check_compose(&a)?;
    let cc = a.cc.unwrap_or_default();
    mb.may_send_to(a.to.iter().chain(&cc))?;
    let id = mb.compose(Folder::Sent, a.to, cc, a.subject, a.body, None)?;
    Ok(json!({ "status": "sent", "id": id }))
}

fn draft_email(mb: &mut Email, a: Compose) -> Out {
    check_compose(&a)?;
    let id = mb.compose(
        Folder::Drafts,
        a.to,
        a.cc.unwrap_or_default(),
        a.subject,
        a.body,
        None,
    )?;
    Ok(json!({ "status": "draft saved", "draftId": id }))
}

fn send_draft(mb: &mut Email, a: SendDraft) -> Out {
    let m = mb.get(&a.draft_id)?;
    if m.folder != Folder::Drafts {
        return Err(ToolError::precondition(format!(
            "message {} is not a draft (it is in {})",
            m.id,
            m.folder.as_str()
        )));
    }
    mb.may_send_to(m.to.iter().chain(&m.cc))?;
    mb.send_draft(&a.draft_id)?;
    Ok(json!({ "status": "sent", "id": a.draft_id }))
}

fn with_prefix(prefix: &str, subject: &str) -> String {
    if subject.to_lowercase().starts_with(&prefix.to_lowercase()) {
        subject.to_string()
    } else {
        format!("{prefix}{subject}")
    }
}

/// The subject of a reply to `subject`.
pub fn reply_subject(subject: &str) -> String {
    with_prefix("Re: ", subject)
}

/// The subject of a forward of `subject`.
pub fn forward_subject(subject: &str) -> String {
    with_prefix("Fwd: ", subject)
}

fn reply_email(mb: &mut Email, a: Reply) -> Out {
    let m = mb.get(&a.message_id)?;
    if m.folder == Folder::Drafts {
        return Err(ToolError::precondition(format!(
            "message {} is a draft; drafts cannot be replied to",
            m.id
        )));
    }
    let me = mb.address.to_lowercase();
    let from_me = m.from.to_lowercase() == me;
    let to: Vec<String> = if from_me {
        m.to.clone()
    } else {
        vec![m.from.clone()]
    };
    let mut cc: Vec<String> = Vec::new();
    if a.reply_all {
        for r in m.to.iter().chain(&m.cc) {
            let l = r.to_lowercase();
            if l != me
                && !to.iter().any(|t| t.to_lowercase() == l)
                && !cc.iter().any(|c| c.to_lowercase() == l)
            {
                cc.push(r.clone());
            }
        }
    }
    mb.may_send_to(to.iter().chain(&cc))?;
    let (subject, thread) = (reply_subject(&m.subject), m.thread_id.clone());
    let id = mb.compose(
        Folder::Sent,
        to.clone(),
        cc.clone(),
        subject.clone(),
        a.body,
        Some(thread),
    )?;
    Ok(json!({ "status": "sent", "id": id, "to": to, "cc": cc, "subject": subject }))
}

/// The body of a forward: the note, then the original with its headers.
pub fn forward_body(
    note: Option<&str>,
    from: &str,
    date: &str,
    subject: &str,
    to: &[String],
    body: &str,
) -> String {
    let head = note.map(|n| format!("{n}\n\n")).unwrap_or_default();
    format!(
        "{head}---------- Forwarded message ----------\nFrom: {from}\nDate: {date}\nSubject: {subject}\nTo: {}\n\n{body}",
        to.join(", ")
    )
}

fn forward_email(mb: &mut Email, a: Forward) -> Out {
    check_addresses("to", &a.to)?;
    let m = mb.get(&a.message_id)?;
    if m.folder == Folder::Drafts {
        return Err(ToolError::precondition(format!(
            "message {} is a draft; send it instead of forwarding it",
            m.id
        )));
    }
    mb.may_send_to(&a.to)?;
    let body = forward_body(
        a.body.as_deref(),
        &m.from,
        &m.date,
        &m.subject,
        &m.to,
        &m.body,
    );
    let (subject, thread) = (forward_subject(&m.subject), m.thread_id.clone());
    let id = mb.compose(
        Folder::Sent,
        a.to,
        vec![],
        subject.clone(),
        body,
        Some(thread),
    )?;
    Ok(json!({ "status": "sent", "id": id, "subject": subject }))
}

fn relocate(mb: &mut Email, id: &str, to: Folder) -> Out {
    let from = mb.get(id)?.folder;
    if from == Folder::Drafts && to != Folder::Trash {
        return Err(ToolError::precondition(format!(
            "message {id} is a draft; drafts can only be sent or moved to trash"
        )));
    }
    mb.edit(id, |m| m.folder = to)?;
    Ok(json!({ "id": id, "from": from, "folder": to }))
}

fn move_email(mb: &mut Email, a: Move) -> Out {
    let to = match a.folder {
        Target::Inbox => Folder::Inbox,
        Target::Archive => Folder::Archive,
        Target::Trash => Folder::Trash,
    };
    relocate(mb, &a.message_id, to)
}

fn archive_email(mb: &mut Email, a: MessageId) -> Out {
    relocate(mb, &a.message_id, Folder::Archive)
}

fn delete_email(mb: &mut Email, a: MessageId) -> Out {
    mb.delete(&a.message_id)?;
    Ok(Value::String(format!(
        "Message {} permanently deleted",
        a.message_id
    )))
}

fn mark_as_read(mb: &mut Email, a: MarkRead) -> Out {
    let missing: Vec<&String> = a
        .message_ids
        .iter()
        .filter(|id| !mb.messages.contains_key(*id))
        .collect();
    if !missing.is_empty() {
        let list: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
        return Err(ToolError::not_found(format!(
            "no message with id {}; nothing was changed",
            list.join(", ")
        )));
    }
    mb.mark_read(&a.message_ids)?;
    Ok(json!({ "markedRead": a.message_ids }))
}

fn list_labels(mb: &Email, _: NoArgs) -> Out {
    let count = |f: &dyn Fn(&Message) -> bool| {
        let hits: Vec<&Message> = mb.messages.values().filter(|m| f(m)).collect();
        json!({ "total": hits.len(), "unread": hits.iter().filter(|m| !m.read).count() })
    };
    let folders: Vec<Value> = Folder::ALL
        .iter()
        .map(|&f| {
            let mut v = count(&|m| m.folder == f);
            v["name"] = json!(f.as_str());
            v
        })
        .collect();
    let labels: Vec<Value> = mb
        .labels
        .iter()
        .map(|l| {
            let mut v = count(&|m| m.labels.contains(l));
            v["name"] = json!(l);
            v
        })
        .collect();
    Ok(json!({ "folders": folders, "labels": labels }))
}

fn add_label(mb: &mut Email, a: AddLabel) -> Out {
    let name = a.label.trim();
    if name.is_empty() || is_folder_name(name) {
        return Err(ToolError::invalid(format!(
            "{:?} is a folder, not a label; move the message to change its folder",
            a.label
        )));
    }
    let label = mb.add_label(&a.message_id, name)?;
    Ok(json!({ "id": a.message_id, "label": label }))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Email>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "search_emails",
            "Search the mailbox with Gmail-style syntax (from:, to:, subject:, label:, in:, is:unread, after:, before:, free words). Searches every folder except trash unless in: is given. Returns summaries, newest first, a page at a time (maxResults, default 20), with the total count and a nextPageToken while more pages follow.",
            search_emails,
        ),
        Tool::read(
            "list_emails",
            "List the messages of one folder (inbox by default), optionally only those with a label or only unread ones. Returns summaries, newest first, a page at a time (maxResults, default 20), with the total count and a nextPageToken while more pages follow.",
            list_emails,
        ),
        Tool::read(
            "read_email",
            "Read one message in full: sender, recipients, cc, subject, date, folder, labels and body. Does not mark it as read.",
            read_email,
        ),
        Tool::write(
            "send_email",
            "Send a new email right away. The body is used exactly as given. Recipients outside the allowed domains are refused. A run's mailbox holds at most 2,000 messages and labels and 4 MiB in all.",
            send_email,
        ),
        Tool::write(
            "draft_email",
            "Save a new email as a draft without sending it. Returns the draft id, which send_draft sends later. A run's mailbox holds at most 2,000 messages and labels and 4 MiB in all.",
            draft_email,
        ),
        Tool::write(
            "send_draft",
            "Send an existing draft unchanged, by its draft id. The message moves from drafts to sent. A run's mailbox holds at most 2,000 messages and labels and 4 MiB in all.",
            send_draft,
        ),
        Tool::write(
            "reply_email",
            "Reply to a message in its thread: goes to the original sender (with replyAll also to the other recipients), subject prefixed with \"Re: \", body exactly as given. A run's mailbox holds at most 2,000 messages and labels and 4 MiB in all.",
            reply_email,
        ),
        Tool::write(
            "forward_email",
            "Forward a message to new recipients, in its thread, with subject \"Fwd: ...\", an optional note on top and the original message quoted below. A run's mailbox holds at most 2,000 messages and labels and 4 MiB in all.",
            forward_email,
        ),
        Tool::write(
            "move_email",
            "Move a message to the inbox, the archive or the trash. Moving to trash keeps the message recoverable.",
            move_email,
        ),
        Tool::write(
            "archive_email",
            "Archive a message: remove it from the inbox into the archive, keeping it searchable.",
            archive_email,
        ),
        Tool::write(
            "delete_email",
            "Permanently delete a message. This cannot be undone; to put a message in the trash use move_email with folder trash.",
            delete_email,
        ),
        Tool::write(
            "mark_as_read",
            "Mark one or more messages as read. If any id does not exist, nothing is changed.",
            mark_as_read,
        ),
        Tool::read(
            "list_labels",
            "List the folders and custom labels with their total and unread message counts.",
            list_labels,
        ),
        Tool::write(
            "add_label",
            "Add a custom label to a message, creating the label if it does not exist. Folders (inbox, archive, ...) are not labels. A run's mailbox holds at most 2,000 messages and labels and 4 MiB in all.",
            add_label,
        ),
    ])
});
