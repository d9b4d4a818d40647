//! `GET /web/submissions` (a signed-in vendor's own) and `GET /web/submissions/{id}`: progress
//! while it runs (the page reloads itself), the exact reason of every failed run, and the
//! scores with per-server, per-category and per-difficulty charts once it is done.
//!
//! Its owner sees everything. Anyone else sees a completed submission (it is on the
//! leaderboard): its scores, and its runs only once their traces are public.

use super::PagePath as Path;
use super::charts::{self, Group};
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
use serde_json::Value;
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
                    td.num { (rate(s.scores.as_ref().and_then(|v| v["success_rate"].as_f64()))) }
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
    let mut levels = match (&s.distractors, &s.scores) {
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
            dt { "Traces" } dd { @if s.published { "published" } @else { "not published" } }
        }
        (progress(&s, running, reloads))
        @if let Some(e) = &s.error { p.alert role="alert" { strong { "Why it failed: " } (e) } }
        @if let Some(scores) = &s.scores { (score_section(scores)) }
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

/// Overall metrics and the breakdowns as charts.
fn score_section(scores: &Value) -> Markup {
    // The overall metrics are the object's own fields (flattened), beside the breakdowns.
    let o = scores;
    let groups = |key: &str| -> Vec<Group> {
        scores[key]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(name, g)| Group {
                        name: name.clone(),
                        rate: g["success_rate"].as_f64(),
                        ci: [
                            g["success_ci95"][0].as_f64().unwrap_or(0.0),
                            g["success_ci95"][1].as_f64().unwrap_or(0.0),
                        ],
                        passed: g["passed"].as_i64().unwrap_or(0),
                        runs: g["tasks"].as_i64().unwrap_or(0),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    html! {
        section aria-labelledby="scores" {
            h2 #scores { "Scores" }
            dl.facts {
                dt { "Success rate" } dd {
                    @match o["success_rate"].as_f64() {
                        Some(r) => {
                            (charts::interval_bar(r,
                                o["success_ci95"][0].as_f64().unwrap_or(0.0),
                                o["success_ci95"][1].as_f64().unwrap_or(0.0)))
                        }
                        None => { "–" }
                    }
                    " " span.ref { (o["passed"]) " of " (o["tasks"]) " runs passed" }
                }
                dt { "With related runs" } dd {
                    @match (o["success_ci95_clustered"][0].as_f64(), o["success_ci95_clustered"][1].as_f64()) {
                        (Some(lo), Some(hi)) => { (rate(Some(lo))) " to " (rate(Some(hi)))
                            span.ref { " (95% interval with runs of one template counted as related; "
                                (o["clusters"]) " templates, design effect " (rate(o["design_effect"].as_f64())) ")" } }
                        _ => { "–" span.ref { " (fewer than two templates)" } }
                    }
                }
                @if let Some(k) = o["repeated"]["k_max"].as_u64() {
                    dt { "Repeated trials" } dd {
                        @for i in 0..k as usize {
                            "pass^" (i + 1) " " (rate(o["repeated"]["pass_hat_k"][i].as_f64()))
                            ", pass@" (i + 1) " " (rate(o["repeated"]["pass_at_k"][i].as_f64()))
                            @if i + 1 < k as usize { "; " }
                        }
                    }
                }
                dt { "Tool-call efficiency" } dd { (rate(o["efficiency"].as_f64())) span.ref { " (calls per step budget on passed tasks; lower is better)" } }
                dt { "Hallucinated-tool rate" } dd { (rate(o["hallucinated_tool_rate"].as_f64())) }
                dt { "Recovery rate" } dd { (rate(o["recovery_rate"].as_f64())) span.ref { " (tasks passed after an error was seen)" } }
                dt { "Cost per task" } dd { @match o["cost_per_task"].as_f64() {
                    Some(c) => { (super::frontier::dollars(c)) span.ref { " (the mean of the " (o["cost_runs"]) " of " (o["tasks"]) " runs whose agent reported a cost)" } },
                    None => { "unknown" span.ref { " (no run's agent reported a cost)" } },
                } }
                dt { "Tokens per task" } dd { @match o["tokens_per_task"].as_f64() {
                    Some(t) => { (t) span.ref { " (input and output, over the " (o["token_runs"]) " runs that reported both)" } },
                    None => { "unknown" },
                } }
                dt { "Median run time" } dd { @match o["median_seconds"].as_f64() {
                    Some(s) => { (s) " s" },
                    None => { "unknown" },
                } }
                dt { "Claims coverage" } dd { (rate(o["coverage"].as_f64()))
                    span.ref { " (share of each task's claims that held; mostly done, at least 0.75: " (rate(o["mostly_done_rate"].as_f64())) ")" } }
                dt { "Calls" } dd { "tool names " (rate(o["tool_name_validity"].as_f64()))
                    ", schema " (rate(o["schema_compliance"].as_f64()))
                    ", execution " (rate(o["execution_success"].as_f64())) }
                dt { "Against the closest reference" } dd { "selection " (rate(o["selection_accuracy"].as_f64()))
                    ", parameters " (rate(o["parameter_accuracy"].as_f64()))
                    ", calls " (rate(o["call_ratio"].as_f64())) "×, resolved " (rate(o["resolved_rate"].as_f64())) }
                dt { "Distractors" } dd { "accuracy " (o["distractor_accuracy"].as_f64().map_or("–".into(), |a| format!("{a:.1}")))
                    " of 100, calls to distractor servers " (rate(o["distractor_call_share"].as_f64())) }
            }
            div.charts {
                (charts::breakdown("Success rate by server", &groups("by_server")))
                (charts::breakdown("Success rate by category", &groups("by_category")))
                (charts::breakdown("Success rate by difficulty", &groups("by_difficulty")))
                @if scores["by_shape"].is_object() {
                    (charts::breakdown("Success rate by task shape (serial: a call needs an earlier answer)", &groups("by_shape")))
                }
            }
        }
    }
}

/// Success against the distractor level, from the model's newest submission at each level.
fn curve_section(model: &str, levels: &[(String, Value)]) -> Markup {
    let names: Vec<String> = levels.iter().map(|(l, _)| l.clone()).collect();
    let at = |key: Option<&str>| -> Vec<Option<f64>> {
        levels
            .iter()
            .map(|(_, s)| key.map_or(s, |k| &s["by_shape"][k])["success_rate"].as_f64())
            .collect()
    };
    let series = [
        charts::Series {
            label: "all tasks".into(),
            rates: at(None),
        },
        charts::Series {
            label: "serial".into(),
            rates: at(Some("serial")),
        },
        charts::Series {
            label: "parallel".into(),
            rates: at(Some("parallel")),
        },
    ];
    html! {
        section aria-labelledby="curve" {
            h2 #curve { "Against distractors" }
            p { "The newest completed submission of " (model) " on this set at each level of extra tools (near-duplicates of the needed tools first, then whole unrelated servers)." }
            (charts::history("Success rate by distractor level", &names, &series))
            div.scroll { table {
                caption { "Success rate at each distractor level, for all tasks and by shape." }
                thead { tr { th scope="col" { "Level" } th scope="col" { "All tasks" } th scope="col" { "Serial" } th scope="col" { "Parallel" } } }
                tbody { @for (i, l) in names.iter().enumerate() { tr {
                    td { (l) }
                    @for s in &series { td.num { (rate(s.rates[i])) } }
                } } }
            } }
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
