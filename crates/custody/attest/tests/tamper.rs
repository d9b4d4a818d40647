//! Every tampered bundle is refused, by `mcpbench verify`'s code and by the independent Python
//! verifier (examples/verify), and the untouched bundle is accepted by both.
//!
//! The bundle reveals nine dev tasks (a tree that is not a power of two). More than 10,000
//! variants are derived from it by a seeded generator: bytes flipped anywhere, tasks swapped,
//! leaves dropped and duplicated, salts changed, task members edited, proofs damaged, wrong
//! sizes (signed and unsigned), signatures by another key or damaged, and checkpoints the
//! service re-signed after the fact (refused against the checkpoint saved at go-live).
//!
//! A bundle that withholds tasks a live set still holds (only their commitments shown) is
//! accepted by both with the same places withheld, and its own tampering is refused: withheld
//! commitments changed or moved, a salt or task added to a withheld entry, withheld entries in
//! the first format, which had none.

use mcpbench_attest::bundle::{Entry, build, commitments, tree_root};
use mcpbench_attest::{Checkpoint, NoteSigner, Salt, verify};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SET: &str = "2026-10";
const TAG: &str = "Historical-2026-10";

/// SplitMix64: the variants are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn salt(&mut self) -> Salt {
        let mut s = [0u8; 32];
        for chunk in s.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes());
        }
        s
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

struct Fixture {
    signer: NoteSigner,
    other: NoteSigner,
    tasks: Vec<(Salt, Value)>,
    checkpoint: String,
    bundle: Vec<u8>,
}

impl Fixture {
    fn new(rng: &mut Rng) -> Self {
        let mut files: Vec<PathBuf> = std::fs::read_dir(workspace().join("tasks/dev"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let tasks: Vec<(Salt, Value)> = files
            .iter()
            .step_by(22)
            .take(9)
            .map(|p| {
                let task = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
                (rng.salt(), task)
            })
            .collect();
        assert_eq!(tasks.len(), 9);
        let signer = NoteSigner::from_seed("tamper.test", &rng.salt()).unwrap();
        let other = NoteSigner::from_seed("tamper.test", &rng.salt()).unwrap();
        let checkpoint = signer.sign(&body(&tasks, SET));
        let bundle = build(
            SET,
            TAG,
            &signer.verifier_key(),
            &checkpoint,
            &Entry::all_revealed(&tasks),
        )
        .unwrap();
        Self {
            signer,
            other,
            tasks,
            checkpoint,
            bundle,
        }
    }

    fn value(&self) -> Value {
        serde_json::from_slice(&self.bundle).unwrap()
    }
}

fn body(tasks: &[(Salt, Value)], set: &str) -> String {
    Checkpoint {
        origin: format!("tamper.test/sets/{set}"),
        size: tasks.len() as u64,
        root: tree_root(&commitments(tasks).unwrap()),
    }
    .body()
}

/// A tampered bundle, and whether the verifier is given the go-live checkpoint.
struct Variant {
    class: &'static str,
    bytes: Vec<u8>,
    with_checkpoint: bool,
}

fn variants(fx: &Fixture, rng: &mut Rng) -> Vec<Variant> {
    let original: Value = fx.value();
    let mut out = Vec::new();
    let mut push = |class, v: &Value, with_checkpoint| {
        out.push(Variant {
            class,
            bytes: serde_json::to_vec(v).unwrap(),
            with_checkpoint,
        })
    };
    let n = fx.tasks.len();
    let entries = |v: &mut Value| -> Vec<Value> { v["tasks"].as_array().unwrap().clone() };
    for round in 0..1000 {
        let (i, j) = (rng.below(n), (rng.below(n - 1) + 1 + rng.below(n)) % n);
        let j = if i == j { (i + 1) % n } else { j };
        let mut v = original.clone();
        // Tasks swapped: whole entries, or the tasks alone under their places' salts and proofs.
        let mut e = entries(&mut v);
        if round % 2 == 0 {
            e.swap(i, j);
        } else {
            let t = e[i]["task"].take();
            e[i]["task"] = e[j]["task"].take();
            e[j]["task"] = t;
        }
        v["tasks"] = Value::Array(e);
        push("tasks swapped", &v, false);

        // A salt changed.
        let mut v = original.clone();
        v["tasks"][i]["salt"] = json!(hex::encode(rng.salt()));
        push("salt changed", &v, false);

        // A task's member edited, added or removed.
        let mut v = original.clone();
        let task = v["tasks"][i]["task"].as_object_mut().unwrap();
        match round % 4 {
            0 => {
                let goal = task["goal"].as_str().unwrap().to_string();
                let at = rng.below(goal.len());
                let at = (0..=at).rev().find(|k| goal.is_char_boundary(*k)).unwrap();
                let mut g = goal.clone();
                g.insert(
                    at,
                    if goal.as_bytes()[at] == b'x' {
                        'y'
                    } else {
                        'x'
                    },
                );
                task.insert("goal".into(), json!(g));
            }
            1 => {
                let steps = task["max_steps"].as_u64().unwrap();
                task.insert("max_steps".into(), json!(steps + 1 + rng.below(5) as u64));
            }
            2 => {
                task.insert(format!("extra{}", rng.below(100)), json!(rng.below(10)));
            }
            _ => {
                task.remove("faults");
            }
        }
        push("task edited", &v, false);

        // A proof damaged: an element flipped, dropped, added or taken from another task.
        let mut v = original.clone();
        let proof = v["tasks"][i]["proof"].as_array_mut().unwrap();
        let k = rng.below(proof.len());
        match round % 4 {
            0 => {
                let mut h = hex::decode(proof[k].as_str().unwrap()).unwrap();
                h[rng.below(32)] ^= 1 << rng.below(8);
                proof[k] = json!(hex::encode(h));
            }
            1 => {
                proof.remove(k);
            }
            2 => proof.push(json!(hex::encode(rng.salt()))),
            _ => {
                let theirs = original["tasks"][j]["proof"][0].clone();
                if proof[0] == theirs {
                    proof.remove(0);
                } else {
                    proof[0] = theirs;
                }
            }
        }
        push("proof damaged", &v, false);

        // Signatures: by another key (its own key shipped along; ours is pinned), damaged, gone.
        let mut v = original.clone();
        let body = body(&fx.tasks, SET);
        match round % 3 {
            0 => {
                v["checkpoint"] = json!(fx.other.sign(&body));
                v["key"] = json!(fx.other.verifier_key());
            }
            1 => {
                let (text, line) = fx.checkpoint.rsplit_once("— ").unwrap();
                let (name, blob) = line.trim_end().split_once(' ').unwrap();
                use base64::Engine;
                let b64 = base64::engine::general_purpose::STANDARD;
                let mut sig = b64.decode(blob).unwrap();
                let at = 4 + rng.below(64);
                sig[at] ^= 1 << rng.below(8);
                v["checkpoint"] = json!(format!("{text}— {name} {}\n", b64.encode(sig)));
            }
            _ => v["checkpoint"] = json!(format!("{body}\n")),
        }
        push("bad signature", &v, false);
    }
    for round in 0..500 {
        let i = rng.below(n);
        // A leaf dropped, and the same with a checkpoint the service signed again afterwards.
        let mut v = original.clone();
        let mut e = entries(&mut v);
        e.remove(i);
        v["tasks"] = Value::Array(e);
        push("leaf dropped", &v, false);
        let mut kept = fx.tasks.clone();
        kept.remove(i);
        v["checkpoint"] = json!(fx.signer.sign(&body(&kept, SET)));
        push("leaf dropped, re-signed", &v, true);

        // A leaf duplicated: in another's place, or added at the end.
        let mut v = original.clone();
        let mut e = entries(&mut v);
        let j = (i + 1 + rng.below(n - 1)) % n;
        if round % 2 == 0 {
            e[j] = e[i].clone();
        } else {
            e.push(e[i].clone());
        }
        v["tasks"] = Value::Array(e);
        push("leaf duplicated", &v, false);

        // A wrong size: edited under the old signature, or signed by our key over the right
        // root (a verifier must still count the tasks).
        let mut v = original.clone();
        let cp = Checkpoint::parse(&body(&fx.tasks, SET)).unwrap();
        let size = if round % 2 == 0 {
            cp.size + 1 + rng.below(3) as u64
        } else {
            cp.size - 1 - rng.below(3) as u64
        };
        let wrong = Checkpoint { size, ..cp.clone() }.body();
        if round % 4 < 2 {
            v["checkpoint"] = json!(fx.checkpoint.replacen(&cp.body(), &wrong, 1));
        } else {
            v["checkpoint"] = json!(fx.signer.sign(&wrong));
        }
        push("wrong size", &v, false);

        // The service re-signs a changed set after go-live: the verifier holds the original.
        let mut v = original.clone();
        let mut changed = fx.tasks.clone();
        changed[i].0 = rng.salt();
        v["tasks"][i]["salt"] = json!(hex::encode(changed[i].0));
        v["checkpoint"] = json!(fx.signer.sign(&body(&changed, SET)));
        push("re-signed after go-live", &v, true);
        // Or signs another set's origin over these tasks.
        let mut v = original.clone();
        v["checkpoint"] = json!(fx.signer.sign(&body(&fx.tasks, "2026-09")));
        push("another set's checkpoint", &v, false);
    }
    // A task nested deeper than the format allows (64 levels): refused by both verifiers
    // alike, whatever their parsers' own recursion limits.
    let text = String::from_utf8(fx.bundle.clone()).unwrap();
    for depth in [65usize, 100, 126, 200, 1000] {
        let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let bytes = text.replacen("\"faults\":", &format!("\"deep\":{deep},\"faults\":"), 1);
        assert_ne!(bytes, text);
        out.push(Variant {
            class: "nested too deep",
            bytes: bytes.into_bytes(),
            with_checkpoint: false,
        });
    }
    // Bytes flipped anywhere in the file (a flip that leaves the same JSON is no tampering).
    let mut flips = 0;
    while flips < 4000 {
        let mut bytes = fx.bundle.clone();
        let at = rng.below(bytes.len());
        bytes[at] ^= (1 + rng.below(255)) as u8;
        let same = serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| v == original);
        if !same {
            out.push(Variant {
                class: "byte flipped",
                bytes,
                with_checkpoint: flips % 5 == 0,
            });
            flips += 1;
        }
    }
    out
}

#[test]
fn every_tampered_bundle_is_refused_by_both_verifiers() {
    let mut rng = Rng(20261123);
    let fx = Fixture::new(&mut rng);
    let key = fx.signer.verifier_key();
    let ok = verify(&fx.bundle, Some(&fx.checkpoint), Some(&key)).unwrap();
    assert_eq!(
        (ok.tasks, ok.set.as_str(), ok.key_from_bundle),
        (9, SET, false)
    );
    assert!(verify(&fx.bundle, None, None).unwrap().key_from_bundle);

    let started = std::time::Instant::now();
    let variants = variants(&fx, &mut rng);
    eprintln!(
        "{} variants made in {:?}",
        variants.len(),
        started.elapsed()
    );
    assert!(variants.len() >= 10_000, "{} variants", variants.len());
    let mut by_class: BTreeMap<&str, usize> = BTreeMap::new();
    for v in &variants {
        let checkpoint = v.with_checkpoint.then_some(fx.checkpoint.as_str());
        if let Ok(ok) = verify(&v.bytes, checkpoint, Some(&key)) {
            panic!("a bundle with {} was accepted: {ok:?}", v.class);
        }
        *by_class.entry(v.class).or_default() += 1;
    }
    eprintln!(
        "refused by the Rust verifier: {by_class:?} ({:?})",
        started.elapsed()
    );

    // The same bundles through the Python verifier, in one process: the untouched one first.
    let verdicts = python_verdicts(&fx.bundle, &fx.checkpoint, &key, &variants);
    assert_eq!(verdicts.len(), variants.len() + 1);
    assert_eq!(
        verdicts[0], "ok []",
        "the Python verifier refused the untouched bundle"
    );
    for (v, verdict) in variants.iter().zip(&verdicts[1..]) {
        assert!(
            verdict.starts_with("rejected"),
            "the Python verifier said {verdict:?} of a bundle with {}",
            v.class
        );
    }
}

/// Each record on the driver's stdin is `<length> <c|->\n<bytes>`; it answers one line each.
/// The first answer is for `bundle` itself: `ok` and the places withheld, as JSON.
fn python_verdicts(
    bundle: &[u8],
    checkpoint: &str,
    key: &str,
    variants: &[Variant],
) -> Vec<String> {
    let driver = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
import mcpbench_verify as v
key, checkpoint = open(sys.argv[2]).read(), open(sys.argv[3]).read()
inp = sys.stdin.buffer
while True:
    head = inp.readline()
    if not head:
        break
    n, mode = head.split()
    data = inp.read(int(n))
    try:
        s = v.verify(data, checkpoint if mode == b"c" else None, key)
        print("ok", json.dumps(s["withheld"], separators=(",", ":")), flush=False)
    except v.Rejected as e:
        print("rejected", str(e).replace("\n", " "))
    except Exception as e:
        print("crashed", type(e).__name__, str(e).replace("\n", " "))
"#;
    let dir = tempfile::tempdir().unwrap();
    let (key_file, cp_file) = (dir.path().join("key"), dir.path().join("checkpoint"));
    std::fs::write(&key_file, key).unwrap();
    std::fs::write(&cp_file, checkpoint).unwrap();
    let mut child = Command::new("python3")
        .args(["-c", driver])
        .arg(workspace().join("examples/verify"))
        .args([&key_file, &cp_file])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().unwrap();
    let records: Vec<(Vec<u8>, bool)> = std::iter::once((bundle.to_vec(), true))
        .chain(
            variants
                .iter()
                .map(|v| (v.bytes.clone(), v.with_checkpoint)),
        )
        .collect();
    let writer = std::thread::spawn(move || {
        for (bytes, with_checkpoint) in records {
            let mode = if with_checkpoint { "c" } else { "-" };
            writeln!(stdin, "{} {mode}", bytes.len()).unwrap();
            stdin.write_all(&bytes).unwrap();
        }
    });
    let verdicts: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(Result::unwrap)
        .collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    verdicts
}

/// The fixture's bundle with the tasks at `places` withheld.
fn withholding(fx: &Fixture, places: &[usize]) -> Vec<u8> {
    let commitments = commitments(&fx.tasks).unwrap();
    let entries: Vec<Entry> = Entry::all_revealed(&fx.tasks)
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            if places.contains(&i) {
                Entry::Withheld {
                    commitment: commitments[i],
                }
            } else {
                e
            }
        })
        .collect();
    build(
        SET,
        TAG,
        &fx.signer.verifier_key(),
        &fx.checkpoint,
        &entries,
    )
    .unwrap()
}

#[test]
fn a_bundle_withholding_live_tasks_verifies_and_its_tampering_is_refused_by_both() {
    let mut rng = Rng(20261124);
    let fx = Fixture::new(&mut rng);
    let key = fx.signer.verifier_key();
    let bundle = withholding(&fx, &[2, 6]);
    let ok = verify(&bundle, Some(&fx.checkpoint), Some(&key)).unwrap();
    assert_eq!((ok.tasks, ok.withheld.as_slice()), (9, &[2, 6][..]));
    let original: Value = serde_json::from_slice(&bundle).unwrap();
    assert_eq!(original["format"], "mcpbench-reveal/2");
    assert_eq!(
        original["tasks"][2]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["commitment", "proof"],
        "a withheld entry shows its commitment and proof only"
    );
    assert!(!String::from_utf8_lossy(&bundle).contains(fx.tasks[2].1["goal"].as_str().unwrap()));

    let mut out = Vec::new();
    let mut push = |class, v: &Value| {
        out.push(Variant {
            class,
            bytes: serde_json::to_vec(v).unwrap(),
            with_checkpoint: false,
        })
    };
    for round in 0..300 {
        let w = [2, 6][round % 2];
        let r = [0, 1, 3, 4, 5, 7, 8][rng.below(7)];
        let mut v = original.clone();
        let mut c = hex::decode(v["tasks"][w]["commitment"].as_str().unwrap()).unwrap();
        c[rng.below(32)] ^= 1 << rng.below(8);
        v["tasks"][w]["commitment"] = json!(hex::encode(c));
        push("withheld commitment changed", &v);

        let mut v = original.clone();
        let (a, b) = (v["tasks"][w].clone(), v["tasks"][r].clone());
        let (wp, rp) = (a["proof"].clone(), b["proof"].clone());
        v["tasks"][w] = b;
        v["tasks"][r] = a;
        if round % 3 == 0 {
            // Each entry keeps its place's proof: only the leaves moved.
            v["tasks"][w]["proof"] = wp;
            v["tasks"][r]["proof"] = rp;
        }
        push("withheld entry moved", &v);

        let mut v = original.clone();
        match round % 4 {
            0 => v["tasks"][w]["salt"] = json!(hex::encode(rng.salt())),
            1 => v["tasks"][w]["task"] = fx.tasks[w].1.clone(),
            2 => v["tasks"][r]["commitment"] = original["tasks"][w]["commitment"].clone(),
            _ => v["tasks"][w]["commitment"] = Value::Null,
        }
        push("entry of two shapes", &v);

        let mut v = original.clone();
        v["format"] = json!("mcpbench-reveal/1");
        push("withheld in the first format", &v);

        let mut v = original.clone();
        let upper = v["tasks"][w]["commitment"].as_str().unwrap().to_uppercase();
        v["tasks"][w]["commitment"] = json!(upper);
        push("commitment not lowercase hex", &v);

        // A revealed task withheld under a made-up commitment (the real one is its leaf).
        let mut v = original.clone();
        v["tasks"][r] = json!({"commitment": hex::encode(rng.salt()),
                               "proof": original["tasks"][r]["proof"].clone()});
        push("made-up commitment", &v);
    }
    for v in &out {
        if let Ok(ok) = verify(&v.bytes, None, Some(&key)) {
            panic!("a bundle with {} was accepted: {ok:?}", v.class);
        }
    }
    let verdicts = python_verdicts(&bundle, &fx.checkpoint, &key, &out);
    assert_eq!(
        verdicts[0], "ok [2,6]",
        "the Python verifier on the withholding bundle"
    );
    for (v, verdict) in out.iter().zip(&verdicts[1..]) {
        assert!(
            verdict.starts_with("rejected"),
            "the Python verifier said {verdict:?} of a bundle with {}",
            v.class
        );
    }
    // Revealing the withheld ones later gives the bundle every verifier accepted before.
    assert_eq!(
        verify(&withholding(&fx, &[]), Some(&fx.checkpoint), Some(&key))
            .unwrap()
            .withheld,
        Vec::<usize>::new()
    );
}
