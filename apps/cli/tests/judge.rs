//! `mcpbench eval --judge-url … --judge-model …` against a scripted judge endpoint on loopback
//! (a plain HTTP/1.1 server on a thread): every run judged, beside the scores, never in them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Answers every chat completion with each rubric item scored 9, as a bare JSON object.
fn fake_judge() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                if line == "\r\n" || line.is_empty() {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            counter.fetch_add(1, Ordering::SeqCst);
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let user = request["messages"][1]["content"].as_str().unwrap();
            let scores: serde_json::Map<String, serde_json::Value> = user
                .split("## Rubric")
                .nth(1)
                .unwrap()
                .lines()
                .filter_map(|l| l.strip_prefix("- "))
                .map(|l| (l.split(':').next().unwrap().to_string(), 9.into()))
                .collect();
            let content = serde_json::json!({ "scores": scores }).to_string();
            let reply = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]}).to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (url, asked)
}

#[test]
fn every_run_is_judged_beside_its_scores() {
    let (url, asked) = fake_judge();
    let dev = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks/dev");
    let tasks = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir(dev)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("mail-")
        })
        .collect();
    files.sort();
    for f in files.iter().take(3) {
        std::fs::copy(f, tasks.path().join(f.file_name().unwrap())).unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args([
            "eval",
            "--tasks",
            tasks.path().to_str().unwrap(),
            "--agent",
            "oracle",
            "--json",
        ])
        .args(["--out", out.path().to_str().unwrap(), "--judge-url", &url])
        .args(["--judge-model", "judge-9", "--judge-shuffles", "3"])
        .env("MCPBENCH_JUDGE_API_KEY", "sk-never-printed")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        !stderr.contains("sk-never-printed")
            && !String::from_utf8_lossy(&o.stdout).contains("sk-never-printed")
    );
    assert!(
        stderr.contains("rubric judge judge-9: 3 runs judged, mean 0.90"),
        "{stderr}"
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        9,
        "three shuffles for each of three runs"
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["judge"]["runs"], 3);
    assert_eq!(report["judge"]["mean_passed"], 0.9);
    assert_eq!(
        report["success_rate"], 1.0,
        "the scores are the checks' alone"
    );
    for run in report["runs"].as_array().unwrap() {
        assert_eq!(run["judgement"]["valid_shuffles"], 3);
        assert_eq!(run["judgement"]["items"][0]["id"], "R1");
    }
    // Half a configuration is refused before anything runs.
    let o = Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args([
            "eval",
            "--tasks",
            tasks.path().to_str().unwrap(),
            "--agent",
            "oracle",
        ])
        .args(["--out", out.path().to_str().unwrap(), "--judge-url", &url])
        .env_remove("MCPBENCH_JUDGE_MODEL")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("MCPBENCH_JUDGE_MODEL"));
}
