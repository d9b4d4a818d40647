//! [`Judgement`]: an optional model's reading of one run against its task's rubric
//! (docs/metrics.md, "The rubric judge"). Kept apart from every deterministic score: nothing in
//! [`crate::Metrics`] reads it, and [`JudgeSummary`] aggregates it on its own.

use serde::{Deserialize, Serialize};

/// The scale every rubric item is scored on: 0 (not at all) to this (fully).
pub const ITEM_MAX: f64 = 10.0;

/// One run as the judge model saw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Judgement {
    /// The judge model, as the deployment named it.
    pub model: String,
    /// Each rubric item with its score averaged over the valid shuffles.
    pub items: Vec<ItemScore>,
    /// The mean of the items' means over [`ITEM_MAX`]: 0 to 1.
    pub score: f64,
    /// Orderings of the rubric asked for, and how many gave a valid reply.
    pub shuffles: u32,
    pub valid_shuffles: u32,
}

/// One rubric item's scores across the shuffles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ItemScore {
    /// `R1`, `R2`, ... for the general items, `C1`, ... for the task's own.
    pub id: String,
    pub text: String,
    /// Mean, lowest and highest score (0 to [`ITEM_MAX`]) over the valid shuffles.
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

/// A submission's judged runs, summed apart from its scores.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JudgeSummary {
    /// Runs with a judgement.
    pub runs: u32,
    /// The mean of their scores (0 to 1); absent when none was judged.
    pub mean_score: Option<f64>,
    /// The mean over passed runs and over failed ones, to show how far the judge agrees
    /// with the checks.
    pub mean_passed: Option<f64>,
    pub mean_failed: Option<f64>,
    /// The judge models seen.
    pub models: Vec<String>,
}

/// Sums `(passed, judgement)` pairs into a [`JudgeSummary`].
pub fn judge_summary<'a>(runs: impl IntoIterator<Item = (bool, &'a Judgement)>) -> JudgeSummary {
    let mut all = (0.0, 0u32);
    let mut by = [(0.0, 0u32), (0.0, 0u32)];
    let mut models: Vec<String> = Vec::new();
    for (passed, j) in runs {
        all.0 += j.score;
        all.1 += 1;
        let b = &mut by[usize::from(passed)];
        b.0 += j.score;
        b.1 += 1;
        if !models.contains(&j.model) {
            models.push(j.model.clone());
        }
    }
    let mean = |(sum, n): (f64, u32)| (n > 0).then(|| sum / f64::from(n));
    models.sort();
    JudgeSummary {
        runs: all.1,
        mean_score: mean(all),
        mean_passed: mean(by[1]),
        mean_failed: mean(by[0]),
        models,
    }
}
