//! `openapi.yaml` at the repository root is the document the code generates. Run with
//! `UPDATE_OPENAPI=1` to rewrite it after changing the API.

use std::path::PathBuf;

#[test]
fn openapi_yaml_matches_the_code() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../openapi.yaml");
    let generated = mcpbench_api::openapi_yaml();
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi.yaml is out of date; run `UPDATE_OPENAPI=1 cargo test -p mcpbench-api --test openapi` \
         and commit the result"
    );
}

#[test]
fn the_document_is_openapi_3_1_and_lists_every_route() {
    let doc: serde_json::Value = serde_json::from_str(mcpbench_api::openapi_json()).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in [
        "/auth/token",
        "/submissions",
        "/submissions/{id}",
        "/submissions/{id}/cancel",
        "/submissions/{id}/publish",
        "/submissions/{id}/runs",
        "/leaderboard",
        "/tasks",
        "/tasks/{id}",
        "/runs/{id}",
        "/sets",
        "/sets/{id}",
        "/admin/vendors",
        "/admin/vendors/{name}/revoke",
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path} is missing");
    }
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
}

/// What an OpenAPI validator checks first, held here too (`scripts/test` also runs
/// `openapi-spec-validator` on `openapi.yaml`): operation ids are unique, every reference
/// resolves, every answer says what it is, every operation that takes a token says it can
/// answer 429 and when to ask again, and every link names an operation that exists.
#[test]
fn the_document_holds_together() {
    let doc: serde_json::Value = serde_json::from_str(mcpbench_api::openapi_json()).unwrap();
    let mut ids = std::collections::HashSet::new();
    let mut operations = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap();
            assert!(ids.insert(id), "operationId {id} is used twice");
            operations.push((format!("{method} {path}"), op));
        }
    }
    for (name, op) in &operations {
        let secured = op["security"].as_array().is_some_and(|s| !s.is_empty());
        for (status, answer) in op["responses"].as_object().unwrap() {
            let said = answer["description"].as_str().unwrap_or_default();
            assert!(!said.is_empty(), "{name} {status} has no description");
            for link in answer["links"]
                .as_object()
                .into_iter()
                .flat_map(|l| l.values())
            {
                let to = link["operationId"].as_str().unwrap();
                assert!(
                    ids.contains(to),
                    "{name} {status} links to {to}, which is not"
                );
            }
        }
        if secured {
            let header = &op["responses"]["429"]["headers"]["Retry-After"];
            assert!(
                header.is_object(),
                "{name} takes a token but documents no 429"
            );
        }
    }
    let created = &doc["paths"]["/submissions"]["post"]["responses"]["202"]["links"];
    assert_eq!(created["GetSubmission"]["operationId"], "get_submission");
    // Every `$ref` points into the document.
    let text = mcpbench_api::openapi_json();
    for reference in text.split("\"$ref\": \"").skip(1) {
        let target = reference.split('"').next().unwrap();
        let name = target.strip_prefix("#/components/schemas/").unwrap();
        assert!(
            doc["components"]["schemas"].get(name).is_some(),
            "{target} points nowhere"
        );
    }
}
