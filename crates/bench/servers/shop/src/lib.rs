//! `shop`: a store's catalog, stock and orders behind the tool surface of the Shopify MCP
//! servers (`search_products`, `update_product`, `adjust_inventory`, `refund_order`, ...).
//!
//! Every amount is an integer number of cents of the shop currency (EUR unless the seed says
//! otherwise): a price of 2450 is 24.50. An order's total is its lines (unit price times
//! quantity) plus shipping less its discount.
//!
//! Rules an agent meets:
//! - Products have a numeric id and a unique SKU; stock is kept per location and never goes
//!   below zero (`failed_precondition`). `adjust_inventory` adds a delta, `set_inventory`
//!   writes an absolute count. Locations managed by a fulfillment service refuse stock
//!   changes with `permission_denied`.
//! - Refunds may be partial; an order becomes `refunded` once fully refunded, after which
//!   (and for cancelled orders) refunds fail with `failed_precondition`.
//! - SKUs and discount codes are unique (`conflict`); codes are stored upper case.
//! - Lists are sorted (products by id, orders newest first), so answers are deterministic;
//!   `list_products` pages by number, `search_products` and `list_orders` hand out
//!   `pageInfo.endCursor`, which `after` takes (refused by a listing with other filters).
//! - A seed may carry a `background`: a catalogue and orders of its own beside the
//!   task's, expanded when the shop is built (`background.rs`).
//! - A run's shop holds at most [`SHOP`]: past it, a new product, refund or discount code, or a
//!   longer product, is a tool error (`failed_precondition`) that changes nothing.

mod background;
mod predicates;
mod state;
mod templates;
mod tools;

pub use background::Background;
pub use predicates::Atom;
pub use state::{
    DiscountCode, Line, Location, Order, OrderStatus, Product, ProductStatus, Refund, SHOP, Seed,
    Shop,
};
pub use templates::sample_seed;

use mcpbench_sim::{Capacity, Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Shop {
    const NAME: &'static str = "shop";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Shop::from_seed(seed)
    }
    fn copy(&self) -> Result<Self, SeedError> {
        Ok(self.clone())
    }
    fn toolbox() -> &'static ToolBox<Self> {
        &tools::TOOLS
    }
    fn holds(&self, atom: &Atom) -> bool {
        atom.holds(self)
    }
    fn snapshot(&self) -> Value {
        Shop::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    fn capacities() -> &'static [Capacity] {
        &[SHOP]
    }
    fn audit(&self) -> Result<(), String> {
        self.ledger.audit(self.measure())
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}
