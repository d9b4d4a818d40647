//! The OpenAPI 3.1 document, generated from the handlers' annotations. `openapi.yaml` at the
//! repository root is this document; a test fails when they drift.

use crate::board::{Board, BoardEntry};
use crate::error::Problem;
use crate::routes::{admin, admin_sets, auth, ops, public, sets, submissions};
use std::sync::LazyLock;
use utoipa::Modify;
use utoipa::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "MCPBench",
        description = "A hosted leaderboard of how well AI agents use MCP tools. Errors are \
                       application/problem+json (RFC 9457).",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    paths(
        auth::token,
        submissions::create,
        submissions::list,
        submissions::get,
        submissions::cancel,
        submissions::publish,
        submissions::runs,
        public::leaderboard,
        public::tasks,
        public::task,
        public::run,
        public::run_logs,
        sets::list,
        sets::get,
        sets::checkpoint,
        sets::bundle,
        sets::key,
        admin::create_vendor,
        admin::revoke_vendor,
        admin_sets::create,
        admin_sets::activate,
        admin_sets::rotate,
        admin_sets::retire,
        admin_sets::delete,
        admin_sets::analyze,
        admin_sets::anomalies,
        ops::healthz,
        ops::readyz,
        ops::metrics,
        ops::openapi,
    ),
    components(schemas(Problem, Board, BoardEntry)),
    modifiers(&Bearer),
    tags(
        (name = "auth", description = "API keys for tokens"),
        (name = "submissions", description = "Vendors' agents under evaluation"),
        (name = "public", description = "What anyone may read"),
        (name = "admin", description = "Operators only"),
        (name = "operations", description = "Health and metrics"),
    )
)]
struct ApiDoc;

struct Bearer;

impl Modify for Bearer {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

static JSON: LazyLock<String> = LazyLock::new(|| {
    ApiDoc::openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serializes")
});

/// The document as JSON, served at `/openapi.json`.
pub fn openapi_json() -> &'static str {
    &JSON
}

/// The document as YAML, the form of `openapi.yaml`.
pub fn openapi_yaml() -> String {
    ApiDoc::openapi()
        .to_yaml()
        .expect("the OpenAPI document serializes")
}
