//! A database at a real scale: the tables of its own a generated task gives it.

use mcpbench_server_postgres::sample::{Shop, ShopTable};
use mcpbench_server_postgres::{Background, Postgres, Seed};
use mcpbench_sim::{Rng, Server, Simulated};
use serde_json::{Value, json};

const TABLES: &[ShopTable] = &[ShopTable::Customers, ShopTable::Products, ShopTable::Orders];

fn seed(rows: u32) -> Seed {
    Seed {
        background: Some(Background { seed: 4, rows }),
        ..Shop::sample(&mut Rng::new(2, 0)).seed(TABLES)
    }
}

fn query(pg: &mut Postgres, sql: &str) -> Value {
    Server::call(pg, "query", &json!({ "sql": sql })).expect("the query runs")
}

#[test]
fn the_background_adds_tables_of_hundreds_of_rows_and_leaves_the_tasks_alone() {
    let plain = Postgres::from_seed(&Shop::sample(&mut Rng::new(2, 0)).seed(TABLES)).unwrap();
    let mut pg = Postgres::from_seed(&seed(400)).unwrap();
    let before = Simulated::snapshot(&plain);
    let after = Simulated::snapshot(&pg);
    for (name, table) in before["tables"].as_object().unwrap() {
        assert_eq!(&after["tables"][name], table, "{name}");
    }
    let events = query(&mut pg, "SELECT count(*) AS n FROM audit_events");
    let tickets = query(&mut pg, "SELECT count(*) AS n FROM support_tickets");
    assert_eq!(
        (events["rows"][0][0].clone(), tickets["rows"][0][0].clone()),
        (json!(240), json!(160))
    );
    // A query over the whole log runs into the cap of a result, as a real one would.
    let all = query(&mut pg, "SELECT * FROM audit_events ORDER BY id");
    assert_eq!(all["rows"].as_array().unwrap().len(), 100);
    assert_eq!(all["truncated"], true);
    assert_eq!(
        Simulated::snapshot(&Postgres::from_seed(&seed(400)).unwrap()),
        after
    );
}

#[test]
fn a_background_larger_than_a_database_is_refused() {
    let err = Postgres::from_seed(&seed(2001)).unwrap_err();
    assert!(err.to_string().contains("2000"), "{err}");
}
