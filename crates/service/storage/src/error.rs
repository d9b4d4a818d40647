//! The one error type of the crate.
//!
//! Every message names the store (its [`describe`](crate::TraceStore::describe) text) or the key,
//! never a credential: S3 details are scrubbed of the secret key before they are stored here.

use std::path::PathBuf;

/// Why a storage operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The key is not of the accepted form; nothing was read, written or sent.
    #[error("invalid trace key {key:?}: {reason}")]
    InvalidKey { key: String, reason: &'static str },

    /// The configuration cannot describe a usable store (empty bucket name, bad endpoint URL).
    #[error("invalid storage configuration: {0}")]
    InvalidConfig(String),

    /// The store could not be reached in time: connection refused, timed out, DNS failed.
    #[error("{store} is not reachable: {detail}")]
    NotReachable { store: String, detail: String },

    /// The endpoint answered, but the bucket does not exist.
    #[error("{store}: the bucket does not exist")]
    BucketNotFound { store: String },

    /// The S3 service refused an operation (bad credentials, access denied, ...).
    #[error("{store} refused {operation}: {detail}")]
    Rejected {
        store: String,
        operation: &'static str,
        detail: String,
    },

    /// The stored object is larger than [`MAX_TRACE_BYTES`](crate::MAX_TRACE_BYTES).
    #[error("trace {key:?} is larger than the limit of {limit} bytes")]
    TooLarge { key: String, limit: u64 },

    /// A file-system operation of the local backend failed.
    #[error("cannot {operation} {path}: {source}")]
    Io {
        operation: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl StorageError {
    pub(crate) fn io(
        operation: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io {
            operation,
            path,
            source,
        }
    }
}
