//! Tool behaviour an agent would notice: typed errors, the read-only fence, atomic calls,
//! deterministic answers, schema checks, predicates and seed validation.

use mcpbench_server_postgres::sample::{Shop, ShopTable};
use mcpbench_server_postgres::{Atom, ColumnSeed, Postgres, Seed, SqlType, TableSeed};
use mcpbench_sim::{ErrorKind, Rng, Server, Simulated};
use serde_json::{Value, json};

fn shop() -> Postgres {
    let shop = Shop::sample(&mut Rng::new(7, 0));
    Postgres::from_seed(&shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]))
        .expect("seed loads")
}

fn small() -> Postgres {
    let seed = Seed {
        tables: vec![TableSeed {
            name: "items".into(),
            columns: vec![
                ColumnSeed::new("id", SqlType::Integer).primary_key(),
                ColumnSeed::new("code", SqlType::Text).not_null().unique(),
                ColumnSeed::new("qty", SqlType::Integer)
                    .not_null()
                    .check("qty >= 0"),
            ],
            primary_key: vec![],
            rows: vec![
                vec![json!(1), json!("a"), json!(5)],
                vec![json!(2), json!("b"), json!(0)],
            ],
        }],
        ..Seed::default()
    };
    Postgres::from_seed(&seed).expect("seed loads")
}

fn run(pg: &mut Postgres, tool: &str, args: Value) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(pg, tool, &args)
}

fn sql(pg: &mut Postgres, tool: &str, text: &str) -> Result<Value, mcpbench_sim::ToolError> {
    run(pg, tool, json!({ "sql": text }))
}

fn kind(r: Result<Value, mcpbench_sim::ToolError>) -> ErrorKind {
    r.expect_err("the call should fail").kind
}

fn state(pg: &Postgres) -> Value {
    Simulated::snapshot(pg)
}

#[test]
fn query_reads_and_refuses_writes() {
    let mut pg = small();
    let out = sql(&mut pg, "query", "SELECT code, qty FROM items ORDER BY id").unwrap();
    assert_eq!(
        out,
        json!({ "columns": ["code", "qty"], "row_count": 2, "rows": [["a", 5], ["b", 0]] })
    );
    let before = state(&pg);
    for write in [
        "DELETE FROM items",
        "SELECT 1; UPDATE items SET qty = 9",
        "CREATE TABLE t (x)",
        "DROP TABLE items",
    ] {
        let err = sql(&mut pg, "query", write).unwrap_err();
        assert_eq!(err.kind, ErrorKind::PermissionDenied, "{write}: {err}");
    }
    assert_eq!(state(&pg), before, "refused statements change nothing");
}

#[test]
fn engine_errors_are_typed() {
    let mut pg = small();
    let e = sql(&mut pg, "query", "SELEC * FROM items").unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArguments);
    assert!(e.message.contains("syntax error"), "{e}");
    assert_eq!(
        kind(sql(&mut pg, "query", "SELECT * FROM itemz")),
        ErrorKind::NotFound
    );
    assert_eq!(
        kind(sql(&mut pg, "query", "SELECT nope FROM items")),
        ErrorKind::NotFound
    );
    let e = sql(
        &mut pg,
        "execute_sql",
        "INSERT INTO items (code, qty) VALUES ('a', 1)",
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Conflict);
    assert!(
        e.message.contains("UNIQUE constraint failed: items.code"),
        "{e}"
    );
    assert_eq!(
        kind(sql(
            &mut pg,
            "execute_sql",
            "UPDATE items SET qty = -1 WHERE code = 'a'"
        )),
        ErrorKind::Conflict
    );
    assert_eq!(
        kind(sql(&mut pg, "execute_sql", "CREATE TABLE items (x)")),
        ErrorKind::Conflict
    );
    assert_eq!(
        kind(sql(&mut pg, "query", "SELECT * FROM items WHERE id = $1")),
        ErrorKind::InvalidArguments
    );
}

#[test]
fn a_call_is_all_or_nothing() {
    let mut pg = small();
    let before = state(&pg);
    let r = sql(
        &mut pg,
        "execute_sql",
        "INSERT INTO items (code, qty) VALUES ('c', 1); INSERT INTO items (code, qty) VALUES ('a', 2)",
    );
    assert_eq!(kind(r), ErrorKind::Conflict);
    assert_eq!(
        state(&pg),
        before,
        "the first insert was rolled back with the second"
    );
    let out = sql(
        &mut pg,
        "execute_sql",
        "UPDATE items SET qty = qty + 1; DELETE FROM items WHERE code = 'b' RETURNING code",
    )
    .unwrap();
    assert_eq!(out["statements"], 2);
    assert_eq!(
        out["results"][0],
        json!({ "status": "ok", "rows_affected": 2 })
    );
    assert_eq!(out["results"][1]["rows"], json!([["b"]]));
}

#[test]
fn the_fence_holds() {
    let mut pg = small();
    for text in [
        "BEGIN",
        "COMMIT",
        "SAVEPOINT x",
        "ATTACH DATABASE '/tmp/other.db' AS other",
        "PRAGMA foreign_keys = OFF",
        "PRAGMA writable_schema = ON",
        "CREATE TEMP TABLE t (x)",
        "SELECT load_extension('x')",
    ] {
        let e = sql(&mut pg, "execute_sql", text).unwrap_err();
        assert_eq!(e.kind, ErrorKind::PermissionDenied, "{text}: {e}");
        assert!(
            !e.message.contains("not authorized"),
            "the refusal says why: {e}"
        );
    }
    let target = std::env::temp_dir().join("mcpbench-postgres-vacuum-into.db");
    let vacuum = format!("VACUUM INTO '{}'", target.display());
    assert_eq!(
        kind(sql(&mut pg, "execute_sql", &vacuum)),
        ErrorKind::InvalidArguments
    );
    assert!(!target.exists(), "no file is written outside the database");
    let info = sql(&mut pg, "query", "PRAGMA table_info(items)").unwrap();
    assert_eq!(info["row_count"], 3);
    let names = sql(
        &mut pg,
        "query",
        "SELECT name FROM pragma_table_info('items') ORDER BY cid",
    )
    .unwrap();
    assert_eq!(names["rows"], json!([["id"], ["code"], ["qty"]]));
}

#[test]
fn runaway_statements_are_cancelled_and_results_capped() {
    let mut pg = small();
    let e = sql(
        &mut pg,
        "query",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArguments);
    assert!(e.message.contains("work limit"), "{e}");
    let out = sql(
        &mut pg,
        "query",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 150) SELECT x FROM c",
    )
    .unwrap();
    assert_eq!(out["row_count"], 100);
    assert_eq!(out["truncated"], true);
}

#[test]
fn clock_and_randomness_come_from_the_seed() {
    let seed = Seed {
        now: Some("2024-06-01 12:30:00".into()),
        ..Seed::default()
    };
    let text = "SELECT date('now'), datetime(), CURRENT_TIMESTAMP, now(), strftime('%Y', 'now'), date('now', '+1 day'), random()";
    let mut a = Postgres::from_seed(&seed).unwrap();
    let mut b = Postgres::from_seed(&seed).unwrap();
    let out = sql(&mut a, "query", text).unwrap();
    let row = &out["rows"][0];
    assert_eq!(row[0], "2024-06-01");
    assert_eq!(row[1], "2024-06-01 12:30:00");
    assert_eq!(row[2], "2024-06-01 12:30:00");
    assert_eq!(row[3], "2024-06-01 12:30:00");
    assert_eq!(row[4], "2024");
    assert_eq!(row[5], "2024-06-02");
    assert_eq!(
        out,
        sql(&mut b, "query", text).unwrap(),
        "same calls, same bytes"
    );
    assert_eq!(
        sql(&mut a, "query", "SELECT date('2020-02-28', '+1 day')").unwrap()["rows"],
        json!([["2020-02-29"]])
    );
}

#[test]
fn a_copy_is_the_same_database_with_its_own_fence_and_carries_on_the_same_way() {
    let mut original = shop();
    sql(
        &mut original,
        "execute_sql",
        "UPDATE customers SET name = 'Changed' WHERE id = 1",
    )
    .unwrap();
    let draw = "SELECT random(), hex(randomblob(4)), now()";
    sql(&mut original, "query", draw).unwrap();
    let mut copy = Simulated::copy(&original).unwrap();
    assert_eq!(state(&copy), state(&original), "same tables and rows");
    // The random state is carried over: both draw the same next numbers.
    assert_eq!(
        sql(&mut copy, "query", draw).unwrap(),
        sql(&mut original, "query", draw).unwrap()
    );
    // Independent from here on, and fenced like the original.
    sql(&mut copy, "execute_sql", "DELETE FROM orders").unwrap();
    assert_ne!(state(&copy), state(&original));
    assert_eq!(
        kind(sql(
            &mut copy,
            "execute_sql",
            "ATTACH DATABASE ':memory:' AS other"
        )),
        ErrorKind::PermissionDenied
    );
}

#[test]
fn schemas_reject_bad_arguments() {
    let mut pg = small();
    assert_eq!(
        kind(run(&mut pg, "query", json!({}))),
        ErrorKind::InvalidArguments
    );
    assert_eq!(
        kind(run(
            &mut pg,
            "query",
            json!({ "sql": "SELECT 1", "limit": 3 })
        )),
        ErrorKind::InvalidArguments
    );
    let bad_name = json!({ "index_name": "bad name", "table_name": "items", "columns": ["qty"] });
    assert_eq!(
        kind(run(&mut pg, "create_index", bad_name)),
        ErrorKind::InvalidArguments
    );
    let no_columns = json!({ "index_name": "i", "table_name": "items", "columns": [] });
    assert_eq!(
        kind(run(&mut pg, "create_index", no_columns)),
        ErrorKind::InvalidArguments
    );
    let big = json!({ "table_name": "items", "limit": 500 });
    assert_eq!(
        kind(run(&mut pg, "get_table_sample", big)),
        ErrorKind::InvalidArguments
    );
    let object = json!({ "schema_name": "public", "object_type": "function" });
    assert_eq!(
        kind(run(&mut pg, "list_objects", object)),
        ErrorKind::InvalidArguments
    );
}

#[test]
fn metadata_tools_describe_the_schema() {
    let mut pg = shop();
    let tables = run(&mut pg, "list_objects", json!({ "schema_name": "public" })).unwrap();
    let names: Vec<&str> = tables
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["customers", "orders", "products"]);
    assert_eq!(
        kind(run(
            &mut pg,
            "list_tables",
            json!({ "schema_name": "sales" })
        )),
        ErrorKind::NotFound
    );
    let details = run(
        &mut pg,
        "get_object_details",
        json!({ "schema_name": "public", "object_name": "orders" }),
    )
    .unwrap();
    let fks: Vec<&Value> = details["constraints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "FOREIGN KEY")
        .collect();
    assert_eq!(fks.len(), 2);
    assert!(
        details["definition"]
            .as_str()
            .unwrap()
            .contains("CHECK (quantity > 0)")
    );
    let described = run(
        &mut pg,
        "describe_table",
        json!({ "table_name": "public.products" }),
    )
    .unwrap();
    assert_eq!(
        described["columns"][0],
        json!({ "name": "id", "type": "integer", "nullable": false, "default": null, "primary_key": true })
    );
    assert_eq!(
        kind(run(&mut pg, "count_rows", json!({ "table_name": "order" }))),
        ErrorKind::NotFound
    );
    let plan = run(
        &mut pg,
        "explain_query",
        json!({ "sql": "SELECT * FROM customers WHERE id = 2" }),
    )
    .unwrap();
    assert!(
        plan["plan"].as_str().unwrap().contains("SEARCH customers"),
        "{plan}"
    );
    let write = json!({ "sql": "DELETE FROM orders", "analyze": true });
    assert_eq!(
        kind(run(&mut pg, "explain_query", write)),
        ErrorKind::PermissionDenied
    );
}

#[test]
fn indexes_can_be_created_listed_and_dropped() {
    let mut pg = shop();
    let atom = Atom::IndexExists {
        table: "orders".into(),
        columns: vec!["status".into()],
        name: Some("idx_status".into()),
        unique: None,
    };
    assert!(!pg.holds(&atom));
    let args = json!({ "index_name": "idx_status", "table_name": "orders", "columns": ["status"] });
    run(&mut pg, "create_index", args.clone()).unwrap();
    assert!(pg.holds(&atom));
    assert_eq!(
        kind(run(&mut pg, "create_index", args)),
        ErrorKind::Conflict
    );
    let missing = json!({ "index_name": "idx_x", "table_name": "orders", "columns": ["colour"] });
    assert_eq!(
        kind(run(&mut pg, "create_index", missing)),
        ErrorKind::NotFound
    );
    let dupes = json!({ "index_name": "uq_status", "table_name": "orders", "columns": ["status"], "unique": true });
    assert_eq!(
        kind(run(&mut pg, "create_index", dupes)),
        ErrorKind::Conflict,
        "statuses repeat"
    );
    let listed = run(
        &mut pg,
        "list_indexes",
        json!({ "table_name": "customers" }),
    )
    .unwrap();
    let auto = listed["indexes"][0]["name"].as_str().unwrap().to_string();
    assert_eq!(listed["indexes"][0]["origin"], "unique constraint");
    assert_eq!(
        kind(run(&mut pg, "drop_index", json!({ "index_name": auto }))),
        ErrorKind::FailedPrecondition
    );
    run(&mut pg, "drop_index", json!({ "index_name": "idx_status" })).unwrap();
    assert!(!pg.holds(&atom));
}

#[test]
fn predicates_read_the_final_state() {
    let mut pg = small();
    let row = |code: &str, qty: i64| Atom::RowExists {
        table: "items".into(),
        filter: [
            ("code".to_string(), json!(code)),
            ("qty".to_string(), json!(qty)),
        ]
        .into(),
    };
    assert!(pg.holds(&row("a", 5)));
    assert!(!pg.holds(&row("a", 6)));
    sql(
        &mut pg,
        "execute_sql",
        "UPDATE items SET qty = 6 WHERE code = 'a'",
    )
    .unwrap();
    assert!(pg.holds(&row("a", 6)));
    assert!(pg.holds(&Atom::RowCount {
        table: "items".into(),
        filter: Default::default(),
        count: 2
    }));
    assert!(!pg.holds(&Atom::RowExists {
        table: "items; DROP TABLE items".into(),
        filter: Default::default()
    }));
    assert!(pg.holds(&Atom::TableExists {
        table: "items".into()
    }));
    let column = |t: &str, nn: Option<bool>| Atom::ColumnExists {
        table: "items".into(),
        column: "qty".into(),
        data_type: Some(t.into()),
        not_null: nn,
        primary_key: Some(false),
    };
    assert!(pg.holds(&column("int", Some(true))));
    assert!(!pg.holds(&column("text", None)));
    assert!(!pg.holds(&column("integer", Some(false))));
}

#[test]
fn snapshots_are_canonical() {
    let mut a = small();
    let mut b = small();
    sql(&mut a, "execute_sql", "INSERT INTO items (id, code, qty) VALUES (3, 'c', 1); INSERT INTO items (id, code, qty) VALUES (4, 'd', 2)").unwrap();
    sql(
        &mut b,
        "execute_sql",
        "INSERT INTO items (id, code, qty) VALUES (4, 'd', 2)",
    )
    .unwrap();
    sql(
        &mut b,
        "execute_sql",
        "INSERT INTO items (id, code, qty) VALUES (3, 'c', 1)",
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&state(&a)).unwrap(),
        serde_json::to_string(&state(&b)).unwrap()
    );
    assert_eq!(state(&a)["tables"]["items"]["rows"][2], json!([3, "c", 1]));
}

#[test]
fn bad_seeds_are_refused() {
    let shop = Shop::sample(&mut Rng::new(3, 0));
    let no_parents = shop.seed(&[ShopTable::Orders]);
    assert!(
        Postgres::from_seed(&no_parents).is_err(),
        "orders reference tables the seed lacks"
    );
    let mut dangling = shop.seed(&[ShopTable::Customers, ShopTable::Products, ShopTable::Orders]);
    dangling.tables[2].rows[0][1] = json!(99);
    let e = Postgres::from_seed(&dangling).expect_err("a missing customer");
    assert!(e.message.contains("orders"), "{e}");
    let mut short = shop.seed(&[ShopTable::Products]);
    short.tables[0].rows[0].pop();
    assert!(Postgres::from_seed(&short).is_err());
    let mut duplicate = shop.seed(&[ShopTable::Products]);
    let first = duplicate.tables[0].rows[0].clone();
    duplicate.tables[0].rows[1][1] = first[1].clone();
    assert!(
        Postgres::from_seed(&duplicate)
            .unwrap_err()
            .message
            .contains("UNIQUE")
    );
    let bad_now = Seed {
        now: Some("yesterday".into()),
        ..Seed::default()
    };
    assert!(Postgres::from_seed(&bad_now).is_err());
}

#[test]
fn seeded_views_are_listed_and_queried() {
    let shop = Shop::sample(&mut Rng::new(5, 0));
    let mut seed = shop.seed(&[ShopTable::Products]);
    seed.views.push(mcpbench_server_postgres::ViewSeed {
        name: "low_stock".into(),
        query: "SELECT sku, stock FROM products WHERE stock < 1000".into(),
    });
    let mut pg = Postgres::from_seed(&seed).unwrap();
    let views = run(
        &mut pg,
        "list_objects",
        json!({ "schema_name": "public", "object_type": "view" }),
    )
    .unwrap();
    assert_eq!(
        views,
        json!([{ "schema": "public", "name": "low_stock", "type": "view" }])
    );
    let counted = run(&mut pg, "count_rows", json!({ "table_name": "low_stock" })).unwrap();
    assert_eq!(counted["row_count"], shop.products.len());
    assert_eq!(
        kind(run(
            &mut pg,
            "list_indexes",
            json!({ "table_name": "low_stock" })
        )),
        ErrorKind::NotFound
    );
}
