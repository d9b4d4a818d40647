//! A store's catalogue and order history beside the task's own: a few hundred products and
//! orders, written in the seed as a seed and counts and expanded when the shop is built. Its
//! products, tags and customers belong to no template; its product ids and order numbers sit
//! among the task's (never one digit away from one of them). Most of its orders are settled
//! (fulfilled, refunded or cancelled); the newest, numbered as the task's are, may still be
//! paid and waiting, with discounts as often as the task's, so nothing but the customer and
//! the goods tells a task's order from another.

use crate::state::{Line, Order, OrderStatus, Product, ProductStatus, Refund, Seed};
use mcpbench_sim::Rng;
use mcpbench_sim::background::{fresh_id, person};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The most background products, and orders, a seed may ask for (within the 576 products the
/// pools make).
pub const MAX_RECORDS: u32 = 500;

/// `initial_state.shop.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the catalogue and the orders are drawn from.
    pub seed: u32,
    /// How many products, at most 500.
    #[schemars(range(max = 500))]
    pub products: u32,
    /// How many orders of those products, at most 500.
    #[schemars(range(max = 500))]
    pub orders: u32,
}

impl Background {
    /// A catalogue of 120 to 260 products and 100 to 240 orders.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            products: rng.range(120, 260) as u32,
            orders: rng.range(100, 240) as u32,
        }
    }
}

/// Materials and nouns of background products (with their SKU parts); no template's catalogue
/// uses any of these words.
const MATERIALS: &[(&str, &str)] = &[
    ("Oak", "OAK"),
    ("Terracotta", "TRC"),
    ("Brass", "BRS"),
    ("Marble", "MRB"),
    ("Rattan", "RTN"),
    ("Slate", "SLT"),
    ("Walnut", "WLN"),
    ("Jute", "JUT"),
    ("Felt", "FLT"),
    ("Porcelain", "PRC"),
    ("Pewter", "PWT"),
    ("Seagrass", "SGR"),
];

const NOUNS: &[(&str, &str)] = &[
    ("Desk Lamp", "LAMP"),
    ("Plant Pot", "POT"),
    ("Candle Holder", "CNDL"),
    ("Bookend Pair", "BKND"),
    ("Doormat", "DMAT"),
    ("Wall Clock", "CLCK"),
    ("Photo Frame", "FRME"),
    ("Coaster Set", "CSTR"),
    ("Shoe Rack", "RACK"),
    ("Key Tray", "KTRY"),
    ("Magazine Holder", "MAGH"),
    ("Storage Basket", "BSKT"),
    ("Bedside Shelf", "SHLF"),
    ("Umbrella Stand", "UMBS"),
    ("Letter Rack", "LTRK"),
    ("Incense Dish", "INCD"),
];

/// Tags of background products; no template's catalogue carries them.
const TAGS: &[&str] = &["home", "decor", "office", "storage"];

const DOMAINS: &[&str] = &["mailbox.test", "post.example.org", "inbox.example.net"];

const REASONS: &[&str] = &["arrived late", "changed their mind", "wrong size"];

/// The background's products and orders, to add to `seed`'s.
pub(crate) fn expand(background: &Background, seed: &Seed) -> (Vec<Product>, Vec<Order>) {
    let mut rng = Rng::new(u64::from(background.seed), 0x7368_6f70);
    let own_products: Vec<String> = seed.products.iter().map(|p| p.id.to_string()).collect();
    let own_orders: Vec<String> = seed.orders.iter().map(|o| o.id.to_string()).collect();
    let mut kinds: Vec<(usize, usize)> = (0..MATERIALS.len())
        .flat_map(|m| (0..NOUNS.len()).map(move |n| (m, n)))
        .collect();
    rng.shuffle(&mut kinds);
    let mut taken: BTreeSet<String> = own_products.iter().cloned().collect();
    let mut products = Vec::new();
    // 192 kinds in up to three sizes: room for MAX_RECORDS.
    let count = background.products.min(MAX_RECORDS) as usize;
    for (k, &(m, n)) in kinds.iter().cycle().take(count).enumerate() {
        let id = fresh_id(&mut rng, &mut taken, &own_products, (7001, 9899), |n| {
            n.to_string()
        });
        let (material, mat) = MATERIALS[m];
        let (noun, code) = NOUNS[n];
        // A kind comes in up to three sizes once the catalogue outgrows the kinds.
        let (size, suffix) = [("", ""), (" Large", "-L"), (" Small", "-S")][k / kinds.len()];
        let mut inventory = BTreeMap::new();
        for l in &seed.locations {
            if rng.chance(3, 4) {
                inventory.insert(l.id.clone(), rng.range(1, 120) as u32);
            }
        }
        products.push(Product {
            id: id.parse().expect("a number"),
            sku: format!("{code}-{mat}{suffix}"),
            title: format!("{material} {noun}{size}"),
            price: 100 * rng.range(8, 140) as u64 - 10,
            status: if rng.chance(1, 7) {
                ProductStatus::Archived
            } else {
                ProductStatus::Active
            },
            tags: vec![rng.pick(TAGS).to_string()],
            inventory,
        });
    }
    // Order numbers mostly below the task's own (history comes first), a few among them,
    // from a range with room for every order beside the numbers a slip away from the task's.
    let n_orders = background.orders.min(MAX_RECORDS) as i64;
    let numbers = seed.orders.iter().map(|o| o.id as i64);
    let (low, high) = (
        numbers.clone().min().unwrap_or(1001),
        numbers.max().unwrap_or(1001),
    );
    let lo = (low - 2 * n_orders - 40 * own_orders.len() as i64).max(1);
    let mut orders = Vec::new();
    let mut taken: BTreeSet<String> = own_orders.iter().cloned().collect();
    for _ in 0..n_orders {
        if products.is_empty() {
            break;
        }
        let id = fresh_id(&mut rng, &mut taken, &own_orders, (lo, high + 20), |n| {
            n.to_string()
        });
        let lines: Vec<Line> = (0..rng.range(1, 3))
            .map(|_| {
                let p = rng.pick(&products);
                Line {
                    sku: p.sku.clone(),
                    title: p.title.clone(),
                    quantity: rng.range(1, 3) as u32,
                    price: p.price,
                }
            })
            .collect();
        let (first, last) = person(&mut rng);
        let mut order = Order {
            id: id.parse().expect("a number"),
            email: format!(
                "{}.{}@{}",
                first.to_lowercase(),
                last.to_lowercase(),
                rng.pick(DOMAINS)
            ),
            lines,
            shipping: *rng.pick(&[0, 490, 590]),
            discount: *rng.pick(&[0, 0, 500]),
            status: OrderStatus::Fulfilled,
            refunds: vec![],
        };
        // The newest orders may still be open, as the task's are: paid, not yet shipped.
        let recent = order.id as i64 >= low - 60;
        match rng.below(10) {
            0 => order.status = OrderStatus::Cancelled,
            2..=4 if recent => order.status = OrderStatus::Paid,
            1 => {
                order.status = OrderStatus::Refunded;
                order.refunds.push(Refund {
                    amount: order.total(),
                    reason: rng.pick(REASONS).to_string(),
                });
            }
            _ => {}
        }
        orders.push(order);
    }
    (products, orders)
}
