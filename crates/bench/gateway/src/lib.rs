//! The gateway: for each task run, one MCP endpoint per server of the task, at
//! `/mcp/{run}/{server}`, over Streamable HTTP in both revisions in use (2025-11-25 with
//! `initialize` and sessions, 2026-07-28 stateless with `server/discover`; rmcp negotiates).
//!
//! What an agent meets there is exactly the task: the listed tools of that server with their
//! schemas, in catalogue order; its faults; its step budget. Everything it does is observed
//! here and recorded as trace events, which is what scores are computed from.
//!
//! Security model: a run is reachable only with its bearer token (random, 256 bits, compared
//! in constant time) and only while it is open; an unknown run and a wrong token get the same
//! 401 so run ids cannot be probed. The `Host` header must be one of the configured hosts
//! (DNS rebinding), and a browser `Origin`, when sent, must be one of the configured origins.
//! A run's state lives only in memory and is dropped when the run closes.

mod guard;
mod handler;
mod registry;
mod sessions;
pub mod trace;

pub use guard::GatewayConfig;
pub use handler::offered_revisions;
pub use registry::{ClosedRun, Gateway, MAX_EVENTS, OpenRun};
pub use sessions::MAX_SESSIONS;

use axum::Router;
use std::sync::Arc;

/// The router serving every open run's endpoints; mount it at the root of a server.
pub fn router(gateway: Arc<Gateway>) -> Router {
    handler::router(gateway)
}
