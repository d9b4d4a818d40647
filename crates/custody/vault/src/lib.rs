//! Private tasks at rest: AES-256-GCM (random 96-bit nonces) under keys from configuration.
//!
//! A keyring is `MCPBENCH_TASK_KEYS`: `id:key` pairs, comma-separated, each key 32 bytes as 64
//! hex digits or base64. The first key
//! seals; every key opens, so a new key goes first and the old ones stay until everything sealed
//! under them has been sealed again. A sealed value is `nonce || ciphertext || tag` and is stored
//! with its key's id. The associated data binds a value to its place (the caller names it, e.g.
//! set and position), so a ciphertext copied to another row does not open there.
//!
//! Nothing here prints a key: `Debug` shows the ids only.

use aws_lc_rs::aead::{AES_256_GCM, Aad, NONCE_LEN, Nonce, RandomizedNonceKey};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use std::fmt;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VaultError {
    #[error("MCPBENCH_TASK_KEYS: {0}")]
    Config(String),
    #[error("no key with id {0:?} in MCPBENCH_TASK_KEYS")]
    UnknownKey(String),
    #[error("a sealed value does not open with its key (altered, or sealed elsewhere)")]
    Corrupt,
}

/// A value sealed under one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed {
    pub key_id: String,
    pub bytes: Vec<u8>,
}

pub struct Keyring {
    keys: Vec<(String, RandomizedNonceKey)>,
}

impl fmt::Debug for Keyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_struct("Keyring").field("key_ids", &ids).finish()
    }
}

/// 32 key bytes written as 64 hex digits (`openssl rand -hex 32`) or in base64.
pub fn decode_key(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        (0..32)
            .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()?
    } else {
        B64.decode(text).ok()?
    };
    bytes.try_into().ok()
}

impl Keyring {
    /// Reads `id:base64,id:base64,...`; errors never repeat a key.
    pub fn parse(spec: &str) -> Result<Self, VaultError> {
        let mut keys = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (id, key) = part.split_once(':').ok_or_else(|| {
                VaultError::Config("each key is <id>:<base64 of 32 bytes>".into())
            })?;
            if id.is_empty()
                || id.len() > 32
                || !id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                return Err(VaultError::Config(
                    "a key id is 1 to 32 letters, digits, '-' or '_'".into(),
                ));
            }
            if keys.iter().any(|(k, _)| k == id) {
                return Err(VaultError::Config(format!(
                    "the key id {id:?} appears twice"
                )));
            }
            let bytes = decode_key(key).ok_or_else(|| {
                VaultError::Config(format!(
                    "the key {id:?} is not 32 bytes (64 hex digits or base64)"
                ))
            })?;
            let key = RandomizedNonceKey::new(&AES_256_GCM, &bytes)
                .map_err(|_| VaultError::Config(format!("the key {id:?} was refused")))?;
            keys.push((id.to_string(), key));
        }
        if keys.is_empty() {
            return Err(VaultError::Config("no key given".into()));
        }
        Ok(Self { keys })
    }

    /// A keyring of one fresh random key, and its spec to keep (for `mcpbench up` and tests).
    pub fn generate(id: &str) -> (Self, String) {
        let mut bytes = [0u8; 32];
        aws_lc_rs::rand::fill(&mut bytes).expect("the system's random generator");
        let spec = format!("{id}:{}", B64.encode(bytes));
        (Self::parse(&spec).expect("a generated key parses"), spec)
    }

    /// The id of the key that seals.
    pub fn current(&self) -> &str {
        &self.keys[0].0
    }

    /// Seals `plaintext` under the current key, bound to `place`.
    pub fn seal(&self, place: &str, plaintext: &[u8]) -> Sealed {
        let (id, key) = &self.keys[0];
        let mut in_out = plaintext.to_vec();
        let nonce = key
            .seal_in_place_append_tag(Aad::from(place.as_bytes()), &mut in_out)
            .expect("AES-GCM seals any length we store");
        let mut bytes = nonce.as_ref().to_vec();
        bytes.extend_from_slice(&in_out);
        Sealed {
            key_id: id.clone(),
            bytes,
        }
    }

    /// Opens a value sealed at `place`.
    pub fn open(&self, place: &str, sealed: &Sealed) -> Result<Vec<u8>, VaultError> {
        let mut in_out = sealed.bytes.clone();
        let plain = self.open_in_place(place, &sealed.key_id, &mut in_out)?;
        Ok(plain.to_vec())
    }

    /// Opens `nonce || ciphertext || tag`, sealed at `place` under `key_id`, where it lies; the
    /// plaintext is the slice returned (the rest of `sealed` is left overwritten).
    fn open_in_place<'a>(
        &self,
        place: &str,
        key_id: &str,
        sealed: &'a mut [u8],
    ) -> Result<&'a mut [u8], VaultError> {
        let (_, key) = self
            .keys
            .iter()
            .find(|(id, _)| id == key_id)
            .ok_or_else(|| VaultError::UnknownKey(key_id.to_string()))?;
        if sealed.len() < NONCE_LEN {
            return Err(VaultError::Corrupt);
        }
        let (nonce, ciphertext) = sealed.split_at_mut(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| VaultError::Corrupt)?;
        key.open_in_place(nonce, Aad::from(place.as_bytes()), ciphertext)
            .map_err(|_| VaultError::Corrupt)
    }
}

/// How a stored file sealed by [`Keyring::seal_file`] begins.
const FILE_MAGIC: &[u8] = b"mcpbench-sealed/1\n";

impl Keyring {
    /// A file to store (a trace, a container's logs) sealed and bound to `place` (its storage
    /// key): the magic line, the key id and a newline, then nonce, ciphertext and tag.
    pub fn seal_file(&self, place: &str, bytes: &[u8]) -> Vec<u8> {
        let sealed = self.seal(place, bytes);
        let mut out = FILE_MAGIC.to_vec();
        out.extend_from_slice(sealed.key_id.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&sealed.bytes);
        out
    }
}

/// Whether stored bytes were sealed by [`Keyring::seal_file`].
pub fn is_sealed_file(bytes: &[u8]) -> bool {
    bytes.starts_with(FILE_MAGIC)
}

/// A stored file's bytes: opened when sealed (which needs the keyring), as they are otherwise.
/// A sealed file is opened in its own buffer, so a trace of the store's largest size costs its
/// size once, not four times.
pub fn open_file(
    keyring: Option<&Keyring>,
    place: &str,
    mut bytes: Vec<u8>,
) -> Result<Vec<u8>, VaultError> {
    let Some(rest) = bytes.strip_prefix(FILE_MAGIC) else {
        return Ok(bytes);
    };
    let newline = rest
        .iter()
        .position(|b| *b == b'\n')
        .ok_or(VaultError::Corrupt)?;
    let key_id = std::str::from_utf8(&rest[..newline])
        .map_err(|_| VaultError::Corrupt)?
        .to_string();
    let keyring = keyring.ok_or_else(|| VaultError::UnknownKey(key_id.clone()))?;
    let sealed_at = FILE_MAGIC.len() + newline + 1;
    let plain = keyring
        .open_in_place(place, &key_id, &mut bytes[sealed_at..])?
        .len();
    // The plaintext lies just past the nonce: move it to the front and cut the rest.
    bytes.drain(..sealed_at + NONCE_LEN);
    bytes.truncate(plain);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_at_their_place() {
        let (old, old_spec) = Keyring::generate("k1");
        let sealed = old.seal("set/2026-11/3", b"the goal text");
        assert!(!sealed.bytes.windows(4).any(|w| w == b"goal"));
        assert_eq!(
            old.open("set/2026-11/3", &sealed).unwrap(),
            b"the goal text"
        );
        // Another place, a flipped byte, an unknown key id.
        assert_eq!(old.open("set/2026-11/4", &sealed), Err(VaultError::Corrupt));
        let mut flipped = sealed.clone();
        flipped.bytes[20] ^= 1;
        assert_eq!(
            old.open("set/2026-11/3", &flipped),
            Err(VaultError::Corrupt)
        );
        let (new, new_spec) = Keyring::generate("k2");
        assert!(matches!(
            new.open("set/2026-11/3", &sealed),
            Err(VaultError::UnknownKey(_))
        ));
        // Rotation: the new key first seals, the old one still opens.
        let both = Keyring::parse(&format!("{new_spec},{old_spec}")).unwrap();
        assert_eq!(both.current(), "k2");
        assert_eq!(
            both.open("set/2026-11/3", &sealed).unwrap(),
            b"the goal text"
        );
        assert_eq!(both.seal("p", b"x").key_id, "k2");
    }

    #[test]
    fn sealed_files_open_at_their_place_and_plain_files_pass_through() {
        let (ring, _) = Keyring::generate("k1");
        let file = ring.seal_file("runs/s/t-0-e1.jsonl", b"{\"goal\":\"secret\"}\n");
        assert!(is_sealed_file(&file) && !file.windows(6).any(|w| w == b"secret"));
        let opened = open_file(Some(&ring), "runs/s/t-0-e1.jsonl", file.clone()).unwrap();
        assert_eq!(opened, b"{\"goal\":\"secret\"}\n");
        assert_eq!(
            open_file(Some(&ring), "runs/s/other.jsonl", file.clone()),
            Err(VaultError::Corrupt)
        );
        assert!(matches!(
            open_file(None, "runs/s/t-0-e1.jsonl", file),
            Err(VaultError::UnknownKey(_))
        ));
        assert_eq!(open_file(None, "p", b"plain".to_vec()).unwrap(), b"plain");
    }

    #[test]
    fn bad_key_specs_say_why_without_repeating_the_key() {
        let secret = B64.encode([7u8; 31]);
        for (spec, want) in [
            ("", "no key given"),
            ("k1", "<id>:<base64"),
            (&*format!("k1:{secret}"), "not 32 bytes"),
            (&*format!("k1:{}", "ab".repeat(31)), "not 32 bytes"),
            ("bad id:AAAA", "a key id is"),
            (
                &*format!("k:{0},k:{0}", B64.encode([1u8; 32])),
                "appears twice",
            ),
        ] {
            let err = Keyring::parse(spec).unwrap_err().to_string();
            assert!(err.contains(want), "{spec:?}: {err}");
            assert!(!err.contains(&secret));
        }
        // 64 hex digits (what deploy/gen-env and `openssl rand -hex 32` write) are a key too.
        let hex = Keyring::parse(&format!("k3:{}", "0f".repeat(32))).unwrap();
        assert_eq!(hex.current(), "k3");
        assert_eq!(decode_key(&"0f".repeat(32)), Some([0x0f; 32]));
        let (ring, spec) = Keyring::generate("k9");
        assert!(!format!("{ring:?}").contains(spec.split_once(':').unwrap().1));
    }
}
