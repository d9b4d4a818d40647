//! Composition templates: find the right message first, then act on it (or answer from it).

use super::{
    COLLEAGUES, EXTERNALS, Ids, Kit, TOPICS, anyone, atom, body, clutter, in_folder, not, params,
    received,
};
use crate::{Atom, Email, Folder, Seed, forward_subject, reply_subject};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

const SHOPS: &[&str] = &[
    "orders@parcelpost.com",
    "shipping@bookbarn.com",
    "noreply@gadgethub.com",
    "dispatch@homegoods.net",
];
const CARRIERS: &[(&str, &str)] = &[
    ("PP", "ParcelPost"),
    ("1Z", "UPS"),
    ("JD", "DHL"),
    ("TBA", "Amazon Logistics"),
];

fn tracking(rng: &mut Rng) -> (String, &'static str) {
    let (prefix, carrier) = *rng.pick(CARRIERS);
    (
        format!("{prefix}{}", rng.range(1_000_000_000, 9_999_999_999)),
        carrier,
    )
}

fn shipped(order: i64, number: &str, carrier: &str) -> (String, String) {
    (
        format!("Your order {order} has shipped"),
        format!(
            "Good news! Order {order} is on its way with {carrier}.\nTracking number: {number}\nEstimated delivery: 3-5 business days."
        ),
    )
}

pub(crate) fn tracking_number(rng: &mut Rng) -> Draft<Email> {
    let mut ids = Ids::new(rng, "msg");
    let mut messages = clutter(rng, &mut ids, 1, 3);
    let shops = rng.sample(SHOPS, 2);
    let order = rng.range(10_000, 99_999);
    let other_order = order + rng.range(1, 400);
    let (number, carrier) = tracking(rng);
    let (subject, text) = shipped(order, &number, carrier);
    let target = received(rng, &mut ids, shops[0], &subject, &text);
    let target_id = target.id.clone();
    messages.push(target);
    let mut decoys = Vec::new();
    for (shop, o) in [(shops[0], other_order), (shops[1], order + 500)] {
        let (n, c) = tracking(rng);
        decoys.push(n.clone());
        let (s, t) = shipped(o, &n, c);
        messages.push(received(rng, &mut ids, shop, &s, &t));
    }
    rng.shuffle(&mut messages);
    Draft {
        goal: format!(
            "What is the tracking number in the email from {} about order {order}? Reply with just the tracking number.",
            shops[0]
        ),
        max_steps: 5,
        seed: Seed {
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&[
            "search_emails",
            "list_emails",
            "read_email",
            "archive_email",
            "mark_as_read",
        ]),
        predicate: Pred::Answer(AnswerCheck::names(
            &number,
            decoys.iter().map(String::as_str),
        )),
        references: vec![vec![
            call::<Email>(
                "search_emails",
                json!({ "query": format!("from:{} {order}", shops[0]) }),
            ),
            call::<Email>("read_email", json!({ "messageId": target_id })),
            Step::Answer { answer: number },
        ]],
        faults: vec![],
        params: params(&[("shop", json!(shops[0])), ("order", json!(order))]),
    }
}

pub(crate) fn reply_in_thread(rng: &mut Rng) -> Draft<Email> {
    let mut ids = Ids::new(rng, "msg");
    let mut messages = clutter(rng, &mut ids, 1, 3);
    let (name, from) = anyone(rng);
    let topics = rng.sample(TOPICS, 2);
    let first = body(rng, "Alex");
    let target = received(rng, &mut ids, from, topics[0], &first);
    let id = target.id.clone();
    messages.push(target);
    let second = body(rng, "Alex");
    messages.push(received(rng, &mut ids, from, topics[1], &second));
    rng.shuffle(&mut messages);
    let answer = body(rng, name);
    let subject = reply_subject(topics[0]);
    Draft {
        goal: format!(
            "Reply to {name}'s email \"{}\" (from {from}) in the same conversation, with exactly this text: {answer}",
            topics[0]
        ),
        max_steps: 5,
        seed: Seed {
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&[
            "search_emails",
            "read_email",
            "reply_email",
            "send_email",
            "forward_email",
        ]),
        predicate: atom(Atom::Sent {
            to: vec![from.into()],
            subject,
            cc: None,
            body: Some(answer.clone()),
            body_contains: None,
            thread_of: Some(id.clone()),
        }),
        references: vec![vec![
            call::<Email>(
                "search_emails",
                json!({ "query": format!("from:{from} subject:\"{}\"", topics[0]) }),
            ),
            call::<Email>("reply_email", json!({ "messageId": id, "body": answer })),
        ]],
        faults: vec![],
        params: params(&[("from", json!(from)), ("subject", json!(topics[0]))]),
    }
}

const NEWSLETTERS: &[(&str, &str)] = &[
    ("news@techdigest.com", "Tech Digest"),
    ("digest@marketpulse.io", "Market Pulse"),
    ("hello@recipebox.com", "Recipe Box"),
    ("updates@fitlife.app", "FitLife"),
];

pub(crate) fn trash_newsletters(rng: &mut Rng) -> Draft<Email> {
    let mut ids = Ids::new(rng, "msg");
    let mut messages = clutter(rng, &mut ids, 1, 3);
    let picked = rng.sample(NEWSLETTERS, 2);
    let (sender, brand) = picked[0];
    let n = rng.range(2, 3) as usize;
    let mut targets = Vec::new();
    for issue in 0..n {
        let mut m = received(
            rng,
            &mut ids,
            sender,
            &format!("{brand} issue #{}", 40 + issue),
            "This week's highlights inside.",
        );
        m.read = rng.chance(1, 2);
        targets.push(m.id.clone());
        messages.push(m);
    }
    let (other, other_brand) = picked[1];
    messages.push(received(
        rng,
        &mut ids,
        other,
        &format!("{other_brand} weekly"),
        "Fresh picks for you.",
    ));
    let others: Vec<String> = messages
        .iter()
        .map(|m| m.id.clone())
        .filter(|id| !targets.contains(id))
        .collect();
    rng.shuffle(&mut messages);
    let mut checks: Vec<Pred<Atom>> = targets
        .iter()
        .map(|id| in_folder(id, Folder::Trash))
        .collect();
    checks.extend(others.iter().map(|id| in_folder(id, Folder::Inbox)));
    let mut steps = vec![call::<Email>(
        "search_emails",
        json!({ "query": format!("from:{sender}") }),
    )];
    steps.extend(
        targets
            .iter()
            .map(|id| call::<Email>("move_email", json!({ "messageId": id, "folder": "trash" }))),
    );
    Draft {
        goal: format!(
            "Move every email from {sender} to the trash. Do not delete them permanently, and leave all other emails where they are."
        ),
        max_steps: (n + 4) as u32,
        seed: Seed {
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&[
            "search_emails",
            "list_emails",
            "move_email",
            "archive_email",
            "delete_email",
        ]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[("sender", json!(sender)), ("count", json!(n))]),
    }
}

const VENDORS: &[&str] = &[
    "billing@acmesupplies.com",
    "invoices@brightprint.co",
    "accounts@cloudnest.io",
];
const NOTES: &[&str] = &[
    "Approved, please process.",
    "Please pay this by Friday.",
    "For your records.",
    "Please book this under marketing.",
];

pub(crate) fn forward_and_archive(rng: &mut Rng) -> Draft<Email> {
    let mut ids = Ids::new(rng, "msg");
    let mut messages = clutter(rng, &mut ids, 1, 3);
    let vendor = *rng.pick(VENDORS);
    let number = rng.range(1000, 9899);
    let other = number + rng.range(1, 99);
    let invoice = |n: i64, amount: i64| {
        (
            format!("Invoice INV-{n}"),
            format!("Please find invoice INV-{n} for {amount} EUR, due within 30 days."),
        )
    };
    let (subject, text) = invoice(number, rng.range(120, 9000));
    let target = received(rng, &mut ids, vendor, &subject, &text);
    let id = target.id.clone();
    messages.push(target);
    let (s2, t2) = invoice(other, rng.range(120, 9000));
    messages.push(received(rng, &mut ids, vendor, &s2, &t2));
    rng.shuffle(&mut messages);
    let (_, accountant) = *rng.pick(COLLEAGUES);
    let note = *rng.pick(NOTES);
    let sent = atom(Atom::Sent {
        to: vec![accountant.into()],
        subject: forward_subject(&subject),
        cc: None,
        body: None,
        body_contains: Some(note.into()),
        thread_of: Some(id.clone()),
    });
    let search = call::<Email>(
        "search_emails",
        json!({ "query": format!("from:{vendor} subject:\"{subject}\"") }),
    );
    let forward = call::<Email>(
        "forward_email",
        json!({ "messageId": id, "to": [accountant], "body": note }),
    );
    Draft {
        goal: format!(
            "Forward the email \"{subject}\" from {vendor} to {accountant} with the note \"{note}\", then archive that original email so it leaves the inbox."
        ),
        max_steps: 6,
        seed: Seed {
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&[
            "search_emails",
            "read_email",
            "forward_email",
            "send_email",
            "archive_email",
            "move_email",
            "delete_email",
        ]),
        predicate: Pred::All(vec![sent, in_folder(&id, Folder::Archive)]),
        references: vec![
            vec![
                search.clone(),
                forward.clone(),
                call::<Email>("archive_email", json!({ "messageId": id })),
            ],
            vec![
                search,
                forward,
                call::<Email>(
                    "move_email",
                    json!({ "messageId": id, "folder": "archive" }),
                ),
            ],
        ],
        faults: vec![],
        params: params(&[
            ("vendor", json!(vendor)),
            ("invoice", json!(number)),
            ("to", json!(accountant)),
        ]),
    }
}

const TRIAGE_LABELS: &[&str] = &["Clients", "Priority", "Partners", "To answer"];

pub(crate) fn triage_from_domain(rng: &mut Rng) -> Draft<Email> {
    let mut ids = Ids::new(rng, "msg");
    let (_, contact) = *rng.pick(EXTERNALS);
    let domain = contact.split('@').nth(1).expect("an address").to_string();
    let label = *rng.pick(TRIAGE_LABELS);
    let people = rng.sample(&["anna", "ben", "chen", "dara", "eli"], 4);
    let n = rng.range(2, 3) as usize;
    let mut messages = Vec::new();
    let mut targets = Vec::new();
    for person in &people[..n] {
        let (topic, text) = (*rng.pick(TOPICS), body(rng, "Alex"));
        let m = received(rng, &mut ids, &format!("{person}@{domain}"), topic, &text);
        targets.push(m.id.clone());
        messages.push(m);
    }
    let mut already_read = received(
        rng,
        &mut ids,
        &format!("{}@{domain}", people[3]),
        "Thanks for the call",
        "Great talking today.",
    );
    already_read.read = true;
    let mut untouched = vec![already_read.id.clone()];
    messages.push(already_read);
    let mut unread_others = Vec::new();
    for (_, colleague) in rng.sample(COLLEAGUES, 2) {
        let (topic, text) = (*rng.pick(TOPICS), body(rng, "Alex"));
        let m = received(rng, &mut ids, colleague, topic, &text);
        unread_others.push(m.id.clone());
        messages.push(m);
    }
    untouched.extend(unread_others.iter().cloned());
    rng.shuffle(&mut messages);
    let mut checks = Vec::new();
    for id in &targets {
        checks.push(atom(Atom::HasLabel {
            id: id.clone(),
            label: label.into(),
        }));
        checks.push(atom(Atom::IsRead { id: id.clone() }));
    }
    checks.extend(untouched.iter().map(|id| {
        not(atom(Atom::HasLabel {
            id: id.clone(),
            label: label.into(),
        }))
    }));
    checks.extend(
        unread_others
            .iter()
            .map(|id| not(atom(Atom::IsRead { id: id.clone() }))),
    );
    let mut steps = vec![call::<Email>(
        "search_emails",
        json!({ "query": format!("from:@{domain} is:unread in:inbox") }),
    )];
    steps.extend(
        targets
            .iter()
            .map(|id| call::<Email>("add_label", json!({ "messageId": id, "label": label }))),
    );
    steps.push(call::<Email>(
        "mark_as_read",
        json!({ "messageIds": targets }),
    ));
    Draft {
        goal: format!(
            "Give every unread email in my inbox from anyone at {domain} the label \"{label}\", and mark those emails as read. Leave all other emails as they are."
        ),
        max_steps: (n + 5) as u32,
        seed: Seed {
            labels: vec![label.into()],
            messages,
            ..Seed::default()
        },
        tools: Email::tools(&[
            "search_emails",
            "list_emails",
            "read_email",
            "add_label",
            "mark_as_read",
            "move_email",
            "list_labels",
        ]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[
            ("domain", json!(domain)),
            ("label", json!(label)),
            ("count", json!(n)),
        ]),
    }
}
