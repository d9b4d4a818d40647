//! `mcpbench eval --image`: a Docker image run on the tasks in the service's own sandbox, as a
//! vendor tries it before submitting: by the engine's name for it and as a `docker save`
//! archive, a broken image told apart from our faults, a bad argument refused plainly.

#[path = "../../../crates/service/sandbox/tests/support/images.rs"]
mod images;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mcpbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(args)
        .output()
        .expect("run mcpbench")
}

fn static_cli() -> PathBuf {
    let path = std::env::var_os("MCPBENCH_STATIC_CLI")
        .map(PathBuf::from)
        .expect(
            "MCPBENCH_STATIC_CLI must name a statically linked mcpbench; scripts/test builds it",
        );
    assert!(path.exists(), "{} does not exist", path.display());
    path
}

/// A directory with the first `n` dev tasks.
fn some_tasks(n: usize) -> tempfile::TempDir {
    let dev = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks/dev");
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir(dev)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for f in files.iter().take(n) {
        std::fs::copy(f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    dir
}

/// The reference agent `kind` in a `FROM scratch` image, knowing the tasks of `tasks`.
fn agent_image(tag: &str, kind: &str, tasks: &Path) -> String {
    images::build_image(
        tag,
        &[
            (&static_cli(), "/mcpbench"),
            (tasks, "/tasks"),
            // The agent's HTTP client loads the system's CA certificates at start, as a
            // vendor's image would ship them.
            (
                Path::new("/etc/ssl/certs/ca-certificates.crt"),
                "/etc/ssl/certs/ca-certificates.crt",
            ),
        ],
        &[
            "/mcpbench",
            "agent",
            "serve",
            "--kind",
            kind,
            "--tasks",
            "/tasks",
            "--addr",
            "0.0.0.0:8080",
        ],
    )
}

/// `eval --image` on `tasks`; the report it prints.
fn eval_image(tasks: &Path, image: &str) -> serde_json::Value {
    let out = tempfile::tempdir().unwrap();
    let o = mcpbench(&[
        "eval",
        "--tasks",
        tasks.to_str().unwrap(),
        "--image",
        image,
        "--time-budget",
        "30",
        "--json",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("the report on stdout")
}

#[test]
fn an_image_runs_the_tasks_in_the_sandbox_by_name_and_as_an_archive() {
    let tasks = some_tasks(3);
    let pid = std::process::id();
    let oracle = format!("mcpbench-eval-oracle:{pid}");
    agent_image(&oracle, "oracle", tasks.path());
    let report = eval_image(tasks.path(), &oracle);
    assert_eq!(report["tasks"], 3, "{report}");
    assert_eq!(
        report["passed"], 3,
        "the oracle passes in the sandbox: {report}"
    );
    assert_eq!(report["harness_errors"], 0);
    assert_eq!(report["agent"], oracle.as_str());

    // The null agent handed in as a `docker save` archive: checked, loaded, run; it passes
    // nothing and nothing fails on our side.
    let null = format!("mcpbench-eval-null:{pid}");
    agent_image(&null, "null", tasks.path());
    let archive = images::save(&null);
    images::remove_image(&null);
    let report = eval_image(tasks.path(), archive.to_str().unwrap());
    assert_eq!(report["passed"], 0, "{report}");
    assert_eq!(report["harness_errors"], 0, "{report}");
    for run in report["runs"].as_array().unwrap() {
        assert_ne!(run["reason"], "agent_error", "{run}");
    }

    // An image that never listens fails each run as the agent's fault, saying why.
    let silent = format!("mcpbench-eval-silent:{pid}");
    images::build_image(
        &silent,
        &[(&static_cli(), "/mcpbench")],
        &["/mcpbench", "--version"],
    );
    let report = eval_image(tasks.path(), &silent);
    assert_eq!(report["harness_errors"], 0, "{report}");
    for run in report["runs"].as_array().unwrap() {
        assert_eq!(run["reason"], "agent_error", "{run}");
        assert!(
            run["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{run}"
        );
    }
    for tag in [&oracle, &silent] {
        images::remove_image(tag);
    }
    // No pod of these runs is left behind.
    assert!(images::containers_with_label("mcpbench.eval").is_empty());
}

#[test]
fn an_image_that_is_neither_a_file_nor_on_the_engine_is_refused_plainly() {
    let tasks = some_tasks(1);
    let o = mcpbench(&[
        "eval",
        "--tasks",
        tasks.path().to_str().unwrap(),
        "--image",
        "nowhere/agent:latest",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("neither a file nor an image the Docker engine has"),
        "{err}"
    );
    // --agent and --image are one or the other.
    let o = mcpbench(&[
        "eval",
        "--tasks",
        tasks.path().to_str().unwrap(),
        "--image",
        "x",
        "--agent",
        "oracle",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
    // A file that is not an image archive is refused before anything runs.
    let elsewhere = tempfile::tempdir().unwrap();
    let junk = elsewhere.path().join("junk.tar");
    std::fs::write(&junk, b"not a tar").unwrap();
    let o = mcpbench(&[
        "eval",
        "--tasks",
        tasks.path().to_str().unwrap(),
        "--image",
        junk.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("junk.tar"));
}
