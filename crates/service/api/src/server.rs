//! The API's HTTP/1.1 server: hyper under our own accept loop, so that a client cannot hold
//! the service with connections that never finish a request.
//!
//! - A request's header must arrive whole within [`HEADER_READ_TIMEOUT`] (hyper's timer; an
//!   idle keep-alive connection waiting for its next request is held to the same), else the
//!   connection is closed. Bodies are bounded in time by the router's own limits.
//! - At most `max_connections` connections are open at once; past it new ones wait in the
//!   kernel's backlog until one closes. One address holds at most [`MAX_PER_ADDRESS`] of them;
//!   past it its new connections are closed at once.
//! - A response the client stops reading is dropped, and its connection closed, once a write
//!   has waited [`WRITE_STALL`] on it (`stall.rs`).
//! - Each request carries the peer's address (`ConnectInfo<SocketAddr>`) for the rate limits.
//! - On shutdown the loop stops accepting, open connections finish their requests (up to
//!   [`DRAIN`]) and close.

use crate::stall::{Stalling, WRITE_STALL};
use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// How long a client has to send a request's whole header.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default cap on open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Open connections from one address.
pub const MAX_PER_ADDRESS: usize = 64;
/// How long open requests may take to finish at shutdown.
const DRAIN: Duration = Duration::from_secs(30);

/// Open connections per address, released when a connection's guard drops.
#[derive(Clone, Default)]
struct PerAddress(Arc<Mutex<HashMap<IpAddr, usize>>>);

struct AddressGuard {
    table: PerAddress,
    ip: IpAddr,
}

impl PerAddress {
    fn admit(&self, ip: IpAddr) -> Option<AddressGuard> {
        let mut table = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = table.entry(ip).or_default();
        if *n >= MAX_PER_ADDRESS {
            return None;
        }
        *n += 1;
        Some(AddressGuard {
            table: self.clone(),
            ip,
        })
    }
}

impl Drop for AddressGuard {
    fn drop(&mut self) {
        let mut table = self.table.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = table.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                table.remove(&self.ip);
            }
        }
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains open connections.
pub async fn run(
    listener: TcpListener,
    app: Router,
    max_connections: usize,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(max_connections.max(1)));
    let per_address = PerAddress::default();
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
        let Some(guard) = per_address.admit(peer.ip()) else {
            tracing::debug!(peer = %peer.ip(), "too many connections from one address; closed");
            continue;
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
