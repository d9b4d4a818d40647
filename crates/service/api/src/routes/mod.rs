//! The routes of openapi.yaml: public, vendor, operations and admin.

pub(crate) mod admin;
pub(crate) mod admin_sets;
pub(crate) mod auth;
pub(crate) mod compare;
pub(crate) mod exports;
pub(crate) mod ops;
pub(crate) mod packs;
pub(crate) mod public;
pub(crate) mod run_view;
pub(crate) mod sets;
pub(crate) mod submission_checks;
pub(crate) mod submission_view;
pub(crate) mod submissions;
pub(crate) mod upload;

use crate::AppState;
use axum::extract::DefaultBodyLimit;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The JSON API: every route with its handler and its OpenAPI entry, listed once here. The
/// router ([`crate::router`]) and the document ([`crate::openapi`]) are both made from it.
pub fn api() -> OpenApiRouter<AppState> {
    // Uploads bound their own size (the deployment's cap; JSON stays at MAX_BODY_BYTES in
    // `AppJson`), so the router-wide limit is lifted for this one handler.
    let (schemas, paths, create) = routes!(submissions::create);
    let create = create
        .layer(DefaultBodyLimit::disable())
        .layer(axum::middleware::map_response(close_after_refusal));
    OpenApiRouter::new()
        .routes(routes!(auth::token))
        .routes(routes!(auth::rotate))
        .routes((schemas, paths, create))
        .routes(routes!(submissions::list))
        .routes(routes!(submissions::get))
        .routes(routes!(submissions::cancel))
        .routes(routes!(submissions::publish))
        .routes(routes!(submissions::withdraw))
        .routes(routes!(submissions::runs))
        .routes(routes!(public::leaderboard))
        .routes(routes!(compare::compare))
        .routes(routes!(public::tasks))
        .routes(routes!(public::task))
        .routes(routes!(public::run))
        .routes(routes!(public::run_logs))
        .routes(routes!(sets::list))
        .routes(routes!(sets::get))
        .routes(routes!(sets::checkpoint))
        .routes(routes!(sets::bundle))
        .routes(routes!(sets::key))
        .routes(routes!(packs::list))
        .routes(routes!(packs::file))
        .routes(routes!(exports::results))
        .routes(routes!(exports::traces))
        .routes(routes!(admin::create_vendor))
        .routes(routes!(admin::revoke_vendor))
        .routes(routes!(admin_sets::create))
        .routes(routes!(admin_sets::delete))
        .routes(routes!(admin_sets::activate))
        .routes(routes!(admin_sets::rotate))
        .routes(routes!(admin_sets::retire))
        .routes(routes!(admin_sets::analyze))
        .routes(routes!(admin_sets::anomalies))
        .routes(routes!(ops::healthz))
        .routes(routes!(ops::readyz))
        .routes(routes!(ops::metrics))
        .routes(routes!(ops::openapi))
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
