//! The optional rubric judge, after a run is recorded: off the job's slot (a judgement takes
//! several model calls), stored apart from the run's scores, and never blocking the
//! submission's finish.

use crate::Worker;
use mcpbench_db::judgements;
use mcpbench_db::queue::Claim;
use mcpbench_gateway::trace::Line;
use mcpbench_tasks::Task;
use std::sync::Arc;
use tracing::Instrument;

impl Worker {
    /// Judges the recorded run in the background when the deployment set a judge. On a live
    /// private set (`public` false) only the kind of a failure is logged: a judge's error can
    /// quote what it was sent.
    pub(crate) fn judge_later(
        &self,
        claim: &Claim,
        task: Arc<Task>,
        trace: Vec<Line>,
        public: bool,
    ) {
        let Some(judge) = self.config.judge.clone() else {
            return;
        };
        let pool = self.pool.clone();
        let (submission, task_id, trial) =
            (claim.submission_id, claim.task_id.clone(), claim.trial);
        let work = async move {
            match judge.judge(&task, &trace).await {
                Ok(j) => match judgements::record(&pool, submission, &task_id, trial, &j).await {
                    Ok(()) => tracing::debug!(score = j.score, "run judged"),
                    Err(e) => tracing::warn!(error = %e, "storing a judgement failed"),
                },
                Err(e) if public => tracing::warn!(error = %e, "the judge gave no judgement"),
                Err(e) => tracing::warn!(
                    kind = e.kind(),
                    "the judge gave no judgement (private set; detail withheld)"
                ),
            }
        };
        tokio::spawn(work.instrument(tracing::Span::current()));
    }
}
