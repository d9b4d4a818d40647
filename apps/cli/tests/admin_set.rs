//! `mcpbench admin set create --generate N --pool DIR [--from-pool K]` against a real
//! PostgreSQL: the flags that do not go together are usage errors, a month draws from the pool,
//! an exhausted or invalid pool is refused with nothing created, and nothing the command prints
//! holds a pool task's goal.

mod support;

use mcpbench_tasks::Task;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;
use support::{repo, text};

/// `mcpbench admin set <args>` with the database and keys of private sets.
fn admin_set(database_url: &str, args: &[&str]) -> Output {
    static KEYS: OnceLock<String> = OnceLock::new();
    let keys = KEYS.get_or_init(|| mcpbench_vault::Keyring::generate("k1").1);
    Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(["admin", "set"])
        .args(args)
        .env("DATABASE_URL", database_url)
        .env("MCPBENCH_TASK_KEYS", keys)
        .env("MCPBENCH_SIGNING_KEY", "05".repeat(32))
        .env_remove("MCPBENCH_LOG")
        .output()
        .unwrap()
}

/// `n` dev tasks from `from` on, with ids and goals of their own (the marker is letters only).
fn write_pool(dir: &Path, from: usize, n: usize) -> Vec<Task> {
    std::fs::create_dir_all(dir).unwrap();
    let mut tasks = mcpbench_tasks::load_dir(&repo().join("tasks/dev")).unwrap();
    tasks.drain(..from);
    tasks.truncate(n);
    for (i, t) in tasks.iter_mut().enumerate() {
        t.id = format!("pool-{}", t.id);
        t.goal = format!(
            "{} (private marker zq{}xv)",
            t.goal,
            char::from(b'a' + i as u8)
        );
        std::fs::write(
            dir.join(format!("{}.json", t.id)),
            serde_json::to_string(t).unwrap(),
        )
        .unwrap();
    }
    tasks
}

fn no_goal(out: &str, tasks: &[Task]) {
    assert!(
        !out.contains("private marker"),
        "a pool goal is shown: {out}"
    );
    assert!(tasks.iter().all(|t| !out.contains(&t.goal)), "{out}");
}

#[test]
fn pool_flags_without_generate_or_with_from_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // Refused by the parser, before any database is reached.
    let url = "postgres://nobody@127.0.0.1:9/none";
    for (args, says) in [
        (vec!["create", "2026-11", "--pool", d], "--generate"),
        (
            vec!["create", "2026-11", "--from", d, "--pool", d],
            "cannot be used with",
        ),
        (
            vec!["create", "2026-11", "--generate", "8", "--from-pool", "2"],
            "--pool",
        ),
    ] {
        let o = admin_set(url, &args);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}");
        assert!(
            out.contains("Usage:") && out.contains(says),
            "{args:?}: {out}"
        );
        assert!(!out.contains("connecting"), "{args:?}: {out}");
    }
}

#[test]
fn a_month_draws_from_a_pool_and_an_exhausted_or_invalid_pool_creates_nothing() {
    let url = mcpbench_testkit::database_url("admin_set_pool");
    let dir = tempfile::tempdir().unwrap();
    let pool = dir.path().join("pool");
    let tasks = write_pool(&pool, 150, 4);
    let p = pool.to_str().unwrap();

    let o = admin_set(
        &url,
        &[
            "create",
            "2026-11",
            "--generate",
            "4",
            "--pool",
            p,
            "--from-pool",
            "2",
        ],
    );
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("2 fresh tasks and 2 drawn from the pool (4 were usable)"),
        "{out}"
    );
    no_goal(&out, &tasks);

    // Two pool tasks are left: a month asking three is refused, in counts.
    let o = admin_set(
        &url,
        &[
            "create",
            "2026-12",
            "--generate",
            "4",
            "--pool",
            p,
            "--from-pool",
            "3",
        ],
    );
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("2 usable tasks") && out.contains("2 already held by a set"),
        "{out}"
    );
    no_goal(&out, &tasks);

    // A pool file that fails its validity proof is named; its goal is not shown.
    let bad = dir.path().join("bad");
    let mut broken = write_pool(&bad, 160, 2);
    broken[1].goal = format!("{} through MCP", broken[1].goal);
    let file = bad.join(format!("{}.json", broken[1].id));
    std::fs::write(&file, serde_json::to_string(&broken[1]).unwrap()).unwrap();
    let o = admin_set(
        &url,
        &[
            "create",
            "2026-12",
            "--generate",
            "4",
            "--pool",
            bad.to_str().unwrap(),
        ],
    );
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("fail their validity proof") && out.contains(&file.display().to_string()),
        "{out}"
    );
    no_goal(&out, &broken);

    let o = admin_set(&url, &["list"]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    let sets: Vec<&str> = out.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(sets, ["2026-11"], "{out}");
    assert!(out.contains("draft\tprivate\t4 tasks"), "{out}");
}
