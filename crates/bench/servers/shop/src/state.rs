//! The shop's seed, its state, and the money and inventory rules.

use crate::background::{self, Background, MAX_RECORDS};
use mcpbench_sim::{Capacity, Ledger, SeedError, ToolError, Usage, footprint};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProductStatus {
    #[default]
    Active,
    Archived,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    #[default]
    Paid,
    Fulfilled,
    Refunded,
    Cancelled,
}

impl OrderStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paid => "paid",
            Self::Fulfilled => "fulfilled",
            Self::Refunded => "refunded",
            Self::Cancelled => "cancelled",
        }
    }
}

fn eur() -> String {
    "EUR".into()
}
fn is_eur(c: &String) -> bool {
    c == "EUR"
}
fn is_active(s: &ProductStatus) -> bool {
    *s == ProductStatus::Active
}
fn is_paid(s: &OrderStatus) -> bool {
    *s == OrderStatus::Paid
}
fn is_zero(n: &u64) -> bool {
    *n == 0
}
fn is_zero32(n: &u32) -> bool {
    *n == 0
}

/// A place that holds stock: a warehouse or a store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Location {
    /// Short lower-case id used by the tools: `berlin`.
    pub id: String,
    /// `Berlin warehouse`.
    pub name: String,
    /// A fulfillment service that manages this location's stock; when set, its inventory
    /// cannot be changed here (`permission_denied`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Product {
    pub id: u64,
    /// Unique stock-keeping unit: `LIN-SHIRT-M`.
    pub sku: String,
    pub title: String,
    /// Price in cents of the shop currency: 2450 is 24.50.
    pub price: u64,
    #[serde(default, skip_serializing_if = "is_active")]
    pub status: ProductStatus,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Units available per location id; a location not listed holds none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inventory: BTreeMap<String, u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Line {
    pub sku: String,
    pub title: String,
    pub quantity: u32,
    /// Unit price in cents when ordered.
    pub price: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Refund {
    /// Cents.
    pub amount: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Order {
    /// The order number, shown as `#1043`.
    pub id: u64,
    pub email: String,
    pub lines: Vec<Line>,
    /// Cents.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shipping: u64,
    /// Cents taken off the subtotal.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub discount: u64,
    #[serde(default, skip_serializing_if = "is_paid")]
    pub status: OrderStatus,
    /// Refunds so far, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refunds: Vec<Refund>,
}

impl Order {
    pub fn subtotal(&self) -> u64 {
        self.lines
            .iter()
            .map(|l| l.price * u64::from(l.quantity))
            .sum()
    }
    /// Subtotal plus shipping less discount, in cents.
    pub fn total(&self) -> u64 {
        (self.subtotal() + self.shipping).saturating_sub(self.discount)
    }
    pub fn refunded(&self) -> u64 {
        self.refunds.iter().map(|r| r.amount).sum()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscountCode {
    /// Upper case: `SUMMER15`.
    pub code: String,
    /// Percent off the order subtotal; exactly one of this and `amount_off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent_off: Option<u32>,
    /// Cents off the order subtotal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount_off: Option<u64>,
    /// How many orders may use it; unlimited when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "is_zero32")]
    pub used: u32,
}

/// `initial_state.shop`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// ISO code of the shop currency; all amounts are in its cents.
    #[serde(default = "eur", skip_serializing_if = "is_eur")]
    pub currency: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub products: Vec<Product>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orders: Vec<Order>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discount_codes: Vec<DiscountCode>,
    /// A catalogue and order history beside `products` and `orders`, expanded when the shop
    /// is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

impl Default for Seed {
    fn default() -> Self {
        Seed {
            currency: eur(),
            locations: vec![],
            products: vec![],
            orders: vec![],
            discount_codes: vec![],
            background: None,
        }
    }
}

/// What a run's shop holds at most: a hundred times a seed, and more than a whole run of the
/// largest products the tools take could add (100 calls of a few kB).
pub const SHOP: Capacity = Capacity {
    store: "shop",
    records: 2_000,
    noun: "products, orders, refunds and discount codes",
    bytes: 2 << 20,
};

/// The simulated server.
#[derive(Clone, Debug)]
pub struct Shop {
    pub(crate) currency: String,
    pub(crate) locations: BTreeMap<String, Location>,
    pub(crate) products: BTreeMap<u64, Product>,
    pub(crate) orders: BTreeMap<u64, Order>,
    pub(crate) discounts: BTreeMap<String, DiscountCode>,
    /// What the products, orders, refunds and discount codes hold against [`SHOP`].
    pub(crate) ledger: Ledger,
}

/// What a product costs: a record, its bytes with the id it is stored under.
fn product_usage(id: u64, p: &Product) -> Usage {
    Usage::of(1, &(id, p))
}

/// What an order costs: itself and each of its refunds a record, and its bytes with the id it
/// is stored under (its refunds are inside it, so a refund changes the order's cost by the
/// refund plus the list's separators, and by the status it may set).
fn order_usage(id: u64, o: &Order) -> Usage {
    Usage {
        records: 1 + o.refunds.len(),
        bytes: footprint(&(id, o)),
    }
}

/// What a discount code costs: a record, with the code it is stored under.
fn code_usage(code: &str, d: &DiscountCode) -> Usage {
    Usage::of(1, &(code, d))
}

/// `43.50 EUR`.
pub(crate) fn money(cents: u64, currency: &str) -> String {
    format!("{}.{:02} {currency}", cents / 100, cents % 100)
}

pub(crate) fn valid_code(code: &str) -> bool {
    (3..=32).contains(&code.len())
        && code
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

impl Shop {
    /// What the shop holds, measured from scratch: a sum of what each record costs, so a
    /// write moves it by exactly the records it adds or changes.
    pub(crate) fn measure(&self) -> Usage {
        let products = self.products.iter().map(|(id, p)| product_usage(*id, p));
        let orders = self.orders.iter().map(|(id, o)| order_usage(*id, o));
        let codes = self.discounts.iter().map(|(code, d)| code_usage(code, d));
        products
            .chain(orders)
            .chain(codes)
            .fold(Usage::default(), |a, b| a + b)
    }

    /// Stores `product`, new or in place of the one with its id, admitted for what it adds
    /// ([`SHOP`]); a refusal changes nothing.
    pub(crate) fn put_product(&mut self, product: Product) -> Result<(), ToolError> {
        let id = product.id;
        let before = self
            .products
            .get(&id)
            .map_or(Usage::default(), |old| product_usage(id, old));
        let after = product_usage(id, &product);
        self.ledger.admit_change(before, after)?;
        self.products.insert(id, product);
        self.ledger.change(before, after);
        Ok(())
    }

    /// Stores `order` in place of the one with its id, admitted for what it adds.
    pub(crate) fn put_order(&mut self, order: Order) -> Result<(), ToolError> {
        let id = order.id;
        let before = self
            .orders
            .get(&id)
            .map_or(Usage::default(), |old| order_usage(id, old));
        let after = order_usage(id, &order);
        self.ledger.admit_change(before, after)?;
        self.orders.insert(id, order);
        self.ledger.change(before, after);
        Ok(())
    }

    /// Stores a new discount code, admitted first.
    pub(crate) fn add_code(&mut self, d: DiscountCode) -> Result<(), ToolError> {
        let adding = code_usage(&d.code, &d);
        self.ledger.admit(adding)?;
        self.discounts.insert(d.code.clone(), d);
        self.ledger.add(adding);
        Ok(())
    }

    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("shop", m);
        let mut s = Shop {
            currency: seed.currency.clone(),
            locations: BTreeMap::new(),
            products: BTreeMap::new(),
            orders: BTreeMap::new(),
            discounts: BTreeMap::new(),
            ledger: Ledger::new(SHOP, Usage::default()),
        };
        if seed.currency.len() != 3 || !seed.currency.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(bad(format!(
                "currency {:?} is not a three-letter ISO code",
                seed.currency
            )));
        }
        for l in &seed.locations {
            if l.id.is_empty()
                || l.id != l.id.to_lowercase()
                || s.locations.insert(l.id.clone(), l.clone()).is_some()
            {
                return Err(bad(format!(
                    "location id {:?} is empty, not lower case, or listed twice",
                    l.id
                )));
            }
        }
        let (more_products, more_orders) = match &seed.background {
            Some(b) if b.products > MAX_RECORDS || b.orders > MAX_RECORDS => {
                return Err(bad(format!(
                    "a background of {} products and {} orders is more than the {MAX_RECORDS} of each a shop may hold",
                    b.products, b.orders
                )));
            }
            Some(b) => background::expand(b, seed),
            None => (vec![], vec![]),
        };
        for p in seed.products.iter().chain(&more_products) {
            if s.products
                .values()
                .any(|o| o.sku.eq_ignore_ascii_case(&p.sku))
                || p.sku.trim().is_empty()
            {
                return Err(bad(format!("SKU {:?} is empty or used twice", p.sku)));
            }
            if let Some(loc) = p.inventory.keys().find(|l| !s.locations.contains_key(*l)) {
                return Err(bad(format!(
                    "product {} holds stock at unknown location {loc}",
                    p.sku
                )));
            }
            if s.products.contains_key(&p.id) {
                return Err(bad(format!("product id {} is used twice", p.id)));
            }
            let mut p = p.clone();
            p.inventory.retain(|_, n| *n > 0);
            s.products.insert(p.id, p);
        }
        for o in seed.orders.iter().chain(&more_orders) {
            if o.lines.is_empty() || o.lines.iter().any(|l| l.quantity == 0) {
                return Err(bad(format!(
                    "order #{} needs lines, each with a quantity of at least 1",
                    o.id
                )));
            }
            if o.discount > o.subtotal() {
                return Err(bad(format!(
                    "order #{} has a discount larger than its subtotal",
                    o.id
                )));
            }
            let (refunded, total) = (o.refunded(), o.total());
            if refunded > total
                || (o.status == OrderStatus::Refunded) != (refunded == total && total > 0)
            {
                return Err(bad(format!(
                    "order #{}: refunds add up to {refunded} of {total}; an order is refunded exactly when fully refunded",
                    o.id
                )));
            }
            if s.orders.insert(o.id, o.clone()).is_some() {
                return Err(bad(format!("order #{} is listed twice", o.id)));
            }
        }
        for d in &seed.discount_codes {
            if !valid_code(&d.code) || s.discounts.contains_key(&d.code) {
                return Err(bad(format!(
                    "discount code {:?} is malformed or listed twice",
                    d.code
                )));
            }
            if d.percent_off.is_some() == d.amount_off.is_some()
                || d.percent_off.is_some_and(|p| !(1..=100).contains(&p))
            {
                return Err(bad(format!(
                    "discount code {} needs exactly one of percent_off (1-100) and amount_off",
                    d.code
                )));
            }
            s.discounts.insert(d.code.clone(), d.clone());
        }
        s.ledger = Ledger::new(SHOP, s.measure());
        Ok(s)
    }

    pub(crate) fn money(&self, cents: u64) -> String {
        money(cents, &self.currency)
    }

    pub(crate) fn product(&self, id: u64) -> Result<&Product, ToolError> {
        self.products
            .get(&id)
            .ok_or_else(|| ToolError::not_found(format!("no product with id {id}")))
    }

    pub(crate) fn product_id_by_sku(&self, sku: &str) -> Result<u64, ToolError> {
        self.products
            .values()
            .find(|p| p.sku.eq_ignore_ascii_case(sku.trim()))
            .map(|p| p.id)
            .ok_or_else(|| ToolError::not_found(format!("no product with SKU {sku:?}")))
    }

    pub(crate) fn order(&self, id: u64) -> Result<&Order, ToolError> {
        self.orders
            .get(&id)
            .ok_or_else(|| ToolError::not_found(format!("no order #{id}")))
    }

    /// A location whose stock may be changed here.
    pub(crate) fn editable_location(&self, id: &str) -> Result<String, ToolError> {
        let want = id.trim().to_lowercase();
        let loc = self.locations.get(&want).ok_or_else(|| {
            let known: Vec<&str> = self.locations.keys().map(String::as_str).collect();
            ToolError::not_found(format!(
                "no location {id:?}; locations are {}",
                known.join(", ")
            ))
        })?;
        if let Some(service) = &loc.managed_by {
            return Err(ToolError::denied(format!(
                "stock at {} is managed by the fulfillment service {service} and cannot be changed here",
                loc.name
            )));
        }
        Ok(want)
    }

    pub(crate) fn snapshot(&self) -> Value {
        json!({
            "currency": self.currency,
            "locations": self.locations.values().collect::<Vec<_>>(),
            "products": self.products.values().collect::<Vec<_>>(),
            "orders": self.orders.values().collect::<Vec<_>>(),
            "discount_codes": self.discounts.values().collect::<Vec<_>>(),
        })
    }
}
