//! Recovery templates: an injected fault to retry through, or a natural error (a code taken,
//! a warehouse managed elsewhere) for the agent to notice; the goal states the user's first
//! choice and their second, never how to get there.

use super::composition::damaged_line;
use super::{
    Kit, atom, location_name, other_stock_unchanged, params, pick_active, sample_seed, stock,
};
use crate::{Atom, DiscountCode, Shop};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, call, qualified};
use serde_json::json;

const TAKEN: &[(&str, &str)] = &[
    ("SUMMER15", "SUMMER15B"),
    ("SPRING10", "SPRING10B"),
    ("FLASH20", "FLASH20B"),
    ("VIP25", "VIP25B"),
    ("WINTER30", "WINTER30B"),
];

/// Why the user wants a code, or nothing.
const PROMO_OPENERS: &[&str] = &[
    "",
    "We're running a promotion next week. ",
    "For the newsletter: ",
    "Marketing asked for a code. ",
    "A thank-you for our regulars. ",
    "For the spring sale: ",
];

pub(crate) fn discount_code_taken(rng: &mut Rng) -> Draft<Shop> {
    let mut seed = sample_seed(rng);
    let (code, alt) = *rng.pick(TAKEN);
    let old = *rng.pick(&[5u32, 10, 15]);
    let pct = *rng.pick(&[20u32, 25, 30, 40]);
    seed.discount_codes.push(DiscountCode {
        code: code.into(),
        percent_off: Some(old),
        amount_off: None,
        usage_limit: Some(100),
        used: 100,
    });
    let exists = |c: &str, p: u32| {
        atom(Atom::DiscountExists {
            code: c.into(),
            percent_off: Some(p),
            amount_off: None,
            usage_limit: None,
        })
    };
    let goal = match rng.below(3) {
        0 => format!(
            "I'd like the discount code {code} for {pct}% off; {alt} is my second choice. Leave existing codes as they are."
        ),
        1 => format!(
            "Set up a {pct}% off discount code called {code}, or {alt} if {code} can't be had. Don't change any code we already have."
        ),
        _ => format!(
            "Please create a discount code for {pct}% off. Call it {code} if you can, otherwise {alt}; existing codes stay untouched."
        ),
    };
    let goal = format!("{}{goal}", rng.pick(PROMO_OPENERS));
    Draft {
        goal,
        max_steps: 4,
        seed,
        tools: Shop::tools(&["create_discount_code", "list_discount_codes", "list_orders"]),
        predicate: Pred::All(vec![exists(alt, pct), exists(code, old)]),
        references: vec![vec![
            call::<Shop>(
                "create_discount_code",
                json!({ "code": code, "percentOff": pct }),
            ),
            call::<Shop>(
                "create_discount_code",
                json!({ "code": alt, "percentOff": pct }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("code", json!(code)),
            ("alternative", json!(alt)),
            ("percent", json!(pct)),
        ]),
    }
}

pub(crate) fn receive_at_fallback(rng: &mut Rng) -> Draft<Shop> {
    let mut seed = sample_seed(rng);
    let service = *rng.pick(&["ShipFast", "Fulfilmo", "CargoLink"]);
    for l in &mut seed.locations {
        if l.id == "paris" {
            l.managed_by = Some(service.into());
        }
    }
    let p = seed.products[pick_active(rng, &seed)].clone();
    let n = rng.range(5, 40) as u32;
    let after = stock(&p, "berlin") + n;
    let mut checks = vec![atom(Atom::InventoryLevel {
        sku: p.sku.clone(),
        location: "berlin".into(),
        quantity: after,
    })];
    checks.extend(other_stock_unchanged(&p, "berlin"));
    let adjust = |loc: &str| {
        call::<Shop>(
            "adjust_inventory",
            json!({ "sku": p.sku, "location": loc, "delta": n }),
        )
    };
    let (title, sku, first, second) = (
        &p.title,
        &p.sku,
        location_name("paris"),
        location_name("berlin"),
    );
    let goal = match rng.below(3) {
        0 => format!(
            "We received {n} units of {title} (SKU {sku}). Add them to the stock at the {first}; the {second} will do if that can't be done from here."
        ),
        1 => format!(
            "A delivery of {n} × {title} (SKU {sku}) has come in. Please book it into stock at the {first}, or at the {second} if the {first} can't be updated."
        ),
        _ => format!(
            "Add {n} units of {title} (SKU {sku}) to our stock: at the {first} ideally, otherwise at the {second}. Other stock levels stay as they are."
        ),
    };
    Draft {
        goal,
        max_steps: 5,
        seed,
        tools: Shop::tools(&[
            "adjust_inventory",
            "set_inventory",
            "list_locations",
            "get_product",
            "search_products",
        ]),
        predicate: Pred::All(checks),
        references: vec![
            vec![adjust("paris"), adjust("berlin")],
            vec![
                call::<Shop>(
                    "set_inventory",
                    json!({ "sku": p.sku, "location": "paris", "quantity": stock(&p, "paris") + n }),
                ),
                call::<Shop>(
                    "set_inventory",
                    json!({ "sku": p.sku, "location": "berlin", "quantity": after }),
                ),
            ],
        ],
        faults: vec![],
        params: params(&[
            ("sku", json!(p.sku)),
            ("units", json!(n)),
            ("service", json!(service)),
        ]),
    }
}

pub(crate) fn refund_after_timeout(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let (order, line, amount) = damaged_line(rng, &seed);
    let refund = call::<Shop>(
        "refund_order",
        json!({ "orderId": order.id, "amount": amount }),
    );
    Draft {
        goal: format!(
            "The {} in order #{} never arrived. Refund that line in full ({} × its unit price) and nothing more.",
            line.title, order.id, line.quantity
        ),
        max_steps: 7,
        seed,
        tools: Shop::tools(&[
            "get_order",
            "refund_order",
            "list_orders",
            "search_products",
        ]),
        predicate: Pred::All(vec![
            atom(Atom::OrderRefunded {
                order: order.id,
                amount,
            }),
            atom(Atom::OrderStatus {
                order: order.id,
                status: order.status,
            }),
        ]),
        references: vec![vec![
            call::<Shop>("get_order", json!({ "orderId": order.id })),
            refund.clone(),
            refund,
        ]],
        faults: vec![Fault {
            tool: qualified::<Shop>("refund_order"),
            on_call: 1,
            times: 1,
            error: ErrorKind::Timeout,
            message: "the payment provider did not answer in time; no refund was issued".into(),
            landed: false,
        }],
        params: params(&[
            ("order", json!(order.id)),
            ("sku", json!(line.sku)),
            ("amount", json!(amount)),
        ]),
    }
}
