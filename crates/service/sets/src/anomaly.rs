//! Anomaly detection per rotation (docs/metrics.md, "Anomaly flags"). Four signals, each a test
//! with a stated threshold, so that a flag means "look closer", never "cheated":
//!
//! - `score_jump`: a vendor's model scores beyond what the intervals explain against its own
//!   earlier months, pooled: the 95% Wilson intervals over tasks solved (one outcome per task)
//!   do not overlap (this month's lower bound above the earlier upper bound). A month much
//!   easier than the last lifts every model; the flag says so by firing for many at once.
//! - `kept_fresh_gap`: within one submission, tasks kept from earlier months against fresh ones.
//!   Kept tasks are never published while a live set holds them (a retirement withholds them),
//!   but agents ran them in earlier months: a hosted endpoint was sent every goal, and a vendor
//!   who kept those goals (or trained on them) does better on the kept tasks than on fresh ones
//!   of the same shape. Each fresh task is paired with a kept task of the same server, category
//!   and difficulty (else of the same server and category; the rotation replaced like with
//!   like), and the pairs go through a one-sided exact McNemar test: flagged when p < 0.01 over
//!   at least 10 pairs.
//! - `exposed_gap`: within one submission, the tasks its vendor had been sent before (by a
//!   hosted endpoint or a standard-track model of an earlier submission, in any month: the
//!   exposures) against tasks it had not seen, paired and tested as `kept_fresh_gap` is. Where a
//!   vendor ran hosted, this is the sharper test: it knows which tasks that vendor saw.
//! - `task_spike`: a kept task whose solve rate across submissions jumps against the previous
//!   month, counting each vendor's model once: one-sided Fisher exact test, Bonferroni-corrected
//!   over the tasks tested (family p < 0.05), a rise of at least 30 points and 5 models a month. Listed for admins only
//!   (it names a task of a live set).

use crate::{SetError, info};
use mcpbench_db::anomalies::{self, History, NewFlag, Shape, TaskOutcome};
use mcpbench_db::{AnomalyKind, PgPool};
use mcpbench_scoring::{fisher_greater, mcnemar_exact, wilson};
use serde_json::json;
use std::collections::{BTreeMap, HashMap, HashSet};
use uuid::Uuid;

pub const MCNEMAR_ALPHA: f64 = 0.01;
pub const MIN_PAIRS: usize = 10;
pub const SPIKE_FAMILY_ALPHA: f64 = 0.05;
pub const SPIKE_MIN_RISE: f64 = 0.30;
pub const SPIKE_MIN_SUBMISSIONS: u64 = 5;

/// Submissions that solved a task, of those that ran it.
type Tally = (u64, u64);

/// A task counts as passed by a submission when most of its trials passed.
fn solved(o: &TaskOutcome) -> bool {
    2 * o.passed > o.trials
}

fn by_submission(outcomes: &[TaskOutcome]) -> BTreeMap<Uuid, Vec<&TaskOutcome>> {
    let mut map: BTreeMap<Uuid, Vec<&TaskOutcome>> = BTreeMap::new();
    for o in outcomes {
        map.entry(o.submission_id).or_default().push(o);
    }
    map
}

fn score_jumps(now: &[TaskOutcome], history: &[History]) -> Vec<NewFlag> {
    let mut flags = Vec::new();
    for (submission, tasks) in by_submission(now) {
        let (vendor, model) = (tasks[0].vendor_id, &tasks[0].model);
        let Some(before) = history
            .iter()
            .find(|h| h.vendor_id == vendor && &h.model == model)
        else {
            continue;
        };
        // One outcome per task (trials of one task are not independent draws).
        let passed = tasks.iter().filter(|t| solved(t)).count() as i64;
        let runs = tasks.len() as i64;
        let (Some(ci_now), Some(ci_before)) = (
            wilson(passed as usize, runs as usize),
            wilson(before.passed as usize, before.runs as usize),
        ) else {
            continue;
        };
        if ci_now[0] > ci_before[1] {
            let (rate, rate_before) = (
                passed as f64 / runs as f64,
                before.passed as f64 / before.runs as f64,
            );
            flags.push(NewFlag {
                kind: AnomalyKind::ScoreJump,
                submission_id: Some(submission),
                task_id: None,
                summary: format!(
                    "success rate {rate:.2} [{:.2}, {:.2}] against {rate_before:.2} [{:.2}, {:.2}] \
                     over its earlier months ({})",
                    ci_now[0],
                    ci_now[1],
                    ci_before[0],
                    ci_before[1],
                    before.sets.join(", ")
                ),
                detail: json!({"now": {"passed": passed, "runs": runs, "ci95": ci_now},
                               "before": {"passed": before.passed, "runs": before.runs,
                                          "ci95": ci_before, "sets": before.sets}}),
            });
        }
    }
    flags
}

/// Pairs each task `seen` says no to with an unused task it says yes to of the closest shape,
/// in set order: (seen, unseen).
fn pairs(shapes: &[Shape], seen: impl Fn(&Shape) -> bool) -> Vec<(&str, &str)> {
    let kept: Vec<&Shape> = shapes.iter().filter(|s| seen(s)).collect();
    let mut used = vec![false; kept.len()];
    let mut out = Vec::new();
    for fresh in shapes.iter().filter(|s| !seen(s)) {
        // Like with like: the same server and category, the same difficulty when there is one.
        let fits: [&dyn Fn(&Shape) -> bool; 2] = [
            &|k| {
                k.server == fresh.server
                    && k.category == fresh.category
                    && k.difficulty == fresh.difficulty
            },
            &|k| k.server == fresh.server && k.category == fresh.category,
        ];
        let found = fits
            .iter()
            .find_map(|fit| (0..kept.len()).find(|&i| !used[i] && fit(kept[i])));
        if let Some(i) = found {
            used[i] = true;
            out.push((kept[i].task_id.as_str(), fresh.task_id.as_str()));
        }
    }
    out
}

/// One submission's tasks paired (seen, unseen), through the exact McNemar test.
struct Gap {
    pairs: usize,
    seen_solved: u64,
    unseen_solved: u64,
    seen_only: u64,
    unseen_only: u64,
    p: f64,
}

/// The gap of each submission in `now` over its `pairs`, where it ran at least [`MIN_PAIRS`]
/// of them and the test says p < [`MCNEMAR_ALPHA`].
fn gaps<'a>(
    now: &'a [TaskOutcome],
    pairs_of: impl Fn(Uuid) -> Vec<(&'a str, &'a str)>,
) -> Vec<(Uuid, Gap)> {
    let mut out = Vec::new();
    for (submission, tasks) in by_submission(now) {
        let solved: HashMap<&str, bool> = tasks
            .iter()
            .map(|t| (t.task_id.as_str(), solved(t)))
            .collect();
        let (mut b, mut c, mut n) = (0u64, 0u64, 0usize);
        let (mut seen_solved, mut unseen_solved) = (0u64, 0u64);
        for (seen, unseen) in pairs_of(submission) {
            let (Some(&k), Some(&f)) = (solved.get(seen), solved.get(unseen)) else {
                continue;
            };
            n += 1;
            seen_solved += u64::from(k);
            unseen_solved += u64::from(f);
            match (k, f) {
                (true, false) => b += 1,
                (false, true) => c += 1,
                _ => {}
            }
        }
        if n < MIN_PAIRS {
            continue;
        }
        let p = mcnemar_exact(b, c);
        if p < MCNEMAR_ALPHA {
            out.push((
                submission,
                Gap {
                    pairs: n,
                    seen_solved,
                    unseen_solved,
                    seen_only: b,
                    unseen_only: c,
                    p,
                },
            ));
        }
    }
    out
}

/// A gap's flag: `seen` and `unseen` name the two sides in its summary, `keys` its detail's
/// four counts (seen solved, unseen solved, seen only, unseen only).
fn gap_flag(
    kind: AnomalyKind,
    submission: Uuid,
    g: &Gap,
    (seen, unseen): (&str, &str),
    keys: [&str; 4],
) -> NewFlag {
    NewFlag {
        kind,
        submission_id: Some(submission),
        task_id: None,
        summary: format!(
            "solved {} of {n} {seen} but {} of {n} {unseen} of the same shape (exact McNemar \
             p = {:.2e}, {} against {} discordant pairs)",
            g.seen_solved,
            g.unseen_solved,
            g.p,
            g.seen_only,
            g.unseen_only,
            n = g.pairs,
        ),
        detail: json!({"pairs": g.pairs, keys[0]: g.seen_solved, keys[1]: g.unseen_solved,
                       keys[2]: g.seen_only, keys[3]: g.unseen_only, "p": g.p}),
    }
}

fn kept_fresh_gaps(now: &[TaskOutcome], shapes: &[Shape]) -> Vec<NewFlag> {
    let pairs = pairs(shapes, |s| s.kept);
    gaps(now, |_| pairs.clone())
        .into_iter()
        .map(|(submission, g)| {
            gap_flag(
                AnomalyKind::KeptFreshGap,
                submission,
                &g,
                ("kept tasks (run by agents in earlier months)", "fresh ones"),
                ["kept_solved", "fresh_solved", "kept_only", "fresh_only"],
            )
        })
        .collect()
}

/// `seen`: for each submission, the tasks of the set its vendor had been sent before it.
fn exposed_gaps(
    now: &[TaskOutcome],
    shapes: &[Shape],
    seen: &HashMap<Uuid, HashSet<String>>,
) -> Vec<NewFlag> {
    let none = HashSet::new();
    gaps(now, |submission| {
        let seen = seen.get(&submission).unwrap_or(&none);
        pairs(shapes, |s| seen.contains(&s.task_id))
    })
    .into_iter()
    .map(|(submission, g)| {
        gap_flag(
            AnomalyKind::ExposedGap,
            submission,
            &g,
            (
                "tasks its vendor had been sent before (exposed)",
                "unseen ones",
            ),
            [
                "exposed_solved",
                "unseen_solved",
                "exposed_only",
                "unseen_only",
            ],
        )
    })
    .collect()
}

fn task_spikes(now: &[TaskOutcome], previous: &[TaskOutcome], shapes: &[Shape]) -> Vec<NewFlag> {
    let kept: HashSet<&str> = shapes
        .iter()
        .filter(|s| s.kept)
        .map(|s| s.task_id.as_str())
        .collect();
    // One outcome per task and model (a vendor submitting ten times is one voice): solved
    // when most of that model's submissions solved it.
    let rates = |outcomes: &[TaskOutcome]| {
        let mut per_model: HashMap<(&str, i64, &str), Tally> = HashMap::new();
        for o in outcomes {
            let e = per_model
                .entry((o.task_id.as_str(), o.vendor_id, o.model.as_str()))
                .or_default();
            e.0 += u64::from(solved(o));
            e.1 += 1;
        }
        let mut m: HashMap<String, Tally> = HashMap::new();
        for ((task, _, _), (solved_by, submissions)) in per_model {
            let e = m.entry(task.to_string()).or_default();
            e.0 += u64::from(2 * solved_by > submissions);
            e.1 += 1;
        }
        m
    };
    let (now, before) = (rates(now), rates(previous));
    let tested: Vec<(&String, Tally, Tally)> = now
        .iter()
        .filter(|(id, _)| kept.contains(id.as_str()))
        .filter_map(|(id, n)| before.get(id).map(|b| (id, *n, *b)))
        .filter(|(_, n, b)| n.1 >= SPIKE_MIN_SUBMISSIONS && b.1 >= SPIKE_MIN_SUBMISSIONS)
        .collect();
    let alpha = SPIKE_FAMILY_ALPHA / tested.len().max(1) as f64;
    let mut flags: Vec<NewFlag> = tested
        .iter()
        .filter_map(|(id, (a, n1), (c, n2))| {
            let (rate, rate_before) = (*a as f64 / *n1 as f64, *c as f64 / *n2 as f64);
            let p = fisher_greater(*a, *n1, *c, *n2);
            (p < alpha && rate - rate_before >= SPIKE_MIN_RISE).then(|| NewFlag {
                kind: AnomalyKind::TaskSpike,
                submission_id: None,
                task_id: Some((*id).clone()),
                summary: format!(
                    "solved by {a} of {n1} submissions against {c} of {n2} last month \
                     (Fisher p = {p:.2e}, Bonferroni over {} tasks)",
                    tested.len()
                ),
                detail: json!({"now": [a, n1], "before": [c, n2], "p": p, "tested": tested.len()}),
            })
        })
        .collect();
    flags.sort_by(|x, y| x.task_id.cmp(&y.task_id));
    flags
}

/// Every flag the four signals raise for a set's outcomes; `seen` gives, per submission, the
/// tasks its vendor had been sent before it (empty where nothing was exposed).
pub fn detect(
    now: &[TaskOutcome],
    shapes: &[Shape],
    history: &[History],
    previous: &[TaskOutcome],
    seen: &HashMap<Uuid, HashSet<String>>,
) -> Vec<NewFlag> {
    let mut flags = score_jumps(now, history);
    flags.extend(kept_fresh_gaps(now, shapes));
    flags.extend(exposed_gaps(now, shapes, seen));
    flags.extend(task_spikes(now, previous, shapes));
    flags
}

/// Analyses a set's completed submissions and stores its flags (replacing earlier ones).
pub async fn analyze(pool: &PgPool, set: &str) -> Result<Vec<NewFlag>, SetError> {
    let info = info(pool, set).await?;
    let now = anomalies::outcomes(pool, set).await?;
    let shapes = anomalies::shapes(pool, set).await?;
    let history = anomalies::history(pool, set).await?;
    let previous = match &info.rotated_from {
        Some(from) => anomalies::outcomes(pool, from).await?,
        None => Vec::new(),
    };
    let mut seen: HashMap<Uuid, HashSet<String>> = HashMap::new();
    for (submission, task) in mcpbench_db::exposures::seen_before(pool, set).await? {
        seen.entry(submission).or_default().insert(task);
    }
    let flags = detect(&now, &shapes, &history, &previous, &seen);
    anomalies::replace(pool, set, &flags).await?;
    tracing::info!(set, flags = flags.len(), "anomaly analysis stored");
    Ok(flags)
}
