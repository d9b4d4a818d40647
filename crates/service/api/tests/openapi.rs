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
