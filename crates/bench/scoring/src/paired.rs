//! Two submissions on the same set compared on the tasks both ran (docs/metrics.md,
//! "Comparing two submissions"): a task counts as solved when more than half of its trials
//! passed; the tasks one solved and the other did not are the discordant pairs, and the
//! two-sided exact McNemar test says how likely so lopsided a split is by chance.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Outcome;
use crate::significance::mcnemar_exact;

/// The comparison of `a` with `b`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Paired {
    /// Tasks both ran.
    pub shared: usize,
    /// Shared tasks `a` solved and `b` did not.
    pub a_only: usize,
    /// Shared tasks `b` solved and `a` did not.
    pub b_only: usize,
    /// Shared tasks both solved.
    pub both: usize,
    /// Two-sided exact McNemar: `min(1, 2 P(X >= max(a_only, b_only)))`, `X ~ Binomial(a_only
    /// + b_only, 1/2)`; 1 when no task tells them apart.
    pub p_value: f64,
}

/// Per task: whether more than half of its trials passed (what "solved" means when two
/// submissions are compared).
pub fn solved(outcomes: &[Outcome]) -> BTreeMap<&str, bool> {
    let mut tally: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    for o in outcomes {
        let t = tally.entry(&o.task_id).or_default();
        t.0 += 1;
        t.1 += u32::from(o.passed);
    }
    tally
        .into_iter()
        .map(|(id, (n, c))| (id, 2 * c > n))
        .collect()
}

/// Compares `a` and `b` on the tasks both have outcomes for.
pub fn paired(a: &[Outcome], b: &[Outcome]) -> Paired {
    let (a, b) = (solved(a), solved(b));
    let (mut shared, mut a_only, mut b_only, mut both) = (0, 0, 0, 0);
    for (task, &x) in &a {
        let Some(&y) = b.get(task) else { continue };
        shared += 1;
        match (x, y) {
            (true, true) => both += 1,
            (true, false) => a_only += 1,
            (false, true) => b_only += 1,
            (false, false) => {}
        }
    }
    let (hi, lo) = (a_only.max(b_only) as u64, a_only.min(b_only) as u64);
    let p_value = if hi + lo == 0 {
        1.0
    } else {
        (2.0 * mcnemar_exact(hi, lo)).min(1.0)
    };
    Paired {
        shared,
        a_only,
        b_only,
        both,
        p_value,
    }
}
