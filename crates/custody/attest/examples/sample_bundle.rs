//! Writes the sample reveal in `examples/verify/sample/`: nine public dev tasks committed and
//! revealed exactly as a retired private month is, signed by a key made for the sample and then
//! thrown away (its seed is never written). Readers try `mcpbench verify` and the Python
//! verifier on it; a test checks that it still verifies and that the README shows its key's
//! fingerprint.
//!
//! `cargo run -p mcpbench-attest --example sample_bundle -- <tasks/dev> <out dir>`

use mcpbench_attest::bundle::{Entry, build, commitments, tree_root};
use mcpbench_attest::{Checkpoint, NoteSigner, new_salt};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1).map(PathBuf::from);
    let (Some(tasks), Some(out)) = (args.next(), args.next()) else {
        eprintln!("usage: sample_bundle <tasks dir> <out dir>");
        std::process::exit(2);
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&tasks)
        .expect("the tasks directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.ends_with("manifest.json"))
        .collect();
    files.sort();
    let tasks: Vec<_> = files
        .iter()
        .step_by(22)
        .take(9)
        .map(|p| {
            let task =
                serde_json::from_slice(&std::fs::read(p).expect("a task file")).expect("task JSON");
            (new_salt(), task)
        })
        .collect();
    let signer = NoteSigner::from_seed("sample.mcpbench.example", &new_salt()).expect("a name");
    let body = Checkpoint {
        origin: "sample.mcpbench.example/sets/2026-10".into(),
        size: tasks.len() as u64,
        root: tree_root(&commitments(&tasks).expect("canonical tasks")),
    }
    .body();
    let checkpoint = signer.sign(&body);
    let key = signer.verifier_key();
    let bundle = build(
        "2026-10",
        "Historical-2026-10",
        &key,
        &checkpoint,
        &Entry::all_revealed(&tasks),
    )
    .expect("a bundle");
    std::fs::create_dir_all(&out).expect("the out directory");
    std::fs::write(out.join("2026-10.bundle.json"), bundle).expect("written");
    std::fs::write(out.join("2026-10.checkpoint"), &checkpoint).expect("written");
    std::fs::write(out.join("key"), format!("{key}\n")).expect("written");
    println!("{}", signer.fingerprint());
}
