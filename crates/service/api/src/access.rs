//! Who may read what of a run, written once for the JSON routes and the pages: its record
//! (verdict and counts), its trace and container output, and how precisely its duration is
//! shown while its task is sealed.

use crate::AppState;
use crate::error::ApiError;
use crate::held::{self, held_body};
use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use mcpbench_db::{SetState, runs};
use serde::de::IgnoredAny;
use serde_json::Value;
use std::collections::HashSet;
use uuid::Uuid;

/// What a run's JSON costs while it is made, per byte of its stored trace: the trace, and the
/// answer that holds it (the trace's lines are copied into it as they are, never parsed).
const JSON_COST: u64 = 2;
/// What parsing a trace into JSON values may cost, per byte of it: a value takes 32 bytes, and
/// an array of `0,` grows to twice what it holds, so two bytes of text may take 64.
const PARSE_COST: u64 = 40;
/// The largest trace a run's page draws; a larger one is there as JSON.
pub(crate) const PAGE_TRACE_BYTES: u64 = 1 << 20;

/// A run's answer as JSON: `head` is the answer with an empty trace as its last field
/// (`"trace":[]`), and the run's stored trace goes between those brackets line by line, as
/// stored (a line that is not JSON is left out). The answer holds its share of the traces'
/// budget (`held.rs`) until it has been sent.
pub(crate) async fn run_json(
    state: &AppState,
    run: &runs::Run,
    head: Vec<u8>,
) -> Result<Response, ApiError> {
    let json = |body: Body| ([(header::CONTENT_TYPE, "application/json")], body).into_response();
    let Some(key) = &run.trace_key else {
        return Ok(json(Body::from(head)));
    };
    let Some((trace, share)) = held::read(state, key, JSON_COST)
        .await
        .map_err(ApiError::internal)?
    else {
        return Ok(json(Body::from(head)));
    };
    Ok(json(held_body(with_lines(head, &trace), share)))
}

/// `head`, whose JSON ends with `[]}`, with the JSON lines of `trace` in those brackets.
fn with_lines(mut head: Vec<u8>, trace: &[u8]) -> Vec<u8> {
    assert!(
        head.ends_with(b"[]}"),
        "the trace is the answer's last field"
    );
    head.truncate(head.len() - 2);
    // One allocation: the answer is never more than the head and the trace.
    head.reserve(trace.len() + 2);
    let mut first = true;
    for line in trace.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        if serde_json::from_slice::<IgnoredAny>(line).is_err() {
            continue;
        }
        if !first {
            head.push(b',');
        }
        head.extend_from_slice(line);
        first = false;
    }
    head.extend_from_slice(b"]}");
    head
}

/// A run's trace as its page reads it.
pub(crate) enum PageTrace {
    /// The run stored no trace.
    None,
    /// The trace, larger than [`PAGE_TRACE_BYTES`] (its size): not drawn.
    TooLarge(u64),
    /// Its lines, one JSON value each, and their share of the traces' budget, held while the
    /// page is made.
    Lines {
        lines: Vec<Value>,
        _share: held::Share,
    },
}

/// The lines of a run's stored trace for its page, parsed within the traces' budget.
pub(crate) async fn page_trace(state: &AppState, run: &runs::Run) -> Result<PageTrace, ApiError> {
    let Some(key) = &run.trace_key else {
        return Ok(PageTrace::None);
    };
    match state.store().size(key).await.map_err(ApiError::internal)? {
        None => return Ok(PageTrace::None),
        Some(size) if size > PAGE_TRACE_BYTES => return Ok(PageTrace::TooLarge(size)),
        Some(_) => {}
    }
    let Some((bytes, share)) = held::read(state, key, PARSE_COST)
        .await
        .map_err(ApiError::internal)?
    else {
        return Ok(PageTrace::None);
    };
    let lines = bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    Ok(PageTrace::Lines {
        lines,
        _share: share,
    })
}

/// The output of a Docker-image run's container, when it has one (opened when sealed).
pub(crate) async fn read_logs(
    state: &AppState,
    run: &runs::Run,
) -> Result<Option<Vec<u8>>, ApiError> {
    let Some(trace) = run.trace_key.as_deref() else {
        return Ok(None);
    };
    let key = mcpbench_storage::logs_key(trace);
    let Some(stored) = state.store().get(&key).await.map_err(ApiError::internal)? else {
        return Ok(None);
    };
    let keyring = state.config().custody.keyring.as_ref();
    let logs = mcpbench_vault::open_file(keyring, &key, stored).map_err(ApiError::internal)?;
    Ok(Some(logs))
}

/// Whether a run's record (its verdict, not its trace) is public: its owner published it and
/// its set is open (public, or retired and revealed).
pub(crate) fn run_public(run: &runs::Run) -> bool {
    public_when(run.published, run.set_public, run.set_state)
}

/// The rule of [`run_public`] on its three facts: published, on a public or retired set.
pub(crate) fn public_when(published: bool, set_public: bool, set_state: SetState) -> bool {
    published && (set_public || set_state == SetState::Retired)
}

/// Whether a run's task may be named to a reader, with its verdict, counts and reason: always
/// to the run's owner (its agent ran it), and to anyone else only once the task is in clear. A
/// retired month's pages and JSON leave out the tasks a live set still holds, as its results
/// export and its trace archive do: every view that lists runs or names their tasks asks this.
pub(crate) fn task_named(task_open: bool, owner: bool) -> bool {
    task_open || owner
}

/// The tasks of a submission's runs that [`task_named`] keeps from a reader who is not its
/// owner: those a live set still holds. Empty for the owner.
pub(crate) async fn withheld_tasks(
    state: &AppState,
    submission: Uuid,
    owner: bool,
) -> Result<HashSet<String>, ApiError> {
    if owner {
        return Ok(HashSet::new());
    }
    Ok(runs::outcomes(state.pool(), submission)
        .await?
        .into_iter()
        .filter(|r| !task_named(r.task_open, owner))
        .map(|r| r.task_id)
        .collect())
}

/// Whether a run's trace may be read: the run is public, or the reader is its owner and the
/// set is public. Either way its task must be in clear: a trace holds the goal and what the
/// tools answered, so a task a retired set withholds (a live set still holds it) keeps its
/// traces closed too.
pub(crate) fn trace_readable(run: &runs::Run, owner: bool) -> bool {
    trace_readable_when(run.task_open, run_public(run), owner && run.set_public)
}

/// The rule of [`trace_readable`] on its facts: the task in clear, and the run public or its
/// owner reading it on a public set.
pub(crate) fn trace_readable_when(
    task_open: bool,
    public: bool,
    owner_on_public_set: bool,
) -> bool {
    task_open && (public || owner_on_public_set)
}

/// Where a coarse duration may fall: bucket bounds in milliseconds.
const DURATION_BUCKETS_MS: [i64; 11] = [
    0, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000,
];

/// A run's duration as it may be shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShownDuration {
    Exact(i64),
    /// At least the first bound, below the second (none past the last bucket).
    Within(i64, Option<i64>),
}

/// While a run's task is sealed (its set is live and private, or a retired set withholds it
/// because a live set holds it), its exact duration is a channel out of the sandbox: an image
/// that saw the task could spell bits of it in how long it takes (milliseconds over a
/// time budget carry about 16 bits a run). Only one of eleven buckets is shown then (under
/// 3.5 bits); the exact figure once the task is in clear.
pub(crate) fn shown_duration(run: &runs::Run) -> ShownDuration {
    if run.task_open {
        return ShownDuration::Exact(run.duration_ms);
    }
    let at = DURATION_BUCKETS_MS.partition_point(|b| *b <= run.duration_ms.max(0));
    ShownDuration::Within(
        DURATION_BUCKETS_MS[at.saturating_sub(1)],
        DURATION_BUCKETS_MS.get(at).copied(),
    )
}

/// The run `id` when the caller may read it (see [`run`]); 404 otherwise, the same answer as
/// for a run that does not exist.
pub(crate) async fn visible_run(
    state: &AppState,
    caller: Option<&crate::auth::Caller>,
    id: Uuid,
) -> Result<runs::Run, ApiError> {
    let hidden = || ApiError::not_found(format!("there is no published run {id}"));
    let run = runs::get(state.pool(), id).await?.ok_or_else(hidden)?;
    let owner = caller.is_some_and(|c| c.vendor_id == run.vendor_id);
    if !trace_readable(&run, owner) {
        return Err(hidden());
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(duration_ms: i64, task_open: bool) -> runs::Run {
        runs::Run {
            id: Uuid::nil(),
            submission_id: Uuid::nil(),
            vendor_id: 1,
            set_id: "2026-11".into(),
            set_public: false,
            set_state: SetState::Active,
            task_open,
            published: false,
            task_id: "t".into(),
            trial: 0,
            passed: true,
            reason: mcpbench_db::RunReason::Passed,
            detail: None,
            counts: mcpbench_scoring::RunCounts {
                tool_calls: 3,
                ..Default::default()
            },
            duration_ms,
            trace_key: None,
            created_at: time::OffsetDateTime::UNIX_EPOCH,
            analysis: None,
            attempts: 1,
        }
    }

    #[test]
    fn a_sealed_tasks_run_shows_only_the_bucket_of_its_duration() {
        use ShownDuration::{Exact, Within};
        assert_eq!(shown_duration(&run(4_321, true)), Exact(4_321));
        let sealed = |ms| shown_duration(&run(ms, false));
        assert_eq!(sealed(0), Within(0, Some(1_000)));
        assert_eq!(sealed(999), Within(0, Some(1_000)));
        assert_eq!(sealed(1_000), Within(1_000, Some(2_000)));
        assert_eq!(sealed(4_321), Within(2_000, Some(5_000)));
        assert_eq!(
            sealed(4_999),
            sealed(2_001),
            "times within a bucket look alike"
        );
        assert_eq!(sealed(599_999), Within(300_000, Some(600_000)));
        assert_eq!(sealed(3_600_000), Within(600_000, None));
        assert_eq!(sealed(-5), Within(0, Some(1_000)));
    }
}
