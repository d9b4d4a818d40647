//! Shared by the tests that run against a real PostgreSQL: a throwaway cluster (one per test
//! binary, a database per test, from `mcpbench-testkit`), the keys of private sets, `pg_dump`.
#![allow(dead_code)] // each test binary uses its own part

use mcpbench_attest::NoteSigner;
use mcpbench_db::PgPool;
use mcpbench_sets::Custody;
use mcpbench_vault::Keyring;

#[allow(unused_imports)] // each test binary uses its own part
pub use mcpbench_testkit::{pg_dump, seed::workspace};

/// A new migrated database: its pool and URL.
pub async fn fresh() -> (PgPool, String) {
    let db = mcpbench_testkit::fresh("sets", 4).await;
    (db.pool, db.url)
}

pub fn custody() -> Custody {
    Custody {
        keyring: Some(Keyring::generate("k1").0),
        signer: Some(NoteSigner::from_seed("sets.test", &[5u8; 32]).unwrap()),
        service: "sets.test".into(),
    }
}

/// Every task of a private set, opened.
pub async fn opened(pool: &PgPool, custody: &Custody, set: &str) -> Vec<mcpbench_tasks::Task> {
    let mut tasks = Vec::new();
    for row in mcpbench_db::sets::sealed_tasks(pool, set).await.unwrap() {
        let task = mcpbench_sets::task_for_run(pool, custody.keyring.as_ref(), set, &row.task_id)
            .await
            .unwrap();
        tasks.push(serde_json::from_value(task).unwrap());
    }
    tasks
}
