//! Single-tool templates: one call of the right tool with the right arguments.

use super::{
    Ids, Kit, ME, TOPICS, anyone, atom, body, clutter, date, in_folder, not, params, received,
    sent_exactly,
};
use crate::{Atom, Email, Folder, Seed, SeedMessage};
use mcpbench_sim::{Draft, Pred, Rng, call};
use serde_json::json;

pub(crate) fn send_message(rng: &mut Rng) -> Draft<Email> {
    let (name, to) = anyone(rng);
    let subject = *rng.pick(TOPICS);
    let text = body(rng, name);
    let mut ids = Ids::new(rng, "msg");
    Draft {
        goal: format!(
            "Send an email to {to} with the subject \"{subject}\" and exactly this body: {text}"
        ),
        max_steps: 3,
        seed: Seed {
            messages: clutter(rng, &mut ids, 2, 4),
            ..Seed::default()
        },
        tools: Email::tools(&[
            "send_email",
            "draft_email",
            "search_emails",
            "read_email",
            "list_labels",
        ]),
        predicate: sent_exactly(to, subject, &text),
        references: vec![vec![call::<Email>(
            "send_email",
            json!({ "to": [to], "subject": subject, "body": text }),
        )]],
        faults: vec![],
        params: params(&[("to", json!(to)), ("subject", json!(subject))]),
    }
}

pub(crate) fn save_draft(rng: &mut Rng) -> Draft<Email> {
    let (name, to) = anyone(rng);
    let subject = *rng.pick(TOPICS);
    let text = body(rng, name);
    let mut ids = Ids::new(rng, "msg");
    let any_sent = atom(Atom::Sent {
        to: vec![to.into()],
        subject: subject.into(),
        cc: None,
        body: None,
        body_contains: None,
        thread_of: None,
    });
    Draft {
        goal: format!(
            "Prepare an email to {to} with the subject \"{subject}\" and exactly this body: {text}\nSave it as a draft; do not send it yet."
        ),
        max_steps: 3,
        seed: Seed {
            messages: clutter(rng, &mut ids, 1, 3),
            ..Seed::default()
        },
        tools: Email::tools(&["draft_email", "send_email", "send_draft", "search_emails"]),
        predicate: Pred::All(vec![
            atom(Atom::DraftExists {
                to: vec![to.into()],
                subject: subject.into(),
                body: Some(text.clone()),
                body_contains: None,
            }),
            not(any_sent),
        ]),
        references: vec![vec![call::<Email>(
            "draft_email",
            json!({ "to": [to], "subject": subject, "body": text }),
        )]],
        faults: vec![],
        params: params(&[("to", json!(to)), ("subject", json!(subject))]),
    }
}

fn draft(rng: &mut Rng, ids: &mut Ids, to: &str, subject: &str, text: &str) -> SeedMessage {
    let d = date(rng);
    let mut m = SeedMessage::received(&ids.take(), ME, to, subject, text, &d);
    m.folder = Folder::Drafts;
    m
}

/// Ways to ask for a saved draft to go out, with `{to}` and `{subject}`.
const DRAFT_ASKS: &[&str] = &[
    "I already wrote a draft to {to} with the subject \"{subject}\". Send that draft exactly as it is.",
    "My draft for {to} about \"{subject}\" is ready. Please send it as it stands, no edits.",
    "Send off the draft I saved for {to} (subject \"{subject}\"); don't change a word.",
    "There's a finished draft to {to} titled \"{subject}\" sitting in my drafts. Send it unchanged.",
    "I never got round to sending my draft \"{subject}\" to {to}. Please send it now, as written.",
    "Go ahead with the draft to {to} on \"{subject}\": send it exactly as I left it.",
    "Please send the draft I wrote to {to}, the one with the subject \"{subject}\". It doesn't need changes.",
];

pub(crate) fn send_saved_draft(rng: &mut Rng) -> Draft<Email> {
    let mut ids = Ids::new(rng, "msg");
    let mut messages = clutter(rng, &mut ids, 1, 3);
    let topics = rng.sample(TOPICS, 2);
    let (name, to) = anyone(rng);
    let text = body(rng, name);
    let target = draft(rng, &mut ids, to, topics[0], &text);
    let (other_name, other_to) = anyone(rng);
    let other_text = body(rng, other_name);
    let decoy = draft(rng, &mut ids, other_to, topics[1], &other_text);
    let id = target.id.clone();
    messages.extend([target, decoy]);
    rng.shuffle(&mut messages);
    Draft {
        goal: rng
            .pick(DRAFT_ASKS)
            .replace("{to}", to)
            .replace("{subject}", topics[0]),
        max_steps: 4,
        seed: Seed {
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&[
            "send_draft",
            "send_email",
            "draft_email",
            "list_emails",
            "read_email",
        ]),
        predicate: Pred::All(vec![
            in_folder(&id, Folder::Sent),
            sent_exactly(to, topics[0], &text),
        ]),
        references: vec![vec![
            call::<Email>("list_emails", json!({ "folder": "drafts" })),
            call::<Email>("send_draft", json!({ "draftId": id })),
        ]],
        faults: vec![],
        params: params(&[("to", json!(to)), ("subject", json!(topics[0]))]),
    }
}

const LABELS: &[&str] = &[
    "Receipts",
    "Travel",
    "Clients",
    "Follow-up",
    "Finance",
    "Projects",
];

pub(crate) fn label_message(rng: &mut Rng) -> Draft<Email> {
    let mut ids = Ids::new(rng, "msg");
    let mut messages = clutter(rng, &mut ids, 2, 4);
    let (_, from) = anyone(rng);
    let subject = *rng.pick(TOPICS);
    let text = body(rng, "Alex");
    let target = received(rng, &mut ids, from, subject, &text);
    let id = target.id.clone();
    messages.push(target);
    rng.shuffle(&mut messages);
    let labels: Vec<String> = rng
        .sample(LABELS, 3)
        .into_iter()
        .map(String::from)
        .collect();
    let label = labels[rng.below(3) as usize].clone();
    Draft {
        goal: format!("Add the label \"{label}\" to the email from {from} about \"{subject}\"."),
        max_steps: 4,
        seed: Seed {
            labels,
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&[
            "add_label",
            "list_labels",
            "move_email",
            "search_emails",
            "read_email",
        ]),
        predicate: atom(Atom::HasLabel {
            id: id.clone(),
            label: label.clone(),
        }),
        references: vec![vec![
            call::<Email>(
                "search_emails",
                json!({ "query": format!("from:{from} subject:\"{subject}\"") }),
            ),
            call::<Email>("add_label", json!({ "messageId": id, "label": label })),
        ]],
        faults: vec![],
        params: params(&[("label", json!(label)), ("from", json!(from))]),
    }
}
