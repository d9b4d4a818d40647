//! The generator's promises: determinism, balance, and the shape of its tasks.

use mcpbench_tasks::{Category, SERVERS, Task, check_tasks, generate, write_set};
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn same_seed_same_tasks_other_seed_other_tasks() {
    let a = generate(42, 60);
    let b = generate(42, 60);
    let c = generate(43, 60);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let same = a.iter().zip(&c).filter(|(x, y)| x.goal == y.goal).count();
    assert!(
        same < 10,
        "another seed should give mostly other goals ({same} of 60 equal)"
    );
    let ids: BTreeSet<&String> = a.iter().map(|t| &t.id).collect();
    assert_eq!(ids.len(), a.len(), "ids are unique");
}

#[test]
fn sets_are_balanced_across_servers_categories_and_difficulties() {
    let tasks = generate(7, 200);
    let mut per_server: BTreeMap<&str, Vec<&Task>> = BTreeMap::new();
    for t in &tasks {
        per_server.entry(t.server.as_str()).or_default().push(t);
    }
    assert_eq!(per_server.len(), SERVERS.len(), "every server has tasks");
    for (server, ts) in &per_server {
        assert_eq!(ts.len(), 200 / SERVERS.len(), "{server}");
        for c in Category::ALL {
            assert!(
                ts.iter().any(|t| t.category == c),
                "{server} has no {} task",
                c.as_str()
            );
        }
        let difficulties: BTreeSet<_> = ts.iter().map(|t| t.difficulty).collect();
        assert!(difficulties.len() >= 2, "{server} has one difficulty only");
    }
    let multi = tasks.iter().filter(|t| t.servers.len() > 1).count();
    if SERVERS.len() == 10 {
        assert!(
            multi * 100 >= 15 * tasks.len(),
            "only {multi} of 200 tasks use several servers"
        );
    }
}

#[test]
fn generated_tasks_are_valid() {
    let tasks = generate(99, 120);
    let verdicts = check_tasks(&tasks);
    let bad: Vec<String> = verdicts
        .iter()
        .flat_map(|v| v.problems.iter().map(move |p| format!("{}: {p}", v.id)))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn writing_a_set_replaces_an_earlier_set_but_never_foreign_files() {
    let dir = tempfile::tempdir().unwrap();
    write_set(dir.path(), 1, 30).unwrap();
    let second = write_set(dir.path(), 2, 10).unwrap();
    let files = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(
        files,
        second.tasks.len() + 1,
        "old tasks are gone, new ones and the manifest are there"
    );
    std::fs::write(dir.path().join("mine.json"), "{}").unwrap();
    let err = write_set(dir.path(), 3, 10).unwrap_err();
    assert!(err.to_string().contains("mine.json"), "{err}");
    assert!(dir.path().join("mine.json").exists());
}
