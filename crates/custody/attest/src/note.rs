//! Checkpoints (C2SP tlog-checkpoint) in signed notes (C2SP signed-note), Ed25519.
//!
//! A note is its text (lines ending in `\n`), a blank line, and signature lines
//! `— <name> <base64(key id || signature)>`. The key id is the first four bytes of
//! `SHA-256(name || "\n" || 0x01 || public key)`, so a verifier picks its own line out of
//! several. Verification is strict (`verify_strict`): a non-canonical `S` or a small-order key
//! or `R` is refused, so that one signature has one meaning.

use crate::merkle::Hash;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

/// The algorithm byte of Ed25519 in signed notes.
const ED25519: u8 = 0x01;
const DASH: &str = "\u{2014} ";

/// Why a note or a key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NoteError(pub String);

fn err(msg: impl Into<String>) -> NoteError {
    NoteError(msg.into())
}

fn key_id(name: &str, public: &[u8; 32]) -> [u8; 4] {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update(b"\n");
    h.update([ED25519]);
    h.update(public);
    h.finalize()[..4].try_into().expect("four bytes")
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('+') && !name.chars().any(char::is_whitespace)
}

/// The lowercase hex SHA-256 of a 32-byte public key, as the README and `verify` print it.
pub fn fingerprint(public: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(public))
}

/// The service's signing key, with the name its notes carry.
pub struct NoteSigner {
    name: String,
    key: SigningKey,
}

impl NoteSigner {
    /// A signer from a 32-byte Ed25519 seed. The name is the service's (no spaces, no `+`).
    pub fn from_seed(name: &str, seed: &[u8; 32]) -> Result<Self, NoteError> {
        if !valid_name(name) {
            return Err(err("a key name has no spaces and no '+'"));
        }
        Ok(Self {
            name: name.into(),
            key: SigningKey::from_bytes(seed),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The verifier key: `<name>+<hex key id>+<base64(0x01 || public key)>`.
    pub fn verifier_key(&self) -> String {
        let public = self.key.verifying_key().to_bytes();
        let mut tagged = vec![ED25519];
        tagged.extend_from_slice(&public);
        format!(
            "{}+{}+{}",
            self.name,
            hex::encode(key_id(&self.name, &public)),
            B64.encode(tagged)
        )
    }

    pub fn fingerprint(&self) -> String {
        fingerprint(&self.key.verifying_key().to_bytes())
    }

    /// The note of `text` (which must end in a newline) signed by this key.
    pub fn sign(&self, text: &str) -> String {
        debug_assert!(text.ends_with('\n'));
        let public = self.key.verifying_key().to_bytes();
        let mut blob = key_id(&self.name, &public).to_vec();
        blob.extend_from_slice(&self.key.sign(text.as_bytes()).to_bytes());
        format!("{text}\n{DASH}{} {}\n", self.name, B64.encode(blob))
    }
}

/// A verifier key read from its text form.
#[derive(Clone, Debug)]
pub struct NoteVerifier {
    name: String,
    id: [u8; 4],
    key: VerifyingKey,
}

impl NoteVerifier {
    pub fn parse(text: &str) -> Result<Self, NoteError> {
        let text = text.strip_suffix('\n').unwrap_or(text);
        // The base64 may hold '+' itself: the first two separate the fields.
        let mut parts = text.splitn(3, '+');
        let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(err("a key is <name>+<key id>+<base64 key>"));
        };
        if !valid_name(name) {
            return Err(err("the key's name is not valid"));
        }
        let tagged = B64
            .decode(key)
            .map_err(|_| err("the key is not canonical base64"))?;
        let Some((&ED25519, public)) = tagged.split_first() else {
            return Err(err("the key is not an Ed25519 key"));
        };
        let public: [u8; 32] = public
            .try_into()
            .map_err(|_| err("an Ed25519 key has 32 bytes"))?;
        let id =
            decode_hex::<4>(id).ok_or_else(|| err("the key id is not 8 lowercase hex digits"))?;
        if id != key_id(name, &public) {
            return Err(err("the key id does not belong to the key"));
        }
        let key =
            VerifyingKey::from_bytes(&public).map_err(|_| err("the key is not a curve point"))?;
        Ok(Self {
            name: name.into(),
            id,
            key,
        })
    }

    pub fn fingerprint(&self) -> String {
        fingerprint(&self.key.to_bytes())
    }

    /// The text of `note` when a signature line by this key verifies. Every signature line
    /// must be well formed, even after a good one (as Go's `note.Open` reads them).
    pub fn open<'n>(&self, note: &'n str) -> Result<&'n str, NoteError> {
        let malformed = || err("the checkpoint is not a signed note");
        if note.bytes().any(|b| b < 0x20 && b != b'\n') || !note.ends_with('\n') {
            return Err(malformed());
        }
        let split = note.rfind("\n\n").ok_or_else(malformed)?;
        if split + 2 == note.len() {
            return Err(malformed()); // no signature line
        }
        let (text, signatures) = (&note[..=split], &note[split + 2..note.len() - 1]);
        let (mut ours, mut good) = (0, false);
        for line in signatures.split('\n') {
            let rest = line.strip_prefix(DASH).ok_or_else(malformed)?;
            let (name, blob) = rest.split_once(' ').ok_or_else(malformed)?;
            let blob = B64.decode(blob).map_err(|_| malformed())?;
            if !valid_name(name) || blob.len() < 5 {
                return Err(malformed());
            }
            if name != self.name || blob[..4] != self.id {
                continue; // another key's signature
            }
            ours += 1;
            good = good
                || Signature::from_slice(&blob[4..])
                    .is_ok_and(|sig| self.key.verify_strict(text.as_bytes(), &sig).is_ok());
        }
        match (good, ours) {
            (true, _) => Ok(text),
            (false, 0) => Err(err("the checkpoint carries no signature by the key")),
            (false, _) => Err(err(
                "the checkpoint's signature does not verify with the key",
            )),
        }
    }
}

/// What a set's checkpoint commits to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: Hash,
}

impl Checkpoint {
    /// The note text: origin, size, base64 root, one line each.
    pub fn body(&self) -> String {
        format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            B64.encode(self.root)
        )
    }

    /// Reads a body written by [`Checkpoint::body`], refusing any other spelling.
    pub fn parse(text: &str) -> Result<Self, NoteError> {
        let lines: Vec<&str> = text.strip_suffix('\n').unwrap_or("").split('\n').collect();
        let [origin, size, root] = lines[..] else {
            return Err(err(
                "the checkpoint is not three lines (origin, size, root)",
            ));
        };
        if origin.is_empty() {
            return Err(err("the checkpoint has no origin"));
        }
        let size = (!size.starts_with('0') && size.bytes().all(|b| b.is_ascii_digit()))
            .then(|| size.parse::<u64>().ok())
            .flatten()
            .ok_or_else(|| err("the checkpoint's size is not a positive decimal number"))?;
        let root = B64
            .decode(root)
            .ok()
            .and_then(|r| <[u8; 32]>::try_from(r).ok())
            .ok_or_else(|| err("the checkpoint's root is not 32 bytes of canonical base64"))?;
        Ok(Self {
            origin: origin.into(),
            size,
            root,
        })
    }
}

/// `N` bytes from exactly `2N` lowercase hex digits.
pub(crate) fn decode_hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != 2 * N
        || !s
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    hex::decode(s).ok()?.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signer() -> NoteSigner {
        NoteSigner::from_seed("example.test", &[7u8; 32]).unwrap()
    }

    #[test]
    fn a_signed_checkpoint_opens_with_its_key_and_no_other() {
        let s = signer();
        let body = Checkpoint {
            origin: "example.test/sets/2026-11".into(),
            size: 3,
            root: [9u8; 32],
        }
        .body();
        let note = s.sign(&body);
        let v = NoteVerifier::parse(&s.verifier_key()).unwrap();
        assert_eq!(v.open(&note).unwrap(), body);
        assert_eq!(Checkpoint::parse(&body).unwrap().size, 3);
        assert_eq!(v.fingerprint(), s.fingerprint());

        let other = NoteSigner::from_seed("example.test", &[8u8; 32]).unwrap();
        let ov = NoteVerifier::parse(&other.verifier_key()).unwrap();
        assert!(
            ov.open(&note)
                .unwrap_err()
                .0
                .contains("no signature by the key")
        );
        // A changed body under the same signature line.
        let forged = note.replacen("\n3\n", "\n4\n", 1);
        assert!(v.open(&forged).unwrap_err().0.contains("does not verify"));
        // Another key's line beside ours is ignored.
        let both = format!("{note}{}", other.sign(&body).rsplit_once("\n\n").unwrap().1);
        assert_eq!(v.open(&both).unwrap(), body);
    }

    #[test]
    fn keys_and_bodies_in_any_other_spelling_are_refused() {
        let key = signer().verifier_key();
        let (name, rest) = key.split_once('+').unwrap();
        for bad in [
            format!("other+{rest}"),
            key.replacen('+', " +", 1),
            format!("{name}+{}", rest.to_uppercase()),
            key[..key.len() - 2].to_string(),
        ] {
            assert!(NoteVerifier::parse(&bad).is_err(), "{bad}");
        }
        let root = B64.encode([1u8; 32]);
        for bad in [
            format!("o\n03\n{root}\n"),
            format!("o\n0\n{root}\n"),
            format!("o\n+3\n{root}\n"),
            format!("o\n3\n{root}"),
            format!("o\n3\n{root}\next\n"),
            format!("o\n3\n{}\n", B64.encode([1u8; 31])),
            format!("\n3\n{root}\n"),
        ] {
            assert!(Checkpoint::parse(&bad).is_err(), "{bad:?}");
        }
    }
}
