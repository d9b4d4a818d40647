//! The optional rubric judge (MCP-Bench's LLM judge, docs/metrics.md "The rubric judge").
//!
//! Off unless a deployment names an OpenAI-compatible chat-completions endpoint. For one run
//! the judge builds the task's [`rubric`], asks the model [`JudgeConfig::shuffles`] times with
//! the items in a different order each time (the order drawn from the run id, so a rejudge asks
//! the same questions), and averages each item over the replies that could be read. A reply
//! that cannot be read is asked again, up to [`JudgeConfig::attempts`] times, as are rate
//! limits (after their `Retry-After`) and server errors; a judgement needs a valid reply for
//! most shuffles. The result is a [`Judgement`], stored and shown apart from every
//! deterministic score.
//!
//! The judge model reads the task's goal, check and the run's trace: a private set's tasks go
//! to it. Point it only at a model the deployment trusts with them.

mod prompt;
mod rubric;

pub use rubric::{Item, rubric};

use mcpbench_gateway::trace::Line;
use mcpbench_openai::Reply;
use mcpbench_scoring::{ItemScore, Judgement};
use mcpbench_sim::Rng;
use mcpbench_tasks::Task;
use std::time::Duration;

/// The largest reply body read from the judge endpoint.
const MAX_REPLY_BYTES: usize = 1 << 20;

/// Where the judge model is and how patiently to ask it.
#[derive(Clone)]
pub struct JudgeConfig {
    /// The API's base URL, up to and without `/chat/completions` (`https://host/v1`).
    pub base_url: String,
    pub model: String,
    /// Sent as a bearer token when set. Never logged.
    pub api_key: Option<String>,
    /// Orderings of the rubric asked for (5 by default).
    pub shuffles: u32,
    /// Tries per shuffle, for rate limits, server errors and unreadable replies.
    pub attempts: u32,
    /// How long one request may take.
    pub timeout: Duration,
    /// The longest wait before a retry, whatever `Retry-After` says.
    pub max_wait: Duration,
}

impl JudgeConfig {
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            shuffles: 5,
            attempts: 3,
            timeout: Duration::from_secs(120),
            max_wait: Duration::from_secs(30),
        }
    }
}

// By hand: the key is never printed.
impl std::fmt::Debug for JudgeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("shuffles", &self.shuffles)
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Judge")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Why a run has no judgement.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("the judge endpoint refused the request: HTTP {status}: {body}")]
    Refused { status: u16, body: String },
    #[error("only {valid} of {shuffles} shuffles gave a usable reply; last problem: {last}")]
    TooFewValid {
        valid: u32,
        shuffles: u32,
        last: String,
    },
    #[error("the judge is misconfigured: {0}")]
    Config(String),
}

impl JudgeError {
    /// What went wrong, in words that quote nothing the judge was sent or answered.
    pub fn kind(&self) -> &'static str {
        match self {
            JudgeError::Refused { .. } => "the endpoint refused the request",
            JudgeError::TooFewValid { .. } => "too few usable replies",
            JudgeError::Config(_) => "misconfigured",
        }
    }
}

/// A judge bound to one endpoint.
#[derive(Clone)]
pub struct Judge {
    config: JudgeConfig,
    url: String,
    http: reqwest::Client,
}

/// One try's failure: worth another try, or the end of the judgement.
enum Failed {
    Retry { why: String, wait: Option<Duration> },
    Fatal(JudgeError),
}

impl Judge {
    pub fn new(config: JudgeConfig) -> Result<Self, JudgeError> {
        let base = config.base_url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(JudgeError::Config(format!(
                "the base URL {base:?} is not http(s)"
            )));
        }
        if config.model.trim().is_empty() || config.shuffles == 0 || config.attempts == 0 {
            return Err(JudgeError::Config(
                "a model, at least one shuffle and one attempt are needed".into(),
            ));
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| JudgeError::Config(e.to_string()))?;
        Ok(Self {
            url: mcpbench_openai::completions_url(base),
            config,
            http,
        })
    }

    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// Judges one run of `task` from its trace.
    pub async fn judge(&self, task: &Task, trace: &[Line]) -> Result<Judgement, JudgeError> {
        let items = rubric(task);
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let run_id = trace.iter().find_map(|l| match l {
            Line::Header(h) => Some(h.run_id.as_str()),
            _ => None,
        });
        let key = fnv(run_id.unwrap_or(&task.id));
        let mut scores: Vec<Vec<f64>> = vec![Vec::new(); items.len()];
        let mut valid = 0;
        let mut last = String::new();
        for shuffle in 0..self.config.shuffles {
            let mut order: Vec<&rubric::Item> = items.iter().collect();
            Rng::new(key, u64::from(shuffle)).shuffle(&mut order);
            let body = prompt::request(
                &self.config.model,
                prompt::user_message(task, trace, &order),
            );
            match self.ask(&body, &ids).await {
                Ok(got) => {
                    valid += 1;
                    for (i, item) in items.iter().enumerate() {
                        scores[i].push(got[&item.id]);
                    }
                }
                Err(Failed::Fatal(e)) => return Err(e),
                Err(Failed::Retry { why, .. }) => last = why,
            }
        }
        // A judgement stands on most of its shuffles, or not at all.
        if valid * 2 <= self.config.shuffles {
            return Err(JudgeError::TooFewValid {
                valid,
                shuffles: self.config.shuffles,
                last,
            });
        }
        let items: Vec<ItemScore> = items
            .into_iter()
            .zip(scores)
            .map(|(item, s)| ItemScore {
                id: item.id,
                text: item.text,
                mean: s.iter().sum::<f64>() / s.len() as f64,
                min: s.iter().copied().fold(f64::INFINITY, f64::min),
                max: s.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            })
            .collect();
        let score = items.iter().map(|i| i.mean).sum::<f64>()
            / items.len() as f64
            / mcpbench_scoring::ITEM_MAX;
        Ok(Judgement {
            model: self.config.model.clone(),
            items,
            score,
            shuffles: self.config.shuffles,
            valid_shuffles: valid,
        })
    }

    /// One shuffle: up to `attempts` tries for a readable reply.
    async fn ask(
        &self,
        body: &serde_json::Value,
        ids: &[&str],
    ) -> Result<std::collections::BTreeMap<String, f64>, Failed> {
        let mut why = String::new();
        for attempt in 0..self.config.attempts {
            match self.once(body, ids).await {
                Ok(scores) => return Ok(scores),
                Err(Failed::Fatal(e)) => return Err(Failed::Fatal(e)),
                Err(Failed::Retry { why: w, wait }) => {
                    // Only the kind: a reply can quote the run it judged.
                    let kind = w.split(':').next().unwrap_or_default();
                    tracing::debug!(attempt, kind, "the judge's reply was not usable");
                    why = w;
                    if attempt + 1 < self.config.attempts {
                        let backoff = Duration::from_millis(250 << attempt.min(6));
                        tokio::time::sleep(wait.unwrap_or(backoff).min(self.config.max_wait)).await;
                    }
                }
            }
        }
        Err(Failed::Retry { why, wait: None })
    }

    async fn once(
        &self,
        body: &serde_json::Value,
        ids: &[&str],
    ) -> Result<std::collections::BTreeMap<String, f64>, Failed> {
        let key = self.config.api_key.as_deref();
        let timeout = self.config.timeout;
        match mcpbench_openai::post(&self.http, &self.url, key, body, timeout, MAX_REPLY_BYTES)
            .await
        {
            Reply::Body(value) => {
                prompt::parse_reply(&value, ids).map_err(|why| Failed::Retry { why, wait: None })
            }
            Reply::RateLimited { after } => Err(Failed::Retry {
                why: "HTTP 429".into(),
                wait: after,
            }),
            Reply::Again { why } => Err(Failed::Retry { why, wait: None }),
            Reply::Refused { status, body } => {
                Err(Failed::Fatal(JudgeError::Refused { status, body }))
            }
        }
    }
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
