//! The reveal bundle of a retired set and its verification (docs/attestations.md).
//!
//! A retired set reveals each task with its salt, except the tasks a later live (or draft) set
//! still holds: those are withheld, shown by their commitment alone, until the last set that
//! holds them retires. Either way every leaf is in the bundle with its proof, so the root is
//! still computed from all of them.

use crate::commit::{Salt, commitment};
use crate::jcs::{StrictValue, canonical};
use crate::merkle::{Hash, inclusion_proof, leaf_hash, root, verify_inclusion};
use crate::note::{Checkpoint, NoteVerifier, decode_hex};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::HashSet;

/// The format written: entries are revealed or withheld.
pub const FORMAT: &str = "mcpbench-reveal/2";
/// The first format, still read: every entry revealed.
pub const FORMAT_V1: &str = "mcpbench-reveal/1";

/// A retired set's reveal, as published.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Bundle {
    format: String,
    set: String,
    tag: String,
    key: String,
    checkpoint: String,
    tasks: Vec<EntryRepr>,
}

/// One entry as written: `salt`, `task` and `proof` when revealed, `commitment` and `proof`
/// when withheld. Read with every member optional so that the shape is checked in one place
/// with one sentence; a member present must hold a value of its type (`null` is refused).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryRepr {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    salt: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    task: Option<StrictValue>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    commitment: Option<String>,
    proof: Vec<String>,
}

fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

impl Serialize for StrictValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// One leaf of a set, as its bundle shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// The task and its salt, in clear.
    Revealed { salt: Salt, task: Value },
    /// Only the commitment: a set that is still live (or a draft) holds the task.
    Withheld { commitment: Hash },
}

impl Entry {
    /// Every task of `tasks` revealed.
    pub fn all_revealed(tasks: &[(Salt, Value)]) -> Vec<Entry> {
        tasks
            .iter()
            .map(|(salt, task)| Entry::Revealed {
                salt: *salt,
                task: task.clone(),
            })
            .collect()
    }

    /// The entry's commitment: computed from the task when revealed.
    fn commitment(&self) -> Result<Hash, Rejected> {
        match self {
            Entry::Revealed { salt, task } => {
                let bytes = canonical(task).map_err(|e| rejected(e.to_string()))?;
                Ok(commitment(salt, &bytes))
            }
            Entry::Withheld { commitment } => Ok(*commitment),
        }
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
    /// Every leaf: revealed and withheld tasks.
    pub tasks: usize,
    /// The places (0-based, in set order) of the tasks withheld while a live set holds them.
    pub withheld: Vec<usize>,
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

/// Writes the bundle of a set whose go-live `checkpoint` (a signed note) commits to `entries`.
pub fn build(
    set: &str,
    tag: &str,
    key: &str,
    checkpoint: &str,
    entries: &[Entry],
) -> Result<Vec<u8>, Rejected> {
    let leaves: Vec<Hash> = entries
        .iter()
        .map(|e| e.commitment().map(|c| leaf_hash(&c)))
        .collect::<Result<_, _>>()?;
    let tasks = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let proof = inclusion_proof(i, &leaves)
                .expect("index within the tree")
                .iter()
                .map(hex::encode)
                .collect();
            match entry {
                Entry::Revealed { salt, task } => EntryRepr {
                    salt: Some(hex::encode(salt)),
                    task: Some(StrictValue(task.clone())),
                    commitment: None,
                    proof,
                },
                Entry::Withheld { commitment } => EntryRepr {
                    salt: None,
                    task: None,
                    commitment: Some(hex::encode(commitment)),
                    proof,
                },
            }
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

/// What a checked entry gives its leaf from.
enum Leaf<'a> {
    Salted(Salt, &'a Value),
    Committed(Hash),
}

/// An entry's shape, once its members are known to be of their types.
enum Shape<'a> {
    Revealed(&'a str, &'a Value),
    Withheld(&'a str),
}

fn shape<'a>(entry: &'a EntryRepr, format: &str) -> Option<Shape<'a>> {
    match (&entry.salt, &entry.task, &entry.commitment) {
        (Some(salt), Some(task), None) => Some(Shape::Revealed(salt, &task.0)),
        (None, None, Some(c)) if format == FORMAT => Some(Shape::Withheld(c)),
        _ => None,
    }
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
    if bundle.format != FORMAT && bundle.format != FORMAT_V1 {
        return Err(rejected(format!(
            "the format is neither {FORMAT} nor {FORMAT_V1}"
        )));
    }
    let shapes = bundle
        .tasks
        .iter()
        .enumerate()
        .map(|(i, e)| {
            shape(e, &bundle.format).ok_or_else(|| {
                rejected(format!(
                    "the bundle is not a reveal bundle: task {i} must have exactly salt, task, \
                     proof{}",
                    if bundle.format == FORMAT {
                        ", or exactly commitment, proof"
                    } else {
                        ""
                    }
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
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
    if cp.size != shapes.len() as u64 {
        return Err(rejected(format!(
            "the checkpoint commits to {} tasks, the bundle reveals {}",
            cp.size,
            shapes.len()
        )));
    }
    let mut ids = HashSet::new();
    let mut withheld = Vec::new();
    let mut leaves = Vec::with_capacity(shapes.len());
    for (i, (entry, shape)) in bundle.tasks.iter().zip(&shapes).enumerate() {
        let at = |what: &str| rejected(format!("task {i}: {what}"));
        // The entry's own checks first (salt, id, commitment), then its proof, then the leaf.
        let (salted, name) = match *shape {
            Shape::Revealed(salt, task) => {
                let salt: Salt = decode_hex(salt)
                    .ok_or_else(|| at("the salt is not 64 lowercase hex digits"))?;
                let Some(Value::String(id)) = task.get("id") else {
                    return Err(at("the task has no string id"));
                };
                if !ids.insert(id.as_str()) {
                    return Err(at(&format!("the id {id:?} appears twice")));
                }
                (Leaf::Salted(salt, task), format!("{id:?}"))
            }
            Shape::Withheld(c) => {
                let c: Hash = decode_hex(c)
                    .ok_or_else(|| at("the commitment is not 64 lowercase hex digits"))?;
                withheld.push(i);
                (Leaf::Committed(c), "the withheld commitment".to_string())
            }
        };
        let proof = entry
            .proof
            .iter()
            .map(|p| decode_hex::<32>(p))
            .collect::<Option<Vec<Hash>>>()
            .ok_or_else(|| at("a proof element is not 64 lowercase hex digits"))?;
        let c = match salted {
            Leaf::Salted(salt, task) => {
                let bytes = canonical(task).map_err(|e| at(&e.to_string()))?;
                commitment(&salt, &bytes)
            }
            Leaf::Committed(c) => c,
        };
        let leaf = leaf_hash(&c);
        if !verify_inclusion(&leaf, i as u64, cp.size, &proof, &cp.root) {
            return Err(at(&format!(
                "{name} does not match the commitment at its place"
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
        withheld,
        root: cp.root,
        fingerprint: verifier.fingerprint(),
        key_from_bundle: key.is_none(),
    })
}
