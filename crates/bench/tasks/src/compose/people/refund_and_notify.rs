//! `compose.refund_and_notify` (shop, email): a customer, named in the goal, emailed that one
//! item of a parcel arrived broken. The complaint (beside another customer's about a different
//! item) names the item only past its first lines and no order number, so the customer's
//! orders are listed and read: one older order without the item, the delivered one with it,
//! and a newer paid order, not shipped yet, that holds the same item (a careless agent refunds
//! that one). One unit is refunded at the price paid, which the catalog no longer shows (the
//! item's price has changed since), and the complaint is answered with the amount.

use super::{local_part, sent, sent_only_to, tools};
use crate::compose::rounds_customers::people;
use mcpbench_server_email::{Email, SeedMessage, reply_subject};
use mcpbench_server_shop::{self as shop, Line, Order, OrderStatus, Shop};
use mcpbench_sim::{Pred, Rng, call, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;

const PRICES: &[u64] = &[990, 1490, 1990, 2490, 2990, 3490, 4490, 5990, 7990];
const DOMAINS: &[&str] = &["example.com", "example.org", "example.net"];
const DAMAGE: &[&str] = &["damaged", "broken", "cracked", "in pieces"];
const COMPLAINT_SUBJECTS: &[&str] = &[
    "Broken item in my order",
    "Damaged delivery",
    "Problem with my parcel",
    "Item arrived broken",
];
/// Goals, with `{c}` the customer, `{d}` how the item arrived and `{body}` the reply.
const GOALS: &[&str] = &[
    "{c} emailed me that something in their order arrived {d}. Refund what they paid for that \
     one piece (only that, not the whole order) and reply to their email with exactly: \
     \"{body}\", where <amount> is what you refunded, in euros with two decimals (like 7.05).",
    "Please deal with {c}'s complaint about an item that arrived {d}: refund the price they paid \
     for that one piece, nothing more, then answer their email with exactly \"{body}\" (<amount> \
     being the refund in euros with two decimals, like 7.05).",
    "{c} wrote in about an item that arrived {d}. Find the order it came in, refund just that \
     one piece at the price they paid, and reply to their message with exactly this text: \
     \"{body}\", with the refunded amount in euros and two decimals (like 7.05) for <amount>.",
];
/// Replies, with `<amount>` for what the agent fills in.
const REPLIES: &[&str] = &[
    "Sorry about that! We have refunded EUR <amount> for the broken item.",
    "Thank you for letting us know. A refund of EUR <amount> is on its way to you.",
    "Apologies for the trouble: we refunded EUR <amount> to your original payment method.",
    "We're sorry it arrived like that. EUR <amount> has been refunded to you.",
];

/// `42.50`.
fn decimal(cents: u64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

fn line(p: &shop::Product, quantity: u32) -> Line {
    Line {
        sku: p.sku.clone(),
        title: p.title.clone(),
        quantity,
        price: p.price,
    }
}

fn order(id: u64, email: &str, lines: Vec<Line>, status: OrderStatus) -> Order {
    Order {
        id,
        email: email.to_string(),
        lines,
        shipping: 490,
        discount: 0,
        status,
        refunds: vec![],
    }
}

/// A complaint (`id`, `subject`, `date`) from a customer (address, name) about one unit of
/// an item (title, quantity ordered); the item comes past the snippet a listing shows.
fn complaint(
    (id, subject, date): (&str, &str, &str),
    (from, name): (&str, &str),
    (item, quantity): (&str, u32),
    damage: &str,
) -> SeedMessage {
    let what = if quantity == 1 {
        format!("the {item}")
    } else {
        format!("one of the {quantity} units of {item}")
    };
    let body = format!(
        "Hello,\n\nI'm writing about the parcel that arrived yesterday. Unfortunately, when I \
         unpacked it, I found that {what} was {damage}. Could you refund it, please? I don't \
         need a replacement.\n\nKind regards,\n{name}"
    );
    SeedMessage::received(id, from, "alex@northwind.io", subject, &body, date)
}

fn refunded(order: u64, amount: u64) -> Pred<Atom> {
    Pred::Atom(Atom::shop(shop::Atom::OrderRefunded { order, amount }))
}

pub(super) fn refund_and_notify(rng: &mut Rng) -> Composed {
    let mut store = shop::sample_seed(rng);
    let names = people(rng, 2);
    let address = |rng: &mut Rng, n: &str| format!("{}@{}", local_part(n), rng.pick(DOMAINS));
    let (customer, other) = (&names[0], &names[1]);
    let (to, other_to) = (address(rng, customer), address(rng, other));
    let picked = rng.sample(&(0..7).collect::<Vec<usize>>(), 4);
    let (x, y, z, w) = (picked[0], picked[1], picked[2], picked[3]);
    let quantity = rng.range(1, 3) as u32;
    let p = |i: usize| store.products[i].clone();

    // The customer's three orders and the other customer's, in a drawn order of numbers.
    let next = store.orders.iter().map(|o| o.id).max().unwrap_or(1000) + 1;
    let mut ids: Vec<u64> = (next..next + 4).collect();
    rng.shuffle(&mut ids[..3]);
    let (older, delivered, open, others) = (ids[0], ids[1], ids[2], ids[3]);
    let fulfilled = OrderStatus::Fulfilled;
    let new = [
        order(older, &to, vec![line(&p(z), 1), line(&p(w), 2)], fulfilled),
        order(
            delivered,
            &to,
            vec![line(&p(x), quantity), line(&p(w), 1)],
            fulfilled,
        ),
        order(
            open,
            &to,
            vec![line(&p(x), 1), line(&p(z), 1)],
            OrderStatus::Paid,
        ),
        order(
            others,
            &other_to,
            vec![line(&p(y), 1), line(&p(x), 1)],
            fulfilled,
        ),
    ];
    store.orders.extend(new);
    let paid = store.products[x].price;
    // The catalog price has changed since: only the order shows what was paid.
    let now: Vec<u64> = PRICES.iter().copied().filter(|&c| c != paid).collect();
    store.products[x].price = *rng.pick(&now);

    let item = store.products[x].title.clone();
    let damage = *rng.pick(DAMAGE);
    let subject = *rng.pick(COMPLAINT_SUBJECTS);
    let other_subject = *rng.pick(COMPLAINT_SUBJECTS);
    let target = "msg-2002";
    let other_damage = *rng.pick(DAMAGE);
    let mut messages = mcpbench_server_email::sample_seed().messages;
    messages.push(complaint(
        ("msg-2001", other_subject, "2026-02-27T18:02:00Z"),
        (&other_to, other),
        (&store.products[y].title, 1),
        other_damage,
    ));
    messages.push(complaint(
        (target, subject, "2026-03-01T11:47:00Z"),
        (&to, customer),
        (&item, quantity),
        damage,
    ));
    let mail = mcpbench_server_email::Seed {
        messages,
        ..mcpbench_server_email::sample_seed()
    };

    let amount = decimal(paid);
    let pattern = *rng.pick(REPLIES);
    let reply = pattern.replace("<amount>", &amount);
    let steps = vec![
        call::<Email>(
            "search_emails",
            json!({ "query": format!("from:{}", local_part(customer)) }),
        ),
        call::<Email>("read_email", json!({ "messageId": target })),
        call::<Shop>("list_orders", json!({ "email": to })),
        call::<Shop>("get_order", json!({ "orderId": delivered })),
        call::<Shop>(
            "refund_order",
            json!({ "orderId": delivered, "amount": paid }),
        ),
        call::<Email>("reply_email", json!({ "messageId": target, "body": reply })),
    ];
    let checks = vec![
        refunded(delivered, paid),
        refunded(older, 0),
        refunded(open, 0),
        refunded(others, 0),
        sent(&to, &reply_subject(subject), Some(&reply), Some(target)),
        sent_only_to(std::slice::from_ref(&to)),
    ];
    let goal = rng
        .pick(GOALS)
        .replace("{c}", customer)
        .replace("{d}", damage)
        .replace("{body}", pattern);
    Composed {
        max_steps: 14,
        goal,
        initial_state: InitialState {
            shop: Some(store),
            email: Some(mail),
            ..Default::default()
        },
        available_tools: tools(
            "shop.list_orders shop.get_order shop.search_products shop.get_product \
             shop.refund_order email.search_emails email.list_emails email.read_email \
             email.reply_email email.send_email email.draft_email",
        ),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("customer", json!(customer)),
            ("order", json!(delivered)),
            ("amount", json!(paid)),
            ("item", json!(item)),
        ]),
    }
}
