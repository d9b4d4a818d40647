//! The reveal bundle of a retired set and its verification (docs/attestations.md).

use crate::commit::{Salt, commitment};
use crate::jcs::{StrictValue, canonical};
use crate::merkle::{Hash, inclusion_proof, leaf_hash, root, verify_inclusion};
use crate::note::{Checkpoint, NoteVerifier, decode_hex};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;

pub const FORMAT: &str = "mcpbench-reveal/1";

/// A retired set's reveal, as published.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Bundle {
    format: String,
    set: String,
    tag: String,
    key: String,
    checkpoint: String,
    tasks: Vec<Revealed>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Revealed {
    salt: String,
    task: StrictValue,
    proof: Vec<String>,
}

impl Serialize for StrictValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// Why a bundle was refused: one sentence naming the first failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Rejected(pub String);

fn rejected(msg: impl Into<String>) -> Rejected {
    Rejected(msg.into())
}

/// What a verified bundle showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub set: String,
    pub tag: String,
    pub tasks: usize,
    pub root: Hash,
    /// The signing key's fingerprint.
    pub fingerprint: String,
    /// The key was the bundle's own (no `--key`): it proves nothing about who signed.
    pub key_from_bundle: bool,
}

/// The leaf data of each task (its commitment), in set order.
pub fn commitments(tasks: &[(Salt, Value)]) -> Result<Vec<Hash>, Rejected> {
    tasks
        .iter()
        .map(|(salt, task)| {
            let bytes = canonical(task).map_err(|e| rejected(e.to_string()))?;
            Ok(commitment(salt, &bytes))
        })
        .collect()
}

/// The Merkle root over commitments.
pub fn tree_root(commitments: &[Hash]) -> Hash {
    let leaves: Vec<Hash> = commitments.iter().map(|c| leaf_hash(c)).collect();
    root(&leaves)
}

/// Writes the bundle of a set whose go-live `checkpoint` (a signed note) commits to `tasks`.
pub fn build(
    set: &str,
    tag: &str,
    key: &str,
    checkpoint: &str,
    tasks: &[(Salt, Value)],
) -> Result<Vec<u8>, Rejected> {
    let leaves: Vec<Hash> = commitments(tasks)?.iter().map(|c| leaf_hash(c)).collect();
    let tasks = tasks
        .iter()
        .enumerate()
        .map(|(i, (salt, task))| Revealed {
            salt: hex::encode(salt),
            task: StrictValue(task.clone()),
            proof: inclusion_proof(i, &leaves)
                .expect("index within the tree")
                .iter()
                .map(hex::encode)
                .collect(),
        })
        .collect();
    let bundle = Bundle {
        format: FORMAT.into(),
        set: set.into(),
        tag: tag.into(),
        key: key.into(),
        checkpoint: checkpoint.into(),
        tasks,
    };
    Ok(serde_json::to_vec(&bundle).expect("a bundle serializes"))
}

/// `YYYY-MM`: a committed set is named by the month it is live, and its tag follows.
pub fn is_month(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 7
        && b[4] == b'-'
        && b[..4].iter().chain(&b[5..]).all(u8::is_ascii_digit)
        && (1..=12).contains(&s[5..].parse::<u32>().unwrap_or(0))
}

/// Checks a bundle as docs/attestations.md says, in its order. `checkpoint` is the note saved
/// at go-live and `key` the service's verifier key, when the caller has them.
pub fn verify(
    bytes: &[u8],
    checkpoint: Option<&str>,
    key: Option<&str>,
) -> Result<Verified, Rejected> {
    let bundle: Bundle = serde_json::from_slice(bytes)
        .map_err(|e| rejected(format!("the bundle is not a reveal bundle: {e}")))?;
    if bundle.format != FORMAT {
        return Err(rejected(format!("the format is not {FORMAT}")));
    }
    if !is_month(&bundle.set) {
        return Err(rejected("the set is not named by its month, YYYY-MM"));
    }
    if bundle.tag != format!("Historical-{}", bundle.set) {
        return Err(rejected("the tag is not Historical-<set>"));
    }
    if checkpoint.is_some_and(|c| c != bundle.checkpoint) {
        return Err(rejected("the bundle's checkpoint is not the one given"));
    }
    if key.is_some_and(|k| k.strip_suffix('\n').unwrap_or(k) != bundle.key) {
        return Err(rejected("the bundle names another key than the one given"));
    }
    let verifier = NoteVerifier::parse(key.unwrap_or(&bundle.key))
        .map_err(|e| rejected(format!("the key: {e}")))?;
    let text = verifier
        .open(&bundle.checkpoint)
        .map_err(|e| rejected(e.to_string()))?;
    let cp = Checkpoint::parse(text).map_err(|e| rejected(e.to_string()))?;
    if !cp.origin.ends_with(&format!("/sets/{}", bundle.set)) {
        return Err(rejected(format!(
            "the checkpoint's origin {:?} is not of set {:?}",
            cp.origin, bundle.set
        )));
    }
    if cp.size != bundle.tasks.len() as u64 {
        return Err(rejected(format!(
            "the checkpoint commits to {} tasks, the bundle reveals {}",
            cp.size,
            bundle.tasks.len()
        )));
    }
    let mut ids = HashSet::new();
    let mut leaves = Vec::with_capacity(bundle.tasks.len());
    for (i, entry) in bundle.tasks.iter().enumerate() {
        let at = |what: &str| rejected(format!("task {i}: {what}"));
        let salt: Salt =
            decode_hex(&entry.salt).ok_or_else(|| at("the salt is not 64 lowercase hex digits"))?;
        let Some(Value::String(id)) = entry.task.0.get("id") else {
            return Err(at("the task has no string id"));
        };
        if !ids.insert(id.as_str()) {
            return Err(at(&format!("the id {id:?} appears twice")));
        }
        let proof = entry
            .proof
            .iter()
            .map(|p| decode_hex::<32>(p))
            .collect::<Option<Vec<Hash>>>()
            .ok_or_else(|| at("a proof element is not 64 lowercase hex digits"))?;
        let bytes = canonical(&entry.task.0).map_err(|e| at(&e.to_string()))?;
        let leaf = leaf_hash(&commitment(&salt, &bytes));
        if !verify_inclusion(&leaf, i as u64, cp.size, &proof, &cp.root) {
            return Err(at(&format!(
                "{id:?} does not match the commitment at its place"
            )));
        }
        leaves.push(leaf);
    }
    if root(&leaves) != cp.root {
        return Err(rejected("the tasks' root is not the checkpoint's"));
    }
    Ok(Verified {
        set: bundle.set,
        tag: bundle.tag,
        tasks: leaves.len(),
        root: cp.root,
        fingerprint: verifier.fingerprint(),
        key_from_bundle: key.is_none(),
    })
}
