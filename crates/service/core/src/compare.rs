//! Two completed submissions on one set, head to head (`GET /compare`, `/web/compare`): the
//! paired test over the tasks both ran, wins, losses and ties per server and category, and,
//! where the caller may see both submissions' runs, the tasks where they differ with links to
//! the traces it may read. A task counts as solved when more than half of its trials passed
//! (as the paired test counts it).

use crate::CoreError;
use crate::disclosure::{record_public, task_named, trace_readable};
use mcpbench_db::runs::{self, RunOutcome};
use mcpbench_db::{PgPool, submissions};
use mcpbench_scoring::{Outcome, Paired, RunCounts, paired, solved};
use serde::Serialize;
use std::collections::BTreeMap;
use uuid::Uuid;

/// One side of the comparison.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Side {
    pub id: Uuid,
    pub vendor: String,
    pub name: String,
    pub model: String,
    pub success_rate: Option<f64>,
}

/// Shared tasks of one group: solved by `a` only, by `b` only, by both, by neither.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Tally {
    pub a_only: u32,
    pub b_only: u32,
    pub both: u32,
    pub neither: u32,
}

/// A task the two submissions did not both solve or both fail.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Difference {
    pub task_id: String,
    pub server: String,
    pub category: String,
    pub a_solved: bool,
    pub b_solved: bool,
    /// The first trial's run of each, when the caller may read its trace.
    pub a_run: Option<Uuid>,
    pub b_run: Option<Uuid>,
}

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Comparison {
    pub set: String,
    pub a: Side,
    pub b: Side,
    /// The paired test over the shared tasks: `a_only` are `a`'s wins, `b_only` its losses.
    pub paired: Paired,
    pub by_server: BTreeMap<String, Tally>,
    pub by_category: BTreeMap<String, Tally>,
    /// The tasks where they differ, in the set's order; absent when the caller may not see
    /// both submissions' runs (runs are public once published on a public or retired set).
    /// A task a live set still holds is left out, unless the caller owns both sides' runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub differences: Option<Vec<Difference>>,
}

/// Per task: its first trial's run, and whether it was solved (the paired test's rule).
type Solved<'a> = BTreeMap<&'a str, (&'a RunOutcome, bool)>;

fn by_task<'a>(runs: &'a [RunOutcome], outcomes: &[Outcome]) -> Solved<'a> {
    let verdicts = solved(outcomes);
    let mut first: BTreeMap<&str, &RunOutcome> = BTreeMap::new();
    for r in runs {
        let f = first.entry(&r.task_id).or_insert(r);
        if r.trial < f.trial {
            *f = r;
        }
    }
    first
        .into_iter()
        .map(|(id, r)| (id, (r, verdicts.get(id).copied().unwrap_or(false))))
        .collect()
}

fn outcomes(runs: &[RunOutcome]) -> Vec<Outcome> {
    runs.iter()
        .map(|r| Outcome {
            task_id: r.task_id.clone(),
            server: r.server.clone(),
            category: r.category.clone(),
            difficulty: String::new(),
            max_steps: 0,
            passed: r.passed,
            counts: RunCounts::default(),
            analysis: None,
            duration_ms: None,
            usage: None,
            usage_measured: false,
            attack: None,
        })
        .collect()
}

/// Compares `a` with `b` for a caller (`caller`: the vendor id, if signed in).
pub async fn compare(
    pool: &PgPool,
    a: Uuid,
    b: Uuid,
    caller: Option<i64>,
) -> Result<Comparison, CoreError> {
    let found = |id: Uuid| async move {
        submissions::find(pool, id)
            .await?
            .filter(|s| s.status == mcpbench_db::SubmissionStatus::Completed)
            .ok_or_else(|| CoreError::NotFound(format!("there is no completed submission {id}")))
    };
    let (sa, sb) = (found(a).await?, found(b).await?);
    if sa.set_id != sb.set_id {
        return Err(CoreError::Conflict(format!(
            "the submissions ran different sets ({} and {}); only submissions on one set compare",
            sa.set_id, sb.set_id
        )));
    }
    let (ra, rb) = (
        runs::outcomes(pool, a).await?,
        runs::outcomes(pool, b).await?,
    );
    let sees = |runs: &[RunOutcome], owner: i64| {
        caller == Some(owner) || runs.first().is_some_and(run_public_outcome)
    };
    let listed = sees(&ra, sa.vendor_id) && sees(&rb, sb.vendor_id);
    let readable = |r: &RunOutcome, owner: i64| {
        trace_readable(
            r.task_open,
            run_public_outcome(r),
            caller == Some(owner) && r.set_public,
        )
    };
    // A task is named only where both sides may name it (docs/data.md): a retired month's
    // comparison leaves out the tasks a live set still holds, as its exports do.
    let named = |a: &RunOutcome, b: &RunOutcome| {
        task_named(a.task_open, caller == Some(sa.vendor_id))
            && task_named(b.task_open, caller == Some(sb.vendor_id))
    };
    let (oa, ob) = (outcomes(&ra), outcomes(&rb));
    let (xa, xb) = (by_task(&ra, &oa), by_task(&rb, &ob));
    let mut by_server: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_category: BTreeMap<String, Tally> = BTreeMap::new();
    let mut differences = Vec::new();
    for (task, (first_a, sa_ok)) in &xa {
        let Some((first_b, sb_ok)) = xb.get(task) else {
            continue;
        };
        for t in [
            by_server.entry(first_a.server.clone()).or_default(),
            by_category.entry(first_a.category.clone()).or_default(),
        ] {
            match (sa_ok, sb_ok) {
                (true, true) => t.both += 1,
                (true, false) => t.a_only += 1,
                (false, true) => t.b_only += 1,
                (false, false) => t.neither += 1,
            }
        }
        if sa_ok != sb_ok && named(first_a, first_b) {
            differences.push(Difference {
                task_id: (*task).to_string(),
                server: first_a.server.clone(),
                category: first_a.category.clone(),
                a_solved: *sa_ok,
                b_solved: *sb_ok,
                a_run: readable(first_a, sa.vendor_id).then_some(first_a.id),
                b_run: readable(first_b, sb.vendor_id).then_some(first_b.id),
            });
        }
    }
    let side = |s: &submissions::Submission| Side {
        id: s.id,
        vendor: s.vendor.clone(),
        name: s.name.clone(),
        model: s.model.clone(),
        success_rate: s.scores().and_then(|x| x.overall.success_rate),
    };
    Ok(Comparison {
        set: sa.set_id.clone(),
        a: side(&sa),
        b: side(&sb),
        paired: paired(&oa, &ob),
        by_server,
        by_category,
        differences: listed.then_some(differences),
    })
}

/// [`crate::disclosure::run_public`] for a run outcome.
fn run_public_outcome(r: &RunOutcome) -> bool {
    record_public(r.published, r.set_public, r.set_state)
}
