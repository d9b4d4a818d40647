//! Scoring a submission once its last job has ended.

use mcpbench_db::runs::{self, ScoredRun};
use mcpbench_db::submissions::{self, FinalScores, Finished};
use mcpbench_db::{DbError, PgPool};
use mcpbench_scoring::{Outcome, score};
use uuid::Uuid;

/// Scores a submission from its recorded runs and finishes it (exactly once; see
/// [`submissions::finish`]). Safe to call from any number of workers at once.
pub async fn finish(pool: &PgPool, id: Uuid) -> Result<Finished, DbError> {
    let runs = runs::for_scoring(pool, id).await?;
    submissions::finish(pool, id, &final_scores(&runs)).await
}

/// The scores of a set of runs, each trial counted as one outcome.
pub fn final_scores(runs: &[ScoredRun]) -> FinalScores {
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
        })
        .collect();
    let scores = score(&outcomes);
    let overall = &scores.overall;
    FinalScores {
        scores: serde_json::to_value(&scores).expect("scores serialize"),
        tasks: overall.tasks as i32,
        passed: overall.passed as i32,
        success_rate: overall.success_rate.unwrap_or(0.0),
        ci95: overall.success_ci95.unwrap_or([0.0, 0.0]),
        ci95_clustered: overall.success_ci95_clustered,
        efficiency: overall.efficiency,
        hallucinated_tool_rate: overall.hallucinated_tool_rate,
        recovery_rate: overall.recovery_rate,
        by_server: serde_json::to_value(&scores.by_server).expect("scores serialize"),
        by_category: serde_json::to_value(&scores.by_category).expect("scores serialize"),
        process: serde_json::to_value(&overall.process).expect("scores serialize"),
        spend: serde_json::to_value(&overall.spend).expect("scores serialize"),
    }
}
