//! Trace storage: the JSON Lines trace of each trial, kept in a local directory or an
//! S3-compatible bucket.
//!
//! # Design
//!
//! [`TraceStore`] is the one type callers hold. It is a cheap-to-clone handle (an `Arc`) over one
//! of two backends, chosen once at start-up from configuration:
//!
//! - [`TraceStore::local`]: one file per key under a root directory. Writes go to a temporary
//!   file in the destination's directory and are renamed into place, so a crash never leaves part
//!   of a trace under a key.
//! - [`TraceStore::s3`]: one object per key in one bucket, reached with static credentials and an
//!   optional custom endpoint; see [`S3Config`]. Objects are stored as `application/x-ndjson`.
//!
//! Both backends share one contract:
//!
//! - Keys (`runs/<uuid>/<task-id>-<trial>.jsonl`) are checked by [`validate_key`] before any
//!   file or network access; a malformed key is [`StorageError::InvalidKey`].
//! - `put` of an existing key replaces it (a retried run writes again); `get` of an absent key
//!   is `Ok(None)`.
//! - A trace is at most [`MAX_TRACE_BYTES`]: a larger `put` is refused and a `get` stops reading
//!   at the bound, so a corrupt or hostile object cannot exhaust memory.
//! - [`TraceStore::check`] is the readiness probe: the directory accepts a new file, or the
//!   bucket answers `HeadBucket` within [`CHECK_TIMEOUT`](s3::CHECK_TIMEOUT).
//! - Neither [`TraceStore::describe`], nor any [`StorageError`], nor any `Debug` output contains
//!   the secret key.

mod error;
mod key;
mod local;
pub mod s3;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use error::StorageError;
pub use key::{MAX_KEY_BYTES, validate_key};
pub use s3::{S3Config, Secret};

use local::LocalStore;
use s3::S3Store;

/// The largest trace stored or read back: 64 MiB.
pub const MAX_TRACE_BYTES: u64 = 64 * 1024 * 1024;

/// Where the container logs of a sandboxed run are kept: beside its trace
/// (`runs/x/t-0-e1.jsonl` -> `runs/x/t-0-e1.log`).
pub fn logs_key(trace_key: &str) -> String {
    format!("{}.log", trace_key.trim_end_matches(".jsonl"))
}

/// Where traces live. Clone it freely: clones share one backend.
#[derive(Clone, Debug)]
pub struct TraceStore {
    backend: Arc<Backend>,
}

#[derive(Debug)]
enum Backend {
    Local(LocalStore),
    S3(S3Store),
}

impl TraceStore {
    /// The store `MCPBENCH_TRACES` names: a directory, or `s3://BUCKET` with the S3 settings
    /// beside it (builds the client only; call `check` to probe it).
    pub async fn from_args(args: &mcpbench_config::StoreArgs) -> Result<Self, StorageError> {
        match args.traces.strip_prefix("s3://") {
            Some(bucket) => {
                Self::s3(S3Config {
                    endpoint: args.s3_endpoint.clone(),
                    bucket: bucket.trim_end_matches('/').to_owned(),
                    region: args.s3_region.clone(),
                    access_key: args.s3_access_key.clone(),
                    secret_key: Secret::new(args.s3_secret_key.clone()),
                    path_style: args.s3_path_style,
                })
                .await
            }
            None => Self::local(&args.traces),
        }
    }

    /// A store in the directory `root`, which is created if missing.
    pub fn local(root: impl Into<PathBuf>) -> Result<Self, StorageError> {
        Ok(Self::with(Backend::Local(LocalStore::new(root.into())?)))
    }

    /// A store in an S3 bucket. Builds the client only: nothing is sent until the first call
    /// (use [`check`](Self::check) to probe the bucket at start-up).
    pub async fn s3(config: S3Config) -> Result<Self, StorageError> {
        Ok(Self::with(Backend::S3(S3Store::new(config)?)))
    }

    fn with(backend: Backend) -> Self {
        Self {
            backend: Arc::new(backend),
        }
    }

    /// Stores `bytes` under `key`, replacing any trace already there.
    pub async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StorageError> {
        let key = validate_key(key)?;
        if bytes.len() as u64 > MAX_TRACE_BYTES {
            return Err(StorageError::TooLarge {
                key: key.to_owned(),
                limit: MAX_TRACE_BYTES,
            });
        }
        match &*self.backend {
            Backend::Local(store) => store.put(key, bytes).await,
            Backend::S3(store) => store.put(key, bytes).await,
        }
    }

    /// The trace under `key`, or `None` if there is none.
    pub async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let key = validate_key(key)?;
        match &*self.backend {
            Backend::Local(store) => store.get(key).await,
            Backend::S3(store) => store.get(key).await,
        }
    }

    /// The size in bytes of the object under `key`, or `None` if there is none (read before a
    /// [`get`](Self::get) by a reader that budgets its memory).
    pub async fn size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        let key = validate_key(key)?;
        match &*self.backend {
            Backend::Local(store) => store.size(key).await,
            Backend::S3(store) => store.size(key).await,
        }
    }

    /// Stores the file at `path` under `key` (for large objects such as image archives; no
    /// size bound here, the caller bounds what it accepts).
    pub async fn put_file(&self, key: &str, path: &Path) -> Result<(), StorageError> {
        let key = validate_key(key)?;
        match &*self.backend {
            Backend::Local(store) => store.put_file(key, path).await,
            Backend::S3(store) => store.put_file(key, path).await,
        }
    }

    /// Copies the object under `key` into the file `dest`; false when there is none.
    pub async fn get_file(&self, key: &str, dest: &Path) -> Result<bool, StorageError> {
        let key = validate_key(key)?;
        match &*self.backend {
            Backend::Local(store) => store.get_file(key, dest).await,
            Backend::S3(store) => store.get_file(key, dest).await,
        }
    }

    /// Readiness: the directory accepts a new file, or the bucket exists and answers.
    pub async fn check(&self) -> Result<(), StorageError> {
        match &*self.backend {
            Backend::Local(store) => store.check().await,
            Backend::S3(store) => store.check().await,
        }
    }

    /// Where the traces go, for logs and status pages: `directory /x` or
    /// `s3 bucket b at http://host:port`. Holds no credential.
    pub fn describe(&self) -> String {
        match &*self.backend {
            Backend::Local(store) => store.describe(),
            Backend::S3(store) => store.describe(),
        }
    }
}
