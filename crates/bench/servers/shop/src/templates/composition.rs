//! Composition templates: several calls with data flowing between them.

use super::{
    Kit, LOCATIONS, NEW_PRODUCTS, PRICES, TAGS, atom, euros, location_name, params, pick_active,
    pick_refundable, sample_seed,
};
use crate::{Atom, ProductStatus, Shop};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

pub(crate) fn units_left(rng: &mut Rng) -> Draft<Shop> {
    let mut seed = sample_seed(rng);
    let at = pick_active(rng, &seed);
    let (loc, _) = *rng.pick(LOCATIONS);
    let units = rng.range(1, 80) as u32;
    seed.products[at].inventory.insert(loc.to_string(), units);
    let p = seed.products[at].clone();
    Draft {
        goal: format!(
            "How many units of SKU {} are left in the {}? Reply with the number.",
            p.sku,
            location_name(loc)
        ),
        max_steps: 5,
        seed,
        tools: Shop::tools(&[
            "search_products",
            "get_product",
            "list_products",
            "list_locations",
        ]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: f64::from(units),
            tolerance: 0.0,
        }),
        references: vec![vec![
            call::<Shop>("search_products", json!({ "query": p.sku })),
            call::<Shop>("get_product", json!({ "productId": p.id })),
            Step::Answer {
                answer: units.to_string(),
            },
        ]],
        faults: vec![],
        params: params(&[
            ("sku", json!(p.sku)),
            ("location", json!(loc)),
            ("units", json!(units)),
        ]),
    }
}

/// An order, one of its lines, and that line's amount in cents.
pub(crate) fn damaged_line(rng: &mut Rng, seed: &crate::Seed) -> (crate::Order, crate::Line, u64) {
    let order = seed.orders[pick_refundable(rng, seed)].clone();
    let line = rng.pick(&order.lines).clone();
    let amount = line.price * u64::from(line.quantity);
    (order, line, amount)
}

pub(crate) fn refund_line(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let (order, line, amount) = damaged_line(rng, &seed);
    Draft {
        goal: format!(
            "The {} in order #{} arrived damaged. Refund that line in full ({} × its unit price) and nothing else.",
            line.title, order.id, line.quantity
        ),
        max_steps: 5,
        seed,
        tools: Shop::tools(&[
            "get_order",
            "refund_order",
            "list_orders",
            "search_products",
            "adjust_inventory",
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
            call::<Shop>(
                "refund_order",
                json!({ "orderId": order.id, "amount": amount }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("order", json!(order.id)),
            ("sku", json!(line.sku)),
            ("amount", json!(amount)),
        ]),
    }
}

pub(crate) fn launch_product(rng: &mut Rng) -> Draft<Shop> {
    let seed = sample_seed(rng);
    let (title, sku) = *rng.pick(NEW_PRODUCTS);
    let price = *rng.pick(PRICES);
    let mut tags = rng.sample(TAGS, 2);
    tags.sort();
    let (berlin, paris) = (rng.range(5, 50) as u32, rng.range(5, 50) as u32);
    let create = json!({ "title": title, "sku": sku, "price": price, "tags": tags });
    let mut with_stock = create.clone();
    with_stock["inventory"] = json!([{ "location": "berlin", "quantity": berlin }, { "location": "paris", "quantity": paris }]);
    let set = |loc: &str, q: u32| {
        call::<Shop>(
            "set_inventory",
            json!({ "sku": sku, "location": loc, "quantity": q }),
        )
    };
    let adjust = |loc: &str, q: u32| {
        call::<Shop>(
            "adjust_inventory",
            json!({ "sku": sku, "location": loc, "delta": q }),
        )
    };
    let level = |loc: &str, q: u32| {
        atom(Atom::InventoryLevel {
            sku: sku.into(),
            location: loc.into(),
            quantity: q,
        })
    };
    Draft {
        goal: format!(
            "Add a new product \"{title}\" with SKU {sku}, priced at {}, tagged {} and {}, with {berlin} units in stock at the Berlin warehouse and {paris} at the Paris warehouse.",
            euros(price),
            tags[0],
            tags[1]
        ),
        max_steps: 6,
        seed,
        tools: Shop::tools(&[
            "create_product",
            "set_inventory",
            "adjust_inventory",
            "update_product",
            "search_products",
            "list_locations",
        ]),
        predicate: Pred::All(vec![
            atom(Atom::ProductExists {
                sku: sku.into(),
                title: Some(title.into()),
                price: Some(price),
                tags: Some(tags.iter().map(|t| t.to_string()).collect()),
                status: Some(ProductStatus::Active),
            }),
            level("berlin", berlin),
            level("paris", paris),
            level("madrid", 0),
        ]),
        references: vec![
            vec![call::<Shop>("create_product", with_stock)],
            vec![
                call::<Shop>("create_product", create.clone()),
                set("berlin", berlin),
                set("paris", paris),
            ],
            vec![
                call::<Shop>("create_product", create),
                adjust("berlin", berlin),
                adjust("paris", paris),
            ],
        ],
        faults: vec![],
        params: params(&[
            ("sku", json!(sku)),
            ("price", json!(price)),
            ("tags", json!(tags)),
            ("stock", json!([berlin, paris])),
        ]),
    }
}

const SALE_TAGS: &[&str] = &["clearance", "last-chance", "outlet"];

pub(crate) fn tag_sale(rng: &mut Rng) -> Draft<Shop> {
    let mut seed = sample_seed(rng);
    let tag = rng.pick(SALE_TAGS).to_string();
    let pct = *rng.pick(&[10u64, 20, 25, 30, 50]);
    let n = rng.range(2, 3) as usize;
    let mut picked: Vec<usize> = rng.sample(&(0..7).collect::<Vec<usize>>(), n + 1);
    let archived = picked.pop().expect("sampled");
    picked.sort();
    for &i in picked.iter().chain([&archived]) {
        let p = &mut seed.products[i];
        p.status = ProductStatus::Active;
        p.price = 500 * rng.range(4, 20) as u64;
        p.tags.push(tag.clone());
    }
    seed.products[archived].status = ProductStatus::Archived;
    let mut checks = Vec::new();
    let mut steps = vec![call::<Shop>("search_products", json!({ "query": tag }))];
    for (i, p) in seed.products.iter().enumerate() {
        let price = if picked.contains(&i) {
            p.price * (100 - pct) / 100
        } else {
            p.price
        };
        checks.push(atom(Atom::ProductPrice {
            sku: p.sku.clone(),
            price,
        }));
        if picked.contains(&i) {
            steps.push(call::<Shop>(
                "update_product",
                json!({ "productId": p.id, "price": price }),
            ));
        }
    }
    Draft {
        goal: format!(
            "Put every active product tagged {tag} on sale: lower each one's price by {pct}%. Leave archived products and everything else as they are."
        ),
        max_steps: n as u32 + 4,
        seed,
        tools: Shop::tools(&[
            "search_products",
            "list_products",
            "get_product",
            "update_product",
            "create_discount_code",
            "archive_product",
        ]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[
            ("tag", json!(tag)),
            ("percent", json!(pct)),
            ("products", json!(n)),
        ]),
    }
}
