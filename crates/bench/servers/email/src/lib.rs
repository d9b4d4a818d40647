//! `email`: one person's mailbox behind the tool surface of Gmail-style MCP servers
//! (`search_emails`, `read_email`, `send_email`, `draft_email`, `reply_email`, ...).
//!
//! Rules:
//! - Every message sits in exactly one folder (inbox, sent, drafts, archive, trash) and may
//!   carry custom labels; labels must exist, and `add_label` creates a missing one.
//! - Sent messages and drafts are from the seed's `address` and stamped with the seed's `now`;
//!   there is no clock. New ids are `msg-9001`, `msg-9002`, ... (skipping ids in use).
//! - When the seed lists `allowed_domains`, sending (new mail, drafts sent later, replies,
//!   forwards) to any address outside them is `permission_denied`; drafts may be saved anyway.
//! - Replies keep the thread and prefix "Re: "; forwards keep the thread, prefix "Fwd: " and
//!   quote the original under an optional note. `delete_email` is permanent; the trash is a
//!   folder reached with `move_email`.
//! - What is sent in the run (new mail, replies, forwards, drafts sent) is also logged as it
//!   went out, whatever later becomes of the message: moving or deleting it unsends nothing.
//! - Listings are newest first, ties by id, a page of `maxResults` at a time; a `nextPageToken`
//!   leads to the next page and is refused by a listing with other filters.
//! - A seed may carry a `background`: months of ordinary mail beside its own messages, expanded
//!   when the mailbox is built (`background.rs`).
//! - A run's mailbox holds at most [`MAILBOX`]: past it, sending, drafting, replying,
//!   forwarding, a label or any change that grows a message (archiving it) is a tool error that
//!   changes nothing. Each write is counted by its exact footprint in a running total
//!   (`writes.rs`), which debug builds check against a fresh measure after every call.

mod background;
mod predicates;
mod query;
mod state;
mod templates;
mod tools;
mod writes;

pub use background::Background;
pub use predicates::Atom;
pub use state::{Email, Folder, MAILBOX, Seed, SeedMessage};
pub use tools::{forward_body, forward_subject, reply_subject};

use mcpbench_sim::{Capacity, Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Email {
    const NAME: &'static str = "email";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Email::from_seed(seed)
    }
    fn copy(&self) -> Result<Self, SeedError> {
        Ok(self.clone())
    }
    fn toolbox() -> &'static ToolBox<Self> {
        &tools::TOOLS
    }
    fn holds(&self, atom: &Atom) -> bool {
        atom.holds(self)
    }
    fn snapshot(&self) -> Value {
        Email::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    fn capacities() -> &'static [Capacity] {
        &[MAILBOX]
    }
    fn audit(&self) -> Result<(), String> {
        self.ledger.audit(self.measure())
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}

/// A small mailbox for cross-server tasks: the owner `alex@northwind.io`, two labels, four
/// inbox messages (`msg-1001` .. `msg-1004`, one read), one sent message and one draft.
pub fn sample_seed() -> Seed {
    let me = "alex@northwind.io";
    let mut messages = vec![
        SeedMessage::received(
            "msg-1001",
            "maria.lopez@northwind.io",
            me,
            "Q3 budget review",
            "Hi Alex,\n\nThe Q3 budget review is moved to Thursday. Please bring the updated forecast.\n\nMaria",
            "2026-02-27T16:05:00Z",
        ),
        SeedMessage::received(
            "msg-1002",
            "orders@parcelpost.com",
            me,
            "Your order 48213 has shipped",
            "Good news! Order 48213 is on its way.\nTracking number: PP7302214456\nEstimated delivery: March 4.",
            "2026-02-28T08:30:00Z",
        ),
        SeedMessage::received(
            "msg-1003",
            "news@techdigest.com",
            me,
            "This week in tech",
            "Top stories: chips, clouds and coffee.",
            "2026-03-01T07:00:00Z",
        ),
        SeedMessage::received(
            "msg-1004",
            "sam.okafor@contoso.com",
            me,
            "Contract draft",
            "Alex, attached is the contract draft for review. Can you confirm by Friday?",
            "2026-03-01T14:20:00Z",
        ),
    ];
    messages[2].read = true;
    let mut sent = SeedMessage::received(
        "msg-1005",
        me,
        "maria.lopez@northwind.io",
        "Re: Q3 budget review",
        "Thursday works. I will bring it.",
        "2026-02-27T17:00:00Z",
    );
    sent.folder = Folder::Sent;
    sent.thread_id = Some("msg-1001".into());
    let mut draft = SeedMessage::received(
        "msg-1006",
        me,
        "sam.okafor@contoso.com",
        "Re: Contract draft",
        "Hi Sam, reviewing it now.",
        "2026-03-01T15:00:00Z",
    );
    draft.folder = Folder::Drafts;
    messages.extend([sent, draft]);
    Seed {
        labels: vec!["Receipts".into(), "Work".into()],
        messages,
        ..Seed::default()
    }
}
