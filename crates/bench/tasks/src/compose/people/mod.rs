//! Templates that end in a message to a person or a note for one: the agent reads something
//! on one server (a requested report, shipping notices, an attendance list and the attendees'
//! addresses in the knowledge graph, a complaint and the order it is about) and writes it on
//! another. Each takes several dependent reads among near-miss decoys before its writes.
//!
//! - `compose.file_to_email` (filesystem, email): a colleague's emailed request names a week;
//!   that week's report is found among dated files (a draft and another project's namesake
//!   beside it) and sent back as a reply.
//! - `compose.tracking_number_to_file` (email, filesystem): a list of parcels gets the
//!   tracking numbers of two stores' shipped orders, past an order not on the list, one not
//!   shipped yet and a replaced label.
//! - `compose.contact_from_memory` (memory, email): everyone an organiser says came to an event
//!   gets a thank-you at the address the knowledge graph has for them now.
//! - `compose.refund_and_notify` (shop, email): a customer's complaint names a broken item; the
//!   right one of their orders is found, that item refunded at the price paid, and the
//!   complaint answered with the amount.

mod contact_from_memory;
mod file_to_email;
mod refund_and_notify;
mod tracking_number_to_file;

use mcpbench_sim::{Category, Difficulty, Pred};
use mcpbench_world::{AnyTemplate, Atom};

pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Category::Composition;
    use Difficulty::*;
    vec![
        AnyTemplate::new(
            "compose.file_to_email",
            vec!["filesystem", "email"],
            Composition,
            Hard,
            file_to_email::file_to_email,
        ),
        AnyTemplate::new(
            "compose.tracking_number_to_file",
            vec!["email", "filesystem"],
            Composition,
            Hard,
            tracking_number_to_file::tracking_number_to_file,
        ),
        AnyTemplate::new(
            "compose.contact_from_memory",
            vec!["memory", "email"],
            Composition,
            Hard,
            contact_from_memory::contact_from_memory,
        ),
        AnyTemplate::new(
            "compose.refund_and_notify",
            vec!["shop", "email"],
            Composition,
            Hard,
            refund_and_notify::refund_and_notify,
        ),
    ]
}

/// Qualified tool names, space-separated.
fn tools(names: &str) -> Vec<String> {
    names.split_whitespace().map(String::from).collect()
}

fn email(atom: mcpbench_server_email::Atom) -> Pred<Atom> {
    Pred::Atom(Atom::email(atom))
}

/// A message sent to exactly `to` with exactly `subject`, its body exactly `body` when given,
/// in the thread of message `thread_of` when given.
fn sent(to: &str, subject: &str, body: Option<&str>, thread_of: Option<&str>) -> Pred<Atom> {
    email(mcpbench_server_email::Atom::Sent {
        to: vec![to.to_string()],
        subject: subject.to_string(),
        cc: None,
        body: body.map(String::from),
        body_contains: None,
        thread_of: thread_of.map(String::from),
    })
}

/// Nothing was sent in the run to anyone outside `addresses`.
fn sent_only_to(addresses: &[String]) -> Pred<Atom> {
    email(mcpbench_server_email::Atom::SentOnlyTo {
        addresses: addresses.to_vec(),
    })
}

/// `first.last` of a full name, lower case.
fn local_part(name: &str) -> String {
    name.to_lowercase().replace(' ', ".")
}

/// The first name of a full name.
fn first_name(name: &str) -> &str {
    name.split(' ').next().unwrap_or(name)
}
