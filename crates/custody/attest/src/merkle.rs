//! RFC 6962 Merkle tree hashes and inclusion proofs.

use sha2::{Digest, Sha256};

/// A SHA-256 digest.
pub type Hash = [u8; 32];

/// The hash of a leaf: `SHA-256(0x00 || data)`.
pub fn leaf_hash(data: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(data);
    h.finalize().into()
}

/// The hash of an inner node: `SHA-256(0x01 || left || right)`.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The largest power of two smaller than `n` (`n >= 2`).
fn split(n: usize) -> usize {
    debug_assert!(n >= 2);
    let mut k = 1;
    while k * 2 < n {
        k *= 2;
    }
    k
}

/// The Merkle tree hash of leaves given by their leaf hashes; the empty tree is
/// `SHA-256("")`.
pub fn root(leaves: &[Hash]) -> Hash {
    match leaves.len() {
        0 => Sha256::digest([]).into(),
        1 => leaves[0],
        n => {
            let k = split(n);
            node_hash(&root(&leaves[..k]), &root(&leaves[k..]))
        }
    }
}

/// The audit path of leaf `index` in the tree of `leaves` (RFC 6962 section 2.1.1), from the
/// leaf's sibling up; `None` when `index` is out of range.
pub fn inclusion_proof(index: usize, leaves: &[Hash]) -> Option<Vec<Hash>> {
    if index >= leaves.len() {
        return None;
    }
    let mut path = Vec::new();
    collect_path(index, leaves, &mut path);
    Some(path)
}

fn collect_path(index: usize, leaves: &[Hash], path: &mut Vec<Hash>) {
    let n = leaves.len();
    if n <= 1 {
        return;
    }
    let k = split(n);
    if index < k {
        collect_path(index, &leaves[..k], path);
        path.push(root(&leaves[k..]));
    } else {
        collect_path(index - k, &leaves[k..], path);
        path.push(root(&leaves[..k]));
    }
}

/// Whether `proof` shows that `leaf` (a leaf hash) is at `index` in a tree of `size` leaves
/// whose root is `root` (RFC 9162 section 2.1.3.2).
pub fn verify_inclusion(leaf: &Hash, index: u64, size: u64, proof: &[Hash], root: &Hash) -> bool {
    if index >= size {
        return false;
    }
    let (mut fn_, mut sn) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if sn == 0 {
            return false;
        }
        if fn_ & 1 == 1 || fn_ == sn {
            r = node_hash(p, &r);
            if fn_ & 1 == 0 {
                while fn_ & 1 == 0 && fn_ != 0 {
                    fn_ >>= 1;
                    sn >>= 1;
                }
            }
        } else {
            r = node_hash(&r, p);
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    sn == 0 && r == *root
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test leaves of transparency-dev's Merkle tree tests.
    fn leaves() -> Vec<Hash> {
        [
            "",
            "00",
            "10",
            "2021",
            "3031",
            "40414243",
            "5051525354555657",
            "606162636465666768696a6b6c6d6e6f",
        ]
        .iter()
        .map(|h| leaf_hash(&hex::decode(h).unwrap()))
        .collect()
    }

    #[test]
    fn roots_reproduce_the_published_vectors() {
        let expected = [
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        ];
        let leaves = leaves();
        for (size, want) in expected.iter().enumerate() {
            assert_eq!(hex::encode(root(&leaves[..size])), *want, "size {size}");
        }
    }

    #[test]
    fn every_proof_verifies_and_every_tampering_fails() {
        let leaves = leaves();
        for size in 1..=leaves.len() {
            let tree = &leaves[..size];
            let r = root(tree);
            for index in 0..size {
                let proof = inclusion_proof(index, tree).unwrap();
                let (i, n) = (index as u64, size as u64);
                assert!(
                    verify_inclusion(&tree[index], i, n, &proof, &r),
                    "{index} of {size}"
                );
                // Another leaf, another position, a position past the end, a changed or shortened or
                // lengthened path, another root: each is refused.
                let other = leaf_hash(b"not a leaf of this tree");
                assert!(!verify_inclusion(&other, i, n, &proof, &r));
                if size > 1 {
                    assert!(!verify_inclusion(&tree[index], (i + 1) % n, n, &proof, &r));
                }
                // (A proof alone does not pin the size: i = 0 has the same path in trees of 3
                // and 4 leaves. The signed checkpoint binds size and root together.)
                assert!(!verify_inclusion(&tree[index], n, n, &proof, &r));
                for at in 0..proof.len() {
                    let mut bad = proof.clone();
                    bad[at][0] ^= 1;
                    assert!(!verify_inclusion(&tree[index], i, n, &bad, &r));
                }
                if !proof.is_empty() {
                    assert!(!verify_inclusion(&tree[index], i, n, &proof[1..], &r));
                }
                let mut longer = proof.clone();
                longer.push(r);
                assert!(!verify_inclusion(&tree[index], i, n, &longer, &r));
                let mut bad_root = r;
                bad_root[31] ^= 1;
                assert!(!verify_inclusion(&tree[index], i, n, &proof, &bad_root));
            }
            assert!(inclusion_proof(size, tree).is_none());
        }
    }

    #[test]
    fn a_leaf_never_passes_for_a_node() {
        let leaves = leaves();
        let node = node_hash(&leaves[0], &leaves[1]);
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&leaves[0]);
        bytes.extend_from_slice(&leaves[1]);
        assert_ne!(
            leaf_hash(&bytes),
            node,
            "the domain bytes separate leaves from nodes"
        );
    }
}
