//! Commitments to task sets (DESIGN.md section 6, REFERENCE.md section 4).
//!
//! This first part is the Merkle tree of RFC 6962 section 2.1, exactly: a leaf hashes as
//! `SHA-256(0x00 || data)`, an inner node as `SHA-256(0x01 || left || right)`, and a list of n
//! leaves splits at the largest power of two smaller than n. The domain bytes keep a leaf from
//! ever passing for a node (second-preimage attacks). Inclusion proofs are the audit paths of
//! section 2.1.1, checked with the algorithm of RFC 9162 section 2.1.3.2.

pub mod merkle;

pub use merkle::{Hash, inclusion_proof, leaf_hash, node_hash, root, verify_inclusion};
