//! Significance tests for the anomaly detector (docs/metrics.md, "Anomaly flags").
//!
//! - [`mcnemar_exact`]`(b, c)`: paired binary outcomes with `b` pairs where only the first
//!   passed and `c` where only the second did; the one-sided exact p-value that the first is
//!   better by chance, `P(X >= b)` for `X ~ Binomial(b + c, 1/2)`. `1` when `b + c == 0`.
//! - [`fisher_greater`]`(a, n1, c, n2)`: `a` of `n1` passed in the later sample and `c` of
//!   `n2` in the earlier; the one-sided exact p-value (hypergeometric tail) that the later rate
//!   is higher by chance.
//!
//! Both sum probabilities in log space (`ln C(n, k)` from `ln_factorial`), so counts in the
//! thousands neither overflow nor underflow before they matter.

fn ln_factorial(n: u64) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

fn ln_choose(n: u64, k: u64) -> f64 {
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

/// One-sided exact McNemar test: the p-value of at least `b` of `b + c` discordant pairs
/// favouring the first member under no difference.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let half = (0.5f64).ln() * n as f64;
    (b..=n)
        .map(|k| (ln_choose(n, k) + half).exp())
        .sum::<f64>()
        .min(1.0)
}

/// One-sided Fisher exact test that `a / n1` exceeds `c / n2` by more than chance.
pub fn fisher_greater(a: u64, n1: u64, c: u64, n2: u64) -> f64 {
    let (total, passes) = (n1 + n2, a + c);
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    let ln_all = ln_choose(total, passes);
    let hi = passes.min(n1);
    (a..=hi)
        .filter(|&k| passes - k <= n2)
        .map(|k| (ln_choose(n1, k) + ln_choose(n2, passes - k) - ln_all).exp())
        .sum::<f64>()
        .min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn mcnemar_matches_the_binomial_tail() {
        assert!(close(mcnemar_exact(0, 0), 1.0));
        assert!(close(mcnemar_exact(1, 0), 0.5));
        assert!(close(mcnemar_exact(5, 0), 1.0 / 32.0));
        // P(X >= 8 | n = 10): (45 + 10 + 1) / 1024.
        assert!(close(mcnemar_exact(8, 2), 56.0 / 1024.0));
        assert!(close(mcnemar_exact(0, 7), 1.0));
        assert!(mcnemar_exact(300, 200) < 1e-5);
    }

    #[test]
    fn fisher_matches_the_hypergeometric_tail() {
        // The lady tasting tea: 3 of 4 right, one-sided p = 17/70.
        assert!(close(fisher_greater(3, 4, 1, 4), 17.0 / 70.0));
        assert!(close(fisher_greater(4, 4, 0, 4), 1.0 / 70.0));
        assert!(close(fisher_greater(0, 4, 4, 4), 1.0));
        // Equal rates: P(X >= 2), X hypergeometric (10 runs, 4 passes, 5 drawn) = 155/210.
        assert!(close(fisher_greater(2, 5, 2, 5), 155.0 / 210.0));
        assert!(close(fisher_greater(1, 0, 1, 5), 1.0));
    }
}
