//! A small shop database drawn from bounded pools: customers, products, orders and warehouse
//! inventory. Most postgres templates start from it; it is public so that tasks spanning
//! several servers can put the same rows in an email, a ticket or a file.
//!
//! Money is kept in cents here and stored as NUMERIC amounts (`2450` is `24.5`). Product names
//! never contain one another as phrases, SKUs have one prefix per product, prices are
//! distinct, and the first two customers have at least two orders each.

use crate::state::{ColumnSeed, Seed, SqlType, TableSeed};
use mcpbench_sim::Rng;
use serde_json::{Value, json};

pub const CUSTOMER_NAMES: &[&str] = &[
    "Ana Silva",
    "Ben Carter",
    "Chloe Martin",
    "Diego Ramos",
    "Emma Novak",
    "Farah Khan",
    "George Okafor",
    "Hana Sato",
    "Ivan Petrov",
    "Julia Rossi",
    "Kwame Mensah",
    "Lena Fischer",
    "Marta Lopes",
    "Noah Bennett",
    "Olivia Grant",
    "Priya Nair",
    "Quentin Moreau",
    "Rosa Jimenez",
    "Samir Haddad",
    "Tessa Brandt",
    "Umar Sheikh",
    "Valeria Costa",
    "Wen Li",
    "Yusuf Aydin",
];
pub const CITIES: &[&str] = &[
    "Lisbon",
    "Austin",
    "Lyon",
    "Osaka",
    "Nairobi",
    "Toronto",
    "Krakow",
    "Melbourne",
];
/// SKU prefix and product name.
pub const PRODUCTS: &[(&str, &str)] = &[
    ("LMP", "Desk Lamp"),
    ("CHR", "Office Chair"),
    ("KBD", "Mechanical Keyboard"),
    ("MSE", "Wireless Mouse"),
    ("MON", "Monitor Stand"),
    ("HDP", "Studio Headphones"),
    ("CBL", "USB-C Cable"),
    ("NTB", "Paper Notebook"),
    ("BKP", "Laptop Backpack"),
    ("WBT", "Water Bottle"),
    ("PLN", "Desk Plant"),
    ("CAM", "Web Camera"),
];
pub const ORDER_STATUSES: &[&str] = &["pending", "paid", "shipped", "delivered", "cancelled"];
pub const WAREHOUSES: &[&str] = &["north", "south", "east", "west", "central"];

#[derive(Clone, Debug, PartialEq)]
pub struct Customer {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub city: String,
    /// `active` or `inactive`.
    pub status: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Product {
    pub id: i64,
    pub sku: String,
    pub name: String,
    pub price_cents: i64,
    pub stock: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Order {
    pub id: i64,
    pub customer_id: i64,
    pub product_id: i64,
    pub quantity: i64,
    pub total_cents: i64,
    pub status: String,
    /// `YYYY-MM-DD`.
    pub placed_on: String,
}

/// One row of `inventory`: how many units of a SKU one warehouse holds.
#[derive(Clone, Debug, PartialEq)]
pub struct StockRow {
    pub warehouse: String,
    pub sku: String,
    pub quantity: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shop {
    pub customers: Vec<Customer>,
    pub products: Vec<Product>,
    pub orders: Vec<Order>,
    pub inventory: Vec<StockRow>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShopTable {
    Customers,
    Products,
    /// Needs `Customers` and `Products` in the same seed (foreign keys).
    Orders,
    Inventory,
}

/// Cents as the stored amount: `2450` is `24.5`.
pub fn amount(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// Cents as text with two decimals: `2450` is `"24.50"`.
pub fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// Cents as an SQL literal: `2450` is `24.5`.
pub fn sql_amount(cents: i64) -> String {
    amount(cents).to_string()
}

/// `Ana Silva` is `ana.silva@example.com`.
pub fn email_of(name: &str) -> String {
    format!(
        "{}@example.com",
        name.to_ascii_lowercase().replace(' ', ".")
    )
}

/// A SKU: `prefix`, a dash and three digits (`LMP-204`).
pub fn sku(rng: &mut Rng, prefix: &str) -> String {
    format!("{prefix}-{}", rng.range(100, 999))
}

/// `n` distinct prices in cents between 4.99 and 199.99.
pub fn distinct_prices(rng: &mut Rng, n: usize) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    while out.len() < n {
        let cents = rng.range(499, 19_999);
        if !out.contains(&cents) {
            out.push(cents);
        }
    }
    out
}

/// How many rows a shop sample draws: ranges of customers, products and orders, and the
/// number of products stocked in three warehouses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    pub customers: (i64, i64),
    pub products: (i64, i64),
    pub orders: (i64, i64),
    pub stocked: usize,
}

impl Sizes {
    /// The small shop of the templates in Rust.
    pub const SMALL: Sizes = Sizes {
        customers: (3, 5),
        products: (4, 6),
        orders: (6, 9),
        stocked: 3,
    };
    /// A shop whose queried tables hold more than the rows a task is about: a reader sees
    /// dozens of orders of other customers, products and days (the pack's sample world).
    pub const BUSY: Sizes = Sizes {
        customers: (10, 18),
        products: (7, 10),
        orders: (30, 60),
        stocked: 5,
    };
}

impl Shop {
    /// 3-5 customers, 4-6 products, 6-9 orders, and inventory of three products in three
    /// warehouses.
    pub fn sample(rng: &mut Rng) -> Shop {
        Shop::sample_sized(rng, Sizes::SMALL)
    }

    /// A shop of `sizes`; the first two customers have at least two orders each.
    pub fn sample_sized(rng: &mut Rng, sizes: Sizes) -> Shop {
        let n = rng.range(sizes.customers.0, sizes.customers.1) as usize;
        let names = rng.sample(CUSTOMER_NAMES, n);
        let customers: Vec<Customer> = names
            .iter()
            .enumerate()
            .map(|(i, name)| Customer {
                id: i as i64 + 1,
                name: name.to_string(),
                email: email_of(name),
                city: rng.pick(CITIES).to_string(),
                status: "active".into(),
            })
            .collect();
        let n = rng.range(sizes.products.0, sizes.products.1) as usize;
        let picked = rng.sample(PRODUCTS, n);
        let prices = distinct_prices(rng, picked.len());
        let products: Vec<Product> = picked
            .iter()
            .zip(prices)
            .enumerate()
            .map(|(i, ((prefix, name), price_cents))| Product {
                id: i as i64 + 1,
                sku: sku(rng, prefix),
                name: name.to_string(),
                price_cents,
                stock: rng.range(0, 80),
            })
            .collect();
        let mut orders: Vec<Order> = (0..rng.range(sizes.orders.0, sizes.orders.1))
            .map(|i| {
                let customer = if i < 4 {
                    i % 2
                } else {
                    rng.below(customers.len() as u64) as i64
                };
                let product = rng.pick(&products);
                let quantity = rng.range(1, 4);
                Order {
                    id: 0,
                    customer_id: customer + 1,
                    product_id: product.id,
                    quantity,
                    total_cents: quantity * product.price_cents,
                    status: rng.pick(ORDER_STATUSES).to_string(),
                    placed_on: format!("2024-{:02}-{:02}", rng.range(1, 12), rng.range(1, 28)),
                }
            })
            .collect();
        orders.sort_by(|a, b| a.placed_on.cmp(&b.placed_on));
        for (i, o) in orders.iter_mut().enumerate() {
            o.id = 1001 + i as i64;
        }
        let warehouses = rng.sample(WAREHOUSES, 3);
        let mut inventory = Vec::new();
        for p in products.iter().take(sizes.stocked) {
            for w in &warehouses {
                if rng.chance(3, 4) {
                    inventory.push(StockRow {
                        warehouse: w.to_string(),
                        sku: p.sku.clone(),
                        quantity: rng.range(0, 60),
                    });
                }
            }
        }
        Shop {
            customers,
            products,
            orders,
            inventory,
        }
    }

    pub fn customer(&self, id: i64) -> &Customer {
        self.customers
            .iter()
            .find(|c| c.id == id)
            .expect("known customer")
    }

    pub fn orders_of(&self, customer_id: i64) -> Vec<&Order> {
        self.orders
            .iter()
            .filter(|o| o.customer_id == customer_id)
            .collect()
    }

    /// A seed with the given tables, in that order.
    pub fn seed(&self, tables: &[ShopTable]) -> Seed {
        let tables = tables
            .iter()
            .map(|t| match t {
                ShopTable::Customers => self.customers_table(),
                ShopTable::Products => self.products_table(),
                ShopTable::Orders => self.orders_table(),
                ShopTable::Inventory => self.inventory_table(),
            })
            .collect();
        Seed {
            tables,
            ..Seed::default()
        }
    }

    pub fn customers_table(&self) -> TableSeed {
        TableSeed {
            name: "customers".into(),
            columns: vec![
                ColumnSeed::new("id", SqlType::Integer).primary_key(),
                ColumnSeed::new("name", SqlType::Text).not_null(),
                ColumnSeed::new("email", SqlType::Text).not_null().unique(),
                ColumnSeed::new("city", SqlType::Text),
                ColumnSeed::new("status", SqlType::Text)
                    .not_null()
                    .default(json!("active"))
                    .check("status IN ('active', 'inactive')"),
            ],
            primary_key: vec![],
            rows: self
                .customers
                .iter()
                .map(|c| {
                    vec![
                        json!(c.id),
                        json!(c.name),
                        json!(c.email),
                        json!(c.city),
                        json!(c.status),
                    ]
                })
                .collect(),
        }
    }

    pub fn products_table(&self) -> TableSeed {
        TableSeed {
            name: "products".into(),
            columns: vec![
                ColumnSeed::new("id", SqlType::Integer).primary_key(),
                ColumnSeed::new("sku", SqlType::Text).not_null().unique(),
                ColumnSeed::new("name", SqlType::Text).not_null(),
                ColumnSeed::new("price", SqlType::Numeric)
                    .not_null()
                    .check("price >= 0"),
                ColumnSeed::new("stock", SqlType::Integer)
                    .not_null()
                    .default(json!(0))
                    .check("stock >= 0"),
            ],
            primary_key: vec![],
            rows: self
                .products
                .iter()
                .map(|p| {
                    vec![
                        json!(p.id),
                        json!(p.sku),
                        json!(p.name),
                        json!(amount(p.price_cents)),
                        json!(p.stock),
                    ]
                })
                .collect(),
        }
    }

    pub fn orders_table(&self) -> TableSeed {
        TableSeed {
            name: "orders".into(),
            columns: order_columns(true),
            primary_key: vec![],
            rows: self.orders.iter().map(order_row).collect(),
        }
    }

    pub fn inventory_table(&self) -> TableSeed {
        TableSeed {
            name: "inventory".into(),
            columns: vec![
                ColumnSeed::new("warehouse", SqlType::Text).not_null(),
                ColumnSeed::new("sku", SqlType::Text).not_null(),
                ColumnSeed::new("quantity", SqlType::Integer)
                    .not_null()
                    .check("quantity >= 0"),
            ],
            primary_key: vec!["warehouse".into(), "sku".into()],
            rows: self
                .inventory
                .iter()
                .map(|s| vec![json!(s.warehouse), json!(s.sku), json!(s.quantity)])
                .collect(),
        }
    }
}

/// The columns of `orders`; without foreign keys for an archive copy.
pub fn order_columns(foreign_keys: bool) -> Vec<ColumnSeed> {
    let mut customer = ColumnSeed::new("customer_id", SqlType::Integer).not_null();
    let mut product = ColumnSeed::new("product_id", SqlType::Integer).not_null();
    if foreign_keys {
        customer = customer.references("customers", "id");
        product = product.references("products", "id");
    }
    vec![
        ColumnSeed::new("id", SqlType::Integer).primary_key(),
        customer,
        product,
        ColumnSeed::new("quantity", SqlType::Integer)
            .not_null()
            .check("quantity > 0"),
        ColumnSeed::new("total", SqlType::Numeric).not_null(),
        ColumnSeed::new("status", SqlType::Text).not_null(),
        ColumnSeed::new("placed_on", SqlType::Date).not_null(),
    ]
}

/// An order as a row of `orders`, in column order.
pub fn order_row(o: &Order) -> Vec<Value> {
    vec![
        json!(o.id),
        json!(o.customer_id),
        json!(o.product_id),
        json!(o.quantity),
        json!(amount(o.total_cents)),
        json!(o.status),
        json!(o.placed_on),
    ]
}
