//! `compose.contact_from_memory` (memory, email): everyone who came to an event gets a
//! thank-you of their own. Who came is in the organiser's email after the event (its names
//! past the first lines a listing shows), beside the same organiser's earlier list of who
//! planned to come (one more name) and another event's list; one person on the list sent
//! apologies instead. Their addresses are in the knowledge graph, where one attendee changed
//! employer: the first address noted is no longer in use. Nobody else may get the note.

use super::{email, first_name, sent, sent_only_to, tools};
use crate::compose::rounds_customers::people;
use mcpbench_server_email::{Email, SeedMessage};
use mcpbench_server_memory::Memory;
use mcpbench_server_memory::world::{FACTS, Graph, ORGS};
use mcpbench_sim::{Pred, Rng, call, params};
use mcpbench_world::{Composed, InitialState};
use serde_json::json;

const EVENTS: &[&str] = &[
    "design workshop",
    "quarterly planning day",
    "customer advisory board",
    "hackathon kickoff",
    "security training",
    "product offsite",
    "partner summit",
    "onboarding bootcamp",
    "data strategy roundtable",
    "accessibility review",
    "pricing workshop",
    "roadmap review",
    "sustainability forum",
    "analytics meetup",
];
/// (subject, body with `{event}`), each body opening with `Hi <first name>,`.
const NOTES: &[(&str, &str)] = &[
    (
        "Thank you for coming",
        "thank you for coming to the {event}. It was great to have you there, and I'll share the notes this week. Alex",
    ),
    (
        "Thanks for joining us",
        "thanks for joining us at the {event}! Your input was really helpful. Best, Alex",
    ),
    (
        "Thanks again",
        "many thanks for taking part in the {event}. I hope to see you at the next one. Alex",
    ),
    (
        "Thanks from Alex",
        "it was a pleasure to see you at the {event}. The slides will follow shortly. Best wishes, Alex",
    ),
];
/// Goals, with `{o}` the organiser, `{event}`, `{subject}` and `{body}`.
const GOALS: &[&str] = &[
    "I want to thank everyone who came to the {event}. {o} emailed me the list of who \
     attended, and their addresses are in my knowledge graph. Send each of them a separate \
     email with the subject \"{subject}\" and exactly this body: \"{body}\", with their first \
     name in place of <first name>.",
    "{o} sent me who actually came to the {event}. Please email each attendee on their own, \
     subject \"{subject}\", body exactly \"{body}\" (put their first name where it says <first \
     name>). Look their addresses up in my knowledge graph; nobody else should get it.",
    "Send a thank-you to each person who attended the {event}, according to {o}'s email about \
     who came: one email each, subject \"{subject}\", body exactly \"{body}\" with <first \
     name> replaced by their first name. Their email addresses are in my knowledge graph.",
];
const ME: &str = "alex@northwind.io";

/// The mail domain of an organisation of [`ORGS`]: its first word, `acme.com`.
fn org_domain(org: &str) -> String {
    let first = org.split_whitespace().next().unwrap_or(org);
    format!("{}.com", first.to_lowercase())
}

/// An address in an organisation's house style: `ada.park@` or `apark@` (drawn first names
/// have distinct initials, so neither style gives two people one address).
fn address(person: &str, org: usize) -> String {
    let lower = person.to_lowercase();
    let (first, last) = lower.split_once(' ').unwrap_or((&lower, ""));
    let local = if org.is_multiple_of(2) {
        format!("{first}.{last}")
    } else {
        format!("{}{last}", &first[..1])
    };
    format!("{local}@{}", org_domain(ORGS[org]))
}

/// `Design workshop` for a subject line.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn bullets(names: &[&String]) -> String {
    names
        .iter()
        .map(|n| format!("- {n}"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(super) fn contact_from_memory(rng: &mut Rng) -> Composed {
    let k = rng.range(2, 3) as usize;
    let names = people(rng, k + 3);
    let (attendees, absent, bystander, organiser) =
        (&names[..k], &names[k], &names[k + 1], &names[k + 2]);
    let events = rng.sample(EVENTS, 2);
    let (event, other_event) = (events[0], events[1]);
    let orgs: Vec<usize> = rng.sample(&(0..ORGS.len()).collect::<Vec<_>>(), 3);

    // Everyone but the organiser is in the graph; one attendee moved from one org to another.
    let moved = rng.below(k as u64) as usize;
    let mut graph = Graph::default();
    for &o in &orgs {
        graph.entity(ORGS[o], "organization", &[]);
    }
    let mut current = Vec::with_capacity(k);
    for (i, person) in names[..k + 2].iter().enumerate() {
        let org = orgs[i % 3];
        let fact = *rng.pick(FACTS);
        let now = address(person, org);
        if i == moved {
            let before = address(person, orgs[(i + 1) % 3]);
            let old = format!("Former work email, no longer in use: {before}");
            let noted = format!("Work email: {now}");
            graph.entity(person, "person", &[fact, old.as_str(), noted.as_str()]);
        } else {
            let noted = format!("Work email: {now}");
            graph.entity(person, "person", &[fact, noted.as_str()]);
        }
        graph.relate(person, ORGS[org], "works_at");
        if i < k {
            current.push(now);
        }
    }

    let organiser_address = format!("{}@northwind.io", super::local_part(organiser));
    let sign = first_name(organiser);
    let listed: Vec<&String> = attendees.iter().chain([absent, bystander]).collect();
    let came: Vec<&String> = attendees.iter().collect();
    let mut messages = mcpbench_server_email::sample_seed().messages;
    messages.push(SeedMessage::received(
        "msg-2001",
        &organiser_address,
        ME,
        &format!("{}: who's coming", capitalised(event)),
        &format!(
            "Hi Alex,\n\nAhead of the {event} next week, here is who has said they will come so \
             far, so you can plan the room and the catering:\n{}\n\n{sign}",
            bullets(&listed)
        ),
        "2026-02-18T16:20:00Z",
    ));
    messages.push(SeedMessage::received(
        "msg-2002",
        &organiser_address,
        ME,
        &format!("{}: attendance", capitalised(other_event)),
        &format!(
            "Hi Alex,\n\nThanks again for co-hosting the {other_event} on Tuesday; it went really \
             well. For your records, here is who came:\n{}\n\n{sign}",
            bullets(&[bystander, &attendees[0]])
        ),
        "2026-02-25T09:40:00Z",
    ));
    let target = "msg-2003";
    messages.push(SeedMessage::received(
        target,
        &organiser_address,
        ME,
        &format!("{}: attendance", capitalised(event)),
        &format!(
            "Hi Alex,\n\nThanks again for co-hosting the {event} on Thursday; it went really \
             well. For your records, here is who came:\n{}\n\n{absent} couldn't make it in the \
             end and sent apologies.\n\n{sign}",
            bullets(&came)
        ),
        "2026-02-27T17:15:00Z",
    ));
    let mut allowed: Vec<String> = orgs.iter().map(|&o| org_domain(ORGS[o])).collect();
    allowed.push("northwind.io".into());
    let mail = mcpbench_server_email::Seed {
        allowed_domains: allowed,
        messages,
        ..mcpbench_server_email::sample_seed()
    };

    let (subject, rest) = *rng.pick(NOTES);
    let rest = rest.replace("{event}", event);
    let goal = rng
        .pick(GOALS)
        .replace("{o}", organiser)
        .replace("{event}", event)
        .replace("{subject}", subject)
        .replace("{body}", &format!("Hi <first name>, {rest}"));
    let mut checks = vec![
        sent_only_to(&current),
        email(mcpbench_server_email::Atom::SentCount {
            to: None,
            subject_contains: None,
            body_contains: None,
            count: k as u32,
        }),
    ];
    let mut steps = vec![
        call::<Email>(
            "search_emails",
            json!({ "query": format!("subject:\"{event}\"") }),
        ),
        call::<Email>("read_email", json!({ "messageId": target })),
        call::<Memory>("open_nodes", json!({ "names": attendees })),
    ];
    for (person, to) in attendees.iter().zip(&current) {
        let body = format!("Hi {}, {rest}", first_name(person));
        checks.push(sent(to, subject, Some(&body), None));
        steps.push(call::<Email>(
            "send_email",
            json!({ "to": [to], "subject": subject, "body": body }),
        ));
    }
    Composed {
        max_steps: 14,
        goal,
        initial_state: InitialState {
            memory: Some(graph.seed),
            email: Some(mail),
            ..Default::default()
        },
        available_tools: tools(
            "memory.search_nodes memory.open_nodes memory.read_graph email.search_emails \
             email.list_emails email.read_email email.send_email email.draft_email \
             email.send_draft",
        ),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("event", json!(event)),
            ("attendees", json!(attendees)),
            ("addresses", json!(current)),
            ("moved", json!(attendees[moved])),
        ]),
    }
}
