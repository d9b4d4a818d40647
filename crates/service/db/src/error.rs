//! The data layer's one error type. Its `Display` never includes SQL or connection strings.

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("not found")]
    NotFound,
    /// A uniqueness or state rule refused the change; the text says which, for the user.
    #[error("{0}")]
    Conflict(String),
    /// The request names something that cannot be used (a set that takes no submissions).
    #[error("{0}")]
    Invalid(String),
    /// The vendor's submission quota for this set and month, or its submissions open at once,
    /// are used up; worth trying again after `retry_after_secs`.
    #[error("{message}")]
    Quota {
        message: String,
        retry_after_secs: u64,
    },
    #[error("database migration failed")]
    Migrate(String),
    #[error("database error")]
    Sqlx(#[from] sqlx::Error),
}
