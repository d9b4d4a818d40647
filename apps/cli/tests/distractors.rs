//! `mcpbench eval --distractors`: the curve of success against extra tools, on the reference
//! agents.

use std::process::{Command, Output};

fn mcpbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(args)
        .output()
        .expect("run mcpbench")
}

/// Every tenth dev task: all servers, serial and parallel ones.
fn some_tasks() -> tempfile::TempDir {
    let dev = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks/dev");
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir(dev)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "manifest.json")
        // No attacked twin, which would be there without its task.
        .filter(|p| !p.to_str().unwrap().ends_with("-attacked.json"))
        .collect();
    files.sort();
    for f in files.iter().step_by(10) {
        std::fs::copy(f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    dir
}

fn curve(agent: &str, tasks: &tempfile::TempDir, out: &tempfile::TempDir) -> serde_json::Value {
    let o = mcpbench(&[
        "eval",
        "--tasks",
        tasks.path().to_str().unwrap(),
        "--agent",
        agent,
        "--distractors",
        "0,5,20,all",
        "--json",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("success against distractors"), "{stderr}");
    serde_json::from_slice(&o.stdout).expect("--json prints the curve")
}

fn rate(point: &serde_json::Value, key: Option<&str>) -> f64 {
    let r = key.map_or(point, |k| &point[k]);
    r["success_rate"].as_f64().unwrap()
}

#[test]
fn the_oracle_stays_perfect_and_the_tools_offered_grow_with_the_level() {
    let tasks = some_tasks();
    let out = tempfile::tempdir().unwrap();
    let c = curve("oracle", &tasks, &out);
    let points = c["points"].as_array().unwrap();
    let levels: Vec<&str> = points
        .iter()
        .map(|p| p["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["0", "5", "20", "all"]);
    let serial = c["shapes"]["serial"].as_u64().unwrap();
    let parallel = c["shapes"]["parallel"].as_u64().unwrap();
    assert_eq!(serial + parallel, 20);
    assert!(serial > 0 && parallel > 0, "{c}");
    let tools: Vec<f64> = points
        .iter()
        .map(|p| p["tools"].as_f64().unwrap())
        .collect();
    assert!(tools.windows(2).all(|w| w[0] < w[1]), "{tools:?}");
    // Level 0 is the needed tools only, level 5 five more each.
    assert!((tools[1] - tools[0] - 5.0).abs() < 1e-9, "{tools:?}");
    for p in points {
        assert_eq!(p["tasks"], 20);
        assert_eq!(rate(p, None), 1.0, "the oracle solves every level: {p}");
        assert_eq!(p["serial"]["tasks"].as_u64().unwrap(), serial);
        assert_eq!(rate(p, Some("serial")), 1.0);
        assert_eq!(rate(p, Some("parallel")), 1.0);
    }
    for level in ["0", "5", "20", "all"] {
        let report: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.path().join(format!("level-{level}/report.json")))
                .unwrap(),
        )
        .unwrap();
        assert_eq!(report["tasks"], 20);
    }
    let svg = std::fs::read_to_string(out.path().join("curve.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<polyline").count(),
        3,
        "all tasks, serial, parallel"
    );
    assert!(
        svg.contains("all tasks, level all: 1.000 (20 of 20)"),
        "{svg}"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("curve.json")).unwrap())
            .unwrap();
    assert_eq!(saved, c);
}

#[test]
fn a_random_agent_strays_to_the_extra_servers_only_once_they_are_offered() {
    let tasks = some_tasks();
    let out = tempfile::tempdir().unwrap();
    let c = curve("random", &tasks, &out);
    let points = c["points"].as_array().unwrap();
    let share = |i: usize| points[i]["distractor_call_share"].as_f64().unwrap_or(0.0);
    // At level 0 only the needed tools are offered: no server the task does not need.
    assert_eq!(share(0), 0.0, "{c}");
    // With every tool offered, a random caller spends most calls on servers it needn't.
    assert!(share(3) > 0.3, "{c}");
    // The null agent's curve is flat at zero: nothing solved at any level.
    let out = tempfile::tempdir().unwrap();
    let c = curve("null", &tasks, &out);
    for p in c["points"].as_array().unwrap() {
        assert_eq!(rate(p, None), 0.0);
    }
}
