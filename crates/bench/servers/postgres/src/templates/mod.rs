//! Template grammars for tasks on the database alone. Every parameter is drawn from a bounded
//! pool or range (mostly through [`Shop::sample`](crate::sample::Shop::sample)), every goal
//! names the tables, columns and values the task needs, and every predicate pins each value
//! the goal fixes, plus the rows that must stay as they were.

mod composition;
mod recovery;
mod single;

use crate::sample::{Shop, amount};
use crate::{Atom, Postgres};
use mcpbench_sim::{Category, Difficulty, Pred, Step, Template, call};
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(crate) fn all() -> Vec<Template<Postgres>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "postgres.insert_product",
            category: SingleTool,
            difficulty: Easy,
            build: single::insert_product,
        },
        Template {
            id: "postgres.update_price",
            category: SingleTool,
            difficulty: Easy,
            build: single::update_price,
        },
        Template {
            id: "postgres.add_index",
            category: SingleTool,
            difficulty: Easy,
            build: single::add_index,
        },
        Template {
            id: "postgres.most_expensive",
            category: SingleTool,
            difficulty: Easy,
            build: single::most_expensive,
        },
        Template {
            id: "postgres.delete_cancelled",
            category: SingleTool,
            difficulty: Medium,
            build: single::delete_cancelled,
        },
        Template {
            id: "postgres.create_table",
            category: SingleTool,
            difficulty: Medium,
            build: single::create_table,
        },
        Template {
            id: "postgres.customer_total",
            category: Composition,
            difficulty: Medium,
            build: composition::customer_total,
        },
        Template {
            id: "postgres.match_price",
            category: Composition,
            difficulty: Medium,
            build: composition::match_price,
        },
        Template {
            id: "postgres.move_stock",
            category: Composition,
            difficulty: Hard,
            build: composition::move_stock,
        },
        Template {
            id: "postgres.archive_orders",
            category: Composition,
            difficulty: Hard,
            build: composition::archive_orders,
        },
        Template {
            id: "postgres.retry_status_update",
            category: Recovery,
            difficulty: Easy,
            build: recovery::retry_status_update,
        },
        Template {
            id: "postgres.sku_conflict",
            category: Recovery,
            difficulty: Medium,
            build: recovery::sku_conflict,
        },
        Template {
            id: "postgres.deactivate_customer",
            category: Recovery,
            difficulty: Hard,
            build: recovery::deactivate_customer,
        },
    ]
}

pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, not};

fn filter(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    params(pairs)
}

/// Some row of `table` has these column values.
fn row(table: &str, pairs: &[(&str, Value)]) -> Pred<Atom> {
    Pred::Atom(Atom::RowExists {
        table: table.into(),
        filter: filter(pairs),
    })
}

/// Exactly `count` rows of `table` have these column values.
fn rows(table: &str, pairs: &[(&str, Value)], count: usize) -> Pred<Atom> {
    Pred::Atom(Atom::RowCount {
        table: table.into(),
        filter: filter(pairs),
        count: count as u64,
    })
}

/// A reference call of the writing SQL tool.
fn exec(sql: &str) -> Step {
    call::<Postgres>("execute_sql", json!({ "sql": sql }))
}

/// A reference call of the read-only SQL tool.
fn read(sql: &str) -> Step {
    call::<Postgres>("query", json!({ "sql": sql }))
}

/// Each product except those with ids in `except` still has its SKU and price.
fn products_unchanged(shop: &Shop, except: &[i64]) -> Vec<Pred<Atom>> {
    shop.products
        .iter()
        .filter(|p| !except.contains(&p.id))
        .map(|p| {
            row(
                "products",
                &[
                    ("sku", json!(p.sku)),
                    ("price", json!(amount(p.price_cents))),
                ],
            )
        })
        .collect()
}
