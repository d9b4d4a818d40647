//! [`CoreError`]: why a domain question has no answer, for the faces (the API's routes and
//! pages) to tell in their own words.

use mcpbench_db::DbError;

#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// What was asked for does not exist, or the asker may not know it does.
    #[error("{0}")]
    NotFound(String),
    /// What was given is not valid (the words say what is wrong, and where).
    #[error("{0}")]
    Invalid(String),
    /// It exists, but the question does not apply to it as it stands.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Db(#[from] DbError),
}
