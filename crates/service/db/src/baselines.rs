//! Baselines: our reference agents, which the service itself submits on every live set
//! (docs/metrics.md, "Baselines"). They belong to one vendor of ours, marked a reference
//! vendor, so that they are never counted as a vendor's; each set has at most one of each
//! agent that is not failed or cancelled (a unique index), so that two workers queueing them
//! at once queue them once.

use crate::DbError;
use sqlx::PgPool;

/// The vendor every baseline belongs to.
pub const VENDOR: &str = "MCPBench";

/// The baseline vendor's id, made on first use (with no API key: nobody signs in as it).
/// Refused when a vendor of that name exists that is not a reference vendor.
pub async fn vendor(pool: &PgPool) -> Result<i64, DbError> {
    sqlx::query!(
        "INSERT INTO vendors (name, is_admin, is_reference) VALUES ($1, FALSE, TRUE)
         ON CONFLICT (name) DO NOTHING",
        VENDOR
    )
    .execute(pool)
    .await?;
    let row = sqlx::query!(
        "SELECT id, is_reference FROM vendors WHERE name = $1",
        VENDOR
    )
    .fetch_one(pool)
    .await?;
    if !row.is_reference {
        return Err(DbError::Conflict(format!(
            "a vendor named {VENDOR:?} exists and is not the baselines' reference vendor"
        )));
    }
    Ok(row.id)
}

/// The (set, agent) pairs of a live set and one of `agents` that it has no baseline of yet, in
/// any state: a baseline that failed is not queued again by itself (an operator may, with
/// `mcpbench admin set baselines`).
pub async fn missing(pool: &PgPool, agents: &[String]) -> Result<Vec<(String, String)>, DbError> {
    let rows = sqlx::query!(
        r#"SELECT t.id AS "set_id!", a.agent AS "agent!"
           FROM task_sets t CROSS JOIN unnest($1::text[]) AS a(agent)
           WHERE t.state = 'active'
             AND NOT EXISTS (SELECT 1 FROM submissions s
                             WHERE s.set_id = t.id AND s.baseline = a.agent)
           ORDER BY t.id, array_position($1::text[], a.agent)"#,
        agents
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|r| (r.set_id, r.agent)).collect())
}

/// The agents among `agents` that `set` has no live or finished baseline of (failed and
/// cancelled ones are as none).
pub async fn missing_on(
    pool: &PgPool,
    set: &str,
    agents: &[String],
) -> Result<Vec<String>, DbError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT a.agent AS "agent!" FROM unnest($2::text[]) AS a(agent)
           WHERE NOT EXISTS (SELECT 1 FROM submissions s
                             WHERE s.set_id = $1 AND s.baseline = a.agent
                               AND s.status NOT IN ('failed', 'cancelled'))
           ORDER BY array_position($2::text[], a.agent)"#,
        set,
        agents
    )
    .fetch_all(pool)
    .await?)
}

/// Whether `error` is the unique index refusing a second live baseline of one agent.
pub fn is_duplicate(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .and_then(|e| e.constraint())
        .is_some_and(|c| c == "submissions_one_baseline")
}
