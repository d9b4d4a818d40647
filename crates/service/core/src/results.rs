//! A set's result matrix (`GET /sets/{id}/results`): for every task in clear, each shown
//! submission's trials, passes, mean claims coverage and mean tool calls. Shown submissions
//! are the set's ranked ones whose runs the caller may see (published on a public or retired
//! set, or the caller's own), so per-task outcomes of a live private set never reach anyone.

use crate::CoreError;
use crate::disclosure::{record_public, set_open};
use mcpbench_db::exports::{self, ResultRun};
use mcpbench_db::sets::SetInfo;
use mcpbench_db::{PgPool, leaderboard};
use mcpbench_scoring::RunAnalysis;
use serde::Serialize;
use std::collections::HashMap;
use uuid::Uuid;

/// A column of the matrix: one submission, in board order.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Column {
    pub submission_id: Uuid,
    pub vendor: String,
    pub name: String,
    pub model: String,
    pub reference: bool,
    pub success_rate: f64,
}

/// One submission on one task.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Cell {
    pub trials: u32,
    pub passed: u32,
    /// Mean claims coverage over its trials (docs/metrics.md); `null` when no trial's run
    /// was analysed.
    pub coverage: Option<f64>,
    /// Mean tool calls per trial.
    pub calls: f64,
}

/// One task: a cell per column (`null` where that submission has no run of it).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Row {
    pub task_id: String,
    pub server: String,
    pub category: String,
    pub cells: Vec<Option<Cell>>,
}

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Results {
    pub set: String,
    pub submissions: Vec<Column>,
    pub tasks: Vec<Row>,
    /// Ranked submissions left out because their runs are not public (unpublished).
    pub not_shown: usize,
}

/// The matrix of `set` for a caller (`caller`: the vendor id, if signed in).
pub async fn results(
    pool: &PgPool,
    set: &SetInfo,
    caller: Option<i64>,
) -> Result<Results, CoreError> {
    if !set_open(set.public, set.state) {
        return Err(CoreError::Conflict(format!(
            "set {:?} is {} and private: its per-task results stay sealed until it retires",
            set.id, set.state
        )));
    }
    let entries = leaderboard::entries(pool, &set.id).await?;
    let total = entries.len();
    let columns: Vec<Column> = entries
        .into_iter()
        .filter(|e| {
            record_public(e.published, set.public, set.state) || Some(e.vendor_id) == caller
        })
        .map(|e| Column {
            submission_id: e.submission_id,
            vendor: e.vendor,
            name: e.name,
            model: e.model,
            reference: e.is_reference,
            success_rate: e.success_rate,
        })
        .collect();
    let ids: Vec<Uuid> = columns.iter().map(|c| c.submission_id).collect();
    let runs = exports::results(pool, &set.id, &ids).await?;
    Ok(Results {
        set: set.id.clone(),
        not_shown: total - columns.len(),
        tasks: matrix(&ids, &runs),
        submissions: columns,
    })
}

/// Runs in task order into rows with a cell per column.
fn matrix(columns: &[Uuid], runs: &[ResultRun]) -> Vec<Row> {
    let at: HashMap<Uuid, usize> = columns.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut rows: Vec<Row> = Vec::new();
    // Per cell: the coverages seen and how many.
    let mut coverage: Vec<(f64, u32)> = Vec::new();
    for r in runs {
        let Some(&col) = at.get(&r.submission_id) else {
            continue;
        };
        if rows.last().is_none_or(|row| row.task_id != r.task_id) {
            finish_coverage(rows.last_mut(), &coverage);
            rows.push(Row {
                task_id: r.task_id.clone(),
                server: r.server.clone(),
                category: r.category.clone(),
                cells: vec![None; columns.len()],
            });
            coverage = vec![(0.0, 0); columns.len()];
        }
        let row = rows.last_mut().expect("pushed above");
        let cell = row.cells[col].get_or_insert_with(Cell::default);
        // The running mean of calls, so that no sum is kept beside it.
        cell.trials += 1;
        cell.calls += (f64::from(r.tool_calls) - cell.calls) / f64::from(cell.trials);
        cell.passed += u32::from(r.passed);
        if let Some(c) = run_coverage(r) {
            coverage[col].0 += c;
            coverage[col].1 += 1;
        }
    }
    finish_coverage(rows.last_mut(), &coverage);
    rows
}

fn finish_coverage(row: Option<&mut Row>, coverage: &[(f64, u32)]) {
    let Some(row) = row else { return };
    for (cell, (sum, n)) in row.cells.iter_mut().zip(coverage) {
        if let Some(cell) = cell {
            cell.coverage = (*n > 0).then(|| sum / f64::from(*n));
        }
    }
}

/// The run's coverage by the analysis's own rule.
fn run_coverage(r: &ResultRun) -> Option<f64> {
    let count = |v: Option<i32>| v.and_then(|v| u32::try_from(v).ok());
    RunAnalysis {
        claims: count(r.claims)?,
        claims_held: count(r.claims_held)?,
        guards_broken: count(r.guards_broken)?,
        ..Default::default()
    }
    .coverage()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sub: u128, task: &str, passed: bool, calls: i32, held: Option<i32>) -> ResultRun {
        ResultRun {
            submission_id: Uuid::from_u128(sub),
            task_id: task.into(),
            server: "s".into(),
            category: "c".into(),
            passed,
            tool_calls: calls,
            claims: held.map(|_| 4),
            claims_held: held,
            guards_broken: held.map(|_| 0),
        }
    }

    #[test]
    fn cells_hold_each_submissions_trials_on_each_task() {
        let cols = [Uuid::from_u128(1), Uuid::from_u128(2)];
        let runs = [
            run(1, "t1", true, 3, Some(4)),
            run(1, "t1", false, 5, Some(2)),
            run(2, "t1", false, 8, None),
            run(2, "t2", true, 2, Some(4)),
            // Not a shown column: left out.
            run(9, "t2", true, 1, Some(4)),
        ];
        let rows = matrix(&cols, &runs);
        assert_eq!(rows.len(), 2);
        let a = Cell {
            trials: 2,
            passed: 1,
            coverage: Some(0.75),
            calls: 4.0,
        };
        let b = Cell {
            trials: 1,
            passed: 0,
            coverage: None,
            calls: 8.0,
        };
        assert_eq!(rows[0].cells, [Some(a), Some(b)]);
        assert_eq!(rows[1].task_id, "t2");
        assert_eq!(rows[1].cells[0], None, "no run of t2 by the first");
        assert_eq!(rows[1].cells[1].as_ref().unwrap().coverage, Some(1.0));
    }
}
