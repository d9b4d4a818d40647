//! The public pack (`tasks/packs/public`): the public generator's families. Every family
//! proves over many draws as `tasks check --pack` proves it, and together they reach every
//! server, every category and compositions over three servers. (Through generator version 10
//! each family was also held to draw exactly what the template in Rust it was ported from
//! draws; from version 11 the families are the generator and have moved on.)
//!
//! For the families' authors: `PACK_DIR=<dir>` reads another directory instead.

use mcpbench_pack::{Pack, check_pack};
use mcpbench_tasks::{Category, SERVERS};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn public_pack() -> Pack {
    let dir = std::env::var_os("PACK_DIR")
        .map_or_else(|| root().join("tasks/packs/public"), PathBuf::from);
    Pack::read(&dir).unwrap_or_else(|e| panic!("{e}"))
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
    let families: Vec<&mcpbench_pack::Family> = pack.families.iter().map(|f| &f.family).collect();
    for server in SERVERS {
        for category in Category::ALL {
            assert!(
                (families.iter()).any(|f| f.servers[0] == *server && f.category == category),
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
