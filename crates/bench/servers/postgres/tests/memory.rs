//! One call cannot take a worker's memory: the largest thing a run's database allows, in
//! several runs at once, and the statements an outside audit used to grow one process from
//! 54 MB to 1.19 GB, leave this process's resident memory bounded, each refused with a tool
//! error that changes nothing. Its own test binary, so that no other test's memory counts.

use mcpbench_server_postgres::{ColumnSeed, Postgres, Seed, SqlType, TableSeed};
use mcpbench_sim::conformance::resident_mib;
use mcpbench_sim::{Server, Simulated};
use serde_json::{Value, json};

fn run() -> Postgres {
    let seed = Seed {
        tables: vec![TableSeed {
            name: "items".into(),
            columns: vec![
                ColumnSeed::new("id", SqlType::Integer).primary_key(),
                ColumnSeed::new("label", SqlType::Text).not_null(),
            ],
            primary_key: vec![],
            rows: vec![vec![json!(1), json!("a")]],
        }],
        ..Seed::default()
    };
    Postgres::from_seed(&seed).expect("seed loads")
}

fn sql(pg: &mut Postgres, tool: &str, text: &str) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(pg, tool, &json!({ "sql": text }))
}

#[test]
fn the_largest_database_a_run_allows_and_the_audits_statements_keep_memory_bounded() {
    let before = resident_mib();
    let mut runs: Vec<Postgres> = (0..8).map(|_| run()).collect();
    for pg in &mut runs {
        sql(pg, "execute_sql", "CREATE TABLE blobs (n INTEGER, b BLOB)").unwrap();
        // The limits are not the agent's to lift, by statement or by pragma function.
        for lift in [
            "PRAGMA max_page_count = 1000000",
            "SELECT * FROM pragma_max_page_count",
            "PRAGMA hard_heap_limit = 0",
            "SELECT * FROM pragma_hard_heap_limit(0)",
            "PRAGMA cache_size = -1000000",
            "PRAGMA temp_store = FILE",
        ] {
            for tool in ["query", "execute_sql"] {
                assert!(sql(pg, tool, lift).is_err(), "{tool} ran {lift:?}");
            }
        }
        // The audit's statement: 1,200 rows of 900 kB in one call. Refused whole.
        let e = sql(
            pg,
            "execute_sql",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1200) \
             INSERT INTO blobs SELECT n, zeroblob(900000) FROM r",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "failed_precondition: the database is full: a run's database holds at most 8 MiB in \
             all; nothing was changed"
        );
        let count = sql(pg, "query", "SELECT count(*) AS n FROM blobs").unwrap();
        assert_eq!(
            count["rows"][0][0], 0,
            "a refused call changed nothing: {count}"
        );
        // The largest the database allows, one row at a time, until it is full.
        let mut kept = 0;
        while sql(
            pg,
            "execute_sql",
            "INSERT INTO blobs VALUES (1, zeroblob(900000))",
        )
        .is_ok()
        {
            kept += 1;
            assert!(kept < 100, "the database never filled up");
        }
        assert!(kept >= 5, "{kept} rows of 900 kB");
        // Sorting far more than the heap may hold in memory: refused, nothing kept.
        let e = sql(
            pg,
            "query",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3000) \
             SELECT n, zeroblob(900000) AS z FROM r ORDER BY z DESC, n DESC",
        )
        .unwrap_err();
        assert!(
            e.message.contains("more memory") || e.message.contains("work limit"),
            "{e}"
        );
        // Selecting more than one answer may show (a hundred rows of twenty one-megabyte
        // values, four gigabytes as hex): the answer stops at its bound and says so.
        let wide: Vec<String> = (0..20)
            .map(|i| format!("zeroblob(1000000) AS c{i}"))
            .collect();
        let out = sql(
            pg,
            "query",
            &format!(
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) \
                 SELECT {} FROM r",
                wide.join(", ")
            ),
        )
        .unwrap();
        assert_eq!(out["truncated"], true, "{}", out["note"]);
        assert!(
            out["note"]
                .as_str()
                .unwrap()
                .contains("at most 4 MiB of values")
        );
        assert!(out.to_string().len() < 5 << 20);
        // The run goes on: an ordinary call answers.
        let out = sql(pg, "query", "SELECT label FROM items WHERE id = 1").unwrap();
        assert_eq!(out["rows"][0][0], "a");
    }
    let grown = resident_mib().saturating_sub(before);
    eprintln!("8 full runs: resident memory grew by {grown} MiB");
    // Eight full databases of 8 MiB, their caches and the engine's own: well under 300 MiB
    // (the audit's single call took 1,140 MiB).
    assert!(grown < 300, "resident memory grew by {grown} MiB");
    drop(runs);
}
