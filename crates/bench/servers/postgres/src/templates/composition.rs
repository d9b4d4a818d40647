//! Composition templates: read a value, then answer or write with it; or several writes that
//! must agree. Where a single SQL statement can do what a read-then-write does, both paths have
//! a reference.

use super::{Kit, exec, not, params, products_unchanged, read, row, rows};
use crate::sample::{Shop, ShopTable, StockRow, amount, money, order_columns, sql_amount};
use crate::{Postgres, TableSeed};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step};
use serde_json::json;

pub(super) fn customer_total(rng: &mut Rng) -> Draft<Postgres> {
    let mut shop = Shop::sample(rng);
    let customer = shop.customers[0].clone();
    let skip_cancelled = rng.chance(1, 2);
    if skip_cancelled {
        let mine: Vec<usize> = (0..shop.orders.len())
            .filter(|&i| shop.orders[i].customer_id == customer.id)
            .collect();
        shop.orders[mine[0]].status = "cancelled".into();
        shop.orders[mine[1]].status = rng
            .pick(&["pending", "paid", "shipped", "delivered"])
            .to_string();
    }
    let total: i64 = shop
        .orders_of(customer.id)
        .iter()
        .filter(|o| !skip_cancelled || o.status != "cancelled")
        .map(|o| o.total_cents)
        .sum();
    let (scope, condition) = if skip_cancelled {
        (
            ", leaving out cancelled orders",
            " AND o.status <> 'cancelled'",
        )
    } else {
        (", whatever their status", "")
    };
    Draft {
        goal: format!(
            "What is the total value (sum of the total column) of all orders placed by {}{scope}? Reply with the amount.",
            customer.name
        ),
        max_steps: 5,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]),
        tools: Postgres::tools(&[
            "query",
            "execute_sql",
            "list_tables",
            "describe_table",
            "get_object_details",
            "get_table_sample",
        ]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: amount(total),
            tolerance: 0.005,
        }),
        references: vec![vec![
            read(&format!(
                "SELECT SUM(o.total) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.name = '{}'{condition}",
                customer.name
            )),
            Step::Answer {
                answer: money(total),
            },
        ]],
        faults: vec![],
        params: params(&[
            ("customer", json!(customer.name)),
            ("skip_cancelled", json!(skip_cancelled)),
        ]),
    }
}

pub(super) fn match_price(rng: &mut Rng) -> Draft<Postgres> {
    let shop = Shop::sample(rng);
    let pair = rng.sample(&shop.products, 2);
    let (a, b) = (&pair[0], &pair[1]);
    let price = sql_amount(b.price_cents);
    let mut checks = vec![
        row(
            "products",
            &[
                ("sku", json!(a.sku)),
                ("price", json!(amount(b.price_cents))),
            ],
        ),
        row(
            "products",
            &[
                ("sku", json!(b.sku)),
                ("price", json!(amount(b.price_cents))),
            ],
        ),
    ];
    checks.extend(products_unchanged(&shop, &[a.id, b.id]));
    Draft {
        goal: format!(
            "Set the price of the {} (SKU {}) to whatever the {} (SKU {}) costs right now, in the products table.",
            a.name, a.sku, b.name, b.sku
        ),
        max_steps: 5,
        seed: shop.seed(&[ShopTable::Customers, ShopTable::Products]),
        tools: Postgres::tools(&[
            "query",
            "execute_sql",
            "get_table_sample",
            "describe_table",
            "list_tables",
            "count_rows",
        ]),
        predicate: Pred::All(checks),
        references: vec![
            vec![
                read(&format!(
                    "SELECT price FROM products WHERE sku = '{}'",
                    b.sku
                )),
                exec(&format!(
                    "UPDATE products SET price = {price} WHERE sku = '{}'",
                    a.sku
                )),
            ],
            vec![exec(&format!(
                "UPDATE products SET price = (SELECT price FROM products WHERE sku = '{}') WHERE sku = '{}'",
                b.sku, a.sku
            ))],
        ],
        faults: vec![],
        params: params(&[("from_sku", json!(b.sku)), ("to_sku", json!(a.sku))]),
    }
}

pub(super) fn move_stock(rng: &mut Rng) -> Draft<Postgres> {
    let mut shop = Shop::sample(rng);
    let product = shop.products[0].clone();
    let sku = product.sku.clone();
    let mut warehouses: Vec<String> = shop.inventory.iter().map(|s| s.warehouse.clone()).collect();
    warehouses.sort();
    warehouses.dedup();
    if warehouses.len() < 2 {
        warehouses = vec!["north".into(), "south".into()];
    }
    let pair = rng.sample(&warehouses, 2);
    let (from, to) = (pair[0].clone(), pair[1].clone());
    let have = rng.range(12, 60);
    let units = rng.range(2, have - 1);
    let target_exists = rng.chance(1, 2);
    let there = if target_exists { rng.range(0, 40) } else { 0 };
    shop.inventory
        .retain(|s| s.sku != sku || (s.warehouse != from && s.warehouse != to));
    shop.inventory.push(StockRow {
        warehouse: from.clone(),
        sku: sku.clone(),
        quantity: have,
    });
    if target_exists {
        shop.inventory.push(StockRow {
            warehouse: to.clone(),
            sku: sku.clone(),
            quantity: there,
        });
    }
    let at = |w: &str, q: i64| {
        row(
            "inventory",
            &[
                ("warehouse", json!(w)),
                ("sku", json!(sku)),
                ("quantity", json!(q)),
            ],
        )
    };
    let mut checks = vec![
        at(&from, have - units),
        at(&to, there + units),
        rows(
            "inventory",
            &[],
            shop.inventory.len() + usize::from(!target_exists),
        ),
    ];
    for s in shop
        .inventory
        .iter()
        .filter(|s| s.sku != sku || (s.warehouse != from && s.warehouse != to))
    {
        checks.push(row(
            "inventory",
            &[
                ("warehouse", json!(s.warehouse)),
                ("sku", json!(s.sku)),
                ("quantity", json!(s.quantity)),
            ],
        ));
    }
    let key = |w: &str| format!("WHERE warehouse = '{w}' AND sku = '{sku}'");
    let add = if target_exists {
        format!(
            "UPDATE inventory SET quantity = {} {}",
            there + units,
            key(&to)
        )
    } else {
        format!(
            "INSERT INTO inventory (warehouse, sku, quantity) VALUES ('{to}', '{sku}', {units})"
        )
    };
    let relative_add = if target_exists {
        format!(
            "UPDATE inventory SET quantity = quantity + {units} {}",
            key(&to)
        )
    } else {
        add.clone()
    };
    Draft {
        goal: format!(
            "Move {units} units of the {} (SKU {sku}) from the {from} warehouse to the {to} warehouse. Stock is tracked in the inventory table, one row per warehouse and SKU.",
            product.name
        ),
        max_steps: 7,
        seed: shop.seed(&[ShopTable::Products, ShopTable::Inventory]),
        tools: Postgres::tools(&[
            "query",
            "execute_sql",
            "describe_table",
            "get_table_sample",
            "list_tables",
            "get_object_details",
        ]),
        predicate: Pred::All(checks),
        references: vec![
            vec![
                read(&format!(
                    "SELECT warehouse, quantity FROM inventory WHERE sku = '{sku}'"
                )),
                exec(&format!(
                    "UPDATE inventory SET quantity = {} {}",
                    have - units,
                    key(&from)
                )),
                exec(&add),
            ],
            vec![exec(&format!(
                "UPDATE inventory SET quantity = quantity - {units} {}; {relative_add}",
                key(&from)
            ))],
        ],
        faults: vec![],
        params: params(&[
            ("sku", json!(sku)),
            ("from", json!(from)),
            ("to", json!(to)),
            ("units", json!(units)),
            ("target_row_exists", json!(target_exists)),
        ]),
    }
}

pub(super) fn archive_orders(rng: &mut Rng) -> Draft<Postgres> {
    let mut shop = Shop::sample(rng);
    shop.orders[0].status = "delivered".into();
    if shop.orders[1].status == "delivered" {
        shop.orders[1].status = "pending".into();
    }
    let delivered: Vec<_> = shop
        .orders
        .iter()
        .filter(|o| o.status == "delivered")
        .cloned()
        .collect();
    let mut seed = shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]);
    seed.tables.push(TableSeed {
        name: "orders_archive".into(),
        columns: order_columns(false),
        primary_key: vec![],
        rows: vec![],
    });
    let mut checks = vec![
        rows("orders_archive", &[], delivered.len()),
        rows("orders", &[], shop.orders.len() - delivered.len()),
    ];
    for o in &delivered {
        checks.push(row(
            "orders_archive",
            &[
                ("id", json!(o.id)),
                ("customer_id", json!(o.customer_id)),
                ("product_id", json!(o.product_id)),
                ("quantity", json!(o.quantity)),
                ("total", json!(amount(o.total_cents))),
                ("status", json!(o.status)),
                ("placed_on", json!(o.placed_on)),
            ],
        ));
        checks.push(not(row("orders", &[("id", json!(o.id))])));
    }
    let copy = "INSERT INTO orders_archive SELECT * FROM orders WHERE status = 'delivered'";
    let delete = "DELETE FROM orders WHERE status = 'delivered'";
    Draft {
        goal: "Archive the delivered orders: copy every order whose status is 'delivered' into the orders_archive table \
               (it has the same columns as orders), keeping all of its values, then delete those orders from the orders table."
            .into(),
        max_steps: 6,
        seed,
        tools: Postgres::tools(&["execute_sql", "query", "list_tables", "describe_table", "get_object_details", "count_rows"]),
        predicate: Pred::All(checks),
        references: vec![vec![exec(&format!("{copy}; {delete}"))], vec![exec(copy), exec(delete)]],
        faults: vec![],
        params: params(&[("orders", json!(shop.orders.len())), ("delivered", json!(delivered.len()))]),
    }
}
