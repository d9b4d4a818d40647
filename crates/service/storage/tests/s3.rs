//! The S3 backend against a real S3-compatible server (s3s-fs on 127.0.0.1).

mod support;

use std::time::Duration;

use mcpbench_storage::{MAX_TRACE_BYTES, S3Config, Secret, StorageError, TraceStore};
use support::{BUCKET, S3sFs, SECRET_KEY};

/// A bound on operations against endpoints that are dead or silent; the store's own timeouts
/// are far shorter, so reaching it means they did not apply.
const HANG_LIMIT: Duration = Duration::from_secs(30);

fn trace(lines: usize, tag: &str) -> Vec<u8> {
    (0..lines)
        .map(|i| format!("{{\"seq\":{i},\"tag\":\"{tag}\"}}\n"))
        .collect::<String>()
        .into_bytes()
}

fn run_key(trial: u32) -> String {
    format!("runs/{}/fs-read-{trial}.jsonl", uuid::Uuid::new_v4())
}

/// A config for an endpoint this test controls, with nothing of s3s-fs behind it.
fn config_at(endpoint: String) -> S3Config {
    S3Config {
        endpoint: Some(endpoint),
        bucket: BUCKET.to_owned(),
        region: "us-east-1".to_owned(),
        access_key: "access".to_owned(),
        secret_key: Secret::new("not-used-secret"),
        path_style: true,
    }
}

async fn bounded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(HANG_LIMIT, future)
        .await
        .expect("the store did not give up within its timeouts")
}

#[tokio::test]
async fn put_then_get_returns_the_same_trace_as_ndjson() {
    let server = S3sFs::start_with_bucket().await;
    let store = TraceStore::s3(server.config()).await.unwrap();
    let key = run_key(1);
    let bytes = trace(1000, "first");

    store.put(&key, bytes.clone()).await.unwrap();

    assert_eq!(store.size(&key).await.unwrap(), Some(bytes.len() as u64));
    assert_eq!(store.get(&key).await.unwrap(), Some(bytes));
    let head = server
        .admin_client()
        .head_object()
        .bucket(BUCKET)
        .key(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_type(), Some("application/x-ndjson"));
    // The object really is where the key says, in the server's own storage.
    assert!(server.root.path().join(BUCKET).join(&key).is_file());
}

#[tokio::test]
async fn a_large_trace_survives_the_roundtrip() {
    let server = S3sFs::start_with_bucket().await;
    let store = TraceStore::s3(server.config()).await.unwrap();
    let key = run_key(1);
    let bytes = trace(200_000, "large"); // about 5 MiB

    store.put(&key, bytes.clone()).await.unwrap();

    assert_eq!(store.get(&key).await.unwrap(), Some(bytes));
}

#[tokio::test]
async fn files_larger_than_a_trace_go_and_come_back_whole() {
    let server = S3sFs::start_with_bucket().await;
    let store = TraceStore::s3(server.config()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Past the trace bound, as an image archive may be; patterned so a lost chunk shows.
    let bytes: Vec<u8> = (0..(MAX_TRACE_BYTES as usize + (3 << 20)))
        .map(|i| (i % 251) as u8)
        .collect();
    let source = dir.path().join("image.tar");
    std::fs::write(&source, &bytes).unwrap();
    store.put_file("images/abc.tar", &source).await.unwrap();
    let back = dir.path().join("back.tar");
    assert!(store.get_file("images/abc.tar", &back).await.unwrap());
    assert!(
        std::fs::read(&back).unwrap() == bytes,
        "the file came back changed"
    );
    let missing = dir.path().join("missing.tar");
    assert!(!store.get_file("images/none.tar", &missing).await.unwrap());
}

#[tokio::test]
async fn put_replaces_an_existing_trace() {
    let server = S3sFs::start_with_bucket().await;
    let store = TraceStore::s3(server.config()).await.unwrap();
    let key = run_key(2);

    store.put(&key, trace(50, "first attempt")).await.unwrap();
    store.put(&key, trace(3, "retry")).await.unwrap();

    assert_eq!(store.get(&key).await.unwrap(), Some(trace(3, "retry")));
}

#[tokio::test]
async fn get_of_a_missing_key_is_none() {
    let server = S3sFs::start_with_bucket().await;
    let store = TraceStore::s3(server.config()).await.unwrap();
    store
        .put("runs/present.jsonl", trace(1, "x"))
        .await
        .unwrap();

    assert_eq!(store.get(&run_key(1)).await.unwrap(), None);
    assert_eq!(store.get("runs/present.jsonl/below").await.unwrap(), None);
    assert_eq!(store.size(&run_key(1)).await.unwrap(), None);
}

#[tokio::test]
async fn get_refuses_an_object_over_the_limit() {
    let server = S3sFs::start_with_bucket().await;
    let store = TraceStore::s3(server.config()).await.unwrap();
    // Placed behind the server's back as a sparse file: cheap to make, huge to read.
    let dir = server.root.path().join(BUCKET).join("runs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::File::create(dir.join("huge.jsonl"))
        .unwrap()
        .set_len(MAX_TRACE_BYTES + 1)
        .unwrap();

    let err = store.get("runs/huge.jsonl").await.unwrap_err();

    assert!(matches!(err, StorageError::TooLarge { .. }), "{err}");
}

#[tokio::test]
async fn invalid_keys_and_oversized_traces_are_refused_before_any_request() {
    // A listener that only counts: any request the store made would connect to it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let store = TraceStore::s3(config_at(endpoint)).await.unwrap();

    for key in [
        "",
        "/runs/a.jsonl",
        "../a.jsonl",
        "runs/../../a",
        "runs//a",
        "runs/a b",
        "runs/ä",
    ] {
        let put = store.put(key, trace(1, "x")).await.unwrap_err();
        assert!(
            matches!(put, StorageError::InvalidKey { .. }),
            "put {key:?}: {put}"
        );
        let get = store.get(key).await.unwrap_err();
        assert!(
            matches!(get, StorageError::InvalidKey { .. }),
            "get {key:?}: {get}"
        );
    }
    let oversized = vec![b'x'; MAX_TRACE_BYTES as usize + 1];
    let err = store.put("runs/big.jsonl", oversized).await.unwrap_err();
    assert!(matches!(err, StorageError::TooLarge { .. }), "{err}");

    let accepted = listener.accept();
    assert!(
        matches!(&accepted, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the store connected to the endpoint: {accepted:?}"
    );
}

#[tokio::test]
async fn check_passes_when_the_bucket_exists() {
    let server = S3sFs::start_with_bucket().await;
    let store = TraceStore::s3(server.config()).await.unwrap();

    store.check().await.unwrap();
    assert_eq!(
        store.describe(),
        format!("s3 bucket traces at {}", server.endpoint)
    );
}

#[tokio::test]
async fn check_fails_clearly_when_the_bucket_is_missing() {
    let server = S3sFs::start(); // no bucket created
    let store = TraceStore::s3(server.config()).await.unwrap();

    let err = bounded(store.check()).await.unwrap_err();

    assert!(matches!(err, StorageError::BucketNotFound { .. }), "{err}");
    assert!(err.to_string().contains("bucket traces"), "{err}");
    assert!(err.to_string().contains("does not exist"), "{err}");
}

#[tokio::test]
async fn a_dead_endpoint_fails_within_seconds() {
    // Bind then drop: the port was free a moment ago and nothing listens on it now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let store = TraceStore::s3(config_at(endpoint.clone())).await.unwrap();

    let check = bounded(store.check()).await.unwrap_err();
    let put = bounded(store.put(&run_key(1), trace(1, "x")))
        .await
        .unwrap_err();
    let get = bounded(store.get(&run_key(1))).await.unwrap_err();

    for err in [check, put, get] {
        assert!(matches!(err, StorageError::NotReachable { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains(&endpoint) && text.contains("Connection refused"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn check_gives_up_on_an_endpoint_that_never_answers() {
    // Accepts connections and holds them open without a byte of reply.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let store = TraceStore::s3(config_at(endpoint)).await.unwrap();

    let err = bounded(store.check()).await.unwrap_err();

    assert!(matches!(err, StorageError::NotReachable { .. }), "{err}");
    silent.abort();
}

#[tokio::test]
async fn a_wrong_secret_key_is_refused_without_revealing_it() {
    let server = S3sFs::start_with_bucket().await;
    let wrong_secret = "wrong-secret-key-0d9e7c41b2";
    let config = S3Config {
        secret_key: Secret::new(wrong_secret),
        ..server.config()
    };
    assert!(!format!("{config:?}").contains(wrong_secret), "{config:?}");
    let store = TraceStore::s3(config).await.unwrap();

    let errors = [
        store.check().await.unwrap_err(),
        store.put(&run_key(1), trace(1, "x")).await.unwrap_err(),
        store.get(&run_key(1)).await.unwrap_err(),
    ];

    for err in &errors {
        assert!(matches!(err, StorageError::Rejected { .. }), "{err}");
        for text in [
            err.to_string(),
            format!("{err:?}"),
            store.describe(),
            format!("{store:?}"),
        ] {
            assert!(!text.contains(wrong_secret), "secret leaked: {text}");
            assert!(!text.contains(SECRET_KEY), "server secret leaked: {text}");
        }
    }
    // HEAD responses have no body to name the cause, so the check says which status it got.
    assert!(errors[0].to_string().contains("HTTP 403"), "{}", errors[0]);
    assert!(
        errors[1].to_string().contains("SignatureDoesNotMatch"),
        "{}",
        errors[1]
    );
    assert!(
        errors[2].to_string().contains("SignatureDoesNotMatch"),
        "{}",
        errors[2]
    );
}

#[tokio::test]
async fn configurations_that_cannot_work_are_refused_up_front() {
    let server = S3sFs::start();
    let cases = [
        S3Config {
            bucket: String::new(),
            ..server.config()
        },
        S3Config {
            region: String::new(),
            ..server.config()
        },
        S3Config {
            endpoint: Some("127.0.0.1:9000".to_owned()),
            ..server.config()
        },
        S3Config {
            endpoint: Some("http://user:pw@127.0.0.1:9000".to_owned()),
            ..server.config()
        },
    ];
    for config in cases {
        let err = TraceStore::s3(config.clone()).await.unwrap_err();
        assert!(
            matches!(err, StorageError::InvalidConfig(_)),
            "{config:?}: {err}"
        );
    }
}
