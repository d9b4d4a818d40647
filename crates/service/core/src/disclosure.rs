//! The disclosure policy: what a reader may see of a run, written once for every reader (the
//! JSON routes, the pages, the exports, the trace archive, comparisons) and for the worker
//! that records what the readers will see.
//!
//! Three facts decide it:
//! * whether the run's **set is open**: public, or retired (its tasks revealed);
//! * whether the run's **task is open** (in clear): its set is public, or retired and no live
//!   set still holds the task (the database computes this as `task_open`);
//! * whether the reader **owns** the run, and whether its owner **published** it.
//!
//! While a task is sealed, nothing that quotes it leaves the service: not a failure's evidence,
//! not the text of the judge's items drawn from its claims, not the part of a predicate that
//! failed, not the words of an image that saw it; and a run's duration is shown only as a
//! bucket (docs/data.md).

use mcpbench_db::{SetState, runs};
use mcpbench_scoring::{Judgement, RunAnalysis, RunReason};

/// Whether a set's tasks may be read, and its per-task results shown: it is public, or it
/// has retired and revealed them.
pub fn set_open(public: bool, state: SetState) -> bool {
    public || state == SetState::Retired
}

/// Whether a run's record (its verdict, not its trace) is public: its owner published it and
/// its set is open.
pub fn record_public(published: bool, set_public: bool, set_state: SetState) -> bool {
    published && set_open(set_public, set_state)
}

/// [`record_public`] for a run.
pub fn run_public(run: &runs::Run) -> bool {
    record_public(run.published, run.set_public, run.set_state)
}

/// Whether a run's task may be named to a reader, with its verdict, counts and reason: always
/// to the run's owner (its agent ran it), and to anyone else only once the task is in clear.
/// A retired month's pages and JSON leave out the tasks a live set still holds, as its results
/// export and its trace archive do: every view that lists runs or names their tasks asks this.
pub fn task_named(task_open: bool, owner: bool) -> bool {
    task_open || owner
}

/// Whether a run's trace (and its container's output) may be read: its task in clear, and
/// the run's record public or its owner reading it on a public set. A trace holds the goal and
/// what the tools answered, so a task a retired set withholds keeps its traces closed too.
pub fn trace_readable(task_open: bool, record_public: bool, owner_on_public_set: bool) -> bool {
    task_open && (record_public || owner_on_public_set)
}

/// [`trace_readable`] for a run and whether its reader owns it.
pub fn run_trace_readable(run: &runs::Run, owner: bool) -> bool {
    trace_readable(run.task_open, run_public(run), owner && run.set_public)
}

/// Where a coarse duration may fall: bucket bounds in milliseconds.
const DURATION_BUCKETS_MS: [i64; 11] = [
    0, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000,
];

/// A run's duration as it may be shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShownDuration {
    Exact(i64),
    /// At least the first bound, below the second (none past the last bucket).
    Within(i64, Option<i64>),
}

/// While a run's task is sealed, its exact duration is a channel out of the sandbox: an image
/// that saw the task could spell bits of it in how long it takes (milliseconds over a time
/// budget carry about 16 bits a run). Only one of eleven buckets is shown then (under 3.5
/// bits); the exact figure once the task is in clear.
pub fn shown_duration(duration_ms: i64, task_open: bool) -> ShownDuration {
    if task_open {
        return ShownDuration::Exact(duration_ms);
    }
    let at = DURATION_BUCKETS_MS.partition_point(|b| *b <= duration_ms.max(0));
    ShownDuration::Within(
        DURATION_BUCKETS_MS[at.saturating_sub(1)],
        DURATION_BUCKETS_MS.get(at).copied(),
    )
}

/// A run's analysis as a reader sees it: a failure's evidence quotes the task (or the agent's
/// words about it), so it goes while the task is sealed.
pub fn analysis_shown(mut analysis: RunAnalysis, task_open: bool) -> RunAnalysis {
    if !task_open && let Some(failure) = analysis.failure.as_mut() {
        failure.evidence = None;
    }
    analysis
}

/// What stands for the text of a judge's item drawn from a sealed task's claims.
pub const SEALED_CLAIM: &str = "(a claim of the sealed task)";

/// Whether the text of the judge's item `id` may be shown: the general items (`R1`, ...)
/// always; the task's own claims (`C1`, ...) quote it, so only once it is in clear.
pub fn item_text_shown(id: &str, task_open: bool) -> bool {
    task_open || !id.starts_with('C')
}

/// A judgement as a reader sees it: the items keep their scores, and those drawn from a
/// sealed task's claims lose their text.
pub fn judgement_shown(mut judgement: Judgement, task_open: bool) -> Judgement {
    for item in &mut judgement.items {
        if !item_text_shown(&item.id, task_open) {
            item.text = SEALED_CLAIM.into();
        }
    }
    judgement
}

/// The detail recorded for a Docker-image run whose image saw a private task.
pub const WITHHELD_DETAIL: &str = "details withheld while the set is live (an image's own words \
                                   could carry the task); they are in the trace, which opens \
                                   when the set retires";

/// What the worker records of a finished run on a set that is not public, where its vendor
/// (and, once the set retires, everyone) reads the record while the trace stays sealed.
pub struct Recorded<'a> {
    /// The run's set is public: nothing is withheld.
    pub set_public: bool,
    /// The run was a Docker image's, which saw the private task.
    pub image_saw_task: bool,
    pub reason: RunReason,
    pub detail: &'a mut Option<String>,
    pub analysis: &'a mut Option<RunAnalysis>,
}

impl Recorded<'_> {
    /// Takes out of the record what quotes a private task: a failure's evidence (computed
    /// again from the sealed trace once the set retires), an image's own words in the detail
    /// (only our fixed words go there), and which part of a predicate failed. The trace keeps
    /// them all.
    pub fn seal(self) {
        if self.set_public {
            return;
        }
        if let Some(analysis) = self.analysis.take() {
            *self.analysis = Some(analysis_shown(analysis, false));
        }
        if self.image_saw_task && self.detail.is_some() {
            *self.detail = Some(WITHHELD_DETAIL.into());
        } else if self.reason == RunReason::PredicateFalse {
            *self.detail = None;
        }
    }
}

#[cfg(test)]
#[path = "disclosure_tests.rs"]
mod tests;
