//! Repeated trials (docs/metrics.md, "Repeated trials"): tau-bench's pass^k and pass@k per
//! task, and their means over the tasks, for every `k` up to the fewest trials any task had.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Outcome;
use crate::stats::{pass_at_k, pass_hat_k};

/// One task's trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TaskTrials {
    pub trials: usize,
    pub passed: usize,
    /// `pass_hat_k[k - 1]` is pass^k, for `k` from 1 to `trials`.
    pub pass_hat_k: Vec<f64>,
    /// `pass_at_k[k - 1]` is pass@k, for `k` from 1 to `trials`.
    pub pass_at_k: Vec<f64>,
}

/// A submission's repeated trials: the means over its tasks, and each task's own figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Repeated {
    /// The fewest trials any task had: the largest `k` every task can be judged at.
    pub k_max: usize,
    /// Mean over the tasks of pass^k, for `k` from 1 to `k_max`.
    pub pass_hat_k: Vec<f64>,
    /// Mean over the tasks of pass@k, for `k` from 1 to `k_max`.
    pub pass_at_k: Vec<f64>,
    pub by_task: BTreeMap<String, TaskTrials>,
}

/// The repeated-trial figures of `outcomes`; `None` unless some task had two trials or more.
pub fn repeated(outcomes: &[Outcome]) -> Option<Repeated> {
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for o in outcomes {
        let t = tally.entry(&o.task_id).or_default();
        t.0 += 1;
        t.1 += usize::from(o.passed);
    }
    let k_max = tally.values().map(|t| t.0).min()?;
    if tally.values().all(|t| t.0 < 2) {
        return None;
    }
    let by_task: BTreeMap<String, TaskTrials> = tally
        .iter()
        .map(|(id, &(n, c))| {
            let series = |f: fn(usize, usize, usize) -> Option<f64>| {
                (1..=n).map(|k| f(c, n, k).unwrap_or(0.0)).collect()
            };
            let trials = TaskTrials {
                trials: n,
                passed: c,
                pass_hat_k: series(pass_hat_k),
                pass_at_k: series(pass_at_k),
            };
            (id.to_string(), trials)
        })
        .collect();
    let tasks = by_task.len() as f64;
    let mean = |pick: fn(&TaskTrials) -> &Vec<f64>| -> Vec<f64> {
        (0..k_max)
            .map(|i| by_task.values().map(|t| pick(t)[i]).sum::<f64>() / tasks)
            .collect()
    };
    Some(Repeated {
        k_max,
        pass_hat_k: mean(|t| &t.pass_hat_k),
        pass_at_k: mean(|t| &t.pass_at_k),
        by_task,
    })
}
