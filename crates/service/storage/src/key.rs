//! Trace keys: the one name a trace has in every backend.
//!
//! A key such as `runs/<uuid>/<task-id>-<trial>.jsonl` is checked before any backend sees it, so
//! a key can neither leave the local root (`..`, a leading `/`) nor mean different objects in
//! different backends (empty or `.` segments, which a file system collapses and S3 does not).

use crate::StorageError;

/// The longest key accepted, in bytes.
pub const MAX_KEY_BYTES: usize = 512;

/// Checks `key` and returns it unchanged, or [`StorageError::InvalidKey`].
///
/// Accepted: 1 to [`MAX_KEY_BYTES`] ASCII bytes from `[A-Za-z0-9._/-]`, split by `/` into
/// segments none of which is empty, `.` or `..` (so no leading, trailing or doubled `/`).
pub fn validate_key(key: &str) -> Result<&str, StorageError> {
    let refuse = |reason| {
        Err(StorageError::InvalidKey {
            // Truncated so a huge key cannot bloat a log line.
            key: key.chars().take(80).collect(),
            reason,
        })
    };
    if key.is_empty() {
        return refuse("empty");
    }
    if key.len() > MAX_KEY_BYTES {
        return refuse("longer than 512 bytes");
    }
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-');
    if !key.bytes().all(allowed) {
        return refuse("only ASCII letters, digits and . _ / - are allowed");
    }
    if key.starts_with('/') {
        return refuse("must not start with /");
    }
    for segment in key.split('/') {
        match segment {
            "" => return refuse("empty path segment"),
            "." | ".." => return refuse("`.` and `..` segments are not allowed"),
            _ => {}
        }
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_run_trace_keys() {
        for key in [
            "runs/0b7e2a64-93c1-4a43-9a57-3f0c2a1d5e11/fs-read-1.jsonl",
            "a",
            "a/b.c/d_e-f",
            "runs/x/.hidden",
            &"k".repeat(MAX_KEY_BYTES),
        ] {
            assert_eq!(validate_key(key).unwrap(), key);
        }
    }

    #[test]
    fn refuses_malformed_keys() {
        let long = "k".repeat(MAX_KEY_BYTES + 1);
        for key in [
            "",
            "/etc/passwd",
            "../x",
            "runs/../../x",
            "runs/..",
            "runs/./x",
            "runs//x",
            "runs/x/",
            "runs\\..\\x",
            "runs/x y",
            "runs/é",
            "runs/x\0",
            "runs/x%2e",
            long.as_str(),
        ] {
            let err = validate_key(key).unwrap_err();
            assert!(
                matches!(err, StorageError::InvalidKey { .. }),
                "{key:?}: {err}"
            );
        }
    }
}
