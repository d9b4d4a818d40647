//! Template grammars for tasks on the mailbox alone. Every parameter comes from a bounded pool
//! or range, and every goal states each concrete value the task needs (addresses, subjects,
//! exact texts, message ids where a person would have them).

mod composition;
mod history;
mod recovery;
mod single;

use crate::{Atom, Email, Folder, SeedMessage};
use mcpbench_sim::{Category, Difficulty, Pred, Rng, Template};

pub(crate) const ME: &str = "alex@northwind.io";
pub(crate) const HOME_DOMAIN: &str = "northwind.io";

/// (first name, address) of colleagues inside the company.
pub(crate) const COLLEAGUES: &[(&str, &str)] = &[
    ("Maria", "maria.lopez@northwind.io"),
    ("Tom", "tom.becker@northwind.io"),
    ("Priya", "priya.shah@northwind.io"),
    ("Kenji", "kenji.sato@northwind.io"),
    ("Lena", "lena.fischer@northwind.io"),
    ("Omar", "omar.haddad@northwind.io"),
];

/// (first name, address) of people outside the company.
pub(crate) const EXTERNALS: &[(&str, &str)] = &[
    ("Sam", "sam.okafor@contoso.com"),
    ("Julia", "julia.berg@fabrikam.net"),
    ("Diego", "diego.ramos@globex.org"),
    ("Aiko", "aiko.tanaka@initech.co"),
    ("Nora", "nora.quinn@umbrella.biz"),
];

pub(crate) const TOPICS: &[&str] = &[
    "Q3 budget review",
    "Offsite agenda",
    "Hiring plan",
    "Vendor contract",
    "Release checklist",
    "Customer feedback",
    "Security audit",
    "Travel booking",
    "Board deck",
    "Onboarding schedule",
];

pub(crate) const SENTENCES: &[&str] = &[
    "Please review the numbers before Thursday.",
    "The meeting moved to 3 pm.",
    "Thanks, that works for me.",
    "Can you confirm the final headcount?",
    "I booked the large room for Friday.",
    "Let us sync tomorrow morning.",
    "The draft is ready for your comments.",
    "We are still waiting on legal.",
];

const CLUTTER: &[(&str, &str, &str)] = &[
    (
        "facilities@northwind.io",
        "Parking garage closed on Saturday",
        "The garage is closed for cleaning on Saturday.",
    ),
    (
        "hr@northwind.io",
        "Benefits enrollment reminder",
        "Enrollment closes at the end of the month.",
    ),
    (
        "it-help@northwind.io",
        "Scheduled maintenance",
        "Email may be slow on Sunday night.",
    ),
    (
        "events@citytheatre.org",
        "Your tickets for Saturday",
        "Doors open at 7 pm. Enjoy the show.",
    ),
    (
        "no-reply@cloudstore.com",
        "Storage almost full",
        "You have used 90% of your storage.",
    ),
    (
        "team@weeklyrunner.com",
        "Your weekly running summary",
        "You ran 21 km this week.",
    ),
];

pub(crate) fn all() -> Vec<Template<Email>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "email.send_message",
            category: SingleTool,
            difficulty: Easy,
            build: single::send_message,
        },
        Template {
            id: "email.save_draft",
            category: SingleTool,
            difficulty: Easy,
            build: single::save_draft,
        },
        Template {
            id: "email.send_saved_draft",
            category: SingleTool,
            difficulty: Medium,
            build: single::send_saved_draft,
        },
        Template {
            id: "email.label_message",
            category: SingleTool,
            difficulty: Medium,
            build: single::label_message,
        },
        Template {
            id: "email.tracking_number",
            category: Composition,
            difficulty: Medium,
            build: composition::tracking_number,
        },
        Template {
            id: "email.reply_in_thread",
            category: Composition,
            difficulty: Medium,
            build: composition::reply_in_thread,
        },
        Template {
            id: "email.trash_newsletters",
            category: Composition,
            difficulty: Medium,
            build: composition::trash_newsletters,
        },
        Template {
            id: "email.forward_and_archive",
            category: Composition,
            difficulty: Hard,
            build: composition::forward_and_archive,
        },
        Template {
            id: "email.earliest_since",
            category: Composition,
            difficulty: Hard,
            build: history::earliest_since,
        },
        Template {
            id: "email.triage_from_domain",
            category: Composition,
            difficulty: Hard,
            build: composition::triage_from_domain,
        },
        Template {
            id: "email.send_after_outage",
            category: Recovery,
            difficulty: Easy,
            build: recovery::send_after_outage,
        },
        Template {
            id: "email.external_fallback_draft",
            category: Recovery,
            difficulty: Medium,
            build: recovery::external_fallback_draft,
        },
        Template {
            id: "email.forward_fallback",
            category: Recovery,
            difficulty: Hard,
            build: recovery::forward_fallback,
        },
    ]
}

pub(crate) use mcpbench_sim::Ids;
pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, atom, not};

pub(crate) fn in_folder(id: &str, folder: Folder) -> Pred<Atom> {
    atom(Atom::InFolder {
        id: id.into(),
        folder,
    })
}

/// `sent` with the recipients, subject and exact body.
pub(crate) fn sent_exactly(to: &str, subject: &str, body: &str) -> Pred<Atom> {
    atom(Atom::Sent {
        to: vec![to.into()],
        subject: subject.into(),
        cc: None,
        body: Some(body.into()),
        body_contains: None,
        thread_of: None,
    })
}

/// A timestamp in late February 2026, before the mailbox's "now".
pub(crate) fn date(rng: &mut Rng) -> String {
    format!(
        "2026-02-{:02}T{:02}:{:02}:00Z",
        rng.range(16, 28),
        rng.range(7, 18),
        rng.range(0, 59)
    )
}

/// A received message with a random date.
pub(crate) fn received(
    rng: &mut Rng,
    ids: &mut Ids,
    from: &str,
    subject: &str,
    body: &str,
) -> SeedMessage {
    let d = date(rng);
    SeedMessage::received(&ids.take(), from, ME, subject, body, &d)
}

/// A few unrelated inbox messages, some read.
pub(crate) fn clutter(rng: &mut Rng, ids: &mut Ids, min: usize, max: usize) -> Vec<SeedMessage> {
    let n = rng.range(min as i64, max as i64) as usize;
    rng.sample(CLUTTER, n)
        .into_iter()
        .map(|(from, subject, body)| {
            let mut m = received(rng, ids, from, subject, body);
            m.read = rng.chance(1, 2);
            m
        })
        .collect()
}

/// Two sentences, as a short body.
pub(crate) fn body(rng: &mut Rng, name: &str) -> String {
    format!("Hi {name}! {}", rng.sample(SENTENCES, 2).join(" "))
}

/// Anyone to write to: a colleague or an outside contact.
pub(crate) fn anyone(rng: &mut Rng) -> (&'static str, &'static str) {
    if rng.chance(1, 2) {
        *rng.pick(COLLEAGUES)
    } else {
        *rng.pick(EXTERNALS)
    }
}
