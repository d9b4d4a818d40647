//! Typed errors that a simulated tool returns, as an agent sees them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What went wrong, in the handful of categories real MCP servers report.
///
/// The snake_case name is part of the text an agent reads (`not_found: ...`), and faults name
/// the kind they inject, so the names are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The arguments do not match the tool's input schema or make no sense together.
    InvalidArguments,
    /// The thing named does not exist.
    NotFound,
    /// The thing exists already, or the change clashes with the current state.
    Conflict,
    /// The caller may not do this.
    PermissionDenied,
    /// The state does not allow it yet (a pull request that cannot be merged, a closed thread).
    FailedPrecondition,
    /// Too many requests; trying again later works.
    RateLimited,
    /// The backend is down for a moment; trying again works.
    Unavailable,
    /// The backend took too long; trying again works.
    Timeout,
}

impl ErrorKind {
    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArguments => "invalid_arguments",
            Self::NotFound => "not_found",
            Self::Conflict => "conflict",
            Self::PermissionDenied => "permission_denied",
            Self::FailedPrecondition => "failed_precondition",
            Self::RateLimited => "rate_limited",
            Self::Unavailable => "unavailable",
            Self::Timeout => "timeout",
        }
    }

    /// Whether the same call may succeed when simply tried again.
    pub fn is_transient(self) -> bool {
        matches!(self, Self::RateLimited | Self::Unavailable | Self::Timeout)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error a tool answers with. Its `Display` is exactly what the agent reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct ToolError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ToolError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArguments, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message)
    }
    pub fn denied(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::PermissionDenied, message)
    }
    pub fn precondition(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::FailedPrecondition, message)
    }
}

/// A task's seed state that a server cannot start from (a file outside the root, a pull
/// request on a missing branch, SQL that does not run). Found when a task loads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid initial state for {server}: {message}")]
pub struct SeedError {
    pub server: &'static str,
    pub message: String,
}

impl SeedError {
    pub fn new(server: &'static str, message: impl Into<String>) -> Self {
        Self {
            server,
            message: message.into(),
        }
    }
}
