//! Every SQL statement of MCPBench lives here, checked against the schema at compile time
//! (`query!`, with `.sqlx/` committed so builds need no database).
//!
//! The job queue follows the lease pattern: a worker claims one job in one short statement
//! (`FOR UPDATE SKIP LOCKED`) that bumps the job's `epoch`; it heartbeats while it works (the
//! heartbeat also says whether the submission was cancelled); a reaper re-queues jobs whose
//! lease ran out and gives up after `max_attempts`; completion is accepted only with the
//! current epoch, and the run row is unique per (submission, task, trial), so a result is
//! recorded exactly once however often a job is run.

pub mod anomalies;
pub mod baselines;
mod error;
pub mod exclusive;
pub mod exports;
pub mod exposures;
pub mod judgements;
pub mod leaderboard;
pub mod packs;
pub mod queue;
pub mod runs;
pub mod sets;
mod states;
mod stored;
pub mod submissions;
pub mod vendors;
pub mod webhooks;
pub mod workers;

pub use error::DbError;
pub use sqlx::PgPool;
pub use states::{AgentKind, AnomalyKind, JobState, RunReason, SetState, SubmissionStatus};
pub use stored::Stored;

/// The `LISTEN` channel told when a submission reaches the leaderboard, so cached boards
/// are dropped at once rather than when they expire.
pub const LEADERBOARD_CHANNEL: &str = "mcpbench_leaderboard";

/// The migrations in `migrations/`, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../../migrations");

/// Connects to `url` with at most `max_connections`.
pub async fn connect(url: &str, max_connections: u32) -> Result<PgPool, DbError> {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(std::time::Duration::from_secs(10))
        .connect(url)
        .await?;
    Ok(pool)
}

/// Tells every API process that what the public sees has changed (a set was activated or
/// retired, a submission's traces were published): their kept boards and pages are dropped,
/// as when a submission reaches the leaderboard.
pub(crate) async fn public_changed<'e>(executor: impl sqlx::PgExecutor<'e>) -> Result<(), DbError> {
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(LEADERBOARD_CHANNEL)
        .execute(executor)
        .await?;
    Ok(())
}

/// One round trip to the database (readiness probes put their own time limit on it).
pub async fn ping(pool: &PgPool) -> Result<(), DbError> {
    sqlx::query("SELECT 1").execute(pool).await?;
    Ok(())
}

/// Applies every pending migration.
pub async fn migrate(pool: &PgPool) -> Result<(), DbError> {
    MIGRATOR
        .run(pool)
        .await
        .map_err(|e| DbError::Migrate(e.to_string()))
}
