//! Reading a run for the JSON routes and the pages, as the disclosure policy
//! (`mcpbench_core::disclosure`) allows: the run a caller may see, its trace within the
//! traces' memory budget, its container's output, the tasks a reader may not be told of.

use crate::AppState;
use crate::error::ApiError;
use crate::held::{self, held_body};
use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use mcpbench_core::disclosure::{run_trace_readable, task_named};
use mcpbench_db::runs;
use mcpbench_gateway::trace::Line;
use serde::de::IgnoredAny;
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
    /// Its lines that read as the trace format's (a line that does not is left out), and their
    /// share of the traces' budget, held while the page is made.
    Lines {
        lines: Vec<Line>,
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
        .filter_map(|l| serde_json::from_slice::<Line>(l).ok())
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

/// The tasks of a submission's runs that `task_named` keeps from a reader who is not its
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

/// The run `id` when the caller may read its trace (`disclosure::run_trace_readable`); 404
/// otherwise, the same answer as for a run that does not exist.
pub(crate) async fn visible_run(
    state: &AppState,
    caller: Option<&crate::auth::Caller>,
    id: Uuid,
) -> Result<runs::Run, ApiError> {
    let hidden = || ApiError::not_found(format!("there is no published run {id}"));
    let run = runs::get(state.pool(), id).await?.ok_or_else(hidden)?;
    let owner = caller.is_some_and(|c| c.vendor_id == run.vendor_id);
    if !run_trace_readable(&run, owner) {
        return Err(hidden());
    }
    Ok(run)
}
