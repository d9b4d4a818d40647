//! Shared by the tests that run against a real PostgreSQL: a throwaway cluster (one per test
//! binary, a database per test), the keys of private sets, `pg_dump`.
#![allow(dead_code)] // each test binary uses its own part

use mcpbench_attest::NoteSigner;
use mcpbench_db::PgPool;
use mcpbench_pgcluster::Cluster;
use mcpbench_sets::Custody;
use mcpbench_vault::Keyring;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| Cluster::start_temp().expect("a throwaway PostgreSQL starts"))
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// A new migrated database: its pool and URL.
pub async fn fresh() -> (PgPool, String) {
    static N: AtomicU32 = AtomicU32::new(0);
    let name = format!(
        "sets_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    );
    let url = cluster().create_database(&name).expect("database");
    let pool = mcpbench_db::connect(&url, 4).await.expect("connect");
    mcpbench_db::migrate(&pool).await.expect("migrate");
    (pool, url)
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

/// The whole database as `pg_dump` writes it.
pub fn pg_dump(url: &str) -> String {
    let out = Command::new(cluster().client_tool("pg_dump"))
        .arg(url)
        .output()
        .expect("pg_dump runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
