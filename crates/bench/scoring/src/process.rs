//! [`ProcessMetrics`]: what the runs' analyses ([`RunAnalysis`]) add up to, beside the
//! success rate (docs/metrics.md, section 3). Outcomes without an analysis (runs
//! recorded before analyses existed) are left out of every figure here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::{DISTRACTOR_GATE, MOSTLY_DONE, RunAnalysis};

/// Partial credit, call quality, closeness to the references, distractors and failure groups.
/// Every rate is `None` when its denominator is 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProcessMetrics {
    /// Mean of each run's claims coverage.
    #[serde(default)]
    pub coverage: Option<f64>,
    /// Share of runs whose coverage is at least 0.75.
    #[serde(default)]
    pub mostly_done_rate: Option<f64>,
    /// `Σ named / Σ judged`: calls naming a listed tool over calls within the budget.
    #[serde(default)]
    pub tool_name_validity: Option<f64>,
    /// `Σ well_formed / Σ named`: calls whose arguments fit the schema over calls to listed tools.
    #[serde(default)]
    pub schema_compliance: Option<f64>,
    /// `Σ succeeded / Σ executed`: calls the tool answered without error over calls it answered.
    #[serde(default)]
    pub execution_success: Option<f64>,
    /// Mean tool-selection accuracy against each run's closest reference.
    #[serde(default)]
    pub selection_accuracy: Option<f64>,
    /// Mean parameter accuracy against each run's closest reference.
    #[serde(default)]
    pub parameter_accuracy: Option<f64>,
    /// Mean of each run's calls over its closest reference's.
    #[serde(default)]
    pub call_ratio: Option<f64>,
    /// Share of runs resolved by MCPToolBench++'s thresholds (0.8, 0.7, 1.5).
    #[serde(default)]
    pub resolved_rate: Option<f64>,
    /// mcptest's accuracy, `Σ relevant * 100 / Σ named`, from 0 to 100.
    #[serde(default)]
    pub distractor_accuracy: Option<f64>,
    /// Whether `distractor_accuracy` reaches mcptest's default gate of 50.
    #[serde(default)]
    pub distractor_gate: Option<bool>,
    /// `Σ distractor / Σ named`: the share of calls to listed tools that went to distractor
    /// servers.
    #[serde(default)]
    pub distractor_call_share: Option<f64>,
    /// Failed runs per failure group (only groups with at least one run).
    #[serde(default)]
    pub failures: BTreeMap<String, u64>,
}

fn ratio(num: f64, den: f64) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    ratio(sum, n as f64)
}

/// The process metrics of the analyses given (one per scored run).
pub fn process_metrics<'a>(
    analyses: impl Iterator<Item = &'a RunAnalysis> + Clone,
) -> ProcessMetrics {
    let coverages: Vec<f64> = analyses.clone().filter_map(RunAnalysis::coverage).collect();
    let mut sums = [0u64; 7];
    let mut failures: BTreeMap<String, u64> = BTreeMap::new();
    for a in analyses.clone() {
        let c = &a.calls;
        let parts = [
            c.judged,
            c.named,
            c.well_formed,
            c.executed,
            c.succeeded,
            c.relevant,
            c.distractor,
        ];
        for (sum, part) in sums.iter_mut().zip(parts) {
            *sum += u64::from(part);
        }
        if let Some(f) = &a.failure {
            *failures.entry(f.group.as_str().into()).or_default() += 1;
        }
    }
    let [
        judged,
        named,
        well_formed,
        executed,
        succeeded,
        relevant,
        distractor,
    ] = sums.map(|s| s as f64);
    let references = analyses.filter_map(|a| a.reference.as_ref());
    let distractor_accuracy = ratio(relevant * 100.0, named);
    ProcessMetrics {
        coverage: mean(coverages.iter().copied()),
        mostly_done_rate: mean(
            coverages
                .iter()
                .map(|&c| if c >= MOSTLY_DONE { 1.0 } else { 0.0 }),
        ),
        tool_name_validity: ratio(named, judged),
        schema_compliance: ratio(well_formed, named),
        execution_success: ratio(succeeded, executed),
        selection_accuracy: mean(references.clone().map(|r| r.selection)),
        parameter_accuracy: mean(references.clone().map(|r| r.parameters)),
        call_ratio: mean(references.clone().map(|r| r.call_ratio)),
        resolved_rate: mean(references.map(|r| if r.resolved { 1.0 } else { 0.0 })),
        distractor_accuracy,
        distractor_gate: distractor_accuracy.map(|a| a >= DISTRACTOR_GATE),
        distractor_call_share: ratio(distractor, named),
        failures,
    }
}
