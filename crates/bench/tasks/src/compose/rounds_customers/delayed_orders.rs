//! `compose.delayed_orders` (shop, email): an item is out of stock; the paid, unshipped orders
//! holding it are found among thirty-odd orders, one of them past the first page of newest
//! orders, each read line by line past decoys (paid without the item, or with it but shipped,
//! cancelled or refunded). Each of their customers gets one email of their own that names the
//! item and their order number, in whatever words; nobody else gets one.

use super::{people, tools, transient};
use mcpbench_server_email::{self as mail, Email};
use mcpbench_server_shop::{self as shop, Line, Order, OrderStatus, ProductStatus, Refund, Shop};
use mcpbench_sim::{Pred, Rng, Step, call, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;

pub(super) fn delayed_orders(rng: &mut Rng) -> Composed {
    delayed_orders_with(rng, false)
}

pub(super) fn delayed_orders_after_fault(rng: &mut Rng) -> Composed {
    delayed_orders_with(rng, true)
}

/// Why the orders are held up, with `{item}` for the product title and `{wait}` for how long.
#[rustfmt::skip]
const DELAY_INTROS: &[&str] = &[
    "Our supplier has run out of the {item}, so every order that includes it and is paid but not shipped yet is stuck {wait}.",
    "We're out of stock of the {item} {wait}, which holds up every paid order with it that hasn't shipped.",
    "We can't ship the {item} before the next delivery from our supplier, so the paid orders that include it and are still waiting to go out will be late, {wait} by the look of it.",
    "The last batch of the {item} arrived damaged and went back, so paid orders with it that haven't shipped are on hold {wait}.",
    "Customs is holding the container with our {item} stock; every paid order with it that hasn't gone out yet will wait {wait}.",
    "The {item} failed our quality check and we are waiting for replacements {wait}, so the paid orders with it that haven't shipped are stuck.",
    "We oversold the {item}: there are none left on the shelf {wait}, and the paid orders with it that haven't shipped can't go out.",
];
/// How long the wait is, as the user puts it.
#[rustfmt::skip]
const DELAY_WAITS: &[&str] = &[
    "until next month", "for another two weeks", "for at least ten days", "until the new batch arrives",
    "until after the holidays", "for a week or so", "for about three weeks", "until the 20th",
];
/// What each of those customers should be told, and that nobody else is written to.
#[rustfmt::skip]
const DELAY_ASKS: &[&str] = &[
    "Please email each of those customers separately: apologise for the delay, tell them which item is holding their order up and give their order number. Don't write to anyone else.",
    "Write to each affected customer on their own, saying sorry for the delay, naming the item that is held up and quoting their order number. Nobody else should get an email.",
    "Send each of those customers a separate email that apologises for the delay, names the item we're waiting for and includes their order number. Don't email anyone else.",
    "Could you let each of those customers know by email, one message per customer? Say sorry, say which item is late and mention their order number. No one else needs to hear about it.",
    "Each of those customers should get an email of their own with an apology, the name of the delayed item and their order number. Leave every other customer out of it.",
    "I'd like every one of those customers to hear from us directly: a separate email each, saying we're sorry, which item is delayed and their order number. Nobody else.",
    "Please apologise to those customers by email, one message per person, with the held-up item and their own order number in it. Other customers shouldn't be contacted.",
    "Let's get ahead of the complaints: email each affected customer individually with an apology, the item in question and their order number. Don't contact anyone who isn't affected.",
    "Reach out to each of those customers by email, separately, to say sorry for the wait, which item it is and what their order number is. Keep everyone else out of it.",
    "Those customers deserve a heads-up: one email per customer, apologising, naming the missing item and quoting their order number. No emails to anyone else.",
];
/// The reference's subjects, with `{id}` for the order number: it closes the subject, so that
/// a changed subject loses it.
const DELAY_SUBJECTS: &[&str] = &[
    "Delay with your order {id}",
    "An update on your order {id}",
    "Sorry for the wait on order {id}",
    "Shipping delay for order {id}",
];
const MAIL_DOMAINS: &[&str] = &["example.com", "example.org", "example.net"];

fn line(rng: &mut Rng, p: &shop::Product) -> Line {
    let (sku, title, price) = (p.sku.clone(), p.title.clone(), p.price);
    let quantity = rng.range(1, 2) as u32;
    Line {
        sku,
        title,
        quantity,
        price,
    }
}

/// What `total` orders are, oldest first: a status and whether they hold the item. The `n`
/// paid ones with the item are the targets, one of them further back than the 20 newest (what
/// a listing shows by default); decoys are paid without the item, or hold it but are shipped,
/// cancelled or refunded; the rest (shipped, cancelled or refunded) are without it.
fn roles(rng: &mut Rng, n: usize, total: usize) -> Vec<(OrderStatus, bool)> {
    use OrderStatus::*;
    // 1-3 paid orders without the item keep the reference at 9-12 calls.
    let paid_other = if n == 5 { 1 } else { rng.range(2, 3) as usize };
    let mut roles = vec![(Paid, true); n];
    roles.extend(vec![(Paid, false); paid_other]);
    roles.extend(vec![(Fulfilled, true); rng.range(1, 2) as usize]);
    roles.push((Cancelled, true));
    if rng.chance(1, 2) {
        roles.push((Refunded, true));
    }
    while roles.len() < total {
        let status = [
            Fulfilled, Fulfilled, Fulfilled, Fulfilled, Cancelled, Refunded,
        ];
        roles.push((*rng.pick(&status), false));
    }
    rng.shuffle(&mut roles);
    let back = total - 20;
    if !roles[..back].contains(&(Paid, true)) {
        let target = roles.iter().position(|r| *r == (Paid, true));
        let to = rng.below(back as u64) as usize;
        roles.swap(target.expect("a target"), to);
    }
    roles
}

fn delayed_orders_with(rng: &mut Rng, fault: bool) -> Composed {
    let mut store = shop::sample_seed(rng);
    let active: Vec<usize> = (0..store.products.len())
        .filter(|&i| store.products[i].status == ProductStatus::Active)
        .collect();
    let at = *rng.pick(&active);
    store.products[at].inventory.clear();
    let item = store.products[at].clone();
    let mut others = store.products.clone();
    others.remove(at);

    let n = rng.range(3, 5) as usize;
    let total = rng.range(30, 38) as usize;
    let roles = roles(rng, n, total);
    let emails: Vec<String> = people(rng, total)
        .iter()
        .map(|name| {
            let domain = rng.pick(MAIL_DOMAINS);
            format!("{}@{domain}", name.to_lowercase().replace(' ', "."))
        })
        .collect();
    // Targets have addresses of their own; everyone else may have ordered more than once.
    let (target_emails, other_emails) = emails.split_at(n);
    let mut targets = target_emails.iter();
    let first_id = rng.range(1101, 1800) as u64;
    let mut orders = Vec::with_capacity(total);
    for (i, &(status, with_item)) in roles.iter().enumerate() {
        let email = match (status, with_item) {
            (OrderStatus::Paid, true) => targets.next().expect("an address per target").clone(),
            _ => rng.pick(other_emails).clone(),
        };
        let mut lines: Vec<Line> = with_item.then(|| line(rng, &item)).into_iter().collect();
        let extra = rng.range(if with_item { 0 } else { 1 }, 2) as usize;
        for p in rng.sample(&others, extra) {
            lines.push(line(rng, &p));
        }
        rng.shuffle(&mut lines);
        let id = first_id + i as u64;
        let shipping = *rng.pick(&[0, 490, 590]);
        let mut order = Order {
            id,
            email,
            lines,
            shipping,
            discount: 0,
            status,
            refunds: vec![],
        };
        if status == OrderStatus::Refunded {
            let amount = order.total();
            order.refunds.push(Refund {
                amount,
                reason: "customer request".into(),
            });
        }
        orders.push(order);
    }
    store.orders = orders.clone();

    let subject = *rng.pick(DELAY_SUBJECTS);
    let intro = *rng.pick(DELAY_INTROS);
    let wait = *rng.pick(DELAY_WAITS);
    let intro = intro.replace("{item}", &item.title).replace("{wait}", wait);
    let ask = *rng.pick(DELAY_ASKS);
    let paid: Vec<&Order> = orders
        .iter()
        .rev()
        .filter(|o| o.status == OrderStatus::Paid)
        .collect();
    let delayed: Vec<&Order> = paid
        .iter()
        .copied()
        .filter(|o| o.lines.iter().any(|l| l.sku == item.sku))
        .collect();

    let checks = delayed_checks(&delayed, &item.title);
    let listing = json!({ "status": "paid", "limit": 50 });
    let mut steps = vec![call::<Shop>("list_orders", listing)];
    steps.extend(
        paid.iter()
            .map(|o| call::<Shop>("get_order", json!({ "orderId": o.id }))),
    );
    // The order number is only in the subject and the item only closes the body, so that a
    // changed subject or body loses what it must hold.
    let sends: Vec<Step> = delayed
        .iter()
        .map(|o| {
            let body = format!(
                "Hello,\n\nWe are sorry: an item in your order is out of stock at our supplier, so \
                 we have not been able to ship it yet. We will send it as soon as new stock \
                 arrives, and you can cancel at any time if you would rather not wait. Apologies \
                 for the delay.\n\nThe item we are waiting for: {}",
                item.title
            );
            let subject = subject.replace("{id}", &o.id.to_string());
            let send = json!({ "to": [o.email], "subject": subject, "body": body });
            call::<Email>("send_email", send)
        })
        .collect();
    steps.extend(sends.iter().cloned());
    let mut faults = vec![];
    if fault {
        // The second email fails once; the reference sends it again.
        let second = steps.len() - sends.len() + 1;
        steps.insert(second + 1, steps[second].clone());
        let lost = "the message was not sent";
        faults.push(transient(rng, "email.send_email", 2, lost));
    }
    let delayed_ids: Vec<u64> = delayed.iter().map(|o| o.id).collect();
    Composed {
        max_steps: steps.len() as u32 + 6,
        goal: format!("{intro} {ask}"),
        initial_state: InitialState {
            shop: Some(store),
            email: Some(mail::sample_seed()),
            ..Default::default()
        },
        available_tools: tools(
            "shop.list_orders shop.get_order shop.search_products shop.get_product \
             shop.refund_order email.send_email email.draft_email email.send_draft \
             email.search_emails email.reply_email",
        ),
        success_predicate: Pred::All(checks),
        faults,
        reference_solutions: vec![steps],
        params: params(&[
            ("item", json!(item.title)),
            ("delayed", json!(delayed_ids)),
            ("paid", json!(paid.len())),
            ("orders", json!(total)),
            ("fault", json!(fault)),
        ]),
    }
}

/// What the run must have sent: one email to each delayed order's customer and no other, the
/// order number and the item somewhere in it (subject or body, in any wording), and no other
/// delayed order's number (quoting every number to everyone does not pass). The apology the
/// goal asks for is not checked: no containment test tells one from its absence fairly.
fn delayed_checks(delayed: &[&Order], item: &str) -> Vec<Pred<Atom>> {
    let count = |to: &str, subject: Option<&str>, body: Option<&str>, count: u32| {
        Pred::Atom(Atom::email(mail::Atom::SentCount {
            to: Some(to.to_string()),
            subject_contains: subject.map(String::from),
            body_contains: body.map(String::from),
            count,
        }))
    };
    let states = |to: &str, text: &str| {
        Pred::Any(vec![
            count(to, Some(text), None, 1),
            count(to, None, Some(text), 1),
        ])
    };
    let addresses = delayed.iter().map(|o| o.email.clone()).collect();
    let mut checks = vec![
        Pred::Atom(Atom::email(mail::Atom::SentOnlyTo { addresses })),
        Pred::Atom(Atom::email(mail::Atom::SentCount {
            to: None,
            subject_contains: None,
            body_contains: None,
            count: delayed.len() as u32,
        })),
    ];
    for o in delayed {
        checks.push(count(&o.email, None, None, 1));
        checks.push(states(&o.email, &o.id.to_string()));
        checks.push(states(&o.email, item));
        for other in delayed.iter().filter(|d| d.id != o.id) {
            let id = other.id.to_string();
            checks.push(count(&o.email, Some(&id), None, 0));
            checks.push(count(&o.email, None, Some(&id), 0));
        }
    }
    checks
}
