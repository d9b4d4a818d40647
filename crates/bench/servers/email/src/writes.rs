//! Every change to what the mailbox holds, each admitted against [`MAILBOX`](crate::MAILBOX) for its exact
//! footprint before it is made and then recorded in the mailbox's [`Ledger`](mcpbench_sim::Ledger),
//! so that a write costs what it adds rather than a measure of the whole mailbox.
//!
//! What counts: each message is a record of its compact JSON and its id once more (the key it
//! is filed under); each label is a record of its name; each entry of the log of what was
//! sent is bytes only. [`Email::measure`] sums these from scratch, and the running total must
//! always equal it ([`Simulated::audit`](mcpbench_sim::Simulated::audit)).

use crate::state::{Email, Folder, Message, Outgoing};
use mcpbench_sim::{ToolError, Usage, footprint};
use std::collections::{BTreeMap, BTreeSet};

/// What message `m` costs the mailbox: one record, its fields, and its id as the map's key.
fn stored(m: &Message) -> Usage {
    Usage::of(1, m) + Usage::bytes(footprint(&m.id))
}

/// What an entry of the log of sent mail costs: its bytes, no record.
fn logged(out: &Outgoing) -> Usage {
    Usage::bytes(footprint(out))
}

fn total(parts: impl Iterator<Item = Usage>) -> Usage {
    parts.fold(Usage::default(), |sum, u| sum + u)
}

impl Email {
    /// What the mailbox holds, measured from scratch: a sum over its messages, labels and log
    /// (per record, so that a write's footprint moves it exactly).
    pub(crate) fn measure(&self) -> Usage {
        total(self.messages.values().map(stored))
            + total(self.labels.iter().map(|l| Usage::of(1, l)))
            + total(self.sent.iter().map(logged))
    }

    /// What the mailbox holds by its running total, against [`MAILBOX`](crate::MAILBOX).
    pub fn held(&self) -> Usage {
        self.ledger.held()
    }

    /// The id the next new message gets, and the counter once it is drawn; nothing is drawn
    /// yet, so that a refused message uses none.
    fn fresh_id(&self) -> (String, u64) {
        let mut n = self.next_id;
        loop {
            let id = format!("msg-{}", 9000 + n);
            n += 1;
            if !self.messages.contains_key(&id) {
                return (id, n);
            }
        }
    }

    /// A message from the owner, stamped now, in `folder` (logged as sent when that is the
    /// sent folder); returns its id. Refused, changing nothing, when the mailbox is full.
    pub(crate) fn compose(
        &mut self,
        folder: Folder,
        to: Vec<String>,
        cc: Vec<String>,
        subject: String,
        body: String,
        thread: Option<String>,
    ) -> Result<String, ToolError> {
        // Built with its final ids, so that what is admitted is what is stored.
        let (id, next_id) = self.fresh_id();
        let message = Message {
            thread_id: thread.unwrap_or_else(|| id.clone()),
            id: id.clone(),
            from: self.address.clone(),
            to,
            cc,
            subject,
            body,
            date: self.now.clone(),
            folder,
            labels: BTreeSet::new(),
            read: true,
        };
        let out = (folder == Folder::Sent).then(|| Outgoing::of(&message));
        let adding = stored(&message) + out.as_ref().map_or_else(Usage::default, logged);
        self.ledger.admit(adding)?;
        self.next_id = next_id;
        self.sent.extend(out);
        self.messages.insert(id.clone(), message);
        self.ledger.add(adding);
        Ok(id)
    }

    /// Sends draft `id` (which must be a draft): to the sent folder, stamped now, logged.
    /// Refused, changing nothing, when the log does not fit in the mailbox.
    pub(crate) fn send_draft(&mut self, id: &str) -> Result<(), ToolError> {
        let old = self.get(id)?;
        let mut sent = old.clone();
        sent.folder = Folder::Sent;
        sent.date = self.now.clone();
        let out = Outgoing::of(&sent);
        // The message changes (folder, date) and the log grows; only the growth is admitted.
        let (before, after) = (stored(old), stored(&sent) + logged(&out));
        self.ledger.admit_change(before, after)?;
        self.messages.insert(id.to_string(), sent);
        self.sent.push(out);
        self.ledger.change(before, after);
        Ok(())
    }

    /// Edits message `id` through `edit` of a copy; refused, changing nothing, when the edit
    /// grows the mailbox past its bounds (`archive` is two bytes longer than `inbox`).
    pub(crate) fn edit(
        &mut self,
        id: &str,
        edit: impl FnOnce(&mut Message),
    ) -> Result<(), ToolError> {
        let mut new = self.get(id)?.clone();
        edit(&mut new);
        self.replace(BTreeMap::from([(id.to_string(), new)]), Usage::default())
    }

    /// Marks messages `ids` (each of which exists) as read, all together.
    pub(crate) fn mark_read(&mut self, ids: &[String]) -> Result<(), ToolError> {
        let mut edited = BTreeMap::new();
        for id in ids {
            let mut m = self.get(id)?.clone();
            m.read = true;
            edited.insert(id.clone(), m);
        }
        self.replace(edited, Usage::default())
    }

    /// Puts `label` (created when it does not exist yet) on message `id`; returns the label's
    /// name as the mailbox spells it.
    pub(crate) fn add_label(&mut self, id: &str, label: &str) -> Result<String, ToolError> {
        let mut m = self.get(id)?.clone();
        let (label, created) = match self.find_label(label) {
            Some(l) => (l.clone(), Usage::default()),
            None => (label.to_string(), Usage::of(1, label)),
        };
        m.labels.insert(label.clone());
        self.replace(BTreeMap::from([(id.to_string(), m)]), created)?;
        if created.records > 0 {
            self.labels.insert(label.clone());
        }
        Ok(label)
    }

    /// Replaces existing messages by `edited` (keyed by id), with `beside` more stored by the
    /// caller once this succeeds; admits only the growth, so a refusal changes nothing.
    fn replace(
        &mut self,
        edited: BTreeMap<String, Message>,
        beside: Usage,
    ) -> Result<(), ToolError> {
        let before = total(
            edited
                .keys()
                .filter_map(|id| self.messages.get(id))
                .map(stored),
        );
        let after = total(edited.values().map(stored)) + beside;
        self.ledger.admit_change(before, after)?;
        self.messages.extend(edited);
        self.ledger.change(before, after);
        Ok(())
    }

    /// Deletes message `id` for good; what was logged as sent stays logged.
    pub(crate) fn delete(&mut self, id: &str) -> Result<(), ToolError> {
        self.get(id)?;
        if let Some(m) = self.messages.remove(id) {
            self.ledger.remove(stored(&m));
        }
        Ok(())
    }
}
