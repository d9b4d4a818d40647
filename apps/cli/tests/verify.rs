//! `mcpbench verify` as a user runs it: a good bundle from a file and from a URL, a tampered
//! one named by its first mismatch, the checkpoint kept at go-live, and files that cannot be
//! read. The Python verifier (examples/verify) reaches the same verdicts.

use mcpbench_attest::bundle::{Entry, build, commitments, tree_root};
use mcpbench_attest::{Checkpoint, NoteSigner};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Files {
    _dir: tempfile::TempDir,
    bundle: PathBuf,
    tampered: PathBuf,
    checkpoint: PathBuf,
    other_checkpoint: PathBuf,
    key: PathBuf,
    bundle_bytes: Vec<u8>,
}

fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    let tasks: Vec<([u8; 32], Value)> = (0..5u8)
        .map(|i| {
            (
                [i; 32],
                json!({"id": format!("t-{i}"), "goal": format!("goal {i}"), "n": 1.5}),
            )
        })
        .collect();
    let signer = NoteSigner::from_seed("cli.test", &[3u8; 32]).unwrap();
    let body = |tasks: &[([u8; 32], Value)]| {
        Checkpoint {
            origin: "cli.test/sets/2026-08".into(),
            size: tasks.len() as u64,
            root: tree_root(&commitments(tasks).unwrap()),
        }
        .body()
    };
    let checkpoint = signer.sign(&body(&tasks));
    let key = signer.verifier_key();
    let bundle = build(
        "2026-08",
        "Historical-2026-08",
        &key,
        &checkpoint,
        &Entry::all_revealed(&tasks),
    )
    .unwrap();
    let mut v: Value = serde_json::from_slice(&bundle).unwrap();
    v["tasks"][3]["task"]["goal"] = json!("goal 3, changed after go-live");
    let mut changed = tasks.clone();
    changed[3].1["goal"] = json!("goal 3, changed after go-live");
    let path = |name: &str| dir.path().join(name);
    std::fs::write(path("bundle.json"), &bundle).unwrap();
    std::fs::write(path("tampered.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    std::fs::write(path("checkpoint"), &checkpoint).unwrap();
    std::fs::write(path("other"), signer.sign(&body(&changed))).unwrap();
    std::fs::write(path("key"), format!("{key}\n")).unwrap();
    Files {
        bundle: path("bundle.json"),
        tampered: path("tampered.json"),
        checkpoint: path("checkpoint"),
        other_checkpoint: path("other"),
        key: path("key"),
        bundle_bytes: bundle,
        _dir: dir,
    }
}

fn run(program: &str, args: &[&Path]) -> (i32, String, String) {
    let mut cmd = if program == "rust" {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcpbench"));
        c.arg("verify");
        c
    } else {
        let mut c = Command::new("python3");
        c.arg(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/verify/mcpbench_verify.py"),
        );
        c
    };
    let o: Output = cmd.args(args).output().unwrap();
    (
        o.status.code().unwrap(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn both_verifiers_accept_the_bundle_and_name_the_first_mismatch_of_a_tampered_one() {
    let f = files();
    let (cp, key) = (Path::new("--checkpoint"), Path::new("--key"));
    for program in ["rust", "python"] {
        let (code, out, err) = run(program, &[&f.bundle, cp, &f.checkpoint, key, &f.key]);
        assert_eq!(code, 0, "{program}: {out}{err}");
        assert!(
            out.starts_with("ok: set 2026-08 (Historical-2026-08): 5 tasks match"),
            "{program}: {out}"
        );
        assert!(!err.contains("warning"), "{program}: {err}");

        let (code, out, err) = run(program, &[&f.bundle]);
        assert_eq!(code, 0, "{program}: {out}{err}");
        assert!(
            err.contains("warning") && err.contains("proves nothing"),
            "{program}: {err}"
        );

        let (code, _, err) = run(program, &[&f.tampered, key, &f.key]);
        assert_eq!(code, 1, "{program}: {err}");
        assert!(
            err.contains("task 3") && err.contains("\"t-3\"") && err.contains("commitment"),
            "{program}: {err}"
        );

        // The service re-signed a changed set: the checkpoint kept at go-live catches it.
        let (code, _, err) = run(program, &[&f.bundle, cp, &f.other_checkpoint, key, &f.key]);
        assert_eq!(code, 1, "{program}: {err}");
        assert!(
            err.contains("checkpoint is not the one given"),
            "{program}: {err}"
        );

        let missing = f.bundle.with_file_name("missing.json");
        let (code, _, err) = run(program, &[&missing]);
        assert_eq!(code, 2, "{program}: {err}");
        let (code, _, err) = run(program, &[&f.bundle, key, &missing]);
        assert_eq!(code, 2, "{program}: {err}");
    }
}

/// Serves `body` once per connection to `GET` requests on loopback, 404 to anything else.
fn serve(body: Vec<u8>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut request = [0u8; 4096];
            let n = stream.read(&mut request).unwrap_or(0);
            let head = String::from_utf8_lossy(&request[..n]).into_owned();
            let found = head.starts_with("GET /sets/2026-08/bundle ");
            let (status, payload) = if found {
                ("200 OK", body.as_slice())
            } else {
                ("404 Not Found", &b"{}"[..])
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                payload.len()
            );
            let _ = stream.write_all(payload);
        }
    });
    format!("http://{addr}")
}

#[test]
fn a_bundle_is_fetched_by_its_url() {
    let f = files();
    let base = serve(f.bundle_bytes.clone());
    let url = format!("{base}/sets/2026-08/bundle");
    for program in ["rust", "python"] {
        let (code, out, err) = run(program, &[Path::new(&url), Path::new("--key"), &f.key]);
        assert_eq!(code, 0, "{program}: {out}{err}");
        let (code, _, err) = run(
            program,
            &[Path::new(&format!("{base}/sets/2026-09/bundle"))],
        );
        assert_eq!(code, 2, "{program}: a 404 is not a verdict: {err}");
    }
}

/// The sample reveal in examples/verify/sample verifies with both verifiers, and the README
/// shows the fingerprint of the key that signed it.
#[test]
fn the_sample_reveal_verifies_and_the_readme_shows_its_key() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sample = root.join("examples/verify/sample");
    let (bundle, cp, key) = (
        sample.join("2026-10.bundle.json"),
        sample.join("2026-10.checkpoint"),
        sample.join("key"),
    );
    let mut printed = Vec::new();
    for program in ["rust", "python"] {
        let (code, out, err) = run(
            program,
            &[
                &bundle,
                Path::new("--checkpoint"),
                &cp,
                Path::new("--key"),
                &key,
            ],
        );
        assert_eq!(code, 0, "{program}: {out}{err}");
        printed.push(out.trim().rsplit(' ').next().unwrap().to_string());
    }
    assert_eq!(printed[0], printed[1]);
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(&printed[0]),
        "README.md lacks the sample key's fingerprint {}",
        printed[0]
    );
}
