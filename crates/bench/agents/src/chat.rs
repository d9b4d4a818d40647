//! One OpenAI-compatible chat-completions call, retried through what models' endpoints do
//! under load: `429` (after its `Retry-After`), `5xx`, `408`, a dropped connection, a timeout,
//! a body that is not a completion. Another `4xx` stops at once (a wrong model name or key
//! does not get better). Every attempt is bounded by the time left before the run's stop; the
//! key is never printed (not in `Debug`, not in errors).

use mcpbench_openai::Reply;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Where the model is.
#[derive(Clone)]
pub struct LlmConfig {
    /// The API's base URL, e.g. `https://api.openai.com/v1` (`/chat/completions` is added).
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer`; none for endpoints without keys.
    pub api_key: Option<String>,
    /// What the model's tokens cost, when known: the reply's `usage` then carries `cost_usd`.
    pub prices: Option<Prices>,
}

/// A model's list prices, in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prices {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

impl Prices {
    /// What `usage` cost at these prices.
    pub fn cost(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input_per_mtok
            + usage.output_tokens as f64 * self.output_per_mtok)
            / 1e6
    }

    /// From `MCPBENCH_PRICE_INPUT` and `MCPBENCH_PRICE_OUTPUT` (both or neither).
    fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, String> {
        let price = |k: &str| -> Result<Option<f64>, String> {
            var(k)
                .map(|v| {
                    v.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|p| p.is_finite() && *p >= 0.0)
                        .ok_or(format!(
                            "{k} is not a price in US dollars per million tokens: {v:?}"
                        ))
                })
                .transpose()
        };
        match (
            price("MCPBENCH_PRICE_INPUT")?,
            price("MCPBENCH_PRICE_OUTPUT")?,
        ) {
            (Some(input_per_mtok), Some(output_per_mtok)) => Ok(Some(Self {
                input_per_mtok,
                output_per_mtok,
            })),
            (None, None) => Ok(None),
            _ => Err("set both MCPBENCH_PRICE_INPUT and MCPBENCH_PRICE_OUTPUT, or neither".into()),
        }
    }
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("prices", &self.prices)
            .finish()
    }
}

impl LlmConfig {
    /// From `OPENAI_BASE_URL`, `MCPBENCH_MODEL` and `OPENAI_API_KEY` (optional), as the Python
    /// template reads them, and the model's prices from `MCPBENCH_PRICE_INPUT` and
    /// `MCPBENCH_PRICE_OUTPUT` (optional, US dollars per million tokens).
    pub fn from_env() -> Result<Self, String> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let base_url = var("OPENAI_BASE_URL").ok_or("OPENAI_BASE_URL is not set")?;
        let model = var("MCPBENCH_MODEL").ok_or("MCPBENCH_MODEL is not set")?;
        Ok(Self {
            base_url,
            model,
            api_key: var("OPENAI_API_KEY"),
            prices: Prices::from_env(var)?,
        })
    }
}

/// Tokens a run spent, as the model's endpoints counted them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Whether any completion said how many (else the counts are unknown, not zero).
    pub reported: bool,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.reported |= other.reported;
    }

    fn of(completion: &Value) -> Self {
        let u = &completion["usage"];
        match (u["prompt_tokens"].as_u64(), u["completion_tokens"].as_u64()) {
            (Some(input_tokens), Some(output_tokens)) => Usage {
                input_tokens,
                output_tokens,
                reported: true,
            },
            _ => Usage::default(),
        }
    }
}

/// Why the model could not be asked.
#[derive(Debug)]
pub struct ChatError(pub String);

/// Tries per call before giving up.
const TRIES: u32 = 5;
/// The longest one attempt may take.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest `Retry-After` honoured; a longer one is waited this long.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// The largest completion body read.
const MAX_BODY_BYTES: usize = 4 << 20;

pub(crate) struct Chat<'a> {
    http: &'a reqwest::Client,
    config: &'a LlmConfig,
    url: String,
    stop: Instant,
}

/// How one attempt ended.
enum Attempt {
    Done(Value, Usage),
    /// Worth another try, after at least this long.
    Again(String, Option<Duration>),
    Fatal(String),
}

impl<'a> Chat<'a> {
    pub fn new(http: &'a reqwest::Client, config: &'a LlmConfig, stop: Instant) -> Self {
        Self {
            http,
            config,
            url: mcpbench_openai::completions_url(&config.base_url),
            stop,
        }
    }

    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// The model's message for `body`, with the tokens it reported.
    pub async fn complete(&self, body: &Value) -> Result<(Value, Usage), ChatError> {
        let mut last = String::new();
        for attempt in 0..TRIES {
            let left = self.stop.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            let wait = match self.attempt(body, left.min(ATTEMPT_TIMEOUT)).await {
                Attempt::Done(message, usage) => return Ok((message, usage)),
                Attempt::Fatal(why) => return Err(ChatError(why)),
                Attempt::Again(why, after) => {
                    tracing::debug!(attempt, kind = why, "the model failed; trying again");
                    last = why;
                    after.unwrap_or(Duration::from_millis(500) * 2u32.pow(attempt))
                }
            };
            let left = self.stop.saturating_duration_since(Instant::now());
            if wait >= left {
                break;
            }
            tokio::time::sleep(wait).await;
        }
        Err(ChatError(if last.is_empty() {
            "no time left to ask the model".into()
        } else {
            format!("the model kept failing: {last}")
        }))
    }

    async fn attempt(&self, body: &Value, timeout: Duration) -> Attempt {
        let key = self.config.api_key.as_deref();
        match mcpbench_openai::post(self.http, &self.url, key, body, timeout, MAX_BODY_BYTES).await
        {
            Reply::Body(completion) => match completion["choices"][0]["message"].as_object() {
                Some(message) => {
                    Attempt::Done(Value::Object(message.clone()), Usage::of(&completion))
                }
                None => Attempt::Again("no choices[0].message".into(), None),
            },
            // A rate limit with no `Retry-After` waits a second; a long one is capped.
            Reply::RateLimited { after } => Attempt::Again(
                "rate limited (429)".into(),
                Some(after.map_or(Duration::from_secs(1), |a| a.min(MAX_RETRY_AFTER))),
            ),
            Reply::Again { why } => Attempt::Again(kind(&why).into(), None),
            Reply::Refused { status, .. } => Attempt::Fatal(format!("HTTP {status}")),
        }
    }
}

/// What kind of failure a reply was (`HTTP 502`, `not JSON`), without what the model's server
/// sent: its body can quote the prompt, which in the service is a private task's goal, or echo
/// the key, and a failure's words end up in the run's answer and so in its trace.
fn kind(why: &str) -> &str {
    why.split(':').next().unwrap_or_default().trim()
}
