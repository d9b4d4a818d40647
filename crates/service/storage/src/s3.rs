//! The S3 backend: one object per key in one bucket of an S3-compatible service.
//!
//! The client is built from the configuration alone: static credentials, an optional custom
//! endpoint (MinIO, R2, s3s-fs, ...), path-style addressing on request. Nothing is read from the
//! environment, profile files or instance metadata. Timeouts and retries are bounded so that a
//! dead endpoint fails in seconds: [`CONNECT_TIMEOUT`] per connection, at most [`MAX_ATTEMPTS`]
//! attempts with short backoff, and [`CHECK_TIMEOUT`] for the whole readiness probe.
//!
//! An S3 PUT is atomic by itself: a reader sees the old object or the new one.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use aws_sdk_s3::Client;
use aws_sdk_s3::config::retry::RetryConfig;
use aws_sdk_s3::config::timeout::TimeoutConfig;
use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::operation::get_object::GetObjectOutput;
use aws_sdk_s3::primitives::ByteStream;

use crate::{MAX_TRACE_BYTES, StorageError};

/// Content type of every trace object: JSON Lines.
pub const TRACE_CONTENT_TYPE: &str = "application/x-ndjson";
/// Longest wait to open one TCP connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// Longest silence while waiting for response bytes.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest time for one put or get, retries included (a trace is at most 64 MiB).
pub const OPERATION_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest time for [`TraceStore::check`](crate::TraceStore::check), retries included.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(5);
/// Attempts per operation, the first included.
pub const MAX_ATTEMPTS: u32 = 3;

/// A string that never shows in `Debug` output. [`Secret::expose`] is the one way to read it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

/// Lets a clap field be a `Secret` directly.
impl FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(Self(value.to_owned()))
    }
}

/// Where and how to reach the trace bucket.
#[derive(Clone, Debug)]
pub struct S3Config {
    /// `http(s)://host[:port]` of an S3-compatible service; `None` means AWS itself.
    pub endpoint: Option<String>,
    pub bucket: String,
    pub region: String,
    pub access_key: String,
    pub secret_key: Secret,
    /// `http://host/bucket/key` rather than `http://bucket.host/key`; most self-hosted services
    /// need it.
    pub path_style: bool,
}

pub(crate) struct S3Store {
    client: Client,
    bucket: String,
    /// The `describe` text, computed once; it holds no credential.
    store: String,
    /// Kept to scrub error details, in case a service ever echoes it.
    secret: Secret,
}

impl fmt::Debug for S3Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3Store")
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl S3Store {
    pub(crate) fn new(config: S3Config) -> Result<Self, StorageError> {
        let invalid = |what: &str| Err(StorageError::InvalidConfig(what.to_owned()));
        if config.bucket.is_empty() {
            return invalid("the S3 bucket name is empty");
        }
        if config.region.is_empty() {
            return invalid("the S3 region is empty");
        }
        let endpoint = config.endpoint.as_deref().map(|e| e.trim_end_matches('/'));
        if let Some(endpoint) = endpoint {
            let scheme_ok = endpoint.starts_with("http://") || endpoint.starts_with("https://");
            if !scheme_ok || endpoint.contains('@') || endpoint.chars().any(char::is_whitespace) {
                return invalid("the S3 endpoint must be an http(s) URL without user info");
            }
        }
        let store = match endpoint {
            Some(endpoint) => format!("s3 bucket {} at {endpoint}", config.bucket),
            None => format!(
                "s3 bucket {} in AWS region {}",
                config.bucket, config.region
            ),
        };

        let credentials = Credentials::new(
            config.access_key,
            config.secret_key.expose(),
            None,
            None,
            "mcpbench-storage",
        );
        let mut builder = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new(config.region))
            .credentials_provider(credentials)
            .force_path_style(config.path_style)
            .retry_config(retry_config())
            .timeout_config(timeout_config(OPERATION_TIMEOUT));
        if let Some(endpoint) = endpoint {
            builder = builder.endpoint_url(endpoint);
        }
        Ok(Self {
            client: Client::from_conf(builder.build()),
            bucket: config.bucket,
            store,
            secret: config.secret_key,
        })
    }

    pub(crate) fn describe(&self) -> String {
        self.store.clone()
    }

    pub(crate) async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StorageError> {
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type(TRACE_CONTENT_TYPE)
            .body(ByteStream::from(bytes))
            .send()
            .await
            .map_err(|err| self.classify("put_object", err))?;
        Ok(())
    }

    pub(crate) async fn size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        let request = self.client.head_object().bucket(&self.bucket).key(key);
        match request.send().await {
            Ok(output) => Ok(Some(output.content_length().unwrap_or(0).max(0) as u64)),
            Err(SdkError::ServiceError(err)) if err.err().is_not_found() => Ok(None),
            Err(err) => Err(self.classify("head_object", err)),
        }
    }

    /// The object under `key`, or `None` if there is none.
    async fn open(&self, key: &str) -> Result<Option<GetObjectOutput>, StorageError> {
        let request = self.client.get_object().bucket(&self.bucket).key(key);
        match request.send().await {
            Ok(output) => Ok(Some(output)),
            Err(SdkError::ServiceError(err)) if err.err().is_no_such_key() => Ok(None),
            Err(err) => Err(self.classify("get_object", err)),
        }
    }

    /// A body that broke off while being read.
    fn read_error(&self, key: &str, err: &(dyn std::error::Error + 'static)) -> StorageError {
        StorageError::NotReachable {
            store: self.store.clone(),
            detail: self.scrub(format!("reading {key:?}: {}", error_chain(err))),
        }
    }

    pub(crate) async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let Some(output) = self.open(key).await? else {
            return Ok(None);
        };
        let too_large = || StorageError::TooLarge {
            key: key.to_owned(),
            limit: MAX_TRACE_BYTES,
        };
        let announced = output.content_length().unwrap_or(0).max(0) as u64;
        if announced > MAX_TRACE_BYTES {
            return Err(too_large());
        }
        // Read chunk by chunk so that a body longer than announced still cannot exceed the bound.
        let mut body = output.body;
        let mut bytes = Vec::with_capacity(announced as usize);
        while let Some(chunk) = body
            .try_next()
            .await
            .map_err(|err| self.read_error(key, &err))?
        {
            if (bytes.len() + chunk.len()) as u64 > MAX_TRACE_BYTES {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Some(bytes))
    }

    pub(crate) async fn put_file(&self, key: &str, path: &Path) -> Result<(), StorageError> {
        let body = ByteStream::from_path(path)
            .await
            .map_err(|e| StorageError::io("read", path)(std::io::Error::other(e)))?;
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type("application/octet-stream")
            .body(body)
            .send()
            .await
            .map_err(|err| self.classify("put_object", err))?;
        Ok(())
    }

    pub(crate) async fn get_file(&self, key: &str, dest: &Path) -> Result<bool, StorageError> {
        use tokio::io::AsyncWriteExt;
        let Some(output) = self.open(key).await? else {
            return Ok(false);
        };
        let mut file = tokio::fs::File::create(dest)
            .await
            .map_err(StorageError::io("create", dest))?;
        let mut body = output.body;
        while let Some(chunk) = body
            .try_next()
            .await
            .map_err(|err| self.read_error(key, &err))?
        {
            file.write_all(&chunk)
                .await
                .map_err(StorageError::io("write", dest))?;
        }
        file.flush()
            .await
            .map_err(StorageError::io("write", dest))?;
        Ok(true)
    }

    pub(crate) async fn check(&self) -> Result<(), StorageError> {
        let overrides = aws_sdk_s3::Config::builder().timeout_config(timeout_config(CHECK_TIMEOUT));
        self.client
            .head_bucket()
            .bucket(&self.bucket)
            .customize()
            .config_override(overrides)
            .send()
            .await
            .map_err(|err| self.classify("head_bucket", err))?;
        Ok(())
    }

    /// Sorts an SDK failure into "could not reach", "no such bucket" and "refused".
    fn classify<E>(&self, operation: &'static str, err: SdkError<E>) -> StorageError
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    {
        let store = self.store.clone();
        match &err {
            SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) => {
                StorageError::NotReachable {
                    store,
                    detail: self.scrub(error_chain(&err)),
                }
            }
            SdkError::ServiceError(service) => {
                let status = service.raw().status().as_u16();
                let code = service.err().code();
                // HEAD responses have no body, so a missing bucket is known by its status alone.
                let no_bucket =
                    code == Some("NoSuchBucket") || (operation == "head_bucket" && status == 404);
                if no_bucket {
                    return StorageError::BucketNotFound { store };
                }
                let detail = match (code, service.err().message()) {
                    (Some(code), Some(message)) => format!("HTTP {status} {code}: {message}"),
                    (Some(code), None) => format!("HTTP {status} {code}"),
                    _ if status == 403 => format!(
                        "HTTP {status} (check the access key, secret key and bucket policy)"
                    ),
                    _ => format!("HTTP {status}"),
                };
                StorageError::Rejected {
                    store,
                    operation,
                    detail: self.scrub(detail),
                }
            }
            _ => StorageError::Rejected {
                store,
                operation,
                detail: self.scrub(error_chain(&err)),
            },
        }
    }

    /// Removes the secret key from text bound for an error message. Services do not echo it, but
    /// a message is cheap to check and a leaked key is not.
    fn scrub(&self, text: String) -> String {
        let secret = self.secret.expose();
        if secret.len() >= 4 && text.contains(secret) {
            text.replace(secret, "[redacted]")
        } else {
            text
        }
    }
}

/// `outer: inner: innermost`, each cause once (some errors repeat their source's text).
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

fn retry_config() -> RetryConfig {
    RetryConfig::standard()
        .with_max_attempts(MAX_ATTEMPTS)
        .with_initial_backoff(Duration::from_millis(100))
        .with_max_backoff(Duration::from_secs(1))
}

fn timeout_config(operation_timeout: Duration) -> TimeoutConfig {
    TimeoutConfig::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .operation_timeout(operation_timeout)
        .build()
}
