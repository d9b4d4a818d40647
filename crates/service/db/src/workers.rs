//! Workers and what they can run: each worker reports at start and on every housekeeping
//! round; the API asks before taking a submission only some workers can run.

use crate::DbError;
use sqlx::PgPool;
use std::time::Duration;

/// Records that worker `id` is alive and whether it can run Docker images.
pub async fn seen(pool: &PgPool, id: &str, docker: bool) -> Result<(), DbError> {
    sqlx::query!(
        "INSERT INTO workers (id, docker, seen_at) VALUES ($1, $2, now())
         ON CONFLICT (id) DO UPDATE SET docker = EXCLUDED.docker, seen_at = now()",
        id,
        docker
    )
    .execute(pool)
    .await?;
    // Workers come and go with their process; rows of long-gone ones are dropped here, late
    // enough that whatever a dead worker left on a Docker engine has long been reaped (the
    // reaper takes only pods of workers this table knows).
    sqlx::query!("DELETE FROM workers WHERE seen_at < now() - interval '30 days'")
        .execute(pool)
        .await?;
    Ok(())
}

/// Records where worker `id`'s MCP gateway is: its `route` key (which its run ids carry) and
/// the URL the routing layer reaches it at. Called when the worker starts, before it opens a
/// run; a restarted worker announces a new route.
pub async fn announce(
    pool: &PgPool,
    id: &str,
    docker: bool,
    route: &str,
    gateway: &str,
) -> Result<(), DbError> {
    sqlx::query!(
        "INSERT INTO workers (id, docker, seen_at, route, gateway) VALUES ($1, $2, now(), $3, $4)
         ON CONFLICT (id) DO UPDATE SET docker = EXCLUDED.docker, seen_at = now(),
                                        route = EXCLUDED.route, gateway = EXCLUDED.gateway",
        id,
        docker,
        route,
        gateway
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Every announced route with its worker's gateway URL (one row per worker this database
/// knows: a few).
pub async fn routes(pool: &PgPool) -> Result<Vec<(String, String)>, DbError> {
    let rows = sqlx::query!(
        "SELECT route, gateway FROM workers WHERE route IS NOT NULL AND gateway IS NOT NULL"
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|r| Some((r.route?, r.gateway?)))
        .collect())
}

/// Whether a worker that can run Docker images has reported within `within`.
pub async fn docker_available(pool: &PgPool, within: Duration) -> Result<bool, DbError> {
    let found = sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM workers
                          WHERE docker AND seen_at > now() - make_interval(secs => $1)) AS "found!""#,
        within.as_secs_f64()
    )
    .fetch_one(pool)
    .await?;
    Ok(found)
}

/// Ids of the workers that reported within `within`.
pub async fn live(pool: &PgPool, within: Duration) -> Result<Vec<String>, DbError> {
    let ids = sqlx::query_scalar!(
        "SELECT id FROM workers WHERE seen_at > now() - make_interval(secs => $1)",
        within.as_secs_f64()
    )
    .fetch_all(pool)
    .await?;
    Ok(ids)
}

/// Ids of every worker this database knows (reported within the last 30 days).
pub async fn known(pool: &PgPool) -> Result<Vec<String>, DbError> {
    let ids = sqlx::query_scalar!("SELECT id FROM workers")
        .fetch_all(pool)
        .await?;
    Ok(ids)
}

/// The deployment's name for its sandbox pods: `mcpbench-` and 12 hex digits of the random id
/// its database was given when it was made.
pub async fn deployment_name(pool: &PgPool) -> Result<String, DbError> {
    let id = sqlx::query_scalar!("SELECT id FROM deployment")
        .fetch_one(pool)
        .await?;
    Ok(format!("mcpbench-{}", &id.simple().to_string()[..12]))
}
