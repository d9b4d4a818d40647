//! One throwaway PostgreSQL per test binary, a database per test.

use mcpbench_db::PgPool;
use mcpbench_pgcluster::Cluster;
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// The test binary's cluster, started on first use. It is kept in a `static`, so it is never
/// dropped: the cluster's guard stops and removes it when the binary exits.
pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| Cluster::start_temp().expect("a throwaway PostgreSQL starts"))
}

/// The URL of a new, empty database named after `prefix` (unique within the binary).
pub fn database_url(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let name = format!(
        "{prefix}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    );
    cluster().create_database(&name).expect("a database")
}

/// A migrated database of a test's own.
pub struct Database {
    pub pool: PgPool,
    pub url: String,
}

/// A new database named after `prefix`, migrated, with a pool of `connections`.
pub async fn fresh(prefix: &str, connections: u32) -> Database {
    let url = database_url(prefix);
    let pool = mcpbench_db::connect(&url, connections)
        .await
        .expect("the database accepts connections");
    mcpbench_db::migrate(&pool).await.expect("migrations apply");
    Database { pool, url }
}

/// The whole database at `url` as `pg_dump` writes it.
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
    String::from_utf8(out.stdout).expect("pg_dump writes UTF-8")
}
