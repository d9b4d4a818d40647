//! Single-tool templates: one call of the right tool with the right arguments.

use super::{
    Kit, LOCATIONS, PRICES, atom, euros, location_name, other_stock_unchanged, params, pick_active,
    sample_seed, stock,
};
use crate::{Atom, ProductStatus, Shop};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

pub(crate) fn reprice_product(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let p = seed.products[pick_active(rng, &seed)].clone();
    let others: Vec<u64> = PRICES.iter().copied().filter(|x| *x != p.price).collect();
    let price = *rng.pick(&others);
    Draft {
        goal: format!(
            "Change the price of {} (product {}) to {}.",
            p.title,
            p.id,
            euros(price)
        ),
        max_steps: 3,
        seed,
        tools: Shop::tools(&[
            "update_product",
            "get_product",
            "search_products",
            "create_product",
        ]),
        predicate: atom(Atom::ProductPrice {
            sku: p.sku.clone(),
            price,
        }),
        references: vec![vec![call::<Shop>(
            "update_product",
            json!({ "productId": p.id, "price": price }),
        )]],
        faults: vec![],
        params: params(&[("sku", json!(p.sku)), ("price", json!(price))]),
    }
}

pub(crate) fn archive_product(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let p = seed.products[pick_active(rng, &seed)].clone();
    Draft {
        goal: format!(
            "We have stopped selling {} (product {}). Archive it.",
            p.title, p.id
        ),
        max_steps: 3,
        seed,
        tools: Shop::tools(&[
            "archive_product",
            "update_product",
            "get_product",
            "set_inventory",
            "search_products",
        ]),
        predicate: Pred::All(vec![
            atom(Atom::ProductStatus {
                sku: p.sku.clone(),
                status: ProductStatus::Archived,
            }),
            atom(Atom::ProductPrice {
                sku: p.sku.clone(),
                price: p.price,
            }),
        ]),
        references: vec![vec![call::<Shop>(
            "archive_product",
            json!({ "productId": p.id }),
        )]],
        faults: vec![],
        params: params(&[("sku", json!(p.sku))]),
    }
}

pub(crate) fn receive_stock(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let p = seed.products[pick_active(rng, &seed)].clone();
    let (loc, _) = *rng.pick(LOCATIONS);
    let n = rng.range(5, 40) as u32;
    let after = stock(&p, loc) + n;
    let mut checks = vec![atom(Atom::InventoryLevel {
        sku: p.sku.clone(),
        location: loc.into(),
        quantity: after,
    })];
    checks.extend(other_stock_unchanged(&p, loc));
    Draft {
        goal: format!(
            "We just received {n} more units of {} (SKU {}) at the {}. Add them to the stock there.",
            p.title,
            p.sku,
            location_name(loc)
        ),
        max_steps: 4,
        seed,
        tools: Shop::tools(&[
            "adjust_inventory",
            "set_inventory",
            "get_product",
            "search_products",
            "list_locations",
        ]),
        predicate: Pred::All(checks),
        references: vec![
            vec![call::<Shop>(
                "adjust_inventory",
                json!({ "sku": p.sku, "location": loc, "delta": n }),
            )],
            vec![call::<Shop>(
                "set_inventory",
                json!({ "sku": p.sku, "location": loc, "quantity": after }),
            )],
        ],
        faults: vec![],
        params: params(&[
            ("sku", json!(p.sku)),
            ("location", json!(loc)),
            ("units", json!(n)),
        ]),
    }
}

pub(crate) fn stock_take(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let p = seed.products[pick_active(rng, &seed)].clone();
    let (loc, _) = *rng.pick(LOCATIONS);
    let before = stock(&p, loc);
    let counts: Vec<u32> = (0..=60).filter(|q| *q != before).collect();
    let counted = *rng.pick(&counts);
    let mut checks = vec![atom(Atom::InventoryLevel {
        sku: p.sku.clone(),
        location: loc.into(),
        quantity: counted,
    })];
    checks.extend(other_stock_unchanged(&p, loc));
    Draft {
        goal: format!(
            "A stock take at the {} counted exactly {counted} units of {} (SKU {}). Correct the stock record there to match.",
            location_name(loc),
            p.title,
            p.sku
        ),
        max_steps: 4,
        seed,
        tools: Shop::tools(&[
            "set_inventory",
            "adjust_inventory",
            "get_product",
            "search_products",
            "list_locations",
        ]),
        predicate: Pred::All(checks),
        references: vec![
            vec![call::<Shop>(
                "set_inventory",
                json!({ "sku": p.sku, "location": loc, "quantity": counted }),
            )],
            vec![
                call::<Shop>("get_product", json!({ "productId": p.id })),
                call::<Shop>(
                    "adjust_inventory",
                    json!({ "sku": p.sku, "location": loc, "delta": i64::from(counted) - i64::from(before) }),
                ),
            ],
        ],
        faults: vec![],
        params: params(&[
            ("sku", json!(p.sku)),
            ("location", json!(loc)),
            ("counted", json!(counted)),
        ]),
    }
}

const NEW_CODES: &[&str] = &[
    "SUMMER15",
    "AUTUMN20",
    "FLASH30",
    "SPRING10",
    "FRIENDS25",
    "NEWS5",
    "BUNDLE12",
    "LOYAL8",
];

pub(crate) fn create_discount(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let code = rng.pick(NEW_CODES).to_string();
    let limit = *rng.pick(&[50u32, 100, 200, 500]);
    let (what, args, predicate) = if rng.chance(1, 2) {
        let pct = *rng.pick(&[10u32, 15, 20, 25, 30]);
        (
            format!("{pct}% off"),
            json!({ "code": code, "percentOff": pct, "usageLimit": limit }),
            Atom::DiscountExists {
                code: code.clone(),
                percent_off: Some(pct),
                amount_off: None,
                usage_limit: Some(limit),
            },
        )
    } else {
        let off = *rng.pick(&[500u64, 1000, 1500]);
        (
            format!("{} off", euros(off)),
            json!({ "code": code, "amountOff": off, "usageLimit": limit }),
            Atom::DiscountExists {
                code: code.clone(),
                percent_off: None,
                amount_off: Some(off),
                usage_limit: Some(limit),
            },
        )
    };
    Draft {
        goal: format!(
            "Create a discount code {code} that gives {what}, usable at most {limit} times."
        ),
        max_steps: 3,
        seed,
        tools: Shop::tools(&[
            "create_discount_code",
            "list_discount_codes",
            "update_product",
            "list_orders",
        ]),
        predicate: atom(predicate),
        references: vec![vec![call::<Shop>("create_discount_code", args)]],
        faults: vec![],
        params: params(&[
            ("code", json!(code)),
            ("value", json!(what)),
            ("limit", json!(limit)),
        ]),
    }
}

/// Ways to ask for an order's total, with `{id}`.
const TOTAL_ASKS: &[&str] = &[
    "What is the total of order #{id}, in euros?",
    "A customer is asking about order #{id}. How much was it in total, in euros?",
    "How much did order #{id} come to, in euros?",
    "For the invoice: what is the total of order #{id} in euros?",
    "Tell me the euro total of order #{id}.",
];

pub(crate) fn order_total(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let o = rng.pick(&seed.orders).clone();
    let total = o.total();
    let answer = format!("{}.{:02}", total / 100, total % 100);
    Draft {
        goal: rng.pick(TOTAL_ASKS).replace("{id}", &o.id.to_string()),
        max_steps: 3,
        seed,
        tools: Shop::tools(&["get_order", "list_orders", "search_products"]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: total as f64 / 100.0,
            tolerance: 0.001,
        }),
        references: vec![vec![
            call::<Shop>("get_order", json!({ "orderId": o.id })),
            Step::Answer { answer },
        ]],
        faults: vec![],
        params: params(&[("order", json!(o.id)), ("total", json!(total))]),
    }
}
