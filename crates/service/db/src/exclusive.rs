//! Work one process of a deployment does at a time, whatever the number of replicas: a
//! session-level PostgreSQL advisory lock held on a connection of its own.

use crate::DbError;
use sqlx::PgPool;
use sqlx::Postgres;
use sqlx::pool::PoolConnection;

/// The advisory lock keys the service takes: one per kind of exclusive work, so that they never
/// meet (the values are arbitrary and fixed).
#[derive(Clone, Copy, Debug)]
pub enum Work {
    /// The calendar's turn of the months.
    Calendar,
}

impl Work {
    fn key(self) -> i64 {
        match self {
            Work::Calendar => 0x6d63_7062_0001,
        }
    }
}

/// The lock on one [`Work`], held until [`Exclusive::release`]. Dropped without it (a panic, a
/// cancelled task), its connection is closed rather than given back to the pool: the session
/// ends and PostgreSQL frees the lock, where a pooled connection would hold it for ever.
pub struct Exclusive {
    conn: Option<PoolConnection<Postgres>>,
    key: i64,
}

/// The lock on `work`, if no other session holds it; `None` at once otherwise (never waits).
pub async fn try_exclusive(pool: &PgPool, work: Work) -> Result<Option<Exclusive>, DbError> {
    let key = work.key();
    let mut conn = pool.acquire().await?;
    let taken: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
        .bind(key)
        .fetch_one(&mut *conn)
        .await?;
    Ok(taken.then(|| Exclusive {
        conn: Some(conn),
        key,
    }))
}

impl Exclusive {
    /// Lets the lock go, and the connection back to the pool.
    pub async fn release(mut self) -> Result<(), DbError> {
        let Some(mut conn) = self.conn.take() else {
            return Ok(());
        };
        let freed = sqlx::query_scalar::<_, bool>("SELECT pg_advisory_unlock($1)")
            .bind(self.key)
            .fetch_one(&mut *conn)
            .await;
        match freed {
            Ok(true) => Ok(()),
            // Not freed, or not known to be: close the session rather than pool it in doubt.
            Ok(false) => {
                drop(conn.detach());
                Ok(())
            }
            Err(e) => {
                drop(conn.detach());
                Err(e.into())
            }
        }
    }
}

impl Drop for Exclusive {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            drop(conn.detach());
        }
    }
}
