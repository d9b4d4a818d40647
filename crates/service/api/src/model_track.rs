//! The standard track's submissions (docs/protocol.md, section 9): a model endpoint, checked
//! against SSRF as an agent's endpoint is, and its key sealed with the task keyring before it
//! is stored. The key is never read back by the API: only a worker opens it, to call the model.

use crate::AppState;
use crate::error::ApiError;
use mcpbench_db::submissions::{ModelEndpoint, model_key_place};
use mcpbench_egress::{check_resolved, check_url};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The longest key taken (real keys are well under 200 characters).
const MAX_KEY: usize = 1024;
/// The highest price taken, US dollars per million tokens.
const MAX_PRICE: f64 = 100_000.0;

/// A model for the standard track: our `llm` agent drives it, so entries on this track differ
/// only by model.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelRequest {
    /// The OpenAI-compatible API's base URL, e.g. `https://api.example.com/v1`
    /// (`/chat/completions` is added). Checked against SSRF now and on every call.
    #[schema(max_length = 2048)]
    pub base_url: String,
    /// The model's name at that endpoint, as its `model` parameter takes it.
    #[schema(min_length = 1, max_length = 200, pattern = r"^[\x21-\x7e]+$")]
    pub model: String,
    /// Sent as `Authorization: Bearer`; sealed at rest and never shown again. Absent for an
    /// endpoint without keys.
    #[schema(min_length = 1, max_length = 1024, pattern = r"^[\x21-\x7e]+$")]
    pub api_key: Option<String>,
    /// The model's prices, for the board's cost per task; absent: cost unknown.
    pub prices: Option<Prices>,
}

/// US dollars per million tokens.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    #[schema(minimum = 0, maximum = 100000)]
    pub input_per_mtok: f64,
    #[schema(minimum = 0, maximum = 100000)]
    pub output_per_mtok: f64,
}

/// The model as its owner sees it again: never its key.
#[derive(Serialize, ToSchema)]
pub struct ModelShown {
    pub base_url: String,
    pub model: String,
    /// Whether a key was given (it is sealed and never shown).
    pub key: bool,
    pub prices: Option<Prices>,
}

impl ModelShown {
    pub fn of(s: &mcpbench_db::submissions::Submission) -> Option<Self> {
        Some(Self {
            base_url: s.model_base_url.clone()?,
            model: s.model_id.clone()?,
            key: s.model_key_set,
            prices: s.price_input.zip(s.price_output).map(|(i, o)| Prices {
                input_per_mtok: i,
                output_per_mtok: o,
            }),
        })
    }
}

/// Printable ASCII without spaces: what an HTTP header and a model parameter both take.
fn is_token(s: &str, max: usize) -> bool {
    (1..=max).contains(&s.len()) && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// The model endpoint to store for `vendor_id`: the URL checked against the deployment's
/// egress policy (its text and what it resolves to), the key sealed, the prices in range.
pub async fn checked(
    state: &AppState,
    vendor_id: i64,
    req: &ModelRequest,
) -> Result<ModelEndpoint, ApiError> {
    let invalid = |why: &str| ApiError::unprocessable("invalid-submission", why.to_string());
    if !is_token(&req.model, 200) {
        return Err(invalid(
            "model_endpoint.model must be 1 to 200 printable characters without spaces",
        ));
    }
    if let Some(p) = req.prices {
        let fine = |v: f64| v.is_finite() && (0.0..=MAX_PRICE).contains(&v);
        if !fine(p.input_per_mtok) || !fine(p.output_per_mtok) {
            return Err(invalid(&format!(
                "model_endpoint.prices are US dollars per million tokens, from 0 to {MAX_PRICE}"
            )));
        }
    }
    if req.base_url.len() > 2048 {
        return Err(invalid("model_endpoint.base_url is longer than 2048 bytes"));
    }
    let policy = state.config().egress;
    let parsed = check_url(&req.base_url, &policy)
        .map_err(|r| ApiError::unprocessable("unsafe-endpoint", r.to_string()))?;
    check_resolved(&parsed, &policy)
        .await
        .map_err(|r| ApiError::unprocessable("unsafe-endpoint", r.to_string()))?;
    let base_url = parsed.to_string();
    let sealed_key = match &req.api_key {
        None => None,
        Some(key) => {
            // Never echoed: the error says what a key must be, not what was sent.
            if !is_token(key, MAX_KEY) {
                return Err(invalid(&format!(
                    "model_endpoint.api_key must be 1 to {MAX_KEY} printable characters \
                     without spaces"
                )));
            }
            let keyring = state.config().custody.keyring.as_ref().ok_or_else(|| {
                ApiError::unprocessable(
                    "cannot-seal",
                    "this deployment has no keyring to seal a model's key with \
                     (MCPBENCH_TASK_KEYS), so it takes no keys; ask its operators",
                )
            })?;
            let sealed = keyring.seal(&model_key_place(vendor_id, &base_url), key.as_bytes());
            Some((sealed.key_id, sealed.bytes))
        }
    };
    Ok(ModelEndpoint {
        base_url,
        model_id: req.model.clone(),
        sealed_key,
        prices: req.prices.map(|p| [p.input_per_mtok, p.output_per_mtok]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_names_are_header_safe_tokens() {
        assert!(is_token("sk-abc_123.XYZ", 200));
        assert!(!is_token("", 200));
        assert!(!is_token("two words", 200));
        assert!(!is_token("line\nbreak", 200));
        assert!(!is_token("é", 200));
        assert!(!is_token(&"k".repeat(201), 200));
    }
}
