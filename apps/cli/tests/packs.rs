//! The pack commands as an operator runs them: `tasks check --pack` (one family, its draws
//! written out), `tasks generate --pack`, and `admin pack add | list | retire` with `admin set
//! create --generate --pack-share` against a real PostgreSQL; nothing they print quotes a
//! family.

mod support;

use std::process::{Command, Output};
use std::sync::OnceLock;
use support::{repo, text};

fn mcpbench(args: &[&str], database_url: Option<&str>) -> Output {
    static KEYS: OnceLock<String> = OnceLock::new();
    let keys = KEYS.get_or_init(|| mcpbench_vault::Keyring::generate("k1").1);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpbench"));
    cmd.args(args)
        .env("MCPBENCH_TASK_KEYS", keys)
        .env("MCPBENCH_SIGNING_KEY", "05".repeat(32))
        .env_remove("MCPBENCH_LOG");
    if let Some(url) = database_url {
        cmd.env("DATABASE_URL", url);
    }
    cmd.output().unwrap()
}

fn heldout() -> String {
    repo().join("tasks/packs/heldout").display().to_string()
}

#[test]
fn check_one_family_writes_its_draws_and_generate_records_the_pack() {
    let dir = tempfile::tempdir().unwrap();
    let drawn = dir.path().join("drawn");
    let o = mcpbench(
        &[
            "tasks",
            "check",
            "--pack",
            &heldout(),
            "--family",
            "crew-go-no-go",
            "--draws",
            "3",
            "--write",
            drawn.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("crew-go-no-go") && !t.contains("trip-alert-cover"),
        "{t}"
    );
    assert!(t.contains("all 1 families valid over every draw"), "{t}");
    // The draws written out are task files `tasks check` proves as they were proven.
    assert_eq!(std::fs::read_dir(&drawn).unwrap().count(), 3);
    let o = mcpbench(&["tasks", "check", drawn.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", text(&o));

    let o = mcpbench(
        &["tasks", "check", "--pack", &heldout(), "--family", "nope"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no family \"nope\""));

    let month = dir.path().join("month");
    let o = mcpbench(
        &[
            "tasks",
            "generate",
            "--pack",
            &heldout(),
            "--seed",
            "4",
            "--count",
            "12",
            "--out",
            month.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", text(&o));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(month.join("manifest.json")).unwrap())
            .unwrap();
    assert!(
        manifest["pack"]
            .as_str()
            .is_some_and(|p| p.starts_with("heldout-test sha256:")),
        "{manifest}"
    );
    let o = mcpbench(&["tasks", "check", month.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_broken_pack_is_refused_naming_its_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pack.json"),
        r#"{"format": "mcpbench-pack/1", "name": "broken"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("a.json"),
        r#"{"format": "mcpbench-family/1"}"#,
    )
    .unwrap();
    let o = mcpbench(
        &["tasks", "check", "--pack", dir.path().to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("a.json") && t.contains("missing field"), "{t}");
}

#[test]
fn an_operator_adds_a_pack_draws_a_month_from_it_and_retires_a_family() {
    let url = mcpbench_testkit::database_url("packs");
    let db = Some(url.as_str());
    let o = mcpbench(&["admin", "pack", "add", &heldout(), "--draws", "2"], db);
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(stdout.starts_with("heldout-test sha256:"), "{stdout}");
    let o = mcpbench(&["admin", "pack", "list"], db);
    assert!(
        text(&o).contains("families   12 retired    0"),
        "{}",
        text(&o)
    );
    let o = mcpbench(
        &[
            "admin",
            "set",
            "create",
            "2026-11",
            "--generate",
            "8",
            "--pack-share",
            "0.5",
        ],
        db,
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("4 of them from private families"),
        "{}",
        text(&o)
    );
    let o = mcpbench(
        &["admin", "pack", "retire", "heldout-test", "crew-go-no-go"],
        db,
    );
    assert!(o.status.success(), "{}", text(&o));
    let o = mcpbench(&["admin", "pack", "list"], db);
    assert!(text(&o).contains("retired    1"), "{}", text(&o));
    // Nothing printed along the way named a live family.
    let o = mcpbench(&["admin", "set", "list"], db);
    assert!(!text(&o).contains("trip-alert-cover"));
}
