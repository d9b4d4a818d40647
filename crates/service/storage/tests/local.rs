//! The local-directory backend, on a temporary directory.

use std::path::{Path, PathBuf};

use mcpbench_storage::{MAX_TRACE_BYTES, StorageError, TraceStore};

const KEY: &str = "runs/0b7e2a64-93c1-4a43-9a57-3f0c2a1d5e11/fs-read-1.jsonl";

fn trace(lines: usize, tag: &str) -> Vec<u8> {
    (0..lines)
        .map(|i| format!("{{\"seq\":{i},\"tag\":\"{tag}\"}}\n"))
        .collect::<String>()
        .into_bytes()
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                out.push(
                    path.strip_prefix(base)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn store_in(dir: &tempfile::TempDir) -> (TraceStore, PathBuf) {
    let root = dir.path().join("traces");
    (TraceStore::local(&root).unwrap(), root)
}

#[tokio::test]
async fn put_then_get_returns_the_same_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (store, root) = store_in(&dir);

    store.put(KEY, trace(100, "a")).await.unwrap();

    assert_eq!(store.get(KEY).await.unwrap(), Some(trace(100, "a")));
    let size = trace(100, "a").len() as u64;
    assert_eq!(store.size(KEY).await.unwrap(), Some(size));
    assert_eq!(std::fs::read(root.join(KEY)).unwrap(), trace(100, "a"));
    assert_eq!(store.describe(), format!("directory {}", root.display()));
    // Traces and the folders above them are the service's alone: 0600 and 0700, whatever the
    // umask, and so are files stored from a file (image archives, container logs).
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root.join(KEY)), 0o600);
    assert_eq!(mode(root.join(KEY).parent().unwrap()), 0o700);
    assert_eq!(mode(&root), 0o700);
    let source = dir.path().join("archive.tar");
    std::fs::write(&source, b"bytes").unwrap();
    std::fs::set_permissions(&source, std::fs::Permissions::from_mode(0o644)).unwrap();
    store.put_file("images/x.tar", &source).await.unwrap();
    assert_eq!(mode(&root.join("images/x.tar")), 0o600);
}

#[tokio::test]
async fn local_creates_the_root_and_clones_share_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("a/b/c");

    let store = TraceStore::local(&root).unwrap();
    store.clone().put(KEY, trace(1, "via clone")).await.unwrap();

    assert!(root.is_dir());
    assert_eq!(store.get(KEY).await.unwrap(), Some(trace(1, "via clone")));
}

#[tokio::test]
async fn files_go_and_come_back_whole() {
    let root = tempfile::tempdir().unwrap();
    let store = TraceStore::local(root.path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bytes: Vec<u8> = (0..(5 << 20)).map(|i: usize| (i % 251) as u8).collect();
    let source = dir.path().join("image.tar");
    std::fs::write(&source, &bytes).unwrap();
    store.put_file("images/abc.tar", &source).await.unwrap();
    assert!(root.path().join("images/abc.tar").is_file());
    let back = dir.path().join("back.tar");
    assert!(store.get_file("images/abc.tar", &back).await.unwrap());
    assert!(std::fs::read(&back).unwrap() == bytes);
    assert!(
        !store
            .get_file("images/none.tar", &dir.path().join("x"))
            .await
            .unwrap()
    );
    assert!(
        store.put_file("../escape.tar", &source).await.is_err(),
        "keys are checked"
    );
}

#[tokio::test]
async fn put_replaces_an_existing_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = store_in(&dir);

    store.put(KEY, trace(50, "first attempt")).await.unwrap();
    store.put(KEY, trace(3, "retry")).await.unwrap();

    assert_eq!(store.get(KEY).await.unwrap(), Some(trace(3, "retry")));
}

#[tokio::test]
async fn get_of_a_missing_key_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = store_in(&dir);
    store.put(KEY, trace(1, "x")).await.unwrap();

    assert_eq!(store.get("runs/other.jsonl").await.unwrap(), None);
    // A directory of traces is not a trace, and a trace has nothing below it.
    assert_eq!(store.get("runs").await.unwrap(), None);
    assert_eq!(store.get(&format!("{KEY}/below")).await.unwrap(), None);
    for absent in ["runs/other.jsonl", "runs", &format!("{KEY}/below")] {
        assert_eq!(store.size(absent).await.unwrap(), None, "{absent}");
    }
}

#[tokio::test]
async fn puts_leave_no_temporary_file_behind_even_when_they_fail() {
    let dir = tempfile::tempdir().unwrap();
    let (store, root) = store_in(&dir);
    store.put("runs/r1/a.jsonl", trace(10, "a")).await.unwrap();
    store
        .put("runs/r1/a.jsonl", trace(20, "a again"))
        .await
        .unwrap();
    store.put("runs/r1/b.jsonl", trace(10, "b")).await.unwrap();

    // `runs/r1` is a directory: the rename over it fails after the temporary file was written.
    let err = store.put("runs/r1", trace(10, "clash")).await.unwrap_err();
    assert!(matches!(err, StorageError::Io { .. }), "{err}");
    store.check().await.unwrap();

    assert_eq!(files_under(&root), ["runs/r1/a.jsonl", "runs/r1/b.jsonl"]);
}

#[tokio::test]
async fn concurrent_puts_of_one_key_leave_one_whole_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (store, root) = store_in(&dir);
    let versions: Vec<Vec<u8>> = (0..8)
        .map(|i| trace(2000 + i, &format!("writer {i}")))
        .collect();

    let writers: Vec<_> = versions
        .iter()
        .map(|bytes| {
            let (store, bytes) = (store.clone(), bytes.clone());
            tokio::spawn(async move { store.put(KEY, bytes).await })
        })
        .collect();
    for writer in writers {
        writer.await.unwrap().unwrap();
    }

    let stored = store.get(KEY).await.unwrap().unwrap();
    assert!(
        versions.contains(&stored),
        "the stored trace is a mix of writers"
    );
    assert_eq!(files_under(&root), [KEY]);
}

#[tokio::test]
async fn keys_cannot_escape_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let (store, root) = store_in(&dir);
    let outside = dir.path().join("outside.jsonl");

    for key in [
        "../outside.jsonl",
        "runs/../../outside.jsonl",
        "..",
        "/tmp/outside.jsonl",
        &outside.to_string_lossy(),
        "runs\\..\\..\\outside.jsonl",
        "runs/./x",
        "runs//x",
        "",
    ] {
        let put = store.put(key, trace(1, "escape")).await.unwrap_err();
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

    assert!(files_under(&root).is_empty());
    assert_eq!(files_under(dir.path()), Vec::<String>::new());
}

#[tokio::test]
async fn traces_over_the_limit_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (store, root) = store_in(&dir);

    let oversized = vec![b'x'; MAX_TRACE_BYTES as usize + 1];
    let put = store.put(KEY, oversized).await.unwrap_err();
    assert!(matches!(put, StorageError::TooLarge { .. }), "{put}");
    assert!(files_under(&root).is_empty());

    // Planted behind the store's back as a sparse file: cheap to make, huge to read.
    std::fs::create_dir_all(root.join("runs")).unwrap();
    let planted = std::fs::File::create(root.join("runs/huge.jsonl")).unwrap();
    planted.set_len(MAX_TRACE_BYTES + 1).unwrap();
    let get = store.get("runs/huge.jsonl").await.unwrap_err();
    assert!(matches!(get, StorageError::TooLarge { .. }), "{get}");
}

#[tokio::test]
async fn check_passes_on_the_root_and_fails_once_it_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let (store, root) = store_in(&dir);

    store.check().await.unwrap();
    assert!(
        files_under(&root).is_empty(),
        "the probe file was left behind"
    );

    std::fs::remove_dir(&root).unwrap();
    let err = store.check().await.unwrap_err();
    assert!(matches!(err, StorageError::Io { .. }), "{err}");
    assert!(
        err.to_string().contains(&root.display().to_string()),
        "{err}"
    );
}

#[test]
fn local_fails_when_the_root_cannot_be_created() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();

    let err = TraceStore::local(file.join("traces")).unwrap_err();

    assert!(matches!(err, StorageError::Io { .. }), "{err}");
}
