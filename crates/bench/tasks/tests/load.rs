//! A malformed task fails to load with a message naming the file, the task and the field.

use mcpbench_tasks::{Manifest, Task, check_dir, load_dir, load_task};
use serde_json::{Value, json};
use std::path::Path;

/// The dev set's first task: slot 0 is always a filesystem task.
fn valid() -> Value {
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let manifest = Manifest::read(&dev)
        .unwrap()
        .expect("the dev set has a manifest");
    let text = std::fs::read_to_string(dev.join(format!("{}.json", manifest.tasks[0]))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn write(dir: &Path, v: &Value) -> std::path::PathBuf {
    let id = v.get("id").and_then(Value::as_str).unwrap_or("broken");
    let path = dir.join(format!("{id}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(v).unwrap()).unwrap();
    path
}

/// Loads `v` and returns the one-line errors.
fn errors_of(v: &Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), v);
    match load_task(&path) {
        Ok(_) => String::new(),
        Err(errs) => errs
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[test]
fn a_generated_task_loads() {
    assert_eq!(errors_of(&valid()), "");
}

/// Tasks of benchmark version 1 (hand-picked tools, no distractor servers, lenient answer
/// checks), as the first dev set held them: they still load, and the check finds the tricks
/// that pass them.
#[test]
fn version_1_tasks_load_and_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1");
    let task = load_task(&dir.join("cal-meeting-time-to-channel-0014.json")).unwrap();
    assert!(task.distractor_servers.is_empty());
    assert_eq!(
        task.offered_servers(),
        ["slack", "calendar"],
        "catalogue order"
    );
    let report = check_dir(&dir);
    assert!(report.load_errors.is_empty(), "{report:?}");
    // Their references still pass and their mutants still fail; what version 2 adds is that
    // no trick passes, which three of them were found to allow; what version 11 adds is that a
    // digit does not guess a count and a write made twice is noticed.
    let problems: Vec<(&str, &[String])> = report
        .verdicts
        .iter()
        .map(|v| (v.id.as_str(), v.problems.as_slice()))
        .collect();
    assert_eq!(
        problems,
        [
            ("cal-meeting-time-to-channel-0014", &[][..]),
            (
                "chat-user-title-0093",
                &[
                    "passes with no skill: no calls, every text of the initial state listed"
                        .to_string()
                ][..]
            ),
            (
                "gh-count-open-bugs-0121",
                &[
                    "passes with no skill: no calls, the answer \"1 2 3\"".to_string(),
                    "passes with no skill: no calls, a number from 0 to 9 as the answer"
                        .to_string()
                ][..]
            ),
            (
                "trk-github-issue-to-tracker-0016",
                &[
                    "step 2 (tracker.create_issue) made twice adds a record and still passes: \
                     the predicate needs a guard (a count) that a blind retry's duplicate fails"
                        .to_string(),
                    "step 3 (github.add_issue_comment) made twice adds a record and still \
                     passes: the predicate needs a guard (a count) that a blind retry's \
                     duplicate fails"
                        .to_string()
                ][..]
            ),
        ]
    );
}

/// A change that breaks a valid task.
type Damage = Box<dyn Fn(&mut Value)>;

#[test]
fn each_kind_of_damage_is_named() {
    let id = valid()["id"].as_str().unwrap().to_string();
    let cases: Vec<(&str, Damage, &str)> = vec![
        (
            "unknown field",
            Box::new(|v| {
                v["colour"] = json!("red");
            }),
            "colour",
        ),
        (
            "missing goal",
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("goal");
            }),
            "goal",
        ),
        (
            "bad category",
            Box::new(|v| {
                v["category"] = json!("trivia");
            }),
            "category",
        ),
        (
            "steps as text",
            Box::new(|v| {
                v["max_steps"] = json!("eight");
            }),
            "max_steps",
        ),
        (
            "unknown predicate",
            Box::new(|v| {
                v["success_predicate"] = json!({"filesystem.fileExist": {"path": "/a"}});
            }),
            "filesystem.fileExist",
        ),
        (
            "predicate argument",
            Box::new(|v| {
                v["success_predicate"] = json!({"filesystem.fileExists": {"pth": "/a"}});
            }),
            "success_predicate",
        ),
        (
            "unknown server atom",
            Box::new(|v| {
                v["success_predicate"] = json!({"jira.issueOpen": {"key": "A-1"}});
            }),
            "unknown predicate",
        ),
        (
            "empty all",
            Box::new(|v| {
                v["success_predicate"] = json!({"all": []});
            }),
            "at least one",
        ),
        (
            "unknown tool",
            Box::new(|v| {
                v["available_tools"][0] = json!("filesystem.teleport");
            }),
            "available_tools[0]",
        ),
        (
            "server not listed",
            Box::new(|v| {
                v["server"] = json!("github");
            }),
            "server",
        ),
        (
            "unknown server",
            Box::new(|v| {
                v["servers"] = json!(["filesystem", "fax"]);
            }),
            "servers[1]",
        ),
        (
            "seed field",
            Box::new(|v| {
                v["initial_state"]["filesystem"]["flies"] = json!({});
            }),
            "initial_state.filesystem",
        ),
        (
            "bad seed path",
            Box::new(|v| {
                v["initial_state"]["filesystem"]["files"] = json!({"relative/path": "x"});
            }),
            "not absolute",
        ),
        (
            "huge integer",
            Box::new(|v| {
                v["max_steps"] = json!(9007199254740993u64);
            }),
            "2^53",
        ),
        (
            "fault on unlisted tool",
            Box::new(|v| {
                let tools = v["available_tools"].as_array_mut().unwrap();
                tools.retain(|t| t != "filesystem.delete_file");
                v["faults"] = json!([{"tool": "filesystem.delete_file", "on_call": 1, "error": "unavailable", "message": "down"}]);
            }),
            "faults[0].tool",
        ),
        (
            "distractor the task needs",
            Box::new(|v| {
                v["distractor_servers"] = json!(["filesystem"]);
            }),
            "is one of the task's servers",
        ),
        (
            "unknown distractor",
            Box::new(|v| {
                v["distractor_servers"] = json!(["fax"]);
            }),
            "distractor_servers[0]",
        ),
        (
            "four distractors",
            Box::new(|v| {
                v["distractor_servers"] = json!(["github", "slack", "email", "shop"]);
            }),
            "at most 3",
        ),
        (
            "tool of a server not offered",
            Box::new(|v| {
                let offered: Vec<Value> = v["servers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .chain(v["distractor_servers"].as_array().unwrap())
                    .cloned()
                    .collect();
                let other = ["calendar", "weather", "memory", "shop"]
                    .into_iter()
                    .find(|s| !offered.contains(&json!(s)))
                    .unwrap();
                let tool = mcpbench_world::catalog(other).unwrap()[0].name;
                v["available_tools"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!(format!("{other}.{tool}")));
            }),
            "in neither servers nor distractor_servers",
        ),
    ];
    for (what, damage, expect) in cases {
        let mut v = valid();
        damage(&mut v);
        let errors = errors_of(&v);
        assert!(!errors.is_empty(), "{what}: the damaged task loaded");
        assert!(
            errors.contains(".json"),
            "{what}: the error names no file: {errors}"
        );
        assert!(
            errors.contains(expect),
            "{what}: expected {expect:?} in: {errors}"
        );
        if what != "unknown field" && what != "missing goal" && what != "huge integer" {
            assert!(
                errors.contains(&format!("task {id}")),
                "{what}: the error names no task: {errors}"
            );
        }
    }
}

#[test]
fn not_json_and_wrong_file_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.json");
    std::fs::write(&path, "{ \"id\": ").unwrap();
    let e = load_task(&path).unwrap_err()[0].to_string();
    assert!(e.contains("x.json") && e.contains("not valid JSON"), "{e}");
    let v = valid();
    let path = dir.path().join("other-name.json");
    std::fs::write(&path, v.to_string()).unwrap();
    let e = load_task(&path).unwrap_err()[0].to_string();
    assert!(e.contains("must be named"), "{e}");
}

#[test]
fn oversized_files_are_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    std::fs::write(&path, " ".repeat(2 << 20)).unwrap();
    let e = load_task(&path).unwrap_err()[0].to_string();
    assert!(e.contains("at most"), "{e}");
}

#[test]
fn check_fails_a_task_whose_reference_does_not_pass_or_whose_goal_is_met_already() {
    let dir = tempfile::tempdir().unwrap();
    // Ten tasks of the dev set, which `tasks check` proves whole (no attacked twin, which
    // would need its task beside it).
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let good: Vec<Task> = load_dir(&dev)
        .expect("the dev set")
        .into_iter()
        .filter(|t| t.attack.is_none())
        .take(10)
        .collect();
    for t in &good {
        std::fs::write(
            dir.path().join(format!("{}.json", t.id)),
            serde_json::to_string(t).unwrap(),
        )
        .unwrap();
    }
    assert!(check_dir(dir.path()).ok(), "the untouched set is valid");

    // A reference that drops its state-changing calls no longer passes.
    let mut broken = serde_json::to_value(&good[0]).unwrap();
    broken["reference_solutions"] = json!([[]]);
    write(dir.path(), &broken);
    let report = check_dir(dir.path());
    assert!(!report.ok());
    let v = report.verdicts.iter().find(|v| v.id == good[0].id).unwrap();
    assert!(
        v.problems
            .iter()
            .any(|p| p.contains("reference 1 does not pass")),
        "{:?}",
        v.problems
    );

    // A predicate that is always true (not (P and not P)): doing nothing passes.
    let mut trivial = serde_json::to_value(&good[1]).unwrap();
    let p = trivial["success_predicate"].clone();
    trivial["success_predicate"] = json!({"not": {"all": [p.clone(), {"not": p}]}});
    write(dir.path(), &trivial);
    let report = check_dir(dir.path());
    let v = report.verdicts.iter().find(|v| v.id == good[1].id).unwrap();
    assert!(
        v.problems
            .iter()
            .any(|p| p.contains("doing nothing passes")),
        "{:?}",
        v.problems
    );
}
