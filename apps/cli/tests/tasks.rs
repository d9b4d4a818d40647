//! The `mcpbench tasks` commands as a user runs them: exit codes and what they print.

use std::process::{Command, Output};

fn mcpbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(args)
        .output()
        .expect("run mcpbench")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn generate_then_check_passes_and_prints_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("set");
    let o = mcpbench(&[
        "tasks",
        "generate",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
        "--count",
        "30",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    // A set generated for a try is never published as the dev set by mistake.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["set"], "generated-3");
    // Thirty tasks, and beside each whose family carries an attack its attacked twin.
    let ids = manifest["tasks"].as_array().unwrap();
    let twins = (ids.iter())
        .filter(|id| id.as_str().unwrap().ends_with("-attacked"))
        .count();
    let written = 30 + twins;
    assert_eq!(ids.len(), written);
    let o = mcpbench(&["tasks", "check", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("kill rate") && t.contains(&format!("all {written} tasks valid")),
        "{t}"
    );

    let o = mcpbench(&["tasks", "check", out.to_str().unwrap(), "--json"]);
    assert!(o.status.success());
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json prints JSON");
    assert_eq!(report["tasks"], written);
    assert_eq!(report["valid"], written);
    assert!(report["kill_rate"].as_f64().unwrap() > 0.9);
}

#[test]
fn check_exits_1_and_names_the_broken_task() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("set");
    assert!(
        mcpbench(&[
            "tasks",
            "generate",
            "--seed",
            "4",
            "--out",
            out.to_str().unwrap(),
            "--count",
            "10"
        ])
        .status
        .success()
    );
    let victim = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| !p.ends_with("manifest.json"))
        .unwrap();
    let mut task: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&victim).unwrap()).unwrap();
    task["reference_solutions"] = serde_json::json!([[]]);
    std::fs::write(&victim, task.to_string()).unwrap();
    let o = mcpbench(&["tasks", "check", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let id = task["id"].as_str().unwrap();
    assert!(
        text(&o).contains(&format!("FAIL {id}: reference 1 does not pass")),
        "{}",
        text(&o)
    );
}

#[test]
fn usage_errors_exit_2_with_a_reason() {
    let o = mcpbench(&[
        "tasks",
        "generate",
        "--seed",
        "18014398509481984",
        "--out",
        "/tmp/never",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("2^53"), "{}", text(&o));
    let o = mcpbench(&[
        "tasks",
        "generate",
        "--seed",
        "1",
        "--set",
        "../dev",
        "--out",
        "/tmp/never",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("set id"), "{}", text(&o));
    assert!(!std::path::Path::new("/tmp/never").exists());
    let o = mcpbench(&["tasks", "check", "/definitely/not/here"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("not a directory"), "{}", text(&o));
    let o = mcpbench(&["tasks", "frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn schema_prints_the_committed_schema() {
    let o = mcpbench(&["tasks", "schema"]);
    assert!(o.status.success());
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../schemas/task.schema.json"
    ))
    .unwrap();
    assert!(
        String::from_utf8_lossy(&o.stdout) == committed,
        "`mcpbench tasks schema` differs from schemas/task.schema.json"
    );
}

#[test]
fn stats_prints_each_figure_beside_its_target_and_refuses_a_broken_set() {
    let dev = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks/dev");
    let o = mcpbench(&["tasks", "stats", dev]);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert!(out.starts_with("200 tasks"), "{out}");
    for figure in [
        "reference calls, median",
        "tools shown per task",
        "no-skill passes",
        "heuristic agent passes",
        "heuristic agent: passes",
        "script baseline: passes",
        "goals in API vocabulary",
        "goals handing over a database number",
        "writes made twice unnoticed",
    ] {
        assert!(out.contains(figure), "{figure} missing from:\n{out}");
    }
    assert!(
        !out.contains("MISSED"),
        "the dev set meets every target:\n{out}"
    );
    // Against itself a set repeats every goal: the one figure it misses.
    let o = mcpbench(&["tasks", "stats", dev, "--against", dev]);
    let out = text(&o);
    assert_eq!(out.matches("MISSED").count(), 1, "{out}");
    assert!(out.contains("(200 identical)"), "{out}");
    let o = mcpbench(&["tasks", "stats", dev, "--against", dev, "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    assert_eq!(json["tasks"], 200);
    assert_eq!(json["similarity"]["identical_goals"], 200);
    // The script, written against the public families, passes a share of the public set.
    let rate = json["script_pass_rate"]
        .as_f64()
        .expect("the script's rate");
    assert!(rate > 0.1 && rate < 1.0, "{rate}");
    assert_eq!(
        json["script_passes"].as_array().map(Vec::len),
        Some((rate * 200.0).round() as usize)
    );

    let broken = tempfile::tempdir().unwrap();
    std::fs::write(broken.path().join("bad.json"), "{ not json").unwrap();
    let o = mcpbench(&["tasks", "stats", broken.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("does not load"), "{}", text(&o));
    let o = mcpbench(&["tasks", "stats", "/definitely/not/here"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("not a directory"), "{}", text(&o));
}
