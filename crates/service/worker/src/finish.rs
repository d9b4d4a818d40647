//! Scoring a submission once its last job has ended.

use mcpbench_db::runs::{self, ScoredRun};
use mcpbench_db::submissions::{self, Finished};
use mcpbench_db::{DbError, PgPool};
use mcpbench_scoring::{Outcome, Scores, conditions, score};
use uuid::Uuid;

/// Scores a submission from its recorded runs and finishes it (exactly once; see
/// [`submissions::finish`]). Safe to call from any number of workers at once.
pub async fn finish(pool: &PgPool, id: Uuid) -> Result<Finished, DbError> {
    let runs = runs::for_scoring(pool, id).await?;
    submissions::finish(pool, id, &final_scores(&runs)).await
}

/// The scores of a set of runs, each trial counted as one outcome, with the conditions they
/// were measured under.
pub fn final_scores(runs: &[ScoredRun]) -> Scores {
    let outcomes: Vec<Outcome> = runs
        .iter()
        .map(|r| Outcome {
            task_id: r.task_id.clone(),
            server: r.server.clone(),
            category: r.category.clone(),
            difficulty: r.difficulty.clone(),
            max_steps: r.max_steps.max(0) as u32,
            passed: r.passed,
            counts: r.counts,
            analysis: r.analysis.clone(),
            duration_ms: u64::try_from(r.duration_ms).ok(),
            usage: r.usage,
            usage_measured: r.usage_measured,
            attack: r.attack.clone(),
        })
        .collect();
    Scores {
        conditions: conditions::combine(runs.iter().filter_map(|r| r.conditions.as_ref())),
        ..score(&outcomes)
    }
}
