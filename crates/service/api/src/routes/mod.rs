//! The routes of openapi.yaml: public, vendor, operations and admin.

pub(crate) mod admin;
pub(crate) mod admin_sets;
pub(crate) mod auth;
pub(crate) mod ops;
pub(crate) mod public;
pub(crate) mod sets;
pub(crate) mod submissions;
pub(crate) mod upload;

use crate::AppState;
use axum::Router;
use axum::routing::{delete, get, post};

/// The JSON API's routes; the OpenAPI document ([`crate::openapi`]) lists the same ones.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/auth/token", post(auth::token))
        .route(
            "/submissions",
            // Uploads bound their own size (the deployment's cap; JSON stays at
            // MAX_BODY_BYTES in `AppJson`), so the router-wide limit is lifted here.
            post(submissions::create)
                .layer(axum::extract::DefaultBodyLimit::disable())
                .layer(axum::middleware::map_response(close_after_refusal))
                .get(submissions::list),
        )
        .route("/submissions/{id}", get(submissions::get))
        .route("/submissions/{id}/cancel", post(submissions::cancel))
        .route("/submissions/{id}/publish", post(submissions::publish))
        .route("/submissions/{id}/runs", get(submissions::runs))
        .route("/leaderboard", get(public::leaderboard))
        .route("/tasks", get(public::tasks))
        .route("/tasks/{id}", get(public::task))
        .route("/runs/{id}", get(public::run))
        .route("/runs/{id}/logs", get(public::run_logs))
        .route("/sets", get(sets::list))
        .route("/sets/{id}", get(sets::get))
        .route("/sets/{id}/checkpoint", get(sets::checkpoint))
        .route("/sets/{id}/bundle", get(sets::bundle))
        .route(sets::KEY_PATH, get(sets::key))
        .route("/admin/vendors", post(admin::create_vendor))
        .route("/admin/vendors/{name}/revoke", post(admin::revoke_vendor))
        .route("/admin/sets", post(admin_sets::create))
        .route("/admin/sets/{id}", delete(admin_sets::delete))
        .route("/admin/sets/{id}/activate", post(admin_sets::activate))
        .route("/admin/sets/{id}/rotate", post(admin_sets::rotate))
        .route("/admin/sets/{id}/retire", post(admin_sets::retire))
        .route("/admin/sets/{id}/analyze", post(admin_sets::analyze))
        .route("/admin/anomalies", get(admin_sets::anomalies))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics))
        .route("/openapi.json", get(ops::openapi))
}

/// A refused submission may leave part of its body unread (an upload stopped at its first
/// bad part or past its cap): the connection cannot carry another request, so the answer says
/// `Connection: close` and no client puts it back in its pool to fail on the next request.
async fn close_after_refusal(mut response: axum::response::Response) -> axum::response::Response {
    if !response.status().is_success() {
        response.headers_mut().insert(
            http::header::CONNECTION,
            http::HeaderValue::from_static("close"),
        );
    }
    response
}
