//! The salted commitment to one task: `SHA-256(domain || salt || JCS(task))`.

use crate::merkle::Hash;
use sha2::{Digest, Sha256};

/// Separates these hashes from every other SHA-256 the service takes.
pub const DOMAIN: &[u8] = b"mcpbench/task-commitment/v1\0";

/// A task's salt: 32 random bytes, drawn for it in one set.
pub type Salt = [u8; 32];

/// A fresh salt from the operating system's generator.
pub fn new_salt() -> Salt {
    let mut salt = [0u8; 32];
    getrandom::fill(&mut salt).expect("the operating system's random generator");
    salt
}

/// The commitment to a task's canonical bytes under `salt`.
pub fn commitment(salt: &Salt, canonical_task: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(salt);
    h.update(canonical_task);
    h.finalize().into()
}
