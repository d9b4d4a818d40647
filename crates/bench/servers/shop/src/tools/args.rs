//! Argument types of the shop's tools: their JSON Schemas are what agents read and what
//! validates every call. Money is always an integer number of cents.

use crate::state::{OrderStatus, ProductStatus};
use schemars::JsonSchema;
use serde::Deserialize;

mcpbench_sim::string_arg!(
    /// A stock location's id.
    pub(crate) LocationId, 1, 50, "Location id, like berlin."
);

mcpbench_sim::string_arg!(
    /// A product's stock-keeping unit, as the inventory tools take it.
    pub(crate) Sku, 1, 64, "SKU of the product."
);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoArgs {}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListProducts {
    /// Only products in this status (default: all).
    pub(crate) status: Option<ProductStatus>,
    /// Products per page (default 50).
    #[schemars(range(min = 1, max = 100))]
    pub(crate) limit: Option<u32>,
    /// Page number, from 1 (default 1).
    #[schemars(range(min = 1, max = 1000))]
    pub(crate) page: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchProducts {
    /// Text to find in titles, SKUs and tags (case-insensitive).
    #[schemars(length(min = 1, max = 100))]
    pub(crate) query: String,
    /// Most products to return (default 20).
    #[schemars(range(min = 1, max = 100))]
    pub(crate) limit: Option<u32>,
    /// The pageInfo.endCursor of the previous page, for the page after it.
    #[schemars(length(min = 1, max = 64))]
    pub(crate) after: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct ProductIdArg {
    /// Numeric product id, like 7003.
    #[schemars(range(min = 1))]
    pub(crate) product_id: u64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StockEntry {
    pub(crate) location: LocationId,
    /// Units available there.
    #[schemars(range(max = 1000000))]
    pub(crate) quantity: u32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateProduct {
    #[schemars(length(min = 1, max = 200))]
    pub(crate) title: String,
    /// Unique stock-keeping unit, like LIN-SHIRT-M.
    #[schemars(length(min = 1, max = 64))]
    pub(crate) sku: String,
    /// Price in cents: 2450 is 24.50.
    #[schemars(range(max = 100000000))]
    pub(crate) price: u64,
    #[schemars(length(max = 20), inner(length(max = 100)))]
    pub(crate) tags: Option<Vec<String>>,
    /// Default active.
    pub(crate) status: Option<ProductStatus>,
    /// Starting stock per location (default none anywhere).
    #[schemars(length(max = 20))]
    pub(crate) inventory: Option<Vec<StockEntry>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct UpdateProduct {
    /// Numeric product id, like 7003.
    #[schemars(range(min = 1))]
    pub(crate) product_id: u64,
    #[schemars(length(min = 1, max = 200))]
    pub(crate) title: Option<String>,
    /// New price in cents: 2450 is 24.50.
    #[schemars(range(max = 100000000))]
    pub(crate) price: Option<u64>,
    /// The complete new set of tags; tags not listed are removed.
    #[schemars(length(max = 20), inner(length(max = 100)))]
    pub(crate) tags: Option<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdjustInventory {
    pub(crate) sku: Sku,
    pub(crate) location: LocationId,
    /// Units to add (positive) or remove (negative); not zero.
    #[schemars(range(min = -1000000, max = 1000000))]
    pub(crate) delta: i64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetInventory {
    pub(crate) sku: Sku,
    pub(crate) location: LocationId,
    /// The exact number of units now available there.
    #[schemars(range(max = 1000000))]
    pub(crate) quantity: u32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListOrders {
    /// Only orders in this status.
    pub(crate) status: Option<OrderStatus>,
    /// Only orders by this customer email.
    #[schemars(length(min = 3, max = 200))]
    pub(crate) email: Option<String>,
    /// Most orders to return, newest first (default 20).
    #[schemars(range(min = 1, max = 100))]
    pub(crate) limit: Option<u32>,
    /// The pageInfo.endCursor of the previous page, for the page after it.
    #[schemars(length(min = 1, max = 64))]
    pub(crate) after: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct OrderIdArg {
    /// The order number without #, like 1043.
    #[schemars(range(min = 1))]
    pub(crate) order_id: u64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RefundOrder {
    /// The order number without #, like 1043.
    #[schemars(range(min = 1))]
    pub(crate) order_id: u64,
    /// Cents to refund; omit to refund everything still refundable.
    #[schemars(range(min = 1, max = 100000000))]
    pub(crate) amount: Option<u64>,
    /// Note kept with the refund.
    #[schemars(length(max = 500))]
    pub(crate) reason: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct CreateDiscount {
    /// The code customers type, letters, digits, - and _ (stored upper case): SUMMER15.
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]{3,32}$"))]
    pub(crate) code: String,
    /// Percent off the subtotal. Give this or amountOff, not both.
    #[schemars(range(min = 1, max = 100))]
    pub(crate) percent_off: Option<u32>,
    /// Cents off the subtotal. Give this or percentOff, not both.
    #[schemars(range(min = 1, max = 100000000))]
    pub(crate) amount_off: Option<u64>,
    /// How many orders may use the code (default unlimited).
    #[schemars(range(min = 1, max = 1000000))]
    pub(crate) usage_limit: Option<u32>,
}
