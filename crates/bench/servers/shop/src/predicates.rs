//! `shop.*` predicate atoms. Products are named by SKU, orders by number, discount codes by
//! code (all case-insensitive); amounts are cents.

use crate::state::{OrderStatus, Product, ProductStatus, Shop};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all_fields = "camelCase")]
pub enum Atom {
    /// The product with `sku` costs exactly `price` cents.
    #[serde(rename = "shop.productPrice")]
    ProductPrice { sku: String, price: u64 },
    /// The product with `sku` has exactly `quantity` units at `location` (absent is 0).
    #[serde(rename = "shop.inventoryLevel")]
    InventoryLevel {
        sku: String,
        location: String,
        quantity: u32,
    },
    /// The product with `sku` is `status`.
    #[serde(rename = "shop.productStatus")]
    ProductStatus { sku: String, status: ProductStatus },
    /// A product with `sku` exists with every optional field given (tags as a set).
    #[serde(rename = "shop.productExists")]
    ProductExists {
        sku: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        price: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tags: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<ProductStatus>,
    },
    /// Order number `order` is `status`.
    #[serde(rename = "shop.orderStatus")]
    OrderStatus { order: u64, status: OrderStatus },
    /// Order number `order` has had exactly `amount` cents refunded in all.
    #[serde(rename = "shop.orderRefunded")]
    OrderRefunded { order: u64, amount: u64 },
    /// The discount `code` exists, with every optional value given.
    #[serde(rename = "shop.discountExists")]
    DiscountExists {
        code: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        percent_off: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        amount_off: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage_limit: Option<u32>,
    },
}

fn same_tags(have: &[String], want: &[String]) -> bool {
    let norm = |v: &[String]| {
        let mut v: Vec<String> = v.iter().map(|t| t.trim().to_lowercase()).collect();
        v.sort();
        v.dedup();
        v
    };
    norm(have) == norm(want)
}

impl Atom {
    pub(crate) fn holds(&self, s: &Shop) -> bool {
        let product = |sku: &str| -> Option<&Product> {
            s.products
                .values()
                .find(|p| p.sku.eq_ignore_ascii_case(sku.trim()))
        };
        match self {
            Atom::ProductPrice { sku, price } => product(sku).is_some_and(|p| p.price == *price),
            Atom::InventoryLevel {
                sku,
                location,
                quantity,
            } => product(sku).is_some_and(|p| {
                p.inventory
                    .get(&location.to_lowercase())
                    .copied()
                    .unwrap_or(0)
                    == *quantity
            }),
            Atom::ProductStatus { sku, status } => {
                product(sku).is_some_and(|p| p.status == *status)
            }
            Atom::ProductExists {
                sku,
                title,
                price,
                tags,
                status,
            } => product(sku).is_some_and(|p| {
                title.as_ref().is_none_or(|t| p.title.trim() == t.trim())
                    && price.is_none_or(|x| p.price == x)
                    && tags.as_ref().is_none_or(|t| same_tags(&p.tags, t))
                    && status.is_none_or(|x| p.status == x)
            }),
            Atom::OrderStatus { order, status } => {
                s.orders.get(order).is_some_and(|o| o.status == *status)
            }
            Atom::OrderRefunded { order, amount } => {
                s.orders.get(order).is_some_and(|o| o.refunded() == *amount)
            }
            Atom::DiscountExists {
                code,
                percent_off,
                amount_off,
                usage_limit,
            } => s
                .discounts
                .get(&code.trim().to_uppercase())
                .is_some_and(|d| {
                    percent_off.is_none_or(|x| d.percent_off == Some(x))
                        && amount_off.is_none_or(|x| d.amount_off == Some(x))
                        && usage_limit.is_none_or(|x| d.usage_limit == Some(x))
                }),
        }
    }
}
