//! A submission by registry reference pinned by digest, pulled by the worker from a registry:
//! this machine reaches none, so the test serves the image itself over the registry HTTP API
//! (distribution v2, schema 2 manifests) on loopback, which the Docker engine trusts without
//! TLS, and the engine pulls it as from any registry.

#[path = "../../sandbox/tests/support/images.rs"]
mod images;
mod support;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use support::{Options, Service};

const MANIFEST_TYPE: &str = "application/vnd.docker.distribution.manifest.v2+json";

/// Blobs by digest, and the one manifest.
struct Registry {
    manifest: Vec<u8>,
    blobs: HashMap<String, Vec<u8>>,
    pulls: AtomicUsize,
}

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// The image of a `docker save` archive as a registry holds it: its config and layers as
/// blobs, a schema 2 manifest naming them.
fn registry_of(archive: &[u8]) -> Registry {
    let mut files = HashMap::new();
    let mut tar = tar::Archive::new(archive);
    for entry in tar.entries().unwrap() {
        let mut entry = entry.unwrap();
        let path = entry.path().unwrap().to_string_lossy().to_string();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        files.insert(path, bytes);
    }
    let saved: Value = serde_json::from_slice(&files["manifest.json"]).unwrap();
    let config = files[saved[0]["Config"].as_str().unwrap()].clone();
    let mut blobs = HashMap::new();
    let mut layers = Vec::new();
    for layer in saved[0]["Layers"].as_array().unwrap() {
        let bytes = files[layer.as_str().unwrap()].clone();
        layers.push(json!({
            "mediaType": "application/vnd.docker.image.rootfs.diff.tar",
            "size": bytes.len(),
            "digest": digest(&bytes),
        }));
        blobs.insert(digest(&bytes), bytes);
    }
    let manifest = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "config": {
            "mediaType": "application/vnd.docker.container.image.v1+json",
            "size": config.len(),
            "digest": digest(&config),
        },
        "layers": layers,
    }))
    .unwrap();
    blobs.insert(digest(&config), config);
    Registry {
        manifest,
        blobs,
        pulls: AtomicUsize::new(0),
    }
}

async fn manifest(
    State(r): State<Arc<Registry>>,
    Path((_, reference)): Path<(String, String)>,
) -> Response {
    if reference != digest(&r.manifest) {
        return StatusCode::NOT_FOUND.into_response();
    }
    r.pulls.fetch_add(1, Ordering::SeqCst);
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(MANIFEST_TYPE),
    );
    headers.insert(
        "docker-content-digest",
        HeaderValue::from_str(&reference).unwrap(),
    );
    (headers, r.manifest.clone()).into_response()
}

async fn blob(State(r): State<Arc<Registry>>, Path((_, d)): Path<(String, String)>) -> Response {
    match r.blobs.get(&d) {
        Some(bytes) => {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/octet-stream"),
            );
            headers.insert("docker-content-digest", HeaderValue::from_str(&d).unwrap());
            (headers, bytes.clone()).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_digest_pinned_reference_is_pulled_and_run() {
    let sandbox = support::sandbox(support::sandbox_config("api-registry")).await;
    let svc = Service::start(Options {
        tasks: 2,
        sandbox: Some(sandbox),
        ..Default::default()
    })
    .await;
    let token = svc.token("acme").await;

    let tag = format!("mcpbench-test-registry-null:{}", std::process::id());
    let image_id = images::hostile_image(&tag, &["null"]);
    let registry = Arc::new(registry_of(&std::fs::read(images::save(&tag)).unwrap()));
    // The engine must pull it, not find it.
    images::remove_image(&image_id);
    let app = axum::Router::new()
        .route("/v2/", axum::routing::get(|| async { "{}" }))
        .route(
            "/v2/{name}/manifests/{reference}",
            axum::routing::get(manifest),
        )
        .route("/v2/{name}/blobs/{digest}", axum::routing::get(blob))
        .with_state(registry.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    // One path segment: the routes above match a single-segment repository name.
    let reference = format!("127.0.0.1:{port}/agent@{}", digest(&registry.manifest));
    let (status, created) = svc
        .post(
            "/submissions",
            Some(&token),
            &json!({"name": "pinned", "model": "null", "kind": "docker", "image": reference}),
        )
        .await;
    assert_eq!(status, 202, "{created}");
    let done = svc
        .wait(
            created["id"].as_str().unwrap(),
            &token,
            Duration::from_secs(180),
        )
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["image"], reference);
    assert_eq!(done["progress"]["done"], 2);
    // The null agent answered every task (nothing passes, nothing errs).
    assert_eq!(done["scores"]["passed"], 0, "{done}");
    for failure in done["failures"].as_array().unwrap() {
        assert_eq!(failure["reason"], "predicate_false", "{done}");
    }
    assert!(
        registry.pulls.load(Ordering::SeqCst) >= 1,
        "the engine pulled from the registry"
    );
    images::remove_image(&reference);
    images::remove_image(&image_id);
}
