//! `compose.stock_to_database` (shop + postgres): today's count of two or three products,
//! named by title, at one shop location goes into the stock_counts table, keyed by SKU and
//! location code, both looked up in the shop. One product was already counted there this
//! morning with a figure that is now wrong: its row must be corrected, not doubled. The same
//! product's row at another location today and older rows at this one are the near misses a
//! careless update or insert touches.

use super::{call, pg_query, spoken_date, strings};
use mcpbench_server_postgres as pg;
use mcpbench_server_shop as shop;
use mcpbench_sim::{Pred, Rng, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(super) fn stock_to_database(rng: &mut Rng) -> Composed {
    let store = shop::sample_seed(rng);
    let active: Vec<&shop::Product> = (store.products.iter())
        .filter(|p| p.status == shop::ProductStatus::Active)
        .collect();
    let k = rng.range(2, 3) as usize;
    let targets: Vec<shop::Product> = rng.sample(&active, k).into_iter().cloned().collect();
    let location = rng.pick(&store.locations).clone();
    let elsewhere = (store.locations.iter())
        .find(|l| l.id != location.id)
        .expect("three locations")
        .id
        .clone();
    let today = format!("2025-{:02}-{:02}", rng.range(2, 12), rng.range(1, 28));
    let units = |p: &shop::Product| p.inventory.get(&location.id).copied().unwrap_or(0);

    // The morning count of the first target, off by a few units.
    let morning = &targets[0];
    let wrong = units(morning) as i64 + rng.range(1, 9);
    let mut rows = vec![
        row(&morning.sku, &location.id, wrong, &today),
        row(&morning.sku, &elsewhere, rng.range(0, 60), &today),
        row(
            &targets[1].sku,
            &location.id,
            rng.range(0, 60),
            "2025-01-15",
        ),
    ];
    for p in (store.products.iter())
        .filter(|p| targets.iter().all(|t| t.id != p.id))
        .take(2)
    {
        let at = &rng.pick(&store.locations).id;
        rows.push(row(&p.sku, at, rng.range(0, 60), &today));
    }
    rng.shuffle(&mut rows);
    let before = rows.len();
    let kept: Vec<Vec<Value>> = rows[..]
        .iter()
        .filter(|r| r[0] != json!(morning.sku) || r[1] != json!(location.id))
        .cloned()
        .collect();

    let mut checks = Vec::new();
    for p in &targets {
        let today_row = filter(&p.sku, &location.id, Some(&today));
        let mut with_units = today_row.clone();
        with_units.insert("units".into(), json!(units(p)));
        checks.push(row_count(today_row, 1));
        checks.push(row_count(with_units, 1));
    }
    for r in &kept {
        let mut f = filter(
            r[0].as_str().unwrap_or(""),
            r[1].as_str().unwrap_or(""),
            r[3].as_str(),
        );
        f.insert("units".into(), r[2].clone());
        checks.push(row_count(f, 1));
    }
    checks.push(row_count(BTreeMap::new(), before + k - 1));

    let values: Vec<String> = targets[1..]
        .iter()
        .map(|p| format!("('{}', '{}', {}, '{today}')", p.sku, location.id, units(p)))
        .collect();
    let mut steps = vec![call("shop.list_products", json!({}))];
    steps.extend((targets.iter()).map(|p| call("shop.get_product", json!({ "productId": p.id }))));
    steps.push(pg_query(&format!(
        "SELECT * FROM stock_counts WHERE counted_on = '{today}'"
    )));
    steps.push(call(
        "postgres.execute_sql",
        json!({ "sql": format!(
            "UPDATE stock_counts SET units = {} WHERE sku = '{}' AND location = '{}' AND counted_on = '{today}'",
            units(morning), morning.sku, location.id
        ) }),
    ));
    steps.push(call(
        "postgres.execute_sql",
        json!({ "sql": format!(
            "INSERT INTO stock_counts (sku, location, units, counted_on) VALUES {}",
            values.join(", ")
        ) }),
    ));

    let titles: Vec<String> = targets.iter().map(|p| p.title.clone()).collect();
    let list = super::and_list(&titles);
    let day = spoken_date(&today);
    let place = &location.name;
    let goal = match rng.below(3) {
        0 => format!(
            "Stock take at the {place}, {day} 2025: record how many units of the {list} it holds right now, according to the shop, in the stock_counts table of the database, one row per product for today ({today}) with the SKU and the shop's location code like the rows already there. Part of this was counted this morning and may be wrong now: correct a row that exists rather than adding a second one."
        ),
        1 => format!(
            "Please log today's ({today}) shop stock of the {list} at the {place} in the database's stock_counts table: one row for each product at that location dated today, units as the shop shows them now, SKU and location code as the shop has them. Some of today's rows may already exist from an earlier pass; fix those instead of duplicating them, and leave other rows alone."
        ),
        _ => format!(
            "I need the stock_counts table in the database to show, for {today}, the units of the {list} that the shop currently holds at the {place}: exactly one row per product for that day and location (same SKU and location code conventions as the existing rows). If one was already entered today, update it rather than inserting another."
        ),
    };
    Composed {
        max_steps: steps.len() as u32 + 6,
        goal,
        initial_state: InitialState {
            shop: Some(store),
            postgres: Some(pg::Seed {
                tables: vec![table(rows)],
                ..Default::default()
            }),
            ..Default::default()
        },
        available_tools: strings(&[
            "shop.search_products",
            "shop.get_product",
            "shop.list_products",
            "shop.list_locations",
            "postgres.query",
            "postgres.execute_sql",
            "postgres.describe_table",
            "postgres.list_tables",
        ]),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("location", json!(location.id)),
            ("today", json!(today)),
            (
                "skus",
                json!(targets.iter().map(|p| &p.sku).collect::<Vec<_>>()),
            ),
        ]),
    }
}

fn row(sku: &str, location: &str, units: i64, on: &str) -> Vec<Value> {
    vec![json!(sku), json!(location), json!(units), json!(on)]
}

fn filter(sku: &str, location: &str, on: Option<&str>) -> BTreeMap<String, Value> {
    let mut f = BTreeMap::new();
    f.insert("sku".into(), json!(sku));
    f.insert("location".into(), json!(location));
    if let Some(on) = on {
        f.insert("counted_on".into(), json!(on));
    }
    f
}

fn row_count(filter: BTreeMap<String, Value>, count: usize) -> Pred<Atom> {
    Pred::Atom(Atom::postgres(pg::Atom::RowCount {
        table: "stock_counts".into(),
        filter,
        count: count as u64,
    }))
}

fn table(rows: Vec<Vec<Value>>) -> pg::TableSeed {
    pg::TableSeed {
        name: "stock_counts".into(),
        columns: vec![
            pg::ColumnSeed::new("sku", pg::SqlType::Text).not_null(),
            pg::ColumnSeed::new("location", pg::SqlType::Text).not_null(),
            pg::ColumnSeed::new("units", pg::SqlType::Integer)
                .not_null()
                .check("units >= 0"),
            pg::ColumnSeed::new("counted_on", pg::SqlType::Date).not_null(),
        ],
        primary_key: vec![],
        rows,
    }
}
