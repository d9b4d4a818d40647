//! The held-out test pack (`tasks/packs/heldout`): twelve families of their own over all ten
//! servers, written apart from the public generator as a deployment writes its private ones.
//! Every family proves over many draws, and a month drawn from the pack gives nothing to the
//! strategies without skill nor to the heuristic agent (pattern matching without reasoning).

use mcpbench_pack::{Pack, check_pack, public_templates};
use mcpbench_tasks::{SERVERS, Source, generate_from, heuristic_passes, tricks_passing};
use std::path::Path;

fn heldout() -> Pack {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/packs/heldout");
    Pack::read(&dir).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_held_out_family_proves_and_the_pack_spans_every_server() {
    let pack = heldout();
    for server in SERVERS {
        assert!(
            pack.families.iter().any(|f| f.family.servers[0] == *server),
            "no held-out family is filed under {server}"
        );
    }
    let report = check_pack(&pack, 6, 11);
    let bad: Vec<String> = (report.families.iter())
        .filter(|f| !f.ok())
        .map(|f| format!("{}: {}", f.family, f.problems.join("; ")))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_month_drawn_from_the_held_out_pack_gives_nothing_to_pattern_matching() {
    let pack = heldout();
    let families = pack.templates();
    let month = generate_from(
        &Source::new(&families, public_templates()),
        20_261_201,
        40,
        &[],
    )
    .expect("a month of 40 draws");
    let tricked: Vec<&str> = (month.iter())
        .filter(|t| !tricks_passing(t).is_empty())
        .map(|t| t.id.as_str())
        .collect();
    assert!(tricked.is_empty(), "no-skill passes: {tricked:?}");
    let heuristic: Vec<&str> = (month.iter())
        .filter(|t| heuristic_passes(t))
        .map(|t| t.id.as_str())
        .collect();
    assert!(
        heuristic.len() * 20 <= month.len(),
        "the heuristic agent passes {} of {}: {heuristic:?}",
        heuristic.len(),
        month.len()
    );
}
