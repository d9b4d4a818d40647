//! The HTTP API (openapi.yaml): an axum router over the data layer.
//!
//! Handlers are thin: they check the caller and the input, call one or two functions of
//! [`mcpbench_db`] and shape the answer. Every error is an [`ApiError`], answered as
//! problem+json. Bodies are bounded by [`MAX_BODY_BYTES`], every list by a page size, every
//! request by [`REQUEST_TIMEOUT`].
//!
//! The leaderboard is read from its aggregate table and kept in memory, serialized, per
//! query ([`kept::BoardCache`]), as are the pages every reader without a session sees alike
//! (a completed submission's page, a comparison); `NOTIFY mcpbench_leaderboard` drops them
//! when what the public sees changes (a submission finishes, traces are published, a set is
//! activated or retired), and they also expire after a few seconds in case a notification is
//! lost. Readers who miss at once wait for one of them to make the page.

mod access;
mod answers;
mod archive;
mod auth;
mod board;
mod body;
mod calendar;
mod clients;
mod csv;
mod error;
mod extract;
mod held;
mod intake;
mod kept;
mod limits;
mod model_track;
mod openapi;
mod params;
mod routes;
mod server;
mod stall;
mod tally;
mod web;

pub use auth::{IAT_LEEWAY, MAX_TOKEN_TTL, MIN_SECRET_BYTES, Tokens};
pub use calendar::{CALENDAR_EVERY, CalendarRun, Clock};
pub use error::{ApiError, PROBLEM_JSON, Problem};
pub use kept::KEPT_FOR;
pub use openapi::{openapi_json, openapi_yaml};
pub use server::{DEFAULT_MAX_CONNECTIONS, HEADER_READ_TIMEOUT, MAX_PER_ADDRESS};

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mcpbench_db::PgPool;
use mcpbench_egress::Policy;
use mcpbench_sets::Custody;
use mcpbench_storage::TraceStore;
use mcpbench_telemetry::Metrics;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// The longest a request may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest an image upload (`multipart/form-data` to `POST /submissions`) may take.
pub const UPLOAD_TIMEOUT: Duration = Duration::from_secs(3600);
/// The default cap on an uploaded image archive: 2 GiB.
pub const DEFAULT_IMAGE_UPLOAD_MAX_BYTES: u64 = 2 << 30;

/// The set shown when a request names none and the deployment names no dev set: the dev set's
/// id ([`mcpbench_tasks::DEV_SET`]).
pub const DEFAULT_DEV_SET: &str = mcpbench_tasks::DEV_SET;

/// What the API is configured with.
#[derive(Clone)]
pub struct Config {
    /// Signs and checks tokens.
    pub tokens: Arc<Tokens>,
    /// Where submitted endpoints may point.
    pub egress: Policy,
    /// Submissions per vendor, private set and month; `None` is unlimited.
    pub monthly_quota: Option<i64>,
    /// The public set shown when a request names none.
    pub default_set: String,
    /// Attempts a job gets before it fails on our side.
    pub max_attempts: i32,
    /// The largest image archive accepted.
    pub image_upload_max_bytes: u64,
    /// The keys of private sets: sealing at rest, signing checkpoints.
    pub custody: Arc<Custody>,
    /// `scheme://host[:port]` people reach the service at (`MCPBENCH_PUBLIC_URL`); `None`
    /// trusts the request's `Host` (local use).
    pub public_url: Option<String>,
    /// What one client may hold and repeat.
    pub admission: Admission,
    /// Whether hosted endpoints may run private sets (`MCPBENCH_HOSTED_PRIVATE_SETS`): each
    /// goal of the set is sent to the vendor's server, outside any sandbox.
    pub hosted_private_sets: bool,
    /// How long kept boards and public pages are served when no notification drops them
    /// first ([`kept::KEPT_FOR`] from the environment).
    pub kept_for: Duration,
    /// How long a vendor's old keys keep working after it rotates them
    /// (`MCPBENCH_KEY_GRACE_SECS`).
    pub key_grace: Duration,
    /// The calendar this process runs (`MCPBENCH_CALENDAR`); `None` when months turn by hand.
    pub calendar: Option<CalendarRun>,
}

/// What one client may hold and repeat: connections, submissions at once, and the rates of
/// failed key exchanges and submissions ([`limits::Limits`]).
#[derive(Clone, Debug)]
pub struct Admission {
    /// Connections open at once (`MCPBENCH_MAX_CONNECTIONS`).
    pub max_connections: usize,
    /// Submissions one vendor may have queued or running on one set; `None` is unlimited.
    pub max_open_submissions: Option<i64>,
    /// Count clients by the last address of `X-Forwarded-For` (set by our own proxy) rather
    /// than the connection's peer: for the rate limits and the open requests one client may
    /// hold, while the peer (the proxy) may hold any number of connections up to
    /// `max_connections`.
    pub trust_forwarded_for: bool,
    /// Whether failed key exchanges and submissions are rate-limited.
    pub rate_limits: bool,
    /// How long an image upload may go without a byte arriving, in any part.
    pub upload_stall: Duration,
}

impl Default for Admission {
    fn default() -> Self {
        Self {
            max_connections: server::DEFAULT_MAX_CONNECTIONS,
            max_open_submissions: Some(4),
            trust_forwarded_for: false,
            rate_limits: true,
            upload_stall: Duration::from_secs(30),
        }
    }
}

/// Shared by every handler; cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

struct Inner {
    pool: PgPool,
    store: TraceStore,
    metrics: Arc<Metrics>,
    config: Config,
    board: kept::BoardCache,
    limits: limits::Limits,
    open_requests: clients::OpenRequests,
    routes: Arc<mcpbench_route::Routes>,
}

impl AppState {
    pub fn new(pool: PgPool, store: TraceStore, metrics: Arc<Metrics>, config: Config) -> Self {
        Self(Arc::new(Inner {
            store,
            metrics,
            board: kept::BoardCache::new(config.kept_for),
            config,
            limits: limits::Limits::default(),
            open_requests: clients::OpenRequests::default(),
            routes: mcpbench_route::Routes::new(pool.clone()),
            pool,
        }))
    }

    pub(crate) fn pool(&self) -> &PgPool {
        &self.0.pool
    }

    pub(crate) fn tokens(&self) -> &Tokens {
        &self.0.config.tokens
    }

    pub(crate) fn config(&self) -> &Config {
        &self.0.config
    }

    pub(crate) fn store(&self) -> &TraceStore {
        &self.0.store
    }

    pub(crate) fn metrics(&self) -> &Metrics {
        &self.0.metrics
    }

    pub(crate) fn board(&self) -> &kept::BoardCache {
        &self.0.board
    }

    pub(crate) fn limits(&self) -> &limits::Limits {
        &self.0.limits
    }

    pub(crate) fn open_requests(&self) -> &clients::OpenRequests {
        &self.0.open_requests
    }
}

/// The whole service: the JSON API and, beside it, the website and the runs' MCP endpoints
/// (forwarded to the workers that hold them, so that agents need one address whatever the
/// number of workers); anything else is a 404 problem.
pub fn router(state: AppState) -> Router {
    let (api, _) = routes::api().split_for_parts();
    // Merged after the layers, which it must not get: a run's stream lasts as long as its run,
    // and the worker's gateway bounds what it takes.
    let mcp = mcpbench_route::router(state.0.routes.clone());
    api.merge(web::router())
        .fallback(routes::ops::not_found)
        .layer(axum::middleware::from_fn_with_state(state.clone(), observe))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(bounded_in_time))
        // Outermost: what one client holds open at once. Not over the runs' MCP endpoints,
        // which a vendor's agent reaches from one address for all its runs at once; those are
        // bounded per run by the gateway (sessions per server, requests per run).
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            clients::hold_open,
        ))
        .with_state(state)
        .merge(mcp)
}

/// Serves the API on `listener` until `shutdown` resolves, then drains open requests
/// (`server`: header-read timeout, connection caps). Also keeps the leaderboard cache in step
/// with finished submissions.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let invalidator = tokio::spawn(board::invalidate_on_notify(state.clone()));
    let gauges = tokio::spawn(refresh_queue_gauges(state.clone()));
    let calendar = state
        .config()
        .calendar
        .clone()
        .map(|run| tokio::spawn(calendar::run(state.clone(), run)));
    let admission = &state.config().admission;
    let caps = server::Caps {
        max_connections: admission.max_connections,
        per_peer: (!admission.trust_forwarded_for).then_some(server::MAX_PER_ADDRESS),
    };
    let result = server::run(listener, router(state), caps, shutdown).await;
    invalidator.abort();
    gauges.abort();
    if let Some(calendar) = calendar {
        calendar.abort();
    }
    result
}

/// Keeps the queue gauges of `/metrics` current (jobs waiting, jobs running), so the API's
/// metrics show the queue even where workers run elsewhere.
async fn refresh_queue_gauges(state: AppState) {
    loop {
        match mcpbench_db::queue::depth(state.pool()).await {
            Ok((queued, running)) => state.metrics().set_queue(queued, running),
            Err(e) => tracing::debug!(error = %e, "reading the queue depth failed"),
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
}

/// Records latency by route and logs each request.
async fn observe(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| p.as_str())
        .to_owned();
    let response = next.run(req).await;
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    state
        .metrics()
        .observe_http(method.as_str(), &route, status, elapsed.as_secs_f64());
    tracing::debug!(%method, %route, status, micros = elapsed.as_micros() as u64, "request");
    response
}

/// Every request within [`REQUEST_TIMEOUT`] (503 past it); image uploads within
/// [`UPLOAD_TIMEOUT`], since a large archive takes a while on a slow link.
async fn bounded_in_time(request: Request, next: Next) -> Response {
    let limit = if routes::upload::is_multipart(&request) {
        UPLOAD_TIMEOUT
    } else {
        REQUEST_TIMEOUT
    };
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::unavailable(format!(
            "the request took longer than {} s",
            limit.as_secs()
        ))
        .into_response(),
    }
}

/// `scheme://host[:port]` of a public URL (a trailing `/` dropped); anything else is refused.
fn public_origin(url: &str) -> Result<String, String> {
    let url = url.strip_suffix('/').unwrap_or(url);
    let host = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or_default();
    let ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b));
    if !ok {
        return Err(format!(
            "MCPBENCH_PUBLIC_URL must be http(s)://host[:port] with no path, not {url:?}"
        ));
    }
    Ok(url.to_string())
}

impl Config {
    /// The API's settings from its flags; `jwt_secret` must be set (or generated by the
    /// caller, as `mcpbench up` does).
    pub fn from_args(
        args: &mcpbench_config::ApiArgs,
        custody: &mcpbench_config::CustodyArgs,
    ) -> Result<Self, String> {
        let custody = mcpbench_sets::Custody::from_args(custody)?;
        if args.calendar.calendar.is_some()
            && (custody.keyring.is_none() || custody.signer.is_none())
        {
            return Err(
                "MCPBENCH_CALENDAR needs MCPBENCH_TASK_KEYS and MCPBENCH_SIGNING_KEY: \
                        the months it turns are sealed, committed and revealed"
                    .into(),
            );
        }
        if custody.keyring.is_none() || custody.signer.is_none() {
            tracing::warn!(
                "MCPBENCH_TASK_KEYS or MCPBENCH_SIGNING_KEY is not set: private sets cannot be \
                 created, committed or revealed by this API"
            );
        }
        let secret = args
            .jwt_secret
            .as_deref()
            .ok_or("MCPBENCH_JWT_SECRET is required (at least 32 characters)")?;
        let tokens = Tokens::new(secret.as_bytes(), MAX_TOKEN_TTL)?;
        Ok(Self {
            tokens: Arc::new(tokens),
            egress: if args.allow_private_agents {
                Policy::local()
            } else {
                Policy::hosted()
            },
            monthly_quota: (args.submission_quota > 0).then_some(args.submission_quota),
            default_set: args
                .dev_set
                .clone()
                .unwrap_or_else(|| DEFAULT_DEV_SET.into()),
            max_attempts: args.max_attempts,
            image_upload_max_bytes: args.image_upload_max_bytes,
            custody: Arc::new(custody),
            public_url: args
                .public_url
                .as_deref()
                .filter(|u| !u.is_empty())
                .map(public_origin)
                .transpose()?,
            admission: Admission {
                max_connections: args.max_connections,
                max_open_submissions: (args.max_open_submissions > 0)
                    .then_some(args.max_open_submissions),
                trust_forwarded_for: args.trust_forwarded_for,
                ..Admission::default()
            },
            hosted_private_sets: args.hosted_private_sets,
            kept_for: kept::KEPT_FOR,
            key_grace: Duration::from_secs(args.key_grace_secs),
            calendar: mcpbench_sets::calendar::Calendar::from_args(&args.calendar)
                .map(CalendarRun::new),
        })
    }
}
