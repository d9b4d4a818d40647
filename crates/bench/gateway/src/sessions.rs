//! MCP sessions (revision 2025-11-25) belong to their run: at most [`MAX_SESSIONS`] on each
//! of its servers, and all of them closed when the run closes, with any stream open on them.
//! A session that one `initialize` too many makes is closed as soon as it is made, and the
//! agent is told why. So an agent that loops `initialize` holds a bounded number of sessions,
//! and none outlives its run (rmcp alone keeps an idle session for minutes).

use crate::registry::Gateway;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// The most sessions one run may hold on one of its servers (an agent needs one).
pub const MAX_SESSIONS: usize = 4;
/// How long a session with no traffic is kept: a run is over well before (its time budget
/// is in minutes), and its sessions are closed with it anyway.
const IDLE: Duration = Duration::from_secs(60);

const SESSION_HEADER: &str = "mcp-session-id";

/// The session manager every run's endpoints share.
pub(crate) fn manager() -> Arc<LocalSessionManager> {
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(IDLE);
    Arc::new(manager)
}

/// Closes `ids` (a closed run's sessions) in the background, when there is a runtime to do
/// it on (there always is in the service; the sessions would otherwise idle out).
pub(crate) fn close(manager: &Arc<LocalSessionManager>, ids: Vec<String>) {
    if ids.is_empty() {
        return;
    }
    let manager = manager.clone();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move {
            for id in ids {
                let _ = manager.close_session(&id.into()).await;
            }
        });
    }
}

/// Notes each session a request makes against its run, and closes it at once when the run
/// has no room for it (or has ended meanwhile).
pub(crate) async fn bound(
    State(gateway): State<Arc<Gateway>>,
    request: Request,
    next: Next,
) -> Response {
    let had_session = request.headers().contains_key(SESSION_HEADER);
    let ended = (request.method() == http::Method::DELETE)
        .then(|| request.headers().get(SESSION_HEADER))
        .flatten()
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut segments = request
        .uri()
        .path()
        .trim_start_matches('/')
        .split('/')
        .skip(1);
    let (run, server) = (
        segments.next().unwrap_or_default().to_string(),
        segments.next().unwrap_or_default().to_string(),
    );
    let response = next.run(request).await;
    if let Some(id) = ended.filter(|_| response.status().is_success()) {
        // Ended by the agent: room for another.
        gateway.forget_session(&run, &id);
        return response;
    }
    let made = (!had_session)
        .then(|| response.headers().get(SESSION_HEADER))
        .flatten()
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let Some(id) = made else {
        return response;
    };
    if gateway.note_session(&run, &server, &id) {
        return response;
    }
    let _ = gateway.sessions().close_session(&id.into()).await;
    let message = format!(
        "this run has opened {MAX_SESSIONS} sessions on {server}, the most one run may; \
         go on in one of them"
    );
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": message}});
    (StatusCode::TOO_MANY_REQUESTS, axum::Json(body)).into_response()
}
