//! The API's HTTP/1.1 server: hyper under our own accept loop, so that a client cannot hold
//! the service with connections that never finish a request.
//!
//! - A request's header must arrive whole within [`HEADER_READ_TIMEOUT`] (hyper's timer; an
//!   idle keep-alive connection waiting for its next request is held to the same), else the
//!   connection is closed. Bodies are bounded in time by the router's own limits.
//! - At most `max_connections` connections are open at once; past it new ones wait in the
//!   kernel's backlog until one closes. One peer address holds at most [`MAX_PER_ADDRESS`] of
//!   them; past it its new connections are closed at once. Behind our own proxy
//!   (`trust_forwarded_for`) every connection's peer is the proxy, so peers are not capped and
//!   each client is held to as many open requests by the address the proxy forwards
//!   (`clients.rs`).
//! - A response the client stops reading is dropped, and its connection closed, once a write
//!   has waited [`WRITE_STALL`] on it (`stall.rs`).
//! - Each request carries the peer's address (`ConnectInfo<SocketAddr>`) for the rate limits.
//! - On shutdown the loop stops accepting, open connections finish their requests (up to
//!   [`DRAIN`]) and close.

use crate::stall::{Stalling, WRITE_STALL};
use crate::tally::Tally;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// How long a client has to send a request's whole header.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default cap on open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Open connections from one address, and open requests from one client.
pub const MAX_PER_ADDRESS: usize = 64;
/// How long open requests may take to finish at shutdown.
const DRAIN: Duration = Duration::from_secs(30);

/// How many connections the server holds open.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    /// Open at once, in all.
    pub max_connections: usize,
    /// Open at once from one peer address; `None` when the peer is our own proxy, whose
    /// connections carry every client's requests (clients are then counted by the address it
    /// forwards, per request: `clients.rs`).
    pub per_peer: Option<usize>,
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains open connections.
pub async fn run(
    listener: TcpListener,
    app: Router,
    caps: Caps,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(caps.max_connections.max(1)));
    let per_peer = Tally::default();
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            _ = &mut shutdown => break,
            p = slots.clone().acquire_owned() => p.expect("the semaphore is never closed"),
        };
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait a moment rather than spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let guard = match caps.per_peer {
            Some(max) => match per_peer.try_hold(peer.ip(), max) {
                Some(held) => Some(held),
                None => {
                    tracing::debug!(peer = %peer.ip(), "too many connections from one address; closed");
                    continue;
                }
            },
            None => None,
        };
        let _ = stream.set_nodelay(true);
        let app = app
            .clone()
            .map_request(move |mut req: http::Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                req
            });
        let stream = Stalling::new(stream, WRITE_STALL);
        let conn = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop((permit, guard));
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "open connections did not finish within {} s",
            DRAIN.as_secs()
        );
    }
    Ok(())
}
