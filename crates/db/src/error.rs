//! The data layer's one error type. Its `Display` never includes SQL or connection strings.

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("not found")]
    NotFound,
    /// A uniqueness or state rule refused the change; the text says which, for the user.
    #[error("{0}")]
    Conflict(String),
    #[error("database migration failed")]
    Migrate(String),
    #[error("database error")]
    Sqlx(#[from] sqlx::Error),
}
