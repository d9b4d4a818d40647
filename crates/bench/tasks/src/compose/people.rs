//! Templates that end in a message to a person or a note for one: the agent reads something
//! on one server (a file's text, a tracking number in a shipping notice, a contact's address
//! in the knowledge graph, an order's customer and refunded amount) and writes it on another,
//! mostly as an email whose recipients, subject and body the predicate checks exactly.

use mcpbench_server_email::{Email, SeedMessage};
use mcpbench_server_filesystem::Filesystem;
use mcpbench_server_memory::{Memory, world};
use mcpbench_server_shop::{Order, OrderStatus, Refund, Shop};
use mcpbench_sim::{Category, Difficulty, Pred, Rng, call, params};
use mcpbench_world::{AnyTemplate, Atom, Composed, InitialState};
use serde_json::json;
use std::collections::BTreeMap;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Category::Composition;
    use Difficulty::*;
    vec![
        AnyTemplate::new(
            "compose.file_to_email",
            vec!["filesystem", "email"],
            Composition,
            Medium,
            file_to_email,
        ),
        AnyTemplate::new(
            "compose.tracking_number_to_file",
            vec!["email", "filesystem"],
            Composition,
            Medium,
            tracking_number_to_file,
        ),
        AnyTemplate::new(
            "compose.contact_from_memory",
            vec!["memory", "email"],
            Composition,
            Medium,
            contact_from_memory,
        ),
        AnyTemplate::new(
            "compose.refund_and_notify",
            vec!["shop", "email"],
            Composition,
            Hard,
            refund_and_notify,
        ),
    ]
}

fn tools(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

fn sent(to: &str, subject: &str, body: &str) -> Pred<Atom> {
    Pred::Atom(Atom::email(mcpbench_server_email::Atom::Sent {
        to: vec![to.to_string()],
        subject: subject.to_string(),
        cc: None,
        body: Some(body.to_string()),
        body_contains: None,
        thread_of: None,
    }))
}

/// Where a new message of the sample mailbox lands: its ids stop at `msg-1006`.
const FIRST_NEW_ID: &str = "msg-9001";

// ---------------------------------------------------------------------------------------
// compose.file_to_email

const PROJECTS: &[&str] = &["Atlas", "Borealis", "Cobalt", "Delta", "Ember", "Falcon"];
const WORK_ITEMS: &[&str] = &[
    "login page",
    "billing export",
    "search index",
    "mobile layout",
    "audit log",
    "data migration",
    "onboarding emails",
    "API rate limits",
];
const OWNERS: &[&str] = &["Maria", "Sam", "Priya", "Jonas", "Mei", "Kofi"];
const COLLEAGUES: &[&str] = &[
    "maria.lopez@northwind.io",
    "sam.okafor@contoso.com",
    "priya.nair@northwind.io",
    "jonas.berg@fabrikam.com",
];
const STATUS_SUBJECTS: &[&str] = &[
    "{p} status update",
    "Status report: {p}",
    "This week on {p}",
];

/// A short status report of `project`, a few lines without a trailing newline.
fn status_report(rng: &mut Rng, project: &str) -> String {
    let items = rng.sample(WORK_ITEMS, 3);
    let blocked = if rng.chance(1, 2) {
        "none".to_string()
    } else {
        format!("waiting on {} for the {}", rng.pick(OWNERS), items[2])
    };
    format!(
        "{project} - week {}\nDone: {}\nIn progress: {} ({}% complete)\nBlocked: {blocked}",
        rng.range(2, 48),
        items[0],
        items[1],
        rng.range(2, 9) * 10,
    )
}

fn file_to_email(rng: &mut Rng) -> Composed {
    let projects = rng.sample(PROJECTS, 3);
    let mut files = BTreeMap::new();
    for p in &projects {
        let path = format!("/home/alex/reports/status-{}.txt", p.to_lowercase());
        files.insert(path, status_report(rng, p));
    }
    let project = projects[0];
    let path = format!("/home/alex/reports/status-{}.txt", project.to_lowercase());
    // An older report of the same project, with the same file name, in the archive.
    files.insert(
        format!(
            "/home/alex/reports/archive/status-{}.txt",
            project.to_lowercase()
        ),
        status_report(rng, project),
    );
    let content = files[&path].clone();
    let to = *rng.pick(COLLEAGUES);
    let subject = rng.pick(STATUS_SUBJECTS).replace("{p}", project);
    let fs = mcpbench_server_filesystem::Seed {
        files,
        ..Default::default()
    };
    let send = json!({ "to": [to], "subject": subject, "body": content });
    Composed {
        max_steps: 6,
        goal: format!(
            "Email the report in {path} to {to} with the subject \"{subject}\". The body must be \
             exactly the text of that file, with nothing added, removed or reformatted."
        ),
        initial_state: InitialState {
            filesystem: Some(fs),
            email: Some(mcpbench_server_email::sample_seed()),
            ..Default::default()
        },
        available_tools: tools(&[
            "filesystem.read_text_file",
            "filesystem.read_file",
            "filesystem.list_directory",
            "filesystem.search_files",
            "email.send_email",
            "email.draft_email",
            "email.send_draft",
            "email.search_emails",
        ]),
        success_predicate: sent(to, &subject, &content),
        faults: vec![],
        reference_solutions: vec![
            vec![
                call::<Filesystem>("read_text_file", json!({ "path": path })),
                call::<Email>("send_email", send.clone()),
            ],
            vec![
                call::<Filesystem>("read_text_file", json!({ "path": path })),
                call::<Email>("draft_email", send),
                call::<Email>("send_draft", json!({ "draftId": FIRST_NEW_ID })),
            ],
        ],
        params: params(&[
            ("path", json!(path)),
            ("to", json!(to)),
            ("subject", json!(subject)),
        ]),
    }
}

// ---------------------------------------------------------------------------------------
// compose.tracking_number_to_file

/// (shop, sender address, file slug) of the stores that send shipping notices.
const STORES: &[(&str, &str, &str)] = &[
    ("Lumen Lamps", "shipping@lumenlamps.com", "lumen-lamps"),
    (
        "Greenleaf Books",
        "orders@greenleafbooks.com",
        "greenleaf-books",
    ),
    ("Peak Outdoor", "dispatch@peakoutdoor.eu", "peak-outdoor"),
    ("Brew Supply Co", "noreply@brewsupply.co", "brew-supply"),
    ("Pixel Parts", "ship@pixelparts.io", "pixel-parts"),
];
/// (carrier, tracking number prefix, digits).
const CARRIERS: &[(&str, &str, u32)] = &[
    ("ParcelPost", "PP", 10),
    ("SwiftShip", "SW", 9),
    ("BoxLine", "BX", 11),
];

fn tracking_number(rng: &mut Rng, carrier: (&str, &str, u32)) -> String {
    let digits: String = (0..carrier.2)
        .map(|_| char::from(b'0' + rng.below(10) as u8))
        .collect();
    format!("{}{digits}", carrier.1)
}

fn shipping_notice(
    id: &str,
    store: (&str, &str, &str),
    order: i64,
    carrier: (&str, &str, u32),
    number: &str,
    date: &str,
) -> SeedMessage {
    SeedMessage::received(
        id,
        store.1,
        "alex@northwind.io",
        &format!("Your {} order {order} has shipped", store.0),
        &format!(
            "Hi Alex,\n\nGood news: order {order} is on its way with {}.\nTracking number: {number}\nEstimated delivery: March {}.\n\n{}",
            carrier.0,
            order % 20 + 5,
            store.0
        ),
        date,
    )
}

fn tracking_number_to_file(rng: &mut Rng) -> Composed {
    let stores = rng.sample(STORES, 3);
    let store = stores[0];
    let carriers = rng.sample(CARRIERS, 3);
    let order = rng.range(40000, 49999);
    let number = tracking_number(rng, carriers[0]);
    let me = "alex@northwind.io";
    let mut messages = vec![
        SeedMessage::received(
            "msg-2001",
            store.1,
            me,
            &format!("We received your {} order {order}", store.0),
            &format!(
                "Hi Alex,\n\nThanks for your order {order}. We will email you the tracking number as soon as it ships.\n\n{}",
                store.0
            ),
            "2026-02-25T10:12:00Z",
        ),
        SeedMessage::received(
            "msg-2002",
            "news@techdigest.com",
            me,
            "This week in tech",
            "Top stories: chips, clouds and coffee.",
            "2026-02-26T07:00:00Z",
        ),
    ];
    // The other stores' notices, with numbers of other carriers; one before, one after.
    let mut other_numbers = Vec::new();
    for (i, other) in stores[1..].iter().enumerate() {
        let other_number = tracking_number(rng, carriers[i + 1]);
        other_numbers.push(other_number.clone());
        let date = if i == 0 {
            "2026-02-26T15:40:00Z"
        } else {
            "2026-03-01T09:05:00Z"
        };
        messages.push(shipping_notice(
            &format!("msg-200{}", i + 3),
            *other,
            rng.range(10000, 39999),
            carriers[i + 1],
            &other_number,
            date,
        ));
    }
    let target = "msg-2005";
    messages.push(shipping_notice(
        target,
        store,
        order,
        carriers[0],
        &number,
        "2026-02-28T08:30:00Z",
    ));
    messages.push(SeedMessage::received(
        "msg-2006",
        "maria.lopez@northwind.io",
        me,
        "Package for the office",
        "Alex, a package for you arrived at reception. Tracking number is on the label.",
        "2026-03-01T13:00:00Z",
    ));
    messages.sort_by(|a, b| a.id.cmp(&b.id));
    let mail = mcpbench_server_email::Seed {
        messages,
        ..Default::default()
    };
    let path = format!("/home/alex/deliveries/{}.txt", store.2);
    // The first other store's number is already saved, as the task asks for this one.
    let fs = mcpbench_server_filesystem::Seed {
        files: BTreeMap::from([(
            format!("/home/alex/deliveries/{}.txt", stores[1].2),
            other_numbers[0].clone(),
        )]),
        ..Default::default()
    };
    let equals = |content: String| {
        Pred::Atom(Atom::filesystem(
            mcpbench_server_filesystem::Atom::FileEquals {
                path: path.clone(),
                content,
            },
        ))
    };
    let write = call::<Filesystem>("write_file", json!({ "path": path, "content": number }));
    Composed {
        max_steps: 6,
        goal: format!(
            "My order from {} has shipped; the shipping notice came from {}. Save its tracking \
             number in a new file {path}. The file must contain only the tracking number, \
             nothing else.",
            store.0, store.1
        ),
        initial_state: InitialState {
            email: Some(mail),
            filesystem: Some(fs),
            ..Default::default()
        },
        available_tools: tools(&[
            "email.search_emails",
            "email.list_emails",
            "email.read_email",
            "email.mark_as_read",
            "filesystem.write_file",
            "filesystem.read_text_file",
            "filesystem.list_directory",
            "filesystem.create_directory",
        ]),
        success_predicate: Pred::Any(vec![equals(number.clone()), equals(format!("{number}\n"))]),
        faults: vec![],
        reference_solutions: vec![
            vec![
                call::<Email>(
                    "search_emails",
                    json!({ "query": format!("from:{}", store.1) }),
                ),
                call::<Email>("read_email", json!({ "messageId": target })),
                write.clone(),
            ],
            vec![
                call::<Email>("list_emails", json!({})),
                call::<Email>("read_email", json!({ "messageId": target })),
                write,
            ],
        ],
        params: params(&[
            ("store", json!(store.0)),
            ("sender", json!(store.1)),
            ("path", json!(path)),
            ("tracking_number", json!(number)),
        ]),
    }
}

// ---------------------------------------------------------------------------------------
// compose.contact_from_memory

/// The mail domain of an organisation of [`world::ORGS`]: its first word, `acme.com`.
fn org_domain(org: &str) -> String {
    let first = org.split_whitespace().next().unwrap_or(org);
    format!("{}.com", first.to_lowercase())
}

/// An address in one of a few house styles: `ada.park@`, `apark@`, `ada@`.
fn contact_address(rng: &mut Rng, person: &str, org: &str) -> String {
    let lower = person.to_lowercase();
    let (first, last) = lower.split_once(' ').unwrap_or((&lower, ""));
    let local = match rng.below(3) {
        0 => format!("{first}.{last}"),
        1 => format!("{}{last}", &first[..1]),
        _ => first.to_string(),
    };
    format!("{local}@{}", org_domain(org))
}

/// (subject, body with `{first}` for the recipient's first name).
const NOTES: &[(&str, &str)] = &[
    (
        "Lunch on Friday?",
        "Hi {first}, are you free for lunch on Friday at 12:30? Alex",
    ),
    (
        "Slides for Tuesday",
        "Hi {first}, could you send me your slides for Tuesday's review by Monday noon? Thanks, Alex",
    ),
    (
        "Intro call",
        "Hi {first}, I'd like to set up a 30-minute intro call next week. Which day suits you? Alex",
    ),
    (
        "Thanks for today",
        "Hi {first}, thanks for your time today. I'll send the notes by tomorrow. Alex",
    ),
];

fn contact_from_memory(rng: &mut Rng) -> Composed {
    let mut company = world::company(rng, 5, 2);
    let mut addresses = BTreeMap::new();
    for p in company.people.clone() {
        let address = contact_address(rng, &p, &company.employer[&p]);
        company.graph.observe(&p, &format!("Email: {address}"));
        addresses.insert(p, address);
    }
    let person = rng.pick(&company.people).clone();
    let to = addresses[&person].clone();
    let first = person.split(' ').next().unwrap_or(&person);
    let (subject, body) = *rng.pick(NOTES);
    let body = body.replace("{first}", first);
    let mut allowed: Vec<String> = company.orgs.iter().map(|o| org_domain(o)).collect();
    allowed.push("northwind.io".into());
    let mail = mcpbench_server_email::Seed {
        allowed_domains: allowed,
        ..mcpbench_server_email::sample_seed()
    };
    let send = call::<Email>(
        "send_email",
        json!({ "to": [to], "subject": subject, "body": body }),
    );
    Composed {
        max_steps: 5,
        goal: format!(
            "Send {person} an email with the subject \"{subject}\" and exactly this body: \
             \"{body}\". I don't remember the address; it is noted with {person} in my \
             knowledge graph."
        ),
        initial_state: InitialState {
            memory: Some(company.graph.seed),
            email: Some(mail),
            ..Default::default()
        },
        available_tools: tools(&[
            "memory.search_nodes",
            "memory.open_nodes",
            "memory.read_graph",
            "email.send_email",
            "email.draft_email",
            "email.search_emails",
        ]),
        success_predicate: sent(&to, subject, &body),
        faults: vec![],
        reference_solutions: vec![
            vec![
                call::<Memory>("open_nodes", json!({ "names": [person] })),
                send.clone(),
            ],
            vec![
                call::<Memory>("search_nodes", json!({ "query": person })),
                send,
            ],
        ],
        params: params(&[
            ("person", json!(person)),
            ("to", json!(to)),
            ("subject", json!(subject)),
        ]),
    }
}

// ---------------------------------------------------------------------------------------
// compose.refund_and_notify

const REFUND_SUBJECTS: &[&str] = &[
    "Your refund for order #{id}",
    "Refund issued: order #{id}",
    "Order #{id} refunded",
];
/// Bodies with `{id}` for the order number and `<amount>` for what the agent fills in.
const REFUND_BODIES: &[&str] = &[
    "Your refund of EUR <amount> for order #{id} is on its way.",
    "We have refunded EUR <amount> for order #{id}. It should reach your account within 5 business days.",
    "Order #{id}: a refund of EUR <amount> has been issued to your original payment method.",
];

/// `42.50`.
fn decimal(cents: u64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

fn refund_and_notify(rng: &mut Rng) -> Composed {
    let mut shop = mcpbench_server_shop::sample_seed(rng);
    let open: Vec<usize> = (0..shop.orders.len())
        .filter(|&i| {
            let o = &shop.orders[i];
            matches!(o.status, OrderStatus::Paid | OrderStatus::Fulfilled) && o.refunds.is_empty()
        })
        .collect();
    let at = *rng.pick(&open);
    // Half the time one line was already refunded, so the amount left is not the total.
    if shop.orders[at].lines.len() >= 2 && rng.chance(1, 2) {
        let line = shop.orders[at].lines[0].price;
        shop.orders[at].refunds.push(Refund {
            amount: line,
            reason: "damaged item".into(),
        });
    }
    let order: Order = shop.orders[at].clone();
    let amount = order.total() - order.refunded();
    let subject = rng
        .pick(REFUND_SUBJECTS)
        .replace("{id}", &order.id.to_string());
    let pattern = rng
        .pick(REFUND_BODIES)
        .replace("{id}", &order.id.to_string());
    let body = pattern.replace("<amount>", &decimal(amount));
    let shop_atom = |a| Pred::Atom(Atom::shop(a));
    Composed {
        max_steps: 6,
        goal: format!(
            "Refund everything still refundable on order #{id}. Then email the customer who \
             placed it (their address is on the order) with the subject \"{subject}\" and \
             exactly this body: \"{pattern}\", where <amount> is what you refunded just now, in \
             euros with two decimals (like 7.05).",
            id = order.id
        ),
        initial_state: InitialState {
            shop: Some(shop),
            email: Some(mcpbench_server_email::sample_seed()),
            ..Default::default()
        },
        available_tools: tools(&[
            "shop.get_order",
            "shop.list_orders",
            "shop.refund_order",
            "email.send_email",
            "email.draft_email",
            "email.search_emails",
        ]),
        success_predicate: Pred::All(vec![
            shop_atom(mcpbench_server_shop::Atom::OrderStatus {
                order: order.id,
                status: OrderStatus::Refunded,
            }),
            shop_atom(mcpbench_server_shop::Atom::OrderRefunded {
                order: order.id,
                amount: order.total(),
            }),
            sent(&order.email, &subject, &body),
        ]),
        faults: vec![],
        reference_solutions: vec![vec![
            call::<Shop>("get_order", json!({ "orderId": order.id })),
            call::<Shop>("refund_order", json!({ "orderId": order.id })),
            call::<Email>(
                "send_email",
                json!({ "to": [order.email], "subject": subject, "body": body }),
            ),
        ]],
        params: params(&[
            ("order", json!(order.id)),
            ("customer", json!(order.email)),
            ("amount", json!(amount)),
            ("subject", json!(subject)),
        ]),
    }
}
