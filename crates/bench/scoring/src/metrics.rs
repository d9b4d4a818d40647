//! [`Outcome`], [`Metrics`], [`Scores`] and the functions [`metrics`] and [`score`].
//! The formulas are stated in the crate documentation.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::RunCounts;
use crate::analysis::RunAnalysis;
use crate::cluster::{cluster_of, clustered};
use crate::conditions::Conditions;
use crate::process::{ProcessMetrics, process_metrics};
use crate::security::{AttackOutcome, Security, security};
use crate::spend::{Spend, Usage, spend};
use crate::stats::wilson;
use crate::trials::{Repeated, repeated};

/// What scoring needs to know of one run of one task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub task_id: String,
    /// The server the task is filed under.
    pub server: String,
    /// `"single-tool"` | `"composition"` | `"recovery"`.
    pub category: String,
    /// `"easy"` | `"medium"` | `"hard"`.
    pub difficulty: String,
    pub max_steps: u32,
    pub passed: bool,
    #[serde(flatten)]
    pub counts: RunCounts,
    /// What the run's trace shows beyond its verdict; `None` for runs recorded before
    /// analyses existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<RunAnalysis>,
    /// The run's wall time, from the request to the agent to its reply or the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// What the agent said the run used; `None` when it said nothing (unknown, not zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The service counted `usage` itself (our own agent drove the model) rather than taking
    /// the agent's word for it.
    #[serde(default)]
    pub usage_measured: bool,
    /// For a task under attack, where the attack stood and whether it succeeded; such a run
    /// counts in [`Scores::security`] alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack: Option<AttackOutcome>,
}

/// The metrics of a set of outcomes; see the crate documentation for each formula.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Metrics {
    pub tasks: usize,
    pub passed: usize,
    /// `passed / tasks`; `None` when `tasks == 0`.
    pub success_rate: Option<f64>,
    /// Wilson score interval, z = 1.959964, every run counted as independent; `None` when
    /// `tasks == 0`.
    pub success_ci95: Option<[f64; 2]>,
    /// The Wilson interval at the effective number of runs once runs of one template (and
    /// trials of one task) are taken as related; `None` with fewer than two templates.
    #[serde(default)]
    pub success_ci95_clustered: Option<[f64; 2]>,
    /// The design effect behind it: how many runs count as one independent run.
    #[serde(default)]
    pub design_effect: Option<f64>,
    /// Distinct templates (clusters) among the runs.
    #[serde(default)]
    pub clusters: usize,
    /// Mean over passed tasks of `tool_calls / max_steps`; `None` if none passed.
    pub efficiency: Option<f64>,
    /// `sum hallucinated / sum tool_calls`; `None` if no calls at all.
    pub hallucinated_tool_rate: Option<f64>,
    /// Over recovery tasks with `errors_observed >= 1`: share passed; `None` if there are none.
    pub recovery_rate: Option<f64>,
    pub tool_calls: u64,
    pub hallucinated_calls: u64,
    /// Partial credit, call quality, closeness to the references, distractors, failures.
    #[serde(flatten)]
    pub process: ProcessMetrics,
    /// Cost per task and median run time (unknown when no run reported them).
    #[serde(flatten)]
    pub spend: Spend,
}

/// Overall metrics plus breakdowns by server, category and difficulty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Scores {
    #[serde(flatten)]
    pub overall: Metrics,
    pub by_server: BTreeMap<String, Metrics>,
    pub by_category: BTreeMap<String, Metrics>,
    pub by_difficulty: BTreeMap<String, Metrics>,
    /// By the task's shape (`serial` or `parallel`, from its analysis); runs without an
    /// analysis are in no group. Empty when no run has one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_shape: BTreeMap<String, Metrics>,
    /// pass^k and pass@k when some task had two trials or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeated: Option<Repeated>,
    /// The conditions the runs were measured under; `None` for submissions run before they
    /// were recorded. [`score`] leaves them to its caller, which has the runs' records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// Utility, utility under attack and attack success rate, when some runs were of tasks
    /// under attack ([`crate::security`]); never part of the rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Security>,
}

/// The metrics of `outcomes`, taken together.
pub fn metrics(outcomes: &[Outcome]) -> Metrics {
    metrics_of(outcomes.iter())
}

/// The overall metrics of `outcomes` and their breakdowns. The runs of tasks under attack
/// count in [`Scores::security`] alone; every other figure is of the other runs.
pub fn score(outcomes: &[Outcome]) -> Scores {
    let security = security(outcomes);
    let unattacked: std::borrow::Cow<[Outcome]> = match security {
        None => outcomes.into(),
        Some(_) => outcomes
            .iter()
            .filter(|o| o.attack.is_none())
            .cloned()
            .collect::<Vec<_>>()
            .into(),
    };
    let outcomes = &unattacked[..];
    Scores {
        overall: metrics(outcomes),
        by_server: group_by(outcomes, |o| &o.server),
        by_category: group_by(outcomes, |o| &o.category),
        by_difficulty: group_by(outcomes, |o| &o.difficulty),
        by_shape: by_shape(outcomes),
        repeated: repeated(outcomes),
        conditions: None,
        security,
    }
}

fn group_by(outcomes: &[Outcome], key: impl Fn(&Outcome) -> &String) -> BTreeMap<String, Metrics> {
    let mut groups: BTreeMap<&String, Vec<&Outcome>> = BTreeMap::new();
    for o in outcomes {
        groups.entry(key(o)).or_default().push(o);
    }
    groups
        .into_iter()
        .map(|(k, v)| (k.clone(), metrics_of(v.into_iter())))
        .collect()
}

fn by_shape(outcomes: &[Outcome]) -> BTreeMap<String, Metrics> {
    let mut groups: BTreeMap<&str, Vec<&Outcome>> = BTreeMap::new();
    for o in outcomes {
        if let Some(shape) = o.analysis.as_ref().and_then(|a| a.shape.as_deref()) {
            groups.entry(shape).or_default().push(o);
        }
    }
    groups
        .into_iter()
        .map(|(k, v)| (k.to_string(), metrics_of(v.into_iter())))
        .collect()
}

fn ratio(num: f64, den: f64) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}

fn metrics_of<'a>(outcomes: impl Iterator<Item = &'a Outcome> + Clone) -> Metrics {
    let process = process_metrics(outcomes.clone().filter_map(|o| o.analysis.as_ref()));
    let spend = spend(
        outcomes
            .clone()
            .map(|o| (o.duration_ms, o.usage.as_ref(), o.usage_measured)),
    );
    let related = clustered(outcomes.clone().map(|o| (cluster_of(&o.task_id), o.passed)));
    let clusters = outcomes
        .clone()
        .map(|o| cluster_of(&o.task_id))
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let mut tasks = 0usize;
    let mut passed = 0usize;
    let mut tool_calls = 0u64;
    let mut hallucinated_calls = 0u64;
    let mut eff_sum = 0.0f64;
    let mut eff_n = 0usize;
    let mut rec_n = 0usize;
    let mut rec_passed = 0usize;
    for o in outcomes {
        tasks += 1;
        tool_calls += u64::from(o.counts.tool_calls);
        hallucinated_calls += u64::from(o.counts.hallucinated_calls);
        if o.passed {
            passed += 1;
            if o.max_steps > 0 {
                eff_sum += f64::from(o.counts.tool_calls) / f64::from(o.max_steps);
                eff_n += 1;
            }
        }
        if o.category == "recovery" && o.counts.errors_observed >= 1 {
            rec_n += 1;
            if o.passed {
                rec_passed += 1;
            }
        }
    }
    Metrics {
        tasks,
        passed,
        success_rate: ratio(passed as f64, tasks as f64),
        success_ci95: wilson(passed, tasks),
        success_ci95_clustered: related.map(|c| c.ci95),
        design_effect: related.map(|c| c.design_effect),
        clusters,
        efficiency: ratio(eff_sum, eff_n as f64),
        hallucinated_tool_rate: ratio(hallucinated_calls as f64, tool_calls as f64),
        recovery_rate: ratio(rec_passed as f64, rec_n as f64),
        tool_calls,
        hallucinated_calls,
        process,
        spend,
    }
}
