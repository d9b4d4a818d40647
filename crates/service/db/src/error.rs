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
    /// The vendor's submission quota for this set and month is used up.
    #[error("{0}")]
    Quota(String),
    #[error("database migration failed")]
    Migrate(String),
    #[error("database error")]
    Sqlx(#[from] sqlx::Error),
}
