//! Recovery templates: a statement timeout to retry through, and two natural refusals of the
//! engine (a unique key taken, a foreign key still referenced) whose way around the goal names.

use super::single::new_product;
use super::{Kit, exec, params, row, rows};
use crate::Postgres;
use crate::sample::{Shop, ShopTable, amount, money, sku, sql_amount};
use mcpbench_sim::{Draft, ErrorKind, Fault, Pred, Rng, qualified};
use serde_json::json;

pub(super) fn retry_status_update(rng: &mut Rng) -> Draft<Postgres> {
    let mut shop = Shop::sample(rng);
    let at = rng.below(shop.orders.len() as u64) as usize;
    shop.orders[at].status = rng.pick(&["pending", "paid"]).to_string();
    let id = shop.orders[at].id;
    let shipped = shop.orders.iter().filter(|o| o.status == "shipped").count();
    let update = exec(&format!(
        "UPDATE orders SET status = 'shipped' WHERE id = {id}"
    ));
    Draft {
        goal: format!("Order {id} has just left the warehouse: set its status to 'shipped' in the orders table."),
        max_steps: 5,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]),
        tools: Postgres::tools(&["execute_sql", "query", "get_table_sample", "describe_table"]),
        predicate: Pred::All(vec![
            row("orders", &[("id", json!(id)), ("status", json!("shipped"))]),
            rows("orders", &[("status", json!("shipped"))], shipped + 1),
        ]),
        references: vec![vec![update.clone(), update]],
        faults: vec![Fault {
            tool: qualified::<Postgres>("execute_sql"),
            on_call: 1,
            times: 1,
            error: ErrorKind::Timeout,
            message: "canceling statement due to statement timeout; the transaction was rolled back and nothing was changed"
                .into(),
        }],
        params: params(&[("order", json!(id))]),
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
    Draft {
        goal: format!(
            "Add a product named \"{name}\" with SKU {}, price {}, and {stock} units in stock to the products table. \
             If SKU {} is already taken, give the new product the SKU {fallback} instead, and leave the existing product as it is.",
            existing.sku,
            money(price),
            existing.sku
        ),
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
    Draft {
        goal: format!(
            "Remove the customer {} (id {}) from the customers table. If the database refuses because orders still refer to \
             this customer, keep the orders and mark the customer inactive instead: set their status to 'inactive'.",
            customer.name, customer.id
        ),
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
