//! Recovery templates: a transient fault to retry through, or a refusal for the agent to
//! notice; the goal states what the user wants and what they will accept instead.

use super::{
    COLLEAGUES, EXTERNALS, HOME_DOMAIN, Ids, Kit, TOPICS, anyone, atom, body, clutter, params,
    received, sent_exactly,
};
use crate::{Atom, Email, Seed, forward_subject};
use mcpbench_sim::{Draft, ErrorKind, Fault, Rng, call, qualified};
use serde_json::json;

pub(crate) fn send_after_outage(rng: &mut Rng) -> Draft<Email> {
    let (name, to) = anyone(rng);
    let subject = *rng.pick(TOPICS);
    let text = body(rng, name);
    let mut ids = Ids::new(rng, "msg");
    let kind = *rng.pick(&[
        ErrorKind::Unavailable,
        ErrorKind::RateLimited,
        ErrorKind::Timeout,
    ]);
    let send = call::<Email>(
        "send_email",
        json!({ "to": [to], "subject": subject, "body": text }),
    );
    Draft {
        goal: format!("Email {to} with the subject \"{subject}\" and exactly this body: {text}"),
        max_steps: 4,
        seed: Seed {
            messages: clutter(rng, &mut ids, 1, 3),
            ..Seed::default()
        },
        tools: Email::tools(&["send_email", "draft_email", "search_emails", "list_emails"]),
        predicate: sent_exactly(to, subject, &text),
        references: vec![vec![send.clone(), send]],
        faults: vec![Fault {
            tool: qualified::<Email>("send_email"),
            on_call: 1,
            times: 1,
            error: kind,
            message: "the mail service did not accept the message; nothing was sent, try again"
                .into(),
            landed: false,
        }],
        params: params(&[("to", json!(to)), ("error", json!(kind.as_str()))]),
    }
}

pub(crate) fn external_fallback_draft(rng: &mut Rng) -> Draft<Email> {
    let (name, to) = *rng.pick(EXTERNALS);
    let subject = *rng.pick(TOPICS);
    let text = body(rng, name);
    let mut ids = Ids::new(rng, "msg");
    let messages = clutter(rng, &mut ids, 1, 3);
    let goal = match rng.below(3) {
        0 => format!(
            "Email {to} with the subject \"{subject}\" and exactly this body: {text}\nIf it can't go out from this mailbox, a draft of exactly that message to {to} is fine; I'll send it later from another account."
        ),
        1 => format!(
            "Please write to {to}, subject \"{subject}\", with exactly this text: {text}\nShould this account be unable to send it, leave it as a draft addressed to {to} and I'll send it myself from elsewhere."
        ),
        _ => format!(
            "I'd like {to} to get an email with the subject \"{subject}\" saying exactly: {text}\nIf sending isn't possible from here, a ready draft to {to} with exactly that subject and text will do."
        ),
    };
    Draft {
        goal,
        max_steps: 4,
        seed: Seed {
            allowed_domains: vec![HOME_DOMAIN.into()],
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&["send_email", "draft_email", "send_draft", "search_emails"]),
        predicate: mcpbench_sim::Pred::Atom(Atom::DraftExists {
            to: vec![to.into()],
            subject: subject.into(),
            body: Some(text.clone()),
            body_contains: None,
        }),
        references: vec![vec![
            call::<Email>(
                "send_email",
                json!({ "to": [to], "subject": subject, "body": text }),
            ),
            call::<Email>(
                "draft_email",
                json!({ "to": [to], "subject": subject, "body": text }),
            ),
        ]],
        faults: vec![],
        params: params(&[("to", json!(to)), ("subject", json!(subject))]),
    }
}

pub(crate) fn forward_fallback(rng: &mut Rng) -> Draft<Email> {
    let mut ids = Ids::new(rng, "msg");
    let mut messages = clutter(rng, &mut ids, 1, 3);
    let pair = rng.sample(COLLEAGUES, 2);
    let (_, from) = pair[0];
    let (_, colleague) = pair[1];
    let (_, partner) = *rng.pick(EXTERNALS);
    let subject = *rng.pick(TOPICS);
    let text = body(rng, "Alex");
    let target = received(rng, &mut ids, from, subject, &text);
    let id = target.id.clone();
    messages.push(target);
    rng.shuffle(&mut messages);
    let note = format!("Please pass this on to {partner}.");
    let search = call::<Email>(
        "search_emails",
        json!({ "query": format!("from:{from} subject:\"{subject}\"") }),
    );
    let goal = match rng.below(3) {
        0 => format!(
            "Forward the email \"{subject}\" from {from} to our partner {partner}. If it can't reach them from here, forward it to my colleague {colleague} instead, with the note: {note}"
        ),
        1 => format!(
            "Our partner {partner} should see the email \"{subject}\" that {from} sent me: please forward it to them. Failing that, forward it to {colleague} with the note \"{note}\""
        ),
        _ => format!(
            "Please pass the email \"{subject}\" from {from} on to {partner}, our partner. If that doesn't work, {colleague} can relay it: forward it to them with the note: {note}"
        ),
    };
    Draft {
        goal,
        max_steps: 7,
        seed: Seed {
            allowed_domains: vec![HOME_DOMAIN.into()],
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&[
            "search_emails",
            "read_email",
            "forward_email",
            "send_email",
            "draft_email",
        ]),
        predicate: atom(Atom::Sent {
            to: vec![colleague.into()],
            subject: forward_subject(subject),
            cc: None,
            body: None,
            body_contains: Some(note.clone()),
            thread_of: Some(id.clone()),
        }),
        references: vec![vec![
            search.clone(),
            search,
            call::<Email>("forward_email", json!({ "messageId": id, "to": [partner] })),
            call::<Email>(
                "forward_email",
                json!({ "messageId": id, "to": [colleague], "body": note }),
            ),
        ]],
        faults: vec![Fault {
            tool: qualified::<Email>("search_emails"),
            on_call: 1,
            times: 1,
            error: ErrorKind::Timeout,
            message: "the search backend timed out; try again".into(),
            landed: false,
        }],
        params: params(&[
            ("from", json!(from)),
            ("partner", json!(partner)),
            ("colleague", json!(colleague)),
        ]),
    }
}
