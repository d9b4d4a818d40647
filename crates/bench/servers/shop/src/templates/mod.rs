//! Template grammars for tasks on the shop alone, and [`sample_seed`], a small random store
//! other crates can build cross-server tasks on. Every parameter is drawn from a bounded pool
//! or range, and every goal states each concrete value the task needs.

mod composition;
mod history;
mod recovery;
mod single;

use crate::{
    Atom, DiscountCode, Line, Location, Order, OrderStatus, Product, ProductStatus, Seed, Shop,
};
use mcpbench_sim::{Category, Difficulty, Pred, Rng, Template};
use std::collections::BTreeMap;

pub(crate) fn all() -> Vec<Template<Shop>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "shop.reprice_product",
            category: SingleTool,
            difficulty: Easy,
            build: single::reprice_product,
        },
        Template {
            id: "shop.archive_product",
            category: SingleTool,
            difficulty: Easy,
            build: single::archive_product,
        },
        Template {
            id: "shop.receive_stock",
            category: SingleTool,
            difficulty: Easy,
            build: single::receive_stock,
        },
        Template {
            id: "shop.order_total",
            category: SingleTool,
            difficulty: Easy,
            build: single::order_total,
        },
        Template {
            id: "shop.stock_take",
            category: SingleTool,
            difficulty: Medium,
            build: single::stock_take,
        },
        Template {
            id: "shop.create_discount",
            category: SingleTool,
            difficulty: Medium,
            build: single::create_discount,
        },
        Template {
            id: "shop.units_left",
            category: Composition,
            difficulty: Medium,
            build: composition::units_left,
        },
        Template {
            id: "shop.order_history_value",
            category: Composition,
            difficulty: Hard,
            build: history::order_history_value,
        },
        Template {
            id: "shop.refund_line",
            category: Composition,
            difficulty: Medium,
            build: composition::refund_line,
        },
        Template {
            id: "shop.launch_product",
            category: Composition,
            difficulty: Hard,
            build: composition::launch_product,
        },
        Template {
            id: "shop.tag_sale",
            category: Composition,
            difficulty: Hard,
            build: composition::tag_sale,
        },
        Template {
            id: "shop.discount_code_taken",
            category: Recovery,
            difficulty: Easy,
            build: recovery::discount_code_taken,
        },
        Template {
            id: "shop.receive_at_fallback",
            category: Recovery,
            difficulty: Medium,
            build: recovery::receive_at_fallback,
        },
        Template {
            id: "shop.refund_after_timeout",
            category: Recovery,
            difficulty: Hard,
            build: recovery::refund_after_timeout,
        },
    ]
}

/// (title, SKU, tags) of the catalog a sampled store draws from.
const CATALOG: &[(&str, &str, &[&str])] = &[
    ("Linen Shirt", "LIN-SHIRT", &["apparel", "summer"]),
    ("Wool Beanie", "WOOL-BEANIE", &["accessories", "winter"]),
    ("Canvas Tote Bag", "TOTE-CNV", &["accessories"]),
    ("Ceramic Mug", "MUG-CER", &["kitchen"]),
    ("Enamel Camp Mug", "MUG-ENM", &["kitchen", "outdoor"]),
    ("Rain Jacket", "JKT-RAIN", &["apparel", "outdoor"]),
    ("Merino Socks", "SOCK-MER", &["apparel", "winter"]),
    ("Leather Wallet", "WAL-LTH", &["accessories"]),
    ("Trail Water Bottle", "BTL-TRAIL", &["outdoor"]),
    ("Cotton Hoodie", "HOOD-CTN", &["apparel"]),
    ("Straw Sun Hat", "HAT-STRAW", &["accessories", "summer"]),
    ("Espresso Cup Set", "CUP-ESP", &["kitchen"]),
    ("Picnic Blanket", "BLNK-PIC", &["outdoor", "summer"]),
    ("Knit Scarf", "SCARF-KNT", &["accessories", "winter"]),
    ("Bamboo Cutting Board", "BRD-BMB", &["kitchen"]),
    ("Denim Cap", "CAP-DNM", &["accessories"]),
];

/// Products a task asks the agent to add; never in a sampled store.
pub(crate) const NEW_PRODUCTS: &[(&str, &str)] = &[
    ("Alpaca Throw", "THROW-ALP"),
    ("Cork Yoga Mat", "MAT-CORK"),
    ("Copper Kettle", "KETTLE-CPR"),
    ("Hiking Daypack", "PACK-DAY"),
    ("Linen Apron", "APRON-LIN"),
    ("Glass Carafe", "CARAFE-GLS"),
];

pub(crate) const TAGS: &[&str] = &[
    "apparel",
    "accessories",
    "kitchen",
    "outdoor",
    "summer",
    "winter",
    "gift",
    "new",
];

pub(crate) const PRICES: &[u64] = &[990, 1490, 1990, 2490, 2990, 3490, 4490, 5990, 7990];

/// (id, name) of the stock locations of every sampled store.
pub(crate) const LOCATIONS: &[(&str, &str)] = &[
    ("berlin", "Berlin warehouse"),
    ("paris", "Paris warehouse"),
    ("madrid", "Madrid store"),
];

const CUSTOMERS: &[&str] = &[
    "anna.schmidt@example.com",
    "luc.martin@example.com",
    "sofia.garcia@example.com",
    "jan.novak@example.com",
    "emma.rossi@example.com",
    "noah.jensen@example.com",
];

pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, atom};

/// `€24.50`.
pub(crate) fn euros(cents: u64) -> String {
    format!("€{}.{:02}", cents / 100, cents % 100)
}

pub(crate) fn location_name(id: &str) -> &'static str {
    LOCATIONS
        .iter()
        .find(|(l, _)| *l == id)
        .map_or("", |(_, n)| n)
}

pub(crate) fn stock(p: &Product, location: &str) -> u32 {
    p.inventory.get(location).copied().unwrap_or(0)
}

/// The stock of `p` at every location other than `except` stays as seeded.
pub(crate) fn other_stock_unchanged(p: &Product, except: &str) -> Vec<Pred<Atom>> {
    LOCATIONS
        .iter()
        .filter(|(l, _)| *l != except)
        .map(|(l, _)| {
            atom(Atom::InventoryLevel {
                sku: p.sku.clone(),
                location: l.to_string(),
                quantity: stock(p, l),
            })
        })
        .collect()
}

/// The index of a random active product.
pub(crate) fn pick_active(rng: &mut Rng, seed: &Seed) -> usize {
    let ok: Vec<usize> = (0..seed.products.len())
        .filter(|&i| seed.products[i].status == ProductStatus::Active)
        .collect();
    *rng.pick(&ok)
}

/// The index of a random paid or fulfilled order with at least two lines and no refunds.
pub(crate) fn pick_refundable(rng: &mut Rng, seed: &Seed) -> usize {
    let ok: Vec<usize> = (0..seed.orders.len())
        .filter(|&i| {
            let o = &seed.orders[i];
            matches!(o.status, OrderStatus::Paid | OrderStatus::Fulfilled)
                && o.lines.len() >= 2
                && o.refunds.is_empty()
        })
        .collect();
    *rng.pick(&ok)
}

/// A small store in EUR: the three [`LOCATIONS`] (all editable), eight catalog products with
/// consecutive ids (all active but possibly one archived, prices from [`PRICES`], random
/// stock), five orders with consecutive numbers (the first always paid or fulfilled with two
/// or three lines; discounts at most 5.00 EUR; possibly the last cancelled), and the codes
/// WELCOME10 (10% off) and FREESHIP (4.90 EUR off).
pub fn sample_seed(rng: &mut Rng) -> Seed {
    let locations: Vec<Location> = LOCATIONS
        .iter()
        .map(|(id, name)| Location {
            id: id.to_string(),
            name: name.to_string(),
            managed_by: None,
        })
        .collect();
    let first_id = rng.range(7001, 7900) as u64;
    let products: Vec<Product> = rng
        .sample(CATALOG, 8)
        .into_iter()
        .enumerate()
        .map(|(i, (title, sku, tags))| {
            let mut inventory = BTreeMap::new();
            for (loc, _) in LOCATIONS {
                if !rng.chance(1, 5) {
                    inventory.insert(loc.to_string(), rng.range(1, 60) as u32);
                }
            }
            Product {
                id: first_id + i as u64,
                sku: sku.to_string(),
                title: title.to_string(),
                price: *rng.pick(PRICES),
                status: if i == 7 && rng.chance(1, 2) {
                    ProductStatus::Archived
                } else {
                    ProductStatus::Active
                },
                tags: tags.iter().map(|t| t.to_string()).collect(),
                inventory,
            }
        })
        .collect();
    let first_order = rng.range(1001, 1090) as u64;
    let orders: Vec<Order> = (0..5u64)
        .map(|n| {
            let n_lines = if n == 0 {
                rng.range(2, 3)
            } else {
                rng.range(1, 3)
            } as usize;
            let lines: Vec<Line> = rng
                .sample(&products[..7], n_lines)
                .into_iter()
                .map(|p| Line {
                    sku: p.sku,
                    title: p.title,
                    quantity: rng.range(1, 3) as u32,
                    price: p.price,
                })
                .collect();
            let status = match n {
                0 => *rng.pick(&[OrderStatus::Paid, OrderStatus::Fulfilled]),
                4 if rng.chance(1, 3) => OrderStatus::Cancelled,
                _ => *rng.pick(&[
                    OrderStatus::Paid,
                    OrderStatus::Fulfilled,
                    OrderStatus::Fulfilled,
                ]),
            };
            Order {
                id: first_order + n,
                email: rng.pick(CUSTOMERS).to_string(),
                lines,
                shipping: *rng.pick(&[0, 490, 590]),
                discount: *rng.pick(&[0, 0, 500]),
                status,
                refunds: vec![],
            }
        })
        .collect();
    let discount_codes = vec![
        DiscountCode {
            code: "FREESHIP".into(),
            percent_off: None,
            amount_off: Some(490),
            usage_limit: None,
            used: 12,
        },
        DiscountCode {
            code: "WELCOME10".into(),
            percent_off: Some(10),
            amount_off: None,
            usage_limit: None,
            used: 57,
        },
    ];
    Seed {
        currency: "EUR".into(),
        locations,
        products,
        orders,
        discount_codes,
        background: None,
    }
}
