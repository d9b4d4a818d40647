//! Commitments to task sets (the exact formats are in docs/attestations.md).
//!
//! - [`merkle`]: the tree of RFC 6962 section 2.1, exactly: a leaf hashes as
//!   `SHA-256(0x00 || data)`, an inner node as `SHA-256(0x01 || left || right)`, and a list of n
//!   leaves splits at the largest power of two smaller than n. The domain bytes keep a leaf from
//!   ever passing for a node. Inclusion proofs are the audit paths of section 2.1.1, checked
//!   with the algorithm of RFC 9162 section 2.1.3.2.
//! - [`jcs`]: RFC 8785 canonical JSON, the bytes a task is committed by.
//! - [`commit`]: the salted per-task commitment; the salt is what makes a templated task
//!   impossible to recover by hashing every candidate.
//! - [`note`]: the checkpoint (origin, size, root) in a signed note, Ed25519.
//! - [`bundle`]: the reveal of a retired set and the verification `mcpbench verify` runs.

pub mod bundle;
pub mod commit;
pub mod jcs;
pub mod merkle;
pub mod note;

pub use bundle::{Rejected, Verified, verify};
pub use commit::{DOMAIN, Salt, commitment, new_salt};
pub use merkle::{Hash, inclusion_proof, leaf_hash, node_hash, root, verify_inclusion};
pub use note::{Checkpoint, NoteSigner, NoteVerifier, fingerprint};
