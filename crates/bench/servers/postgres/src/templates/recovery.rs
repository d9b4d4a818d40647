//! Recovery templates: a statement timeout to retry through, and two natural refusals of the
//! engine (a unique key taken, a foreign key still referenced) for the agent to notice; the goal
//! states what the user wants and what they will accept instead.

use super::single::new_product;
use super::{Kit, exec, params, row, rows};
use crate::Postgres;
use crate::sample::{Shop, ShopTable, amount, money, sku, sql_amount};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, qualified};
use serde_json::json;

/// What happened to an order, the status it takes, and the statuses it may have had before.
#[rustfmt::skip]
const STATUS_NEWS: &[(&str, &str, &[&str])] = &[
    ("has just left the warehouse", "shipped", &["pending", "paid"]),
    ("was handed to the courier this morning", "shipped", &["pending", "paid"]),
    ("reached the customer yesterday", "delivered", &["paid", "shipped"]),
    ("was signed for at the door", "delivered", &["shipped"]),
    ("is paid: the bank transfer came in", "paid", &["pending"]),
    ("was called off by the customer before it shipped", "cancelled", &["pending", "paid"]),
];
/// Ways to ask, with `{id}`, `{news}` and `{status}`.
const STATUS_ASKS: &[&str] = &[
    "Order {id} {news}: set its status to '{status}' in the orders table.",
    "Order {id} {news}. Please record it as {status} in the database.",
    "Quick update for the orders table: order {id} {news}, so its status should now be '{status}'.",
    "Our books are behind: order {id} {news}. Mark it {status}.",
    "Heads up, order {id} {news}. The database should show it as {status}.",
    "Can you bring order {id} up to date? It {news}, so it's {status} now.",
    "Just heard that order {id} {news}. Update the orders table: status {status}.",
    "For the end-of-day report, order {id} {news}; please set it to {status}.",
];

pub(super) fn retry_status_update(rng: &mut Rng) -> Draft<Postgres> {
    let mut shop = Shop::sample(rng);
    let at = rng.below(shop.orders.len() as u64) as usize;
    let (news, status, before) = *rng.pick(STATUS_NEWS);
    shop.orders[at].status = rng.pick(before).to_string();
    let id = shop.orders[at].id;
    let already = shop.orders.iter().filter(|o| o.status == status).count();
    let update = exec(&format!(
        "UPDATE orders SET status = '{status}' WHERE id = {id}"
    ));
    let goal = rng
        .pick(STATUS_ASKS)
        .replace("{id}", &id.to_string())
        .replace("{news}", news)
        .replace("{status}", status);
    Draft {
        goal,
        max_steps: 5,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]),
        tools: Postgres::tools(&["execute_sql", "query", "get_table_sample", "describe_table"]),
        predicate: Pred::All(vec![
            row("orders", &[("id", json!(id)), ("status", json!(status))]),
            rows("orders", &[("status", json!(status))], already + 1),
        ]),
        references: vec![vec![update.clone(), update]],
        faults: vec![Fault {
            tool: qualified::<Postgres>("execute_sql"),
            on_call: 1,
            times: 1,
            error: ErrorKind::Timeout,
            message: "canceling statement due to statement timeout; the transaction was rolled back and nothing was changed"
                .into(),
            landed: false,
        }],
        params: params(&[("order", json!(id)), ("status", json!(status))]),
    }
}

pub(super) fn sku_conflict(rng: &mut Rng) -> Draft<Postgres> {
    let shop = Shop::sample(rng);
    let existing = rng.pick(&shop.products).clone();
    let (prefix, name) = new_product(rng, &shop);
    let fallback = sku(rng, prefix);
    let price = rng.range(499, 19_999);
    let stock = rng.range(1, 60);
    let insert = |sku: &str| {
        exec(&format!(
            "INSERT INTO products (sku, name, price, stock) VALUES ('{sku}', '{name}', {}, {stock})",
            sql_amount(price)
        ))
    };
    let (want, cost) = (existing.sku.clone(), money(price));
    let goal = match rng.below(3) {
        0 => format!(
            "Add a product named \"{name}\" with price {cost} and {stock} units in stock to the products table. \
             I'd like the SKU {want} for it; {fallback} is my second choice. Leave the products already there as they are."
        ),
        1 => format!(
            "We're starting to sell \"{name}\" at {cost}, with {stock} units in stock. Please add it to the products table \
             under SKU {want}, or under {fallback} if {want} can't be had. Existing products stay untouched."
        ),
        _ => format!(
            "New product for the products table: \"{name}\", price {cost}, {stock} in stock, SKU {want} \
             (or {fallback} as a second choice). Don't change any product that is already listed."
        ),
    };
    Draft {
        goal,
        max_steps: 5,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products]),
        tools: Postgres::tools(&[
            "execute_sql",
            "query",
            "describe_table",
            "get_table_sample",
            "list_indexes",
        ]),
        predicate: Pred::All(vec![
            row(
                "products",
                &[
                    ("sku", json!(fallback)),
                    ("name", json!(name)),
                    ("price", json!(amount(price))),
                    ("stock", json!(stock)),
                ],
            ),
            row(
                "products",
                &[
                    ("sku", json!(existing.sku)),
                    ("name", json!(existing.name)),
                    ("price", json!(amount(existing.price_cents))),
                    ("stock", json!(existing.stock)),
                ],
            ),
            rows("products", &[], shop.products.len() + 1),
        ]),
        references: vec![vec![insert(&existing.sku), insert(&fallback)]],
        faults: vec![],
        params: params(&[
            ("taken_sku", json!(existing.sku)),
            ("fallback_sku", json!(fallback)),
        ]),
    }
}

/// Why the user writes, or nothing.
const CUSTOMER_OPENERS: &[&str] = &[
    "",
    "Cleaning up our customer list. ",
    "The account was closed last week. ",
    "Following their email to support: ",
    "Data protection request. ",
    "Heads up from sales. ",
];

pub(super) fn deactivate_customer(rng: &mut Rng) -> Draft<Postgres> {
    let mut shop = Shop::sample(rng);
    if rng.chance(1, 2) {
        shop.customers.last_mut().expect("customers").status = "inactive".into();
    }
    let customer = shop.customers[0].clone();
    let orders = shop.orders_of(customer.id).len();
    let inactive = shop
        .customers
        .iter()
        .filter(|c| c.status == "inactive")
        .count();
    let who = &customer.name;
    let goal = match rng.below(5) {
        3 => format!(
            "Please take {who} off our customer list. Whatever they ordered before must stay in the database exactly as it is; \
             if removing them would break that, keep the row and set them inactive."
        ),
        4 => format!(
            "{who} closed their account with us. Remove their customer record if the database lets you do it without altering \
             a single one of their orders, and otherwise just flag them as inactive."
        ),
        0 => format!(
            "{who} is no longer a customer: take them out of the customers table, but we must keep their order history as it is; \
             marking them inactive is fine if they can't be removed."
        ),
        1 => format!(
            "Please remove {who} from the customers table. Their past orders have to stay in the database unchanged, though; \
             if that means the customer row can't go, mark {who} as inactive instead."
        ),
        _ => format!(
            "We've stopped doing business with {who}. Delete them from the customers table if that is possible without \
             touching any of their orders; otherwise leave the orders as they are and just mark them inactive."
        ),
    };
    let goal = format!("{}{goal}", rng.pick(CUSTOMER_OPENERS));
    Draft {
        goal,
        max_steps: 5,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]),
        tools: Postgres::tools(&[
            "execute_sql",
            "query",
            "describe_table",
            "get_object_details",
            "count_rows",
            "get_table_sample",
        ]),
        predicate: Pred::All(vec![
            row(
                "customers",
                &[("id", json!(customer.id)), ("status", json!("inactive"))],
            ),
            rows("orders", &[("customer_id", json!(customer.id))], orders),
            rows("customers", &[("status", json!("inactive"))], inactive + 1),
        ]),
        references: vec![vec![
            exec(&format!("DELETE FROM customers WHERE id = {}", customer.id)),
            exec(&format!(
                "UPDATE customers SET status = 'inactive' WHERE id = {}",
                customer.id
            )),
        ]],
        faults: vec![],
        params: params(&[
            ("customer", json!(customer.name)),
            ("orders", json!(orders)),
        ]),
    }
}
