//! The checks every request passes before rmcp sees it: Host, Origin, run, token, server.

use crate::registry::Gateway;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, StatusCode, header};
use serde_json::json;
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// Which `Host` headers are accepted (against DNS rebinding), and which browser origins.
#[derive(Clone, Debug, Default)]
pub struct GatewayConfig {
    /// Host names (without port) that requests may address. Empty: loopback names only.
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted when a request carries one. Agents are servers, not
    /// browsers, so the default accepts none.
    pub allowed_origins: Vec<String>,
    /// This gateway's route key, when several gateways share one public address: run ids are
    /// then `run_<route>_<random>`, so that the routing layer in front of them can tell which
    /// gateway holds a run from its id alone.
    pub route: Option<String>,
}

impl GatewayConfig {
    /// A gateway reachable at `host` (a public host name), plus loopback.
    pub fn public(host: &str) -> Self {
        Self {
            allowed_hosts: vec![host.to_ascii_lowercase()],
            ..Self::default()
        }
    }

    fn host_allowed(&self, host: &str) -> bool {
        let name = strip_port(host).to_ascii_lowercase();
        let loopback = matches!(name.as_str(), "localhost" | "127.0.0.1" | "[::1]" | "::1");
        loopback || self.allowed_hosts.contains(&name)
    }
}

fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest
            .split_once(']')
            .map_or(host, |(h, _)| &host[..h.len() + 2]);
    }
    host.rsplit_once(':')
        .filter(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()))
        .map_or(host, |(h, _)| h)
}

fn refuse(status: StatusCode, message: &str) -> Response {
    let mut r = (status, axum::Json(json!({ "error": message }))).into_response();
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            "Bearer".parse().expect("static header"),
        );
    }
    r
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// The middleware in front of every MCP endpoint.
pub(crate) async fn guard(
    State(gateway): State<Arc<Gateway>>,
    request: Request<Body>,
    next: Next,
) -> Response {
    let config = &gateway.config;
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if !config.host_allowed(host) {
        return refuse(StatusCode::FORBIDDEN, "this host name is not served here");
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !config.allowed_origins.iter().any(|o| o == origin) {
            return refuse(
                StatusCode::FORBIDDEN,
                "requests from this origin are not accepted",
            );
        }
    }
    let mut parts = request.uri().path().trim_start_matches('/').split('/');
    let (Some("mcp"), Some(run_id), Some(server), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return refuse(
            StatusCode::NOT_FOUND,
            "no such endpoint; endpoints are /mcp/{run}/{server}",
        );
    };
    // An unknown run and a wrong token answer alike, so that run ids cannot be probed.
    let run = gateway.get(run_id);
    let presented = bearer(request.headers()).unwrap_or_default();
    let expected = run.as_ref().map_or("", |r| r.token.as_str());
    let token_ok = !expected.is_empty()
        && presented.len() == expected.len()
        && bool::from(presented.as_bytes().ct_eq(expected.as_bytes()));
    let Some(run) = run.filter(|_| token_ok) else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token for this run, or the run has ended",
        );
    };
    if !run.task.offered_servers().iter().any(|s| s == server) {
        return refuse(StatusCode::NOT_FOUND, "this run has no server of that name");
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_matched_without_their_port() {
        let c = GatewayConfig::public("bench.example.org");
        for ok in [
            "127.0.0.1:8080",
            "localhost",
            "[::1]:9",
            "bench.example.org:443",
            "BENCH.example.org",
        ] {
            assert!(c.host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "bench.example.org.evil.example",
            "",
            "10.0.0.1:80",
        ] {
            assert!(!c.host_allowed(bad), "{bad}");
        }
        assert!(!GatewayConfig::default().host_allowed("bench.example.org"));
    }
}
