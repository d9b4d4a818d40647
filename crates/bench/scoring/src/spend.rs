//! What runs cost: the [`Usage`] an agent reports of one run, and [`Spend`], the cost per task
//! and the median run time of a set of runs (docs/metrics.md, "Cost and time").
//!
//! A figure nobody reported is unknown (`None`), never zero: a run without usage is left out of
//! the cost mean and counted as uncovered, and a mean over no run does not exist. Published
//! figures are rounded to two significant figures ([`two_figures`]): that is all a comparison
//! of costs needs, and it keeps what an agent reports from carrying more than a few bits out
//! of a private set's board.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most tokens one run may claim (a trillion): beyond it the report is taken as broken.
pub const MAX_TOKENS: u64 = 1_000_000_000_000;
/// The most one run may claim to have cost, in US dollars.
pub const MAX_COST_USD: f64 = 1_000_000.0;

/// What an agent says one run used: tokens in and out, and its price in US dollars. Each part
/// may be missing; a missing part is unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// Reads the `usage` member of an agent's reply. `null` is no usage (`Ok(None)`); anything
    /// else must be an object whose known members, when present and not `null`, are a whole
    /// number of tokens from 0 to [`MAX_TOKENS`] and a dollar amount from 0 to
    /// [`MAX_COST_USD`]. Members the protocol does not define are ignored (a later version may
    /// add some). The error says what was wrong, for the trace.
    pub fn from_reply(value: &Value) -> Result<Option<Usage>, String> {
        let object = match value {
            Value::Null => return Ok(None),
            Value::Object(o) => o,
            _ => return Err("usage is not a JSON object".into()),
        };
        let tokens = |name: &str| -> Result<Option<u64>, String> {
            match object.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .filter(|n| *n <= MAX_TOKENS)
                    .map(Some)
                    .ok_or_else(|| {
                        format!("usage.{name} is not a whole number from 0 to {MAX_TOKENS}")
                    }),
            }
        };
        let cost_usd = match object.get("cost_usd") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_f64()
                    .filter(|c| c.is_finite() && (0.0..=MAX_COST_USD).contains(c))
                    .ok_or_else(|| {
                        format!("usage.cost_usd is not a number from 0 to {MAX_COST_USD}")
                    })?,
            ),
        };
        Ok(Some(Usage {
            input_tokens: tokens("input_tokens")?,
            output_tokens: tokens("output_tokens")?,
            cost_usd,
        }))
    }

    /// Tokens in and out together, when both were reported.
    pub fn tokens(&self) -> Option<u64> {
        Some(self.input_tokens?.saturating_add(self.output_tokens?))
    }
}

/// Cost per task and time per run of a set of runs. Every figure is `None` when no run
/// reported it; the counts say how many runs each mean rests on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Spend {
    /// Mean `cost_usd` over the runs that reported one (two significant figures).
    #[serde(default)]
    pub cost_per_task: Option<f64>,
    /// How many runs reported `cost_usd`.
    #[serde(default)]
    pub cost_runs: usize,
    /// Mean input + output tokens over the runs that reported both (two significant figures).
    #[serde(default)]
    pub tokens_per_task: Option<f64>,
    /// How many runs reported both token counts.
    #[serde(default)]
    pub token_runs: usize,
    /// The median wall time of a run, from the request to the agent to its reply or the
    /// deadline, in seconds (two significant figures).
    #[serde(default)]
    pub median_seconds: Option<f64>,
    /// What the cost and token figures rest on: `measured` when the service counted every
    /// run's usage (its own agent drove the model, priced by the deployment's table),
    /// `reported` when the agents said it, `mixed` when both; `null` when no run has usage.
    #[serde(default)]
    pub cost_basis: Option<CostBasis>,
}

/// Who counted the usage a cost rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CostBasis {
    /// The service: its own agent counted the model's tokens.
    Measured,
    /// The agent, in its replies (docs/protocol.md, section 3).
    Reported,
    /// Some runs of each.
    Mixed,
}

impl CostBasis {
    pub fn as_str(self) -> &'static str {
        match self {
            CostBasis::Measured => "measured",
            CostBasis::Reported => "reported",
            CostBasis::Mixed => "mixed",
        }
    }
}

/// The spend of runs given as (wall time in milliseconds if known, usage if known, whether the
/// service measured that usage).
pub fn spend<'a>(runs: impl Iterator<Item = (Option<u64>, Option<&'a Usage>, bool)>) -> Spend {
    let mut costs = Vec::new();
    let mut tokens = Vec::new();
    let mut times = Vec::new();
    let (mut measured, mut reported) = (false, false);
    for (ms, usage, by_us) in runs {
        times.extend(ms);
        if let Some(u) = usage {
            costs.extend(u.cost_usd);
            tokens.extend(u.tokens());
            if by_us {
                measured = true;
            } else {
                reported = true;
            }
        }
    }
    let cost_basis = match (measured, reported) {
        (true, true) => Some(CostBasis::Mixed),
        (true, false) => Some(CostBasis::Measured),
        (false, true) => Some(CostBasis::Reported),
        (false, false) => None,
    };
    let mean = |sum: f64, n: usize| (n > 0).then(|| two_figures(sum / n as f64));
    Spend {
        cost_per_task: mean(costs.iter().sum(), costs.len()),
        cost_runs: costs.len(),
        tokens_per_task: mean(tokens.iter().map(|t| *t as f64).sum(), tokens.len()),
        token_runs: tokens.len(),
        median_seconds: median(&mut times).map(|ms| two_figures(ms / 1000.0)),
        cost_basis,
    }
}

/// The median of `values` (the mean of the middle two for an even count); `None` when empty.
fn median(values: &mut [u64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let mid = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[mid] as f64
    } else {
        (values[mid - 1] as f64 + values[mid] as f64) / 2.0
    })
}

/// `x` rounded to two significant figures (0 stays 0).
pub fn two_figures(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_reply_s_usage_is_read_or_refused_with_the_reason() {
        let read = |v: Value| Usage::from_reply(&v);
        assert_eq!(read(Value::Null), Ok(None));
        assert_eq!(
            read(json!({"input_tokens": 1200, "output_tokens": 80, "cost_usd": 0.0042})),
            Ok(Some(Usage {
                input_tokens: Some(1200),
                output_tokens: Some(80),
                cost_usd: Some(0.0042)
            }))
        );
        // Parts may be missing or null; unknown members are ignored.
        assert_eq!(
            read(json!({"cost_usd": null, "output_tokens": 3, "cached_tokens": 9})),
            Ok(Some(Usage {
                output_tokens: Some(3),
                ..Usage::default()
            }))
        );
        for (bad, says) in [
            (json!("lots"), "not a JSON object"),
            (json!([1, 2]), "not a JSON object"),
            (json!({"input_tokens": -1}), "usage.input_tokens"),
            (json!({"input_tokens": 1.5}), "usage.input_tokens"),
            (json!({"output_tokens": "80"}), "usage.output_tokens"),
            (
                json!({"output_tokens": MAX_TOKENS + 1}),
                "usage.output_tokens",
            ),
            (json!({"cost_usd": -0.01}), "usage.cost_usd"),
            (json!({"cost_usd": "0.01"}), "usage.cost_usd"),
            (json!({"cost_usd": 1e300}), "usage.cost_usd"),
        ] {
            let err = read(bad.clone()).expect_err(&bad.to_string());
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn unknown_is_never_zero_and_means_rest_on_the_runs_that_reported() {
        let none = spend([(None, None, false), (None, None, true)].into_iter());
        assert_eq!(none, Spend::default());
        assert_eq!(none.cost_per_task, None);

        let paid = Usage {
            input_tokens: Some(1000),
            output_tokens: Some(200),
            cost_usd: Some(0.003),
        };
        let free = Usage {
            cost_usd: Some(0.0),
            ..Usage::default()
        };
        let tokens_only = Usage {
            input_tokens: Some(500),
            output_tokens: Some(100),
            cost_usd: None,
        };
        let s = spend(
            [
                (Some(1000), Some(&paid), false),
                (Some(3000), Some(&free), false),
                (Some(2000), Some(&tokens_only), false),
                (Some(60_000), None, true),
            ]
            .into_iter(),
        );
        // Two runs reported a cost (one of them zero, which is a cost); the mean is theirs.
        assert_eq!(s.cost_runs, 2);
        assert_eq!(s.cost_per_task, Some(0.0015));
        assert_eq!(s.token_runs, 2);
        assert_eq!(s.tokens_per_task, Some(900.0));
        // The median of 1, 2, 3 and 60 seconds.
        assert_eq!(s.median_seconds, Some(2.5));
        // The agents said what they used; the run the service measured had no usage.
        assert_eq!(s.cost_basis, Some(CostBasis::Reported));
    }

    #[test]
    fn a_cost_says_who_counted_the_usage_it_rests_on() {
        let used = Usage {
            input_tokens: Some(10),
            output_tokens: Some(5),
            cost_usd: Some(0.001),
        };
        let basis =
            |runs: &[bool]| spend(runs.iter().map(|by_us| (None, Some(&used), *by_us))).cost_basis;
        assert_eq!(basis(&[true, true]), Some(CostBasis::Measured));
        assert_eq!(basis(&[false]), Some(CostBasis::Reported));
        assert_eq!(basis(&[true, false]), Some(CostBasis::Mixed));
        assert_eq!(basis(&[]), None);
    }

    #[test]
    fn published_figures_keep_two_significant_figures() {
        assert_eq!(two_figures(0.0123456), 0.012);
        assert_eq!(two_figures(123456.0), 120000.0);
        assert_eq!(two_figures(0.996), 1.0);
        assert_eq!(two_figures(7.0), 7.0);
        assert_eq!(two_figures(0.0), 0.0);
        let mut odd = [5, 1, 9];
        assert_eq!(median(&mut odd), Some(5.0));
    }
}
