//! The OpenAPI 3.1 document, generated from the handlers' annotations. `openapi.yaml` at the
//! repository root is this document; a test fails when they drift.

use crate::error::Problem;
use crate::routes::public::Format;
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
    components(schemas(Problem, Board, BoardEntry, Format)),
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
/// handler: 400 for a malformed path or query parameter or body, 401 and 429 where a token is
/// taken, 403 on the administrators' routes, 413 and 415 for JSON bodies. A handler's own entry
/// for a status (with its own wording) is kept.
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
        if secured {
            // Failed keys count against their address and key prefix (`limits.rs`).
            answers.push((
                "429",
                "Too many failed API keys from this address or for this key lately; the \
                 `Retry-After` header says when to try again",
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
                    let mut answer = ResponseBuilder::new().description(description).content(
                        crate::PROBLEM_JSON,
                        ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name("Problem")))
                            .build(),
                    );
                    if status == "429" {
                        answer = answer.header("Retry-After", retry_after());
                    }
                    RefOr::T(answer.build())
                });
        }
        // OpenAPI requires every response to say what it is: one a handler declared by its
        // status and body alone says it with the status's own words.
        for (status, answer) in op.responses.responses.iter_mut() {
            if let RefOr::T(answer) = answer
                && answer.description.is_empty()
            {
                let reason = (status.parse::<u16>().ok())
                    .and_then(|s| http::StatusCode::from_u16(s).ok())
                    .and_then(|s| s.canonical_reason());
                answer.description = reason.unwrap_or("The answer").to_string();
            }
        }
    }
}

/// The `Retry-After` header of a 429.
fn retry_after() -> utoipa::openapi::header::Header {
    let seconds = utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Integer)
        .minimum(Some(0))
        .build();
    utoipa::openapi::header::HeaderBuilder::new()
        .schema(Some(seconds))
        .description(Some("Seconds to wait before asking again"))
        .build()
}

/// What a client does next with an answer, as OpenAPI links: the operation, and where its
/// `id` comes from (the answer's body, or the request's path).
const LINKS: &[(&str, &str, &str, &str, &str, &str)] = &[
    // (path, answer, link, operation, its id from, what it is for)
    (
        "/submissions",
        "202",
        "GetSubmission",
        "get_submission",
        "$response.body#/id",
        "Watch the submission: status, progress, scores",
    ),
    (
        "/submissions",
        "202",
        "ListRuns",
        "runs",
        "$response.body#/id",
        "Its runs, each with its verdict",
    ),
    (
        "/submissions",
        "202",
        "CancelSubmission",
        "cancel",
        "$response.body#/id",
        "Stop it while queued or running",
    ),
    (
        "/submissions/{id}",
        "200",
        "ListRuns",
        "runs",
        "$request.path.id",
        "Its runs, each with its verdict",
    ),
    (
        "/submissions/{id}",
        "200",
        "PublishSubmission",
        "publish",
        "$request.path.id",
        "Open its traces to everyone",
    ),
    (
        "/submissions/{id}",
        "200",
        "WithdrawSubmission",
        "withdraw",
        "$request.path.id",
        "Take it off the board for good",
    ),
    (
        "/sets/{id}",
        "200",
        "SetResults",
        "results",
        "$response.body#/id",
        "Every task's result per submission",
    ),
    (
        "/sets/{id}",
        "200",
        "SetCheckpoint",
        "checkpoint",
        "$response.body#/id",
        "The signed checkpoint of a committed set",
    ),
    (
        "/sets/{id}",
        "200",
        "SetBundle",
        "bundle",
        "$response.body#/id",
        "The reveal bundle of a retired set",
    ),
    (
        "/sets/{id}",
        "200",
        "SetTraces",
        "traces",
        "$response.body#/id",
        "The published traces of a retired set, as one archive",
    ),
    (
        "/admin/sets",
        "201",
        "ActivateSet",
        "activate",
        "$response.body#/id",
        "Take the draft live",
    ),
    (
        "/admin/sets",
        "201",
        "DeleteSet",
        "delete_set",
        "$response.body#/id",
        "Delete the draft",
    ),
    (
        "/admin/sets/{id}/rotate",
        "201",
        "ActivateRotated",
        "activate",
        "$response.body#/set/id",
        "Take the rotated draft live",
    ),
];

struct Links;

impl Modify for Links {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for &(path, status, name, operation, id, description) in LINKS {
            let item = openapi.paths.paths.get_mut(path);
            let answer = item
                .into_iter()
                .flat_map(|i| [&mut i.get, &mut i.post])
                .flatten()
                .find_map(|op| op.responses.responses.get_mut(status));
            let Some(RefOr::T(answer)) = answer else {
                panic!("no {status} answer at {path} to link from");
            };
            let link = utoipa::openapi::link::LinkBuilder::new()
                .operation_id(operation)
                .parameter("id", id)
                .description(description)
                .build();
            answer.links.insert(name.to_string(), RefOr::T(link));
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
/// beside its handler), then the refusals every route of a kind can give and the links from
/// an answer to what a client does next.
fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.merge(crate::routes::api().into_openapi());
    Refusals.modify(&mut doc);
    Links.modify(&mut doc);
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
