//! `GET /web/submissions` (a signed-in vendor's own) and `GET /web/submissions/{id}`: progress
//! while it runs (the page reloads itself), the exact reason of every failed run, and the
//! scores with per-server, per-category and per-difficulty charts once it is done.
//!
//! Its owner sees everything. Anyone else sees a completed submission (it is on the
//! leaderboard): its scores, and its runs only once their traces are public.

use super::PagePath as Path;
use super::scores::{curve_section, score_section};
use super::{Frame, PageError, PageQuery, Viewer, page as frame_page, rate, run_duration, when};
use crate::AppState;
use crate::access::withheld_tasks;
use crate::error::ApiError;
use crate::kept::{Kept, Shelf};
use crate::params::name;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use mcpbench_core::disclosure::{run_public, run_trace_readable, set_open, task_named};
use mcpbench_db::{RunReason, SubmissionStatus, judgements, runs, sets, submissions};
use mcpbench_scoring::{JudgeSummary, judge_summary};
use serde::Deserialize;
use std::collections::HashSet;
use uuid::Uuid;

/// Runs listed per page.
const RUNS_PER_PAGE: i64 = 100;
/// Seconds between reloads of a page whose submission is still queued or running.
const REFRESH_SECS: u32 = 10;

/// What a run's reason means, for the reader who has not read the docs.
pub(crate) fn reason_text(reason: RunReason) -> &'static str {
    match reason {
        RunReason::Passed => "passed",
        RunReason::PredicateFalse => {
            "the goal was not reached: the final state fails the task's check"
        }
        RunReason::BudgetExceeded => "more tool calls than the task's step budget",
        RunReason::Timeout => "the agent did not answer before the deadline",
        RunReason::AgentError => {
            "the agent could not be reached, or answered with an error or a malformed reply"
        }
        RunReason::HarnessError => "our side failed (retried; never counted against the agent)",
    }
}

pub(crate) async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
) -> Result<Response, PageError> {
    let Some(caller) = viewer.caller() else {
        return Ok(Redirect::to("/web/login?next=/web/submissions").into_response());
    };
    let rows = submissions::list(state.pool(), caller.vendor_id, None, 100).await?;
    let body = html! {
        h1 { "Submissions of " (caller.name) }
        @if rows.is_empty() {
            p { "None yet. " code { "mcpbench submit --name NAME --model MODEL --endpoint URL" } " makes one." }
        } @else {
            div.scroll { table {
                caption { "Your last 100 submissions, newest first." }
                thead { tr {
                    th scope="col" { "Submission" } th scope="col" { "Model" } th scope="col" { "Set" }
                    th scope="col" { "Status" } th scope="col" { "Runs done" } th scope="col" { "Success rate" }
                    th scope="col" { "Created" }
                } }
                tbody { @for s in &rows { tr {
                    td { a href=(format!("/web/submissions/{}", s.id)) { (s.name) } }
                    td { (s.model) }
                    td { (s.set_id) }
                    td { (s.status) }
                    td.num { (s.tasks_done) "/" (s.tasks_total) }
                    td.num { (rate(s.scores().and_then(|v| v.overall.success_rate))) }
                    td { (when(s.created_at)) }
                } } }
            } }
        }
    };
    let frame = Frame {
        title: "My submissions",
        viewer: &viewer,
        refresh: None,
    };
    Ok(frame_page(frame, body))
}

#[derive(Deserialize)]
pub(crate) struct PageParams {
    /// The last run of the previous page, `task_id:trial`.
    after: Option<String>,
    /// `off`: do not reload while it runs.
    refresh: Option<String>,
}

pub(crate) async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    PageQuery(q): PageQuery<PageParams>,
) -> Result<Response, PageError> {
    let hidden = || {
        ApiError::not_found(format!(
            "there is no submission {id} that you may see (a submission is public once it \
             completes; until then only its owner sees it)"
        ))
    };
    let id: Uuid = id.parse().map_err(|_| hidden())?;
    // The first page of runs alone: other pages' keys are the caller's to vary, and must not
    // push real pages out. (Without a session only a completed submission shows, which never
    // reloads.)
    let shared = q
        .after
        .is_none()
        .then(|| super::shared_key(&viewer, format_args!("submission\n{id}")))
        .flatten();
    let _making = match state.board().kept(Shelf::Shared, shared.as_deref()).await {
        Kept::Found(html) => return Ok(super::kept_page(&html)),
        Kept::Make(making) => making,
    };
    let s = submissions::find(state.pool(), id)
        .await?
        .ok_or_else(hidden)?;
    let owner = viewer.is(s.vendor_id);
    if !owner && s.status != SubmissionStatus::Completed {
        return Err(hidden().into());
    }
    let after = match q.after.as_deref() {
        None => None,
        Some(a) => Some(
            a.rsplit_once(':')
                .and_then(|(t, n)| Some((name("after", t).ok()?, n.parse::<i32>().ok()?)))
                .ok_or_else(|| ApiError::bad_request("after must be task_id:trial"))?,
        ),
    };
    let RunsPage {
        runs,
        next: next_after,
        public,
    } = runs_page(&state, id, after, owner).await?;
    // Runs are listed to the owner, and to everyone once their traces are public.
    let show_runs = owner || public;
    let (failures, diagnoses, withheld, judged) = if show_runs {
        let withheld = withheld_tasks(&state, id, owner).await?;
        let failures = runs::failures(state.pool(), id).await?;
        let diagnoses = runs::diagnoses(state.pool(), id).await?;
        (
            failures,
            diagnoses,
            withheld,
            judgements::of_submission(state.pool(), id).await?,
        )
    } else {
        (Vec::new(), Vec::new(), HashSet::new(), Vec::new())
    };
    let mut levels = match (&s.distractors, s.scores()) {
        (Some(_), Some(_)) => {
            submissions::distractor_levels(state.pool(), s.vendor_id, &s.set_id, &s.model).await?
        }
        _ => Vec::new(),
    };
    levels.sort_by_key(|(l, _)| l.parse::<mcpbench_tasks::Level>().ok());
    let set = sets::get(state.pool(), &s.set_id).await?;
    let set_open = set.as_ref().is_some_and(|t| set_open(t.public, t.state));
    let running = s.status.is_open();
    let reloads = running && q.refresh.as_deref() != Some("off");
    let body = html! {
        h1 { (s.name) }
        dl.facts {
            dt { "Model" } dd { (s.model)
                @if let Some(v) = &s.model_version { " " (v) }
                @if let Some(o) = &s.organisation { " by " (o) }
                @if let Some(w) = &s.weights { " (" (w) " weights)" } }
            @if s.framework.is_some() || s.scaffold.is_some() {
                dt { "Scaffold" } dd {
                    (s.scaffold.as_deref().map_or("not stated", |k| if k == "own" { "the vendor's own" } else { "the standard one" }))
                    @if let Some(f) = &s.framework { ", framework " (f) } }
            }
            dt { "Vendor" } dd { (s.vendor) }
            dt { "Set" } dd { a href=(format!("/web/sets/{}", s.set_id)) { (s.set_id) } }
            // Where the agent lives is its owner's business (a private registry, an address).
            dt { "Agent" } dd { (s.kind)
                @if owner {
                    @if let Some(u) = &s.endpoint_url { " · " code { (u) } }
                    @if let Some(i) = &s.image { " · " code { (i) } }
                    @if let (Some(b), Some(m)) = (&s.model_base_url, &s.model_id) {
                        " · model " code { (m) } " at " code { (b) }
                    }
                } }
            dt { "Trials per task" } dd { (s.trials) }
            @if let Some(level) = &s.distractors {
                dt { "Distractors" } dd { "the set at level " strong { (level) } " of extra tools (not ranked)" }
            }
            dt { "Status" } dd { strong #status { (s.status) } }
            dt { "Created" } dd { (when(s.created_at)) }
            @if let Some(f) = s.finished_at { dt { "Finished" } dd { (when(f)) } }
            @if let Some(w) = s.withdrawn_at { dt { "Withdrawn" } dd { "from the board by its vendor, " (when(w)) "; never ranked again" } }
            dt { "Traces" } dd { @if s.published { "published" } @else { "not published" } }
        }
        (progress(&s, running, reloads))
        @if let Some(e) = &s.error { p.alert role="alert" { strong { "Why it failed: " } (e) } }
        @if let Some(scores) = s.scores() { (score_section(scores)) }
        @if levels.len() >= 2 { (curve_section(&s.model, &levels)) }
        @if show_runs {
            (failure_section(&failures, &withheld))
            @if !diagnoses.is_empty() { (diagnosis_section(&diagnoses, &withheld)) }
            @if !judged.is_empty() {
                (judge_section(&judge_summary(judged.iter().map(|(p, j)| (*p, j)))))
            }
            (runs_section(&s, &runs, next_after, owner, set_open))
        } @else {
            p { "Its runs and traces are public once its owner publishes them"
                @if !set_open { " and its set retires" } "." }
        }
    };
    let title = format!("Submission {}", s.name);
    let frame = Frame {
        title: &title,
        viewer: &viewer,
        refresh: reloads.then_some(REFRESH_SECS),
    };
    // Without a session only a completed submission is shown, and it is the same for everyone.
    match shared {
        Some(key) if !running => Ok(super::keep_page(&state, key, frame, body)),
        _ => Ok(frame_page(frame, body)),
    }
}

fn progress(s: &submissions::Submission, running: bool, reloads: bool) -> Markup {
    let here = format!("/web/submissions/{}", s.id);
    html! {
        p {
            label for="progress" { "Progress: " (s.tasks_done) " of " (s.tasks_total) " runs done" }
            " "
            progress #progress max=(s.tasks_total.max(1)) value=(s.tasks_done) {}
            @if reloads {
                " " span.ref { "This page reloads every " (REFRESH_SECS) " s while the submission runs. " }
                a href=(format!("{here}?refresh=off")) { "Stop reloading" }
            } @else if running {
                " " a href=(here) { "Reload" }
            }
        }
    }
}

fn failure_section(failures: &[runs::FailureGroup], withheld: &HashSet<String>) -> Markup {
    html! {
        section aria-labelledby="failures" {
            h2 #failures { "Why runs failed" }
            @if failures.is_empty() {
                p { "No run failed." }
            } @else {
                div.scroll { table {
                    caption { "Failed runs grouped by reason, with one example each; every failed run is listed below with its own reason." }
                    thead { tr { th scope="col" { "Reason" } th scope="col" { "Runs" } th scope="col" { "Example" } } }
                    tbody { @for f in failures { tr {
                        td { strong { (f.reason) } br; span.ref { (reason_text(f.reason)) } }
                        td.num { (f.count) }
                        td { (example(&f.example_task, f.example_detail.as_deref(), withheld)) }
                    } } }
                } }
            }
        }
    }
}

fn diagnosis_section(diagnoses: &[runs::Diagnosis], withheld: &HashSet<String>) -> Markup {
    html! {
        section aria-labelledby="diagnoses" {
            h2 #diagnoses { "Failure groups" }
            div.scroll { table {
                caption { "Failed runs by the group their trace puts them in (the rules are in the metrics documentation), with the first as the example." }
                thead { tr { th scope="col" { "Group" } th scope="col" { "Runs" } th scope="col" { "Example" } } }
                tbody { @for d in diagnoses { tr {
                    td { strong { (d.group.as_str()) } }
                    td.num { (d.count) }
                    td { (example(&d.example_task, d.example_evidence.as_deref(), withheld)) }
                } } }
            } }
        }
    }
}

/// A failure's example task and what it says; a task `withheld` from the reader (a live set
/// still holds it) is not named, nor what its run said.
fn example(task: &str, said: Option<&str>, withheld: &HashSet<String>) -> Markup {
    html! {
        @if withheld.contains(task) { span.ref { "(a task a live set still holds)" } }
        @else { code { (task) } @if let Some(d) = said { ": " (d) } }
    }
}

fn judge_section(j: &JudgeSummary) -> Markup {
    let score = |x: Option<f64>| x.map_or("–".into(), |v| format!("{v:.2}"));
    html! {
        section aria-labelledby="judge" {
            h2 #judge { "Rubric judge" }
            p { "A model's reading of each run against its task's rubric, its items shuffled and the scores averaged: an opinion shown beside the scores, never part of them." }
            dl.facts {
                dt { "Judge model" } dd { (j.models.join(", ")) }
                dt { "Runs judged" } dd { (j.runs) }
                dt { "Mean score" } dd { (score(j.mean_score)) " of 1" }
                dt { "Passed runs / failed runs" } dd { (score(j.mean_passed)) " / " (score(j.mean_failed)) }
            }
        }
    }
}

/// One page of a submission's runs as a reader sees them.
struct RunsPage {
    /// Up to [`RUNS_PER_PAGE`] runs whose tasks the reader may name.
    runs: Vec<runs::Run>,
    /// The key of the page after it: always a run of this page, so never a withheld task.
    next: Option<String>,
    /// Whether the submission's runs are public (published, on a public or retired set).
    public: bool,
}

/// The runs after `after` whose tasks the reader may name (`disclosure::task_named`): to anyone
/// but the owner a retired month's runs of tasks a live set still holds are left out, read
/// past rather than counted, so the page and its next key depend on the named runs alone (a
/// guessed task id in `after` tells nothing of the withheld ones).
async fn runs_page(
    state: &AppState,
    id: Uuid,
    mut after: Option<(String, i32)>,
    owner: bool,
) -> Result<RunsPage, ApiError> {
    let mut page = RunsPage {
        runs: Vec::new(),
        next: None,
        public: false,
    };
    loop {
        let batch = runs::list(
            state.pool(),
            id,
            after.as_ref().map(|(t, n)| (t.as_str(), *n)),
            RUNS_PER_PAGE,
        )
        .await?;
        let more = batch.len() as i64 == RUNS_PER_PAGE;
        page.public |= batch.first().is_some_and(run_public);
        after = batch.last().map(|r| (r.task_id.clone(), r.trial));
        for r in batch.into_iter().filter(|r| task_named(r.task_open, owner)) {
            page.runs.push(r);
            if page.runs.len() as i64 == RUNS_PER_PAGE {
                page.next = page
                    .runs
                    .last()
                    .map(|r| format!("{}:{}", r.task_id, r.trial));
                return Ok(page);
            }
        }
        if !more {
            return Ok(page);
        }
    }
}

/// The runs of one page and the key of the page after it.
fn runs_section(
    s: &submissions::Submission,
    runs: &[runs::Run],
    next: Option<String>,
    owner: bool,
    set_open: bool,
) -> Markup {
    html! {
        section aria-labelledby="runs" {
            h2 #runs { "Runs" }
            @if runs.is_empty() {
                p { "No run has finished yet." }
            } @else {
                div.scroll { table {
                    caption { "Every run in task order: its verdict, the exact reason when it failed, and its trace." }
                    thead { tr {
                        th scope="col" { "Task" } th scope="col" { "Trial" } th scope="col" { "Result" }
                        th scope="col" { "Tool calls" } th scope="col" { "Time" } th scope="col" { "Trace" }
                    } }
                    tbody { @for r in runs { tr {
                        td { @if set_open { a href=(format!("/web/tasks/{}?set={}", r.task_id, s.set_id)) { (r.task_id) } } @else { (r.task_id) } }
                        td.num { (r.trial) }
                        td {
                            @if r.passed { span.pass { "passed" } } @else {
                                span.fail { (r.reason) } " " span.ref { (reason_text(r.reason)) }
                                @if let Some(d) = &r.detail { br; (d.chars().take(1_000).collect::<String>()) }
                            }
                        }
                        td.num { (r.counts.tool_calls)
                            @if r.counts.hallucinated_calls > 0 { " " span.ref { "(" (r.counts.hallucinated_calls) " hallucinated)" } } }
                        td.num { (run_duration(r)) }
                        td { @if run_trace_readable(r, owner) { a href=(format!("/web/runs/{}", r.id)) { "trace" } }
                             @else if !set_open { span.ref { "closed until the set retires" } }
                             @else { span.ref { "not published" } } }
                    } } }
                } }
                @if let Some(after) = next {
                    p { a href=(format!("/web/submissions/{}?after={after}", s.id)) { "Next runs" } }
                }
            }
        }
    }
}
