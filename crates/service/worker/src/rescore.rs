//! `mcpbench admin rescore SET`: every completed submission of a set scored again from its
//! stored traces alone. Each run's analysis is computed again from its task and trace (the
//! trace opened with the keyring when sealed), the scores from the runs, and both compared
//! with what is stored; anything that differs is replaced and reported. On an unchanged
//! deployment every submission comes out the same, which is the proof that the board is a
//! function of the traces.

use std::collections::HashMap;
use std::sync::Arc;

use mcpbench_core::disclosure::analysis_shown;
use mcpbench_db::{DbError, PgPool, runs, submissions};
use mcpbench_gateway::trace::Line;
use mcpbench_scoring::RunAnalysis;
use mcpbench_storage::TraceStore;
use mcpbench_tasks::Level;
use mcpbench_vault::Keyring;
use uuid::Uuid;

use crate::finish::final_scores;
use crate::tasks::Prepared;

/// Why a set could not be rescored at all.
#[derive(Debug, thiserror::Error)]
pub enum RescoreError {
    #[error("there is no set {0:?}")]
    NoSet(String),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// What rescoring did to one submission.
#[derive(Clone, Debug, PartialEq)]
pub struct Rescored {
    pub submission: Uuid,
    pub runs: usize,
    /// Runs whose stored analysis differed from the one computed again (or was missing).
    pub analyses_changed: usize,
    /// Runs left as they were: no trace, a trace that could not be read or opened, or one
    /// that does not replay on its task. Each is named in `problems`.
    pub unreadable: usize,
    /// Whether the scores computed again equal the stored ones.
    pub scores_same: bool,
    /// What went wrong with the unreadable runs (run id and cause; never a task's content).
    pub problems: Vec<String>,
}

/// Rescores every completed submission of `set`.
pub async fn rescore_set(
    pool: &PgPool,
    store: &TraceStore,
    keyring: Option<&Keyring>,
    set: &str,
) -> Result<Vec<Rescored>, RescoreError> {
    let (public, ids) = submissions::completed_on(pool, set)
        .await?
        .ok_or_else(|| RescoreError::NoSet(set.to_string()))?;
    let mut tasks: Known = HashMap::new();
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        out.push(rescore_one(pool, store, keyring, set, public, id, &mut tasks).await?);
    }
    Ok(out)
}

/// The tasks read so far, by id and distractor level; `None` for one that could not be read.
type Known = HashMap<(String, Option<Level>), Option<Arc<Prepared>>>;

async fn task(
    pool: &PgPool,
    keyring: Option<&Keyring>,
    (set, id, level): (&str, &str, Option<Level>),
    tasks: &mut Known,
) -> Option<Arc<Prepared>> {
    let key = (id.to_string(), level);
    if let Some(t) = tasks.get(&key) {
        return t.clone();
    }
    let task = mcpbench_sets::task_for_run(pool, keyring, set, id)
        .await
        .ok()
        .and_then(|json| Prepared::read(json, level).ok());
    tasks.insert(key, task.clone());
    task
}

/// The analysis of one stored run, or why there is none.
async fn analysis_of(
    store: &TraceStore,
    keyring: Option<&Keyring>,
    task: &Prepared,
    run: &runs::StoredRun,
) -> Result<RunAnalysis, String> {
    let key = run.trace_key.as_deref().ok_or("no trace was stored")?;
    let bytes = store
        .get(key)
        .await
        .map_err(|e| format!("reading the trace: {e}"))?
        .ok_or("the trace is missing from storage")?;
    let bytes = mcpbench_vault::open_file(keyring, key, bytes)
        .map_err(|e| format!("opening the sealed trace: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "the trace is not UTF-8".to_string())?;
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str::<Line>(l).map_err(|e| format!("trace line {}: {e}", i + 1))
        })
        .collect::<Result<Vec<Line>, String>>()?;
    let facts = task.facts().ok_or("the task's world could not be built")?;
    mcpbench_analysis::analyze_with(&task.task, facts, &lines).map_err(|e| e.to_string())
}

async fn rescore_one(
    pool: &PgPool,
    store: &TraceStore,
    keyring: Option<&Keyring>,
    set: &str,
    public: bool,
    id: Uuid,
    tasks: &mut Known,
) -> Result<Rescored, RescoreError> {
    let stored = runs::stored(pool, id).await?;
    // A submission at a distractor level ran each task's variant at that level.
    let level: Option<Level> = submissions::find(pool, id)
        .await?
        .and_then(|s| s.distractors)
        .and_then(|l| l.parse().ok());
    let mut done = Rescored {
        submission: id,
        runs: stored.len(),
        analyses_changed: 0,
        unreadable: 0,
        scores_same: true,
        problems: Vec::new(),
    };
    for run in &stored {
        let Some(task) = task(pool, keyring, (set, &run.task_id, level), tasks).await else {
            done.unreadable += 1;
            done.problems
                .push(format!("run {}: its task could not be read", run.id));
            continue;
        };
        let analysis = match analysis_of(store, keyring, &task, run).await {
            Ok(a) => a,
            Err(why) => {
                done.unreadable += 1;
                done.problems.push(format!("run {}: {why}", run.id));
                continue;
            }
        };
        // As when the run was recorded: a private set's evidence stays in its sealed trace.
        let analysis = analysis_shown(analysis, public);
        if run.analysis.as_ref() != Some(&analysis) {
            runs::set_analysis(pool, run.id, &analysis).await?;
            done.analyses_changed += 1;
        }
    }
    let scores = final_scores(&runs::for_scoring(pool, id).await?);
    let before = submissions::find(pool, id).await?.and_then(|s| s.scores);
    done.scores_same = before.and_then(|b| b.0).is_some_and(|b| b == scores);
    if !done.scores_same {
        submissions::rescore(pool, id, &scores).await?;
    }
    Ok(done)
}
