//! Interval and repeated-trial statistics (docs/metrics.md).
//!
//! - [`wilson`]`(c, n)`: with `p = c / n` and `z = 1.959964` ([`Z95`]),
//!   `centre = (p + z²/(2n)) / (1 + z²/n)`,
//!   `half = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/(4n²))`,
//!   interval `[centre - half, centre + half]` clamped to `[0, 1]`; the lower bound is exactly
//!   `0` when `c == 0` and the upper bound exactly `1` when `c == n` (the formula's value there,
//!   without rounding noise). `None` when `n == 0` or `c > n`.
//! - [`pass_hat_k`]`(c, n, k)` (tau-bench pass^k, the chance that `k` trials drawn without
//!   replacement from `n`, of which `c` passed, all pass) `= C(c,k) / C(n,k)
//!   = prod_{i=0}^{k-1} (c-i)/(n-i)`, which is `0` when `c < k`.
//! - [`pass_at_k`]`(c, n, k)` (the chance that at least one of the `k` drawn trials passes)
//!   `= 1 - C(n-c,k) / C(n,k) = 1 - prod_{i=0}^{k-1} (n-c-i)/(n-i)`, which is `1` when
//!   `n - c < k`.
//!
//! Both are computed as products of ratios, each factor in `[0, 1]`, so nothing overflows.
//! Both are `None` when `k == 0`, `k > n` or `c > n` (`n == 0` is covered by `k > n` or
//! `k == 0`).

/// The two-sided 95% normal quantile used by [`wilson`].
pub const Z95: f64 = 1.959964;

/// The 95% Wilson score interval of `passed` successes in `n` trials.
/// `None` for `n == 0` (or `passed > n`); bounds clamped to `[0, 1]`.
pub fn wilson(passed: usize, n: usize) -> Option<[f64; 2]> {
    if n == 0 || passed > n {
        return None;
    }
    wilson_rate(passed as f64 / n as f64, n as f64)
}

/// The same interval for a pass rate `p` over `n` runs where `n` need not be whole (an
/// effective number of runs, see [`crate::cluster`]). `None` unless `n > 0` and `p` is in
/// `[0, 1]`; the bounds are exactly 0 at `p = 0` and exactly 1 at `p = 1`.
pub fn wilson_rate(p: f64, n: f64) -> Option<[f64; 2]> {
    if n.is_nan() || n <= 0.0 || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let lo = if p == 0.0 {
        0.0
    } else {
        (centre - half).clamp(0.0, 1.0)
    };
    let hi = if p == 1.0 {
        1.0
    } else {
        (centre + half).clamp(0.0, 1.0)
    };
    Some([lo, hi])
}

/// `C(a,k) / C(n,k)` as a product of ratios, for `a <= n`, `k <= n`.
fn comb_ratio(a: usize, n: usize, k: usize) -> f64 {
    if a < k {
        return 0.0;
    }
    (0..k).map(|i| (a - i) as f64 / (n - i) as f64).product()
}

fn valid(c: usize, n: usize, k: usize) -> bool {
    k != 0 && k <= n && c <= n
}

/// tau-bench pass^k: `C(c,k) / C(n,k)` with `c = trials_passed`, `n = trials`.
/// `None` when `k == 0`, `k > trials` or `trials_passed > trials`.
pub fn pass_hat_k(trials_passed: usize, trials: usize, k: usize) -> Option<f64> {
    valid(trials_passed, trials, k).then(|| comb_ratio(trials_passed, trials, k))
}

/// pass@k: `1 - C(n-c,k) / C(n,k)` with `c = trials_passed`, `n = trials`.
/// `None` when `k == 0`, `k > trials` or `trials_passed > trials`.
pub fn pass_at_k(trials_passed: usize, trials: usize, k: usize) -> Option<f64> {
    valid(trials_passed, trials, k).then(|| 1.0 - comb_ratio(trials - trials_passed, trials, k))
}
