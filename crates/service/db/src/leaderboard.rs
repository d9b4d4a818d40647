//! The leaderboard table, written once per finished submission by
//! [`crate::submissions::finish`] and read here.

use crate::DbError;
use sqlx::PgPool;
use time::OffsetDateTime;
use uuid::Uuid;

/// One finished submission's row.
#[derive(Clone, Debug)]
pub struct Entry {
    pub submission_id: Uuid,
    pub set_id: String,
    pub vendor: String,
    pub model: String,
    pub name: String,
    pub is_reference: bool,
    pub tasks: i32,
    pub passed: i32,
    pub success_rate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The interval with related runs counted as such, when known.
    pub ci_clustered_low: Option<f64>,
    pub ci_clustered_high: Option<f64>,
    pub efficiency: Option<f64>,
    pub hallucinated_tool_rate: Option<f64>,
    pub recovery_rate: Option<f64>,
    pub by_server: serde_json::Value,
    pub by_category: serde_json::Value,
    /// The overall process metrics, as the scoring crate serialized them.
    pub process: serde_json::Value,
    pub finished_at: OffsetDateTime,
    /// The anomaly flags on this submission (kinds), shown as badges.
    pub flags: Vec<String>,
}

/// The most rows one set's board holds in memory; older entries beyond it are not ranked.
pub const MAX_ENTRIES: i64 = 2000;

/// Every entry of `set`, best overall first.
pub async fn entries(pool: &PgPool, set: &str) -> Result<Vec<Entry>, DbError> {
    let rows = sqlx::query_as!(
        Entry,
        r#"SELECT submission_id, set_id, vendor, model, name, is_reference, tasks, passed,
                success_rate, ci_low, ci_high, ci_clustered_low, ci_clustered_high, efficiency, hallucinated_tool_rate,
                recovery_rate, by_server, by_category, process, finished_at,
                ARRAY(SELECT DISTINCT f.kind FROM anomaly_flags f
                      WHERE f.submission_id = l.submission_id ORDER BY f.kind) AS "flags!"
         FROM leaderboard l WHERE set_id = $1
         ORDER BY success_rate DESC, ci_low DESC, finished_at LIMIT $2"#,
        set,
        MAX_ENTRIES
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}
