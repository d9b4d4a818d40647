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
    // Workers come and go with their process; rows of long-gone ones are dropped here.
    sqlx::query!("DELETE FROM workers WHERE seen_at < now() - interval '1 day'")
        .execute(pool)
        .await?;
    Ok(())
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
