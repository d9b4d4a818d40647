//! The OpenAPI 3.1 document, generated from the handlers' annotations. `openapi.yaml` at the
//! repository root is this document; a test fails when they drift.

use crate::error::Problem;
use mcpbench_core::board::{Board, BoardEntry};
use std::sync::LazyLock;
use utoipa::Modify;
use utoipa::OpenApi;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "MCPBench",
        description = "A hosted leaderboard of how well AI agents use MCP tools. Errors are \
                       application/problem+json (RFC 9457).",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
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
                    .description(Some(
                        "Your API key (`mcpb_…`) itself, or a one-hour token from \
                         POST /auth/token; revoking the key ends both.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The refusals every route of a kind can answer, written once here rather than on every
/// handler: 400 for a malformed path or query parameter or body, 401 where a token is needed,
/// 403 on the administrators' routes, 413 and 415 for JSON bodies. A handler's own entry for a
/// status (with its own wording) is kept.
struct Refusals;

impl Refusals {
    fn add(path: &str, op: &mut Operation) {
        let params = op.parameters.as_deref().unwrap_or_default();
        let has = |place: ParameterIn| {
            params
                .iter()
                .any(|p| matches!(p, RefOr::T(p) if p.parameter_in == place))
        };
        let json_body = op.request_body.as_ref().is_some_and(
            |b| matches!(b, RefOr::T(b) if b.content.contains_key("application/json")),
        );
        let secured = op.security.as_ref().is_some_and(|s| !s.is_empty());
        let mut answers: Vec<(&str, &str)> = Vec::new();
        if has(ParameterIn::Path) || has(ParameterIn::Query) || json_body {
            answers.push(("400", "Malformed: a path or query parameter, or the body"));
        }
        if secured {
            answers.push((
                "401",
                "No bearer token, or one that is malformed, expired or revoked",
            ));
        }
        if secured && path.starts_with("/admin/") {
            answers.push(("403", "The token is a vendor's, not an administrator's"));
        }
        if json_body {
            answers.push(("413", "The body is larger than the limit"));
            answers.push(("415", "The body is not application/json"));
        }
        for (status, description) in answers {
            op.responses
                .responses
                .entry(status.into())
                .or_insert_with(|| {
                    RefOr::T(
                        ResponseBuilder::new()
                            .description(description)
                            .content(
                                crate::PROBLEM_JSON,
                                ContentBuilder::new()
                                    .schema(Some(Ref::from_schema_name("Problem")))
                                    .build(),
                            )
                            .build(),
                    )
                });
        }
    }
}

impl Modify for Refusals {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            for op in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                Self::add(path, op);
            }
        }
    }
}

/// The document: the header above, the routes of [`crate::routes::api`] (each declared once,
/// beside its handler), then the refusals every route of a kind can give.
fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.merge(crate::routes::api().into_openapi());
    Refusals.modify(&mut doc);
    doc
}

static JSON: LazyLock<String> = LazyLock::new(|| {
    document()
        .to_pretty_json()
        .expect("the OpenAPI document serializes")
});

/// The document as JSON, served at `/openapi.json`.
pub fn openapi_json() -> &'static str {
    &JSON
}

/// The document as YAML, the form of `openapi.yaml`.
pub fn openapi_yaml() -> String {
    document()
        .to_yaml()
        .expect("the OpenAPI document serializes")
}
