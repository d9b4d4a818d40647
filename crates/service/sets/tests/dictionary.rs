//! A dictionary attack on published commitments. The attacker knows the template and hashes
//! every task of its whole parameter space. Against unsalted hashes (the control) that recovers
//! every task; against the salted commitments the service publishes it recovers none.
//!
//! The generator's own templates also draw filler state, so their spaces are far beyond
//! enumeration (measured: 20,000 draws gave 19,288 to 20,000 distinct tasks for every one of
//! them). The attack is therefore run on a template whose space is small by construction,
//! 100,000 parameter tuples, each a complete task in our format: the case the salt is for.

use mcpbench_attest::jcs::canonical;
use mcpbench_attest::{DOMAIN, commitment, new_salt};
use mcpbench_sets::secret_seed;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};

const DIRS: u64 = 100;
const COUNTS: u64 = 100;
const EXTS: [&str; 10] = [
    "log", "txt", "csv", "json", "md", "tmp", "bak", "dat", "xml", "yaml",
];

/// The template: every parameter tuple gives one task.
fn task(dir: u64, count: u64, ext: &str) -> Value {
    json!({
        "id": "fs-move-by-extension-0042-202611",
        "server": "filesystem", "servers": ["filesystem"],
        "category": "composition", "difficulty": "medium", "max_steps": 8,
        "goal": format!("Move the {count} newest .{ext} files under /srv/app{dir} into /archive."),
        "initial_state": {"filesystem": {"files": {format!("/srv/app{dir}/a.{ext}"): "x"}}},
        "available_tools": ["filesystem.move_file", "filesystem.list_directory"],
        "success_predicate": {"filesystem.fileExists": {"path": format!("/archive/a.{ext}")}},
        "faults": [], "reference_solutions": [],
        "template": {"id": "filesystem.move_by_extension",
                     "params": {"dir": dir, "count": count, "ext": ext}}
    })
}

fn bytes(v: &Value) -> Vec<u8> {
    canonical(v).unwrap()
}

#[test]
fn salted_commitments_resist_the_dictionary_that_breaks_unsalted_hashes() {
    // Tasks drawn with secret randomness, published both ways.
    let victims: Vec<Vec<u8>> = (0..8)
        .map(|_| {
            let r = secret_seed();
            bytes(&task(
                r % DIRS,
                (r >> 16) % COUNTS,
                EXTS[((r >> 32) % 10) as usize],
            ))
        })
        .collect();
    let unsalted: HashSet<[u8; 32]> = victims.iter().map(|v| Sha256::digest(v).into()).collect();
    let salted: HashSet<[u8; 32]> = victims.iter().map(|v| commitment(&new_salt(), v)).collect();

    // The whole space, hashed every way the attacker can without the salt.
    let mut found_unsalted: HashMap<[u8; 32], Vec<u8>> = HashMap::new();
    let mut found_salted = 0usize;
    let mut candidates = 0usize;
    for dir in 0..DIRS {
        for count in 0..COUNTS {
            for ext in EXTS {
                let c = bytes(&task(dir, count, ext));
                candidates += 1;
                let plain: [u8; 32] = Sha256::digest(&c).into();
                if unsalted.contains(&plain) {
                    found_unsalted.insert(plain, c.clone());
                }
                let guesses: [[u8; 32]; 2] = [
                    commitment(&[0u8; 32], &c),
                    Sha256::new()
                        .chain_update(DOMAIN)
                        .chain_update(&c)
                        .finalize()
                        .into(),
                ];
                found_salted += guesses.iter().filter(|g| salted.contains(*g)).count();
            }
        }
    }
    assert_eq!(candidates, 100_000);
    assert_eq!(
        found_unsalted.len(),
        unsalted.len(),
        "the control: every unsalted task falls"
    );
    for v in &victims {
        assert_eq!(&found_unsalted[&<[u8; 32]>::from(Sha256::digest(v))], v);
    }
    assert_eq!(found_salted, 0, "a salted commitment gave its task away");
}
