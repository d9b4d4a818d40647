//! MCPBench's scores (defined in docs/metrics.md), as pure functions:
//! no I/O, no async, no randomness. The same outcomes always give the same numbers.
//!
//! Input is one [`Outcome`] per run of one task. [`metrics`] turns a slice of outcomes into one
//! [`Metrics`]; [`score`] gives the overall [`Metrics`] plus the same metrics grouped by server,
//! category and difficulty. Formulas, with `T` the outcomes considered:
//!
//! - `tasks = |T|`, `passed = |{t in T : t.passed}|`.
//! - **success rate** `= passed / tasks`; `None` when `tasks == 0`.
//! - **success_ci95** = the 95% Wilson score interval of `passed` out of `tasks`
//!   (see [`wilson`]); `None` when `tasks == 0`.
//! - **efficiency** `= mean over t in T with t.passed and t.max_steps > 0 of
//!   t.tool_calls / t.max_steps` (lower is better); `None` when no such task exists (in
//!   particular when nothing passed). A valid task always has `max_steps >= 1`; a passed outcome
//!   with `max_steps == 0` has no defined ratio and is left out of this mean only.
//! - **hallucinated_tool_rate** `= sum(t.hallucinated_calls) / sum(t.tool_calls)` over all of
//!   `T`, passed or failed; `None` when `sum(t.tool_calls) == 0`.
//! - **recovery_rate** `= |R ∩ passed| / |R|` where
//!   `R = {t in T : t.category == "recovery" and t.errors_observed >= 1}`; `None` when `R` is
//!   empty. A recovery task whose agent never observed an error is not in `R`.
//! - `tool_calls = sum(t.tool_calls)`, `hallucinated_calls = sum(t.hallucinated_calls)` (as `u64`).
//!
//! Each [`Metrics`] also carries [`ProcessMetrics`] (partial credit, call quality, closeness
//! to the references, distractors, failure groups) aggregated from the runs' [`RunAnalysis`]
//! by [`process_metrics`]; outcomes without an analysis are left out of those figures only.
//!
//! Breakdowns ([`Scores::by_server`], [`Scores::by_category`], [`Scores::by_difficulty`]) apply
//! [`metrics`] to the outcomes sharing one value of `server`, `category` or `difficulty`; a key
//! appears exactly when at least one outcome carries it, so no group is empty. Keys are sorted
//! (`BTreeMap`), so the serialized form is deterministic.
//!
//! Each [`Metrics`] carries [`Spend`] too: the mean cost per task over the runs whose agent
//! reported one, mean tokens likewise, and the median run time ([`spend`]); a figure no run
//! reported is `None`, never 0. A run's usage is `measured` when the service counted it (our
//! own agent on the standard track) and `reported` when the agent said it; [`Spend::basis`]
//! says which a figure rests on.
//!
//! [`Scores::conditions`] are the conditions the runs were measured under ([`conditions`]).
//!
//! Runs of tasks under attack (an [`Outcome::attack`]) count in [`Scores::security`] alone:
//! utility, utility under attack and attack success rate ([`security`]); every figure above is
//! of the other runs.
//!
//! For repeated trials, [`pass_hat_k`] (tau-bench's pass^k) and [`pass_at_k`] are in
//! [`stats`] alongside [`wilson`]; [`repeated`] gives them per task and per submission
//! ([`Scores::repeated`]). [`cluster`] gives the success rate an interval that counts runs of
//! one template as related ([`Metrics::success_ci95_clustered`]), and [`paired`] compares
//! two submissions on their shared tasks.

pub mod analysis;
pub mod cluster;
pub mod conditions;
mod counts;
pub mod judgement;
mod metrics;
mod paired;
mod process;
mod reason;
pub mod security;
pub mod significance;
pub mod spend;
pub mod stats;
mod trials;

pub use analysis::{CallTally, Failure, FailureGroup, ReferenceMatch, RunAnalysis};
pub use conditions::{Conditions, RunConditions, SandboxLimits};
pub use counts::RunCounts;
pub use judgement::{ITEM_MAX, ItemScore, JudgeSummary, Judgement, judge_summary};
pub use metrics::{Metrics, Outcome, Scores, metrics, score};
pub use paired::{Paired, paired, solved};
pub use process::{ProcessMetrics, process_metrics};
pub use reason::RunReason;
pub use security::{AttackOutcome, AttackSite, Security, SecurityFigures, security};
pub use significance::{fisher_greater, mcnemar_exact};
pub use spend::{CostBasis, Spend, Usage, spend, two_figures};
pub use stats::{Z95, pass_at_k, pass_hat_k, wilson, wilson_rate};
pub use trials::{Repeated, TaskTrials, repeated};
