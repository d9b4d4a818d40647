//! One public address for the MCP gateways of every worker.
//!
//! A run's MCP endpoints live in the memory of the worker that opened it. So that agents can be
//! given one gateway URL however many workers there are, a run's id names its worker: each
//! worker draws a route key when it starts (8 hex digits), records it in `workers` with the
//! address its gateway listens on inside the deployment, and opens runs as
//! `run_<route>_<random>`. This layer serves `/mcp/{run}/{server}` on the public address, reads
//! the route out of the id, looks the worker's gateway up (remembered: a route never changes
//! its worker, a restarted worker draws a new one) and forwards the request there,
//! streaming both ways (Streamable HTTP answers with server-sent events).
//!
//! Why this and not workers forwarding to each other: it keeps workers private (only this layer
//! and the API are public), it is stateless (any number of copies, in the API's process, where
//! it is mounted, or behind the same ingress), and it needs no write per run: the id carries
//! the route, so the database is read at most once a second (all routes at once), not once
//! per request or per run, however many made-up ids arrive.
//!
//! The worker's own gateway still checks everything (Host, Origin, the run's token): this layer
//! only chooses where a request goes, and passes `Host` on unchanged for that check. An id
//! without a route, or with one no worker holds, gets the gateway's own answer to an unknown run
//! (401), so run ids cannot be probed here either.

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use http::{HeaderMap, HeaderName, StatusCode, Uri, header};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::json;
use sqlx::PgPool;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many hex digits a route key has.
pub const ROUTE_LEN: usize = 8;
/// How often at most the routes are read from the database: a request for a route not known
/// yet waits for the next read (at most this long) rather than causing one, so made-up ids
/// cost the database one read a period however many arrive, and a worker that has just
/// announced its route is found within it.
const REREAD: Duration = Duration::from_secs(1);

/// The route key in a run id, `run_<route>_<random>`; `None` for ids without one.
pub fn route_of(run_id: &str) -> Option<&str> {
    let (route, rest) = run_id.strip_prefix("run_")?.split_once('_')?;
    let hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    (route.len() == ROUTE_LEN && hex(route) && !rest.is_empty()).then_some(route)
}

/// A fresh route key for a worker: random, so that a restarted worker never takes over the
/// routes of its former self (whose runs are gone).
pub fn new_route() -> String {
    let mut bytes = [0u8; ROUTE_LEN / 2];
    getrandom::fill(&mut bytes).expect("the operating system's random source works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The routes as last read.
#[derive(Default)]
struct Table {
    gateways: HashMap<String, String>,
    /// When the last read began.
    read_at: Option<Instant>,
}

/// The routing layer's state: where each route's gateway is, and the client that forwards.
pub struct Routes {
    pool: PgPool,
    http: Client<HttpConnector, Body>,
    table: Mutex<Table>,
    /// Held by the one request that reads the routes (and waits for its turn to).
    reading: tokio::sync::Mutex<()>,
    /// Reads of the routes so far.
    reads: AtomicU64,
}

impl Routes {
    pub fn new(pool: PgPool) -> Arc<Self> {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(Duration::from_secs(5)));
        let http = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .build(connector);
        Arc::new(Self {
            pool,
            http,
            table: Mutex::new(Table::default()),
            reading: tokio::sync::Mutex::new(()),
            reads: AtomicU64::new(0),
        })
    }

    /// How many times the routes were read from the database.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// The gateway of the worker holding `route` (`http://host:port`), if any does. A route
    /// never changes its worker, so a known one is answered from memory; one not known is
    /// answered by the first read of the routes that begins after it was asked for.
    async fn gateway(&self, route: &str) -> Result<Option<String>, mcpbench_db::DbError> {
        let asked = Instant::now();
        if let Some(url) = self.known(route) {
            return Ok(Some(url));
        }
        let _turn = self.reading.lock().await;
        let last = self.table.lock().expect("never poisoned").read_at;
        if last.is_some_and(|at| at >= asked) {
            return Ok(self.known(route));
        }
        if let Some(wait) = last.map(|at| (at + REREAD).saturating_duration_since(Instant::now())) {
            tokio::time::sleep(wait).await;
        }
        let read_at = Instant::now();
        self.reads.fetch_add(1, Ordering::Relaxed);
        let gateways = mcpbench_db::workers::routes(&self.pool).await?;
        let mut table = self.table.lock().expect("never poisoned");
        table.gateways = gateways.into_iter().collect();
        table.read_at = Some(read_at);
        Ok(table.gateways.get(route).cloned())
    }

    fn known(&self, route: &str) -> Option<String> {
        (self.table.lock().expect("never poisoned").gateways)
            .get(route)
            .cloned()
    }
}

/// Serves `/mcp/{run}/{server}` by forwarding to the run's worker; mount it beside the API.
pub fn router(routes: Arc<Routes>) -> Router {
    Router::new()
        .route("/mcp/{run}/{server}", any(forward))
        .with_state(routes)
}

/// What the gateway answers for a run it does not hold: the same here.
fn unknown_run() -> Response {
    let body = json!({"error": "missing or wrong bearer token for this run, or the run has ended"});
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        axum::Json(body),
    )
        .into_response()
}

fn unavailable(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

/// Headers that belong to one connection, not to the request (RFC 9110, section 7.6.1).
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Headers the gateway's checks or the MCP session read: a `Connection` header that names one
/// does not remove it (`Connection: host` would otherwise take `Host` away, and the client
/// below would put the worker's own address in its place, past the gateway's Host check).
const END_TO_END: [&str; 9] = [
    "host",
    "origin",
    "authorization",
    "content-type",
    "content-length",
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

fn strip_hop_by_hop(headers: &mut HeaderMap) {
    // Those the `Connection` header names go too, but for the ones every hop must see.
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|name| HeaderName::try_from(name.trim()).ok())
        .filter(|name| !END_TO_END.contains(&name.as_str()))
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
}

async fn forward(State(routes): State<Arc<Routes>>, request: Request) -> Response {
    let run = request.uri().path().split('/').nth(2).unwrap_or_default();
    let Some(route) = route_of(run).map(str::to_owned) else {
        return unknown_run();
    };
    let route = route.as_str();
    let gateway = match routes.gateway(route).await {
        Ok(Some(gateway)) => gateway,
        Ok(None) => return unknown_run(),
        Err(e) => {
            tracing::warn!(error = %e, "looking a run's worker up failed");
            return unavailable(
                StatusCode::SERVICE_UNAVAILABLE,
                "the run's worker cannot be looked up right now; try again",
            );
        }
    };
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let Ok(uri) = format!("{gateway}{path}").parse::<Uri>() else {
        return unknown_run();
    };
    let (mut parts, body) = request.into_parts();
    parts.uri = uri;
    parts.version = http::Version::HTTP_11;
    strip_hop_by_hop(&mut parts.headers);
    match routes.http.request(Request::from_parts(parts, body)).await {
        Ok(answer) => {
            let (mut parts, body) = answer.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Response::from_parts(parts, Body::new(body))
        }
        Err(e) => {
            // Its worker is gone (killed, say): its runs are taken over by others and the agent
            // gets a new request; this one cannot go on.
            tracing::debug!(error = %e, route, "forwarding to a worker failed");
            unavailable(
                StatusCode::BAD_GATEWAY,
                "the worker holding this run is not answering",
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_is_read_out_of_a_run_id_and_nothing_else_passes() {
        assert_eq!(route_of("run_0a1b2c3d_ffee00112233"), Some("0a1b2c3d"));
        for bad in [
            "run_ffee00112233",
            "run_0A1B2C3D_ff",
            "run_0a1b2c3_ff",
            "run_0a1b2c3d_",
            "job_0a1b2c3d_ff",
            "run_0a1b2c3d0_ff",
            "",
        ] {
            assert_eq!(route_of(bad), None, "{bad}");
        }
        let route = new_route();
        assert_eq!(route_of(&format!("run_{route}_00")), Some(route.as_str()));
    }

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_are_dropped() {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONNECTION, "keep-alive, x-private".parse().unwrap());
        headers.insert("x-private", "1".parse().unwrap());
        headers.insert(header::TRANSFER_ENCODING, "chunked".parse().unwrap());
        headers.insert(header::HOST, "bench.example".parse().unwrap());
        headers.insert(header::AUTHORIZATION, "Bearer t".parse().unwrap());
        strip_hop_by_hop(&mut headers);
        let left: Vec<&str> = headers.keys().map(|k| k.as_str()).collect();
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(headers.contains_key(header::HOST));
        assert!(headers.contains_key(header::AUTHORIZATION));

        // A `Connection` header cannot take away what the gateway checks.
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONNECTION,
            "Host, origin, Authorization, mcp-session-id"
                .parse()
                .unwrap(),
        );
        headers.insert(header::HOST, "bench.example".parse().unwrap());
        headers.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        headers.insert(header::AUTHORIZATION, "Bearer t".parse().unwrap());
        headers.insert("mcp-session-id", "s".parse().unwrap());
        strip_hop_by_hop(&mut headers);
        assert_eq!(headers.len(), 4, "{headers:?}");
        assert!(!headers.contains_key(header::CONNECTION));
    }
}
