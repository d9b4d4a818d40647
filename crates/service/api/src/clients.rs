//! Open requests per client: one client holds at most [`MAX_PER_ADDRESS`] requests of the API
//! and the website open at once, counted from the moment its header is read until the
//! answer's body is sent or cut. The client is the address the rate limits count
//! ([`ClientAddr`]): the connection's peer, or behind our own proxy the address it forwards, so
//! that the proxy's connections, which carry every client's requests, are not one allowance
//! that every client shares. Past the cap a request is answered 429 with `Retry-After` and
//! never reaches a handler. The runs' MCP endpoints are not counted here: a vendor's agent
//! reaches them from one address for all its runs at once (32 runs of three servers hold
//! about a hundred streams), and the gateway bounds them per run instead (a few sessions per
//! server, closed with the run).

use crate::limits::{ClientAddr, address_key};
use crate::server::MAX_PER_ADDRESS;
use crate::tally::{Held, Tally};
use crate::{ApiError, AppState};
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::body::{Frame, SizeHint};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// The clients' open requests, by [`address_key`].
pub(crate) type OpenRequests = Tally<String>;

/// Runs the request while its client has room, holding the place until its body is done.
pub(crate) async fn hold_open(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    // A request without a known peer (a router served in process) is not counted.
    let Some(ip) = ClientAddr::of(&parts, &state).0 else {
        return next.run(Request::from_parts(parts, body)).await;
    };
    let Some(held) = state
        .open_requests()
        .try_hold(address_key(ip), MAX_PER_ADDRESS)
    else {
        tracing::debug!(client = %ip, "too many open requests from one client; refused");
        return ApiError::rate_limited(
            format!(
                "{MAX_PER_ADDRESS} requests from your address are open, the most at once; try \
                 again when one has finished"
            ),
            Duration::from_secs(1),
        )
        .into_response();
    };
    next.run(Request::from_parts(parts, body))
        .await
        .map(|inner| Body::new(Holding { inner, _held: held }))
}

/// A response body that keeps its client's place until it is sent or dropped.
struct Holding {
    inner: Body,
    _held: Held<String>,
}

impl HttpBody for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
