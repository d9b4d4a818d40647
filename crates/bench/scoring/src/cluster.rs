//! An interval for the success rate that does not count related runs as independent
//! (docs/metrics.md, "Related runs"). Runs are grouped in clusters: the trials of one task, and
//! the tasks drawn from one template, fall in one cluster (a task's template is its id without
//! the final `-<number>`, the slot the generator filled). The cluster-robust (CR1) variance of
//! the pass rate gives a design effect over the variance of independent runs, and the Wilson
//! interval is taken with the effective number of runs `n / design effect`.

use crate::stats::wilson_rate;

/// The cluster a task's runs fall in: its id without a final `-<digits>`.
pub fn cluster_of(task_id: &str) -> &str {
    match task_id.rsplit_once('-') {
        Some((template, slot))
            if !template.is_empty()
                && !slot.is_empty()
                && slot.bytes().all(|b| b.is_ascii_digit()) =>
        {
            template
        }
        _ => task_id,
    }
}

/// What the clustering does to the success rate's interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clustered {
    /// Distinct clusters among the runs.
    pub clusters: usize,
    /// `max(1, CR1 variance / independent variance)`; 1 when every run passed or every run failed.
    pub design_effect: f64,
    /// The Wilson interval at `n / design_effect` runs.
    pub ci95: [f64; 2],
}

/// The clustered interval of runs given as `(cluster, passed)`; `None` with no run or fewer
/// than two clusters (no variance between clusters can be estimated from one).
pub fn clustered<'a>(runs: impl Iterator<Item = (&'a str, bool)>) -> Option<Clustered> {
    let mut sums: std::collections::BTreeMap<&str, (f64, f64)> = Default::default();
    for (cluster, passed) in runs {
        let e = sums.entry(cluster).or_default();
        e.0 += 1.0;
        e.1 += f64::from(u8::from(passed));
    }
    let g = sums.len();
    let n: f64 = sums.values().map(|s| s.0).sum();
    if g < 2 {
        return None;
    }
    let p = sums.values().map(|s| s.1).sum::<f64>() / n;
    // CR1: (G / (G - 1)) * sum over clusters of (passes - runs * p)^2, over n^2.
    let between: f64 = sums
        .values()
        .map(|(runs, passes)| (passes - runs * p).powi(2))
        .sum();
    let robust = g as f64 / (g as f64 - 1.0) * between / (n * n);
    let independent = p * (1.0 - p) / n;
    let design_effect = if independent > 0.0 {
        (robust / independent).max(1.0)
    } else {
        1.0
    };
    Some(Clustered {
        clusters: g,
        design_effect,
        ci95: wilson_rate(p, n / design_effect)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tasks_cluster_is_its_template() {
        assert_eq!(cluster_of("fs-rename-file-0050"), "fs-rename-file");
        assert_eq!(cluster_of("fs-rename-file"), "fs-rename-file");
        assert_eq!(cluster_of("t-"), "t-");
        assert_eq!(cluster_of("-12"), "-12");
        assert_eq!(cluster_of("2026-11"), "2026");
    }
}
