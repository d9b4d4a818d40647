//! The public pack (`tasks/packs/public`): families of the public generator written as data.
//! Each family draws, from any stream, exactly the task its template in Rust draws from that
//! stream (so the format reaches what the templates express), and every family proves over
//! many draws as `tasks check --pack` proves it.
//!
//! For the families' authors: `PACK_FAMILY=<id>` narrows the first test to one family,
//! `PACK_DIR=<dir>` reads another directory instead of the public pack, and `PACK_SEED` and
//! `PACK_DRAWS` compare other streams, or more of them.

use mcpbench_pack::{Pack, check_pack};
use mcpbench_sim::Rng;
use mcpbench_tasks::{Task, templates};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The streams compared: `(SEED, 0..DRAWS)` unless the environment says otherwise.
fn streams() -> (u64, u64) {
    let var = |name, default| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    (var("PACK_SEED", 20_261_128), var("PACK_DRAWS", 12))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn public_pack() -> Pack {
    let dir = std::env::var_os("PACK_DIR")
        .map_or_else(|| root().join("tasks/packs/public"), PathBuf::from);
    Pack::read(&dir).unwrap_or_else(|e| panic!("{e}"))
}

/// The id of the template in Rust a family ports: `shop.reprice-product` ports
/// `shop.reprice_product`.
fn template_id(family: &str) -> String {
    family.replace('-', "_")
}

/// The first place two JSON values differ, with what each holds there.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (va, vb) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                if let Some(d) = first_difference(&format!("{path}.{k}"), va, vb) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(&format!("{path}[{i}]"), va, vb)),
        _ if a == b => None,
        _ => {
            let clip = |v: &Value| v.to_string().chars().take(300).collect::<String>();
            Some(format!(
                "{path}:\n    rust: {}\n    pack: {}",
                clip(a),
                clip(b)
            ))
        }
    }
}

#[test]
fn every_family_draws_what_its_template_in_rust_draws() {
    let only = std::env::var("PACK_FAMILY").ok();
    let (seed, draws) = streams();
    let pack = public_pack();
    let rust = templates();
    let mut compared = 0;
    for loaded in &pack.families {
        let family = &loaded.family;
        if only.as_deref().is_some_and(|o| o != family.id) {
            continue;
        }
        let id = template_id(&family.id);
        let template = rust
            .iter()
            .find(|t| t.id == id)
            .unwrap_or_else(|| panic!("{}: ports no template (no {id})", family.id));
        assert_eq!(template.servers, family.servers, "{}: servers", family.id);
        assert_eq!(
            template.category, family.category,
            "{}: category",
            family.id
        );
        assert_eq!(
            template.difficulty, family.difficulty,
            "{}: difficulty",
            family.id
        );
        for stream in 0..draws {
            let task = |body| Task::from_body("t-1".into(), family.servers[0], &id, body);
            let want = task(template.build(&mut Rng::new(seed, stream)));
            let have = family
                .draw(&mut Rng::new(seed, stream))
                .unwrap_or_else(|e| panic!("{} draw {stream}: {e}", family.id));
            let have = task(have);
            let (want, have) = (
                serde_json::to_value(&want).unwrap(),
                serde_json::to_value(&have).unwrap(),
            );
            if let Some(d) = first_difference("task", &want, &have) {
                panic!("{} draw {stream} differs at {d}", family.id);
            }
        }
        compared += 1;
    }
    assert!(compared > 0, "no family compared");
}

#[test]
fn every_family_proves_over_many_draws() {
    let pack = public_pack();
    let report = check_pack(&pack, 8, 1);
    let bad: Vec<String> = report
        .families
        .iter()
        .filter(|f| !f.ok())
        .map(|f| format!("{}: {}", f.family, f.problems.join("; ")))
        .collect();
    assert!(
        bad.is_empty(),
        "families that do not prove:\n{}",
        bad.join("\n")
    );
    for f in &report.families {
        assert_eq!(f.drawn, f.draws, "{}: some draws failed", f.family);
        assert!(
            f.mutants > 0 && f.killed == f.mutants,
            "{}: {}/{} mutants",
            f.family,
            f.killed,
            f.mutants
        );
    }
}

#[test]
fn the_public_pack_reaches_every_server_category_and_composition() {
    let pack = public_pack();
    let rust = templates();
    let families: Vec<&mcpbench_pack::Family> = pack.families.iter().map(|f| &f.family).collect();
    assert!(
        families.len() * 3 >= rust.len(),
        "{} families port less than a third of the {} templates",
        families.len(),
        rust.len()
    );
    for server in mcpbench_tasks::SERVERS {
        for category in mcpbench_tasks::Category::ALL {
            assert!(
                families
                    .iter()
                    .any(|f| f.servers[0] == *server && f.category == category)
                    || !rust
                        .iter()
                        .any(|t| t.servers[0] == *server && t.category == category),
                "no {} family of {server}",
                category.as_str()
            );
        }
    }
    assert!(
        families.iter().any(|f| f.servers.len() == 3),
        "no family across three servers"
    );
}
