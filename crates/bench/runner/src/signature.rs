//! Request signatures (docs/protocol.md, section 2), in the scheme of Standard Webhooks: the
//! HMAC-SHA256 covers `<id>.<timestamp>.<body>`, where the id is the run's id and the
//! timestamp the second the request was sent, so a request captured on the way cannot be sent
//! again: after the tolerance its timestamp is stale, within it its id was already seen. The
//! body-only signature of the first version (`X-MCPBench-Signature`) is still sent beside it for
//! this version; nothing should rely on it, as it can be replayed.

use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::HashMap;
use std::sync::Mutex;
use subtle::ConstantTimeEq;

pub const ID_HEADER: &str = "webhook-id";
pub const TIMESTAMP_HEADER: &str = "webhook-timestamp";
pub const SIGNATURE_HEADER: &str = "webhook-signature";
/// The first version's header: `sha256=<hex HMAC of the body alone>`. Kept for one version.
pub const LEGACY_HEADER: &str = "x-mcpbench-signature";
/// How far a request's timestamp may be from the agent's clock, either way (Standard
/// Webhooks' five minutes).
pub const TOLERANCE_SECS: i64 = 300;

/// The headers of one signed request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    pub id: String,
    pub timestamp: i64,
    /// `v1,<base64 HMAC-SHA256 of id.timestamp.body>`.
    pub signature: String,
    /// `sha256=<hex HMAC-SHA256 of body>`.
    pub legacy: String,
}

impl Signed {
    /// The headers to send, by name.
    pub fn headers(&self) -> [(&'static str, String); 4] {
        [
            (ID_HEADER, self.id.clone()),
            (TIMESTAMP_HEADER, self.timestamp.to_string()),
            (SIGNATURE_HEADER, self.signature.clone()),
            (LEGACY_HEADER, self.legacy.clone()),
        ]
    }
}

fn mac(secret: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().to_vec()
}

/// Signs `body` sent as run `id` at `timestamp` (Unix seconds). The key is the secret's text
/// as bytes, as in the first version.
pub fn sign_request(secret: &[u8], id: &str, timestamp: i64, body: &[u8]) -> Signed {
    let ts = timestamp.to_string();
    let v1 = mac(secret, &[id.as_bytes(), b".", ts.as_bytes(), b".", body]);
    Signed {
        id: id.to_string(),
        timestamp,
        signature: format!("v1,{}", BASE64.encode(v1)),
        legacy: sign(secret, body),
    }
}

/// `sha256=<hex HMAC-SHA256 of body with secret>`, the first version's header.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    format!("sha256={}", hex::encode(mac(secret, &[body])))
}

/// Why a request was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Missing(&'static str),
    /// The timestamp is not whole seconds.
    BadTimestamp,
    /// Further from now than the tolerance (seconds, signed: negative is in the past).
    Stale(i64),
    /// No `v1` signature in the header matches.
    Mismatch,
    /// This id was seen within the tolerance.
    Replayed,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Missing(h) => write!(f, "the {h} header is missing"),
            Refusal::BadTimestamp => write!(f, "{TIMESTAMP_HEADER} is not Unix seconds"),
            Refusal::Stale(s) => write!(
                f,
                "the request was signed {}s {} (more than {TOLERANCE_SECS}s): stale",
                s.abs(),
                if *s < 0 { "ago" } else { "ahead" }
            ),
            Refusal::Mismatch => write!(f, "bad {SIGNATURE_HEADER}"),
            Refusal::Replayed => write!(f, "this request id was already taken: a replay"),
        }
    }
}

/// What an agent checks: the signature over id, timestamp and body, the timestamp within the
/// tolerance of its clock, and each id taken once (ids are remembered for the tolerance, past
/// which their timestamps are stale anyway).
pub struct Verifier {
    secret: Vec<u8>,
    seen: Mutex<HashMap<String, i64>>,
}

impl Verifier {
    pub fn new(secret: &[u8]) -> Self {
        Self {
            secret: secret.to_vec(),
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// Checks a request received at `now` (Unix seconds); its id when it is good.
    pub fn check(&self, headers: &HeaderMap, body: &[u8], now: i64) -> Result<String, Refusal> {
        let header = |name: &'static str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .ok_or(Refusal::Missing(name))
        };
        let (id, ts, given) = (
            header(ID_HEADER)?,
            header(TIMESTAMP_HEADER)?,
            header(SIGNATURE_HEADER)?,
        );
        let timestamp: i64 = ts.parse().map_err(|_| Refusal::BadTimestamp)?;
        let skew = timestamp.saturating_sub(now);
        if skew.abs() > TOLERANCE_SECS {
            return Err(Refusal::Stale(skew));
        }
        let want = sign_request(&self.secret, id, timestamp, body).signature;
        // The header may hold several signatures, space-separated (a key being rotated).
        let matches = given
            .split(' ')
            .any(|s| s.len() == want.len() && bool::from(s.as_bytes().ct_eq(want.as_bytes())));
        if !matches {
            return Err(Refusal::Mismatch);
        }
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() >= 1024 {
            seen.retain(|_, at| now - *at <= TOLERANCE_SECS * 2);
        }
        if seen.insert(id.to_string(), timestamp).is_some() {
            return Err(Refusal::Replayed);
        }
        Ok(id.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn signature_matches_rfc_4231_test_case_2() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        assert_eq!(
            sign(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // The same HMAC over "id.timestamp.body" split so that it spells that message.
        let s = sign_request(b"Jefe", "what do", 0, b"ya want for nothing?");
        assert_eq!(
            s.signature,
            format!(
                "v1,{}",
                BASE64.encode(mac(b"Jefe", &[b"what do.0.ya want for nothing?"]))
            )
        );
    }

    #[test]
    fn signature_matches_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification: its secret
        // `whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw` is the base64 of the key bytes.
        let key = BASE64.decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let s = sign_request(
            &key,
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(
            s.signature,
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn the_example_exchange_of_the_protocol_is_signed_as_it_says() {
        let doc = include_str!("../../../../docs/protocol.md");
        let doc = &doc[doc.find("## 8. Example exchange").expect("section 8")..];
        let header = |name: &str| {
            doc.lines()
                .find_map(|l| l.strip_prefix(&format!("{name}: ")))
                .unwrap_or_else(|| panic!("docs/protocol.md shows no {name} header"))
        };
        let body = doc
            .lines()
            .find(|l| l.starts_with(r#"{"protocol":"mcpbench/1","run_id":"run_3f9a"#))
            .expect("the example request's body");
        assert_eq!(body.len().to_string(), header("Content-Length"));
        let secret = b"4f1d2c3b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff001";
        let s = sign_request(
            secret,
            header("webhook-id"),
            header("webhook-timestamp").parse().unwrap(),
            body.as_bytes(),
        );
        assert_eq!(s.signature, header("webhook-signature"));
        assert_eq!(s.legacy, header("X-MCPBench-Signature"));
    }

    fn headers(s: &Signed) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in s.headers() {
            h.insert(k, HeaderValue::from_str(&v).unwrap());
        }
        h
    }

    #[test]
    fn a_request_is_taken_once_within_the_tolerance() {
        let v = Verifier::new(b"secret");
        let body = br#"{"run_id":"run_1"}"#;
        let s = sign_request(b"secret", "run_1", 1_000_000, body);
        assert_eq!(v.check(&headers(&s), body, 1_000_010), Ok("run_1".into()));
        assert_eq!(
            v.check(&headers(&s), body, 1_000_020),
            Err(Refusal::Replayed)
        );
        let old = sign_request(b"secret", "run_2", 1_000_000, body);
        assert_eq!(
            v.check(&headers(&old), body, 1_000_000 + TOLERANCE_SECS + 1),
            Err(Refusal::Stale(-TOLERANCE_SECS - 1))
        );
        let ahead = sign_request(b"secret", "run_3", 1_000_400, body);
        assert_eq!(
            v.check(&headers(&ahead), body, 1_000_000),
            Err(Refusal::Stale(400))
        );
        // Any change to id, timestamp or body breaks it.
        let mut moved = headers(&sign_request(b"secret", "run_4", 1_000_000, body));
        moved.insert(TIMESTAMP_HEADER, HeaderValue::from_static("1000001"));
        assert_eq!(v.check(&moved, body, 1_000_000), Err(Refusal::Mismatch));
        let mut renamed = headers(&sign_request(b"secret", "run_5", 1_000_000, body));
        renamed.insert(ID_HEADER, HeaderValue::from_static("run_6"));
        assert_eq!(v.check(&renamed, body, 1_000_000), Err(Refusal::Mismatch));
        let fine = headers(&sign_request(b"secret", "run_7", 1_000_000, body));
        assert_eq!(v.check(&fine, b"{}", 1_000_000), Err(Refusal::Mismatch));
        let mut bare = fine.clone();
        bare.remove(SIGNATURE_HEADER);
        assert_eq!(
            v.check(&bare, body, 1_000_000),
            Err(Refusal::Missing(SIGNATURE_HEADER))
        );
        let mut two = fine.clone();
        let both = format!("v1,AAAA {}", fine[SIGNATURE_HEADER].to_str().unwrap());
        two.insert(SIGNATURE_HEADER, HeaderValue::from_str(&both).unwrap());
        assert!(
            v.check(&two, body, 1_000_000).is_ok(),
            "any of several signatures"
        );
    }
}
