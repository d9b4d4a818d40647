//! `GET /web/runs/{id}`: a run's trace as a timeline of its MCP calls, each with its
//! arguments, result or error and timing, the agent's own exchange, and the verdict. Shown
//! under exactly the rules of `GET /runs/{id}`.

use super::PagePath as Path;
use super::charts::{self, Span, SpanKind};
use super::submissions::reason_text;
use super::{Frame, PageError, Viewer, duration, page as frame_page, whole_ms};
use crate::AppState;
use crate::access::{PAGE_TRACE_BYTES, PageTrace, page_trace, read_logs, visible_run};
use crate::error::ApiError;
use axum::extract::State;
use axum::response::Response;
use maud::{Markup, html};
use mcpbench_core::disclosure::judgement_shown;
use mcpbench_db::judgements;
use mcpbench_db::runs::Run;
use mcpbench_gateway::trace::{AgentExchange, Event, Line, Outcome};
use mcpbench_scoring::Judgement;
use serde_json::Value;
use uuid::Uuid;

/// Calls drawn on the timeline; the list below it holds as many as fit its byte budget.
const MAX_SPANS: usize = 80;
/// Escaped bytes of the list of calls (their arguments and results included) and of the
/// container output shown: with the rest, a page stays under 100 KB whatever the agent did.
const LIST_BYTES: usize = 40_000;
const LOG_TAIL_BYTES: usize = 2 * 1024;
/// Characters shown of one argument or result, of a name the agent chose (tools), and of a
/// message (errors, details).
const MAX_VALUE_CHARS: usize = 1_500;
const MAX_NAME_CHARS: usize = 40;
const MAX_TEXT_CHARS: usize = 300;

pub(crate) async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
) -> Result<Response, PageError> {
    let id: Uuid = id
        .parse()
        .map_err(|_| ApiError::not_found(format!("there is no published run {id}")))?;
    let run = visible_run(&state, viewer.caller(), id).await?;
    let trace = page_trace(&state, &run).await?;
    let logs = read_logs(&state, &run).await?;
    let judgement = judgements::of_run(state.pool(), run.id)
        .await?
        .map(|j| judgement_shown(j, run.task_open));
    let title = format!("Run of {} (trial {})", run.task_id, run.trial);
    let frame = Frame {
        title: &title,
        viewer: &viewer,
        refresh: None,
    };
    Ok(frame_page(
        frame,
        html! {
            (body(&title, &run, &trace, logs.as_deref()))
            @if let Some(j) = &judgement { (judge_section(j)) }
        },
    ))
}

/// The page's content: the verdict, the timeline, every call, the container's output.
fn body(title: &str, run: &Run, read: &PageTrace, logs: Option<&[u8]>) -> Markup {
    let trace: &[Line] = match read {
        PageTrace::Lines { lines, .. } => lines,
        PageTrace::None | PageTrace::TooLarge(_) => &[],
    };
    let header = trace.iter().find_map(|l| match l {
        Line::Header(h) => Some(h),
        _ => None,
    });
    let events: Vec<&Event> = (trace.iter())
        .filter_map(|l| match l {
            Line::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    let agent = trace.iter().find_map(|l| match l {
        Line::Agent(a) => Some(a),
        _ => None,
    });
    let total_us = (events.iter().map(|e| e.end_us))
        .chain(agent.map(|a| a.end_us))
        .max()
        .unwrap_or(0)
        .max(run.duration_ms.max(0) as u64 * 1000);
    let mut spans = Vec::new();
    if let Some(a) = agent {
        spans.push(Span {
            start_us: a.start_us,
            end_us: a.end_us,
            label: "agent request".into(),
            kind: SpanKind::Agent,
        });
    }
    spans.extend(events.iter().take(MAX_SPANS).map(|e| Span {
        start_us: e.start_us,
        end_us: e.end_us,
        label: format!("#{} {}", e.seq, clip(&call_name(e), 16)),
        kind: kind(e),
    }));
    // The list takes calls in order while they fit; a call whose values do not fit is listed
    // without them.
    let mut left = LIST_BYTES;
    let mut values_left_out = false;
    let mut items = Vec::new();
    let agent_item = agent.map(agent_line);
    if let Some(a) = &agent_item {
        left = left.saturating_sub(a.0.len());
    }
    for e in &events {
        let mut item = event(e, true);
        if item.0.len() > left {
            item = event(e, false);
            values_left_out = true;
        }
        if item.0.len() > left {
            break;
        }
        left -= item.0.len();
        items.push(item);
    }
    html! {
        h1 { (title) }
        dl.facts {
            dt { "Verdict" } dd {
                @if run.passed { span.pass { "passed" } } @else {
                    span.fail { (run.reason) } " " span.ref { (reason_text(run.reason)) }
                    @if let Some(d) = &run.detail { br; (clip(d, MAX_TEXT_CHARS)) }
                }
            }
            dt { "Submission" } dd { a href=(format!("/web/submissions/{}", run.submission_id)) { (run.submission_id) } }
            dt { "Task" } dd { a href=(format!("/web/tasks/{}?set={}", run.task_id, run.set_id)) { (run.task_id) } " in " (run.set_id) }
            dt { "Tool calls" } dd { (run.counts.tool_calls) " (" (run.counts.hallucinated_calls) " hallucinated, "
                (run.counts.invalid_calls) " with invalid arguments, " (run.counts.errors_observed) " errors seen)" }
            dt { "Duration" } dd { (whole_ms(run.duration_ms)) }
            dt { "Attempts" } dd { (run.attempts)
                @if run.attempts > 1 { " (our side failed before, and it ran again)" } }
            @if let Some(h) = header {
                dt { "Step budget" } dd { (h.max_steps) }
                dt { "Servers" } dd { (h.servers.join(", ")) }
                dt { "MCP revisions used" } dd { (h.protocol_revisions.join(", ")) }
                dt { "Started" } dd { (h.started_at) }
            }
            dt { "As JSON" } dd { code { "GET /runs/" (run.id) } }
        }
        @if let PageTrace::TooLarge(bytes) = read {
            p { "This run's trace is " (format!("{:.1}", *bytes as f64 / (1 << 20) as f64))
                " MiB, more than this page draws (" (PAGE_TRACE_BYTES >> 20) " MiB); "
                code { "GET /runs/" (run.id) } " has it whole." }
        } @else if trace.is_empty() {
            p { "This run has no stored trace." }
        } @else {
            (charts::timeline(&spans, total_us))
            @if events.len() > MAX_SPANS {
                p.ref { "The timeline draws the first " (MAX_SPANS) " of " (events.len()) " calls." }
            }
            section aria-labelledby="calls" {
                h2 #calls { "Calls" }
                @if let Some(a) = agent_item { (a) }
                ol.events { @for item in &items { (item) } }
                @if items.len() < events.len() {
                    p.alert { "The first " (items.len()) " of " (events.len()) " calls are listed; the JSON has all of them." }
                }
                @if values_left_out {
                    p.alert { "Some arguments and results are left out to keep this page small; the JSON has them all." }
                }
            }
        }
        @if let Some(logs) = logs { (log_tail(logs)) }
    }
}

/// At most `n` characters of `text`, with an ellipsis when cut.
/// The rubric judge's scores, apart from the verdict; the task's own items keep their scores
/// and lose their text while the task is sealed.
fn judge_section(j: &Judgement) -> Markup {
    html! {
        section aria-labelledby="judge" {
            h2 #judge { "Rubric judge" }
            p { "The model " code { (j.model) } " read this run against its task's rubric, in "
                (j.valid_shuffles) " of " (j.shuffles) " shuffled orders; score "
                strong { (format!("{:.2}", j.score)) } " of 1. An opinion beside the verdict, never part of the scores." }
            div.scroll { table {
                caption { "Each item's mean score (0 to 10) over the shuffles, with the lowest and highest." }
                thead { tr { th scope="col" { "Item" } th scope="col" { "Mean" } th scope="col" { "Range" } } }
                tbody { @for i in &j.items { tr {
                    td { strong { (i.id) } " "
                        (clip(&i.text, MAX_TEXT_CHARS)) }
                    td.num { (format!("{:.1}", i.mean)) }
                    td.num { (format!("{:.0}–{:.0}", i.min, i.max)) }
                } } }
            } }
        }
    }
}

fn clip(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

fn call_name(e: &Event) -> String {
    format!("{} {}", e.server, e.tool.as_deref().unwrap_or(&e.method))
}

fn kind(e: &Event) -> SpanKind {
    match e.outcome {
        _ if e.hallucinated || e.invalid_arguments || e.over_budget => SpanKind::Refused,
        Outcome::ProtocolError => SpanKind::Refused,
        Outcome::ToolError => SpanKind::Error,
        Outcome::Ok => SpanKind::Ok,
    }
}

/// A JSON value, pretty and cut to what a page can hold.
fn shown(v: &Value) -> Markup {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    let total = text.chars().count();
    html! {
        pre { (clip(&text, MAX_VALUE_CHARS)) }
        @if total > MAX_VALUE_CHARS { p.ref { "… cut at " (MAX_VALUE_CHARS) " of " (total) " characters; the JSON has it all." } }
    }
}

fn event(e: &Event, values: bool) -> Markup {
    let start = e.start_us as f64 / 1000.0;
    let took = e.end_us.saturating_sub(e.start_us) as f64 / 1000.0;
    let tags = [
        (e.hallucinated, "unknown tool"),
        (e.invalid_arguments, "invalid arguments"),
        (e.over_budget, "over budget"),
        (e.injected_fault, "injected fault"),
    ];
    html! {
        li {
            details {
                summary {
                    strong { "#" (e.seq) } " "
                    (e.method) " "
                    @if let Some(t) = &e.tool { code { (clip(t, MAX_NAME_CHARS)) } " " }
                    "on " (e.server)
                    " · at " (duration(start)) ", took " (duration(took))
                    " · " (e.outcome.as_str())
                    @for (flagged, text) in tags { @if flagged { span.tag { (text) } } }
                }
                @if values {
                    @if let Some(a) = &e.arguments { p { "Arguments" } (shown(a)) }
                    @if let Some(r) = &e.result { p { "Result" } (shown(r)) }
                }
                @if let Some(err) = &e.error { p.alert { strong { "Error the agent saw: " } (clip(err, MAX_TEXT_CHARS)) } }
            }
        }
    }
}

fn agent_line(a: &AgentExchange) -> Markup {
    let took = a.end_us.saturating_sub(a.start_us) as f64 / 1000.0;
    html! {
        p {
            strong { "The agent" } " was called and "
            @match a.status {
                Some(status) => { "answered HTTP " (status) }
                None => { "gave no answer" }
            }
            " after " (duration(took)) "."
        }
        @if let Some(answer) = &a.answer { p { "Its answer" } (shown(&Value::String(answer.clone()))) }
        @if let Some(err) = &a.error { p.alert { strong { "What went wrong: " } (clip(err, MAX_TEXT_CHARS)) } }
    }
}

fn log_tail(logs: &[u8]) -> Markup {
    let start = logs.len().saturating_sub(LOG_TAIL_BYTES);
    let text = String::from_utf8_lossy(&logs[start..]);
    html! {
        section aria-labelledby="logs" {
            h2 #logs { "Container output" }
            @if start > 0 { p.ref { "The last " (LOG_TAIL_BYTES / 1024) " KiB of " (logs.len()) " bytes; " code { "GET /runs/{id}/logs" } " has it all." } }
            pre { (text) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_long_hostile_trace_still_makes_a_small_page() {
        // 1,000 calls, each with 10 KB of quotes and angle brackets in its arguments and
        // result, and an agent that names its tools and errors with 10,000 characters.
        let junk = "\"<&>".repeat(2_500);
        let mut trace = vec![
            json!({"type": "header", "format": "mcpbench-trace/1", "run_id": "r", "task_id": "t",
                   "set": "dev", "agent": "a", "max_steps": 8, "servers": ["github"],
                   "protocol_revisions": ["2025-11-25"], "started_at": "x"}),
        ];
        for i in 0..1_000u64 {
            trace.push(
                json!({"type": "event", "seq": i + 1, "start_us": i * 10, "end_us": i * 10 + 5,
                              "server": "github", "method": "tools/call", "tool": junk,
                              "arguments": {"a": junk}, "result": {"b": junk},
                              "outcome": "tool_error", "error": junk,
                              "request_bytes": 0, "response_bytes": 0}),
            );
        }
        trace.push(
            json!({"type": "agent", "start_us": 0, "end_us": 10_000, "status": 500,
                          "error": junk}),
        );
        let run = Run {
            id: uuid::Uuid::nil(),
            submission_id: uuid::Uuid::nil(),
            vendor_id: 1,
            set_id: "dev".into(),
            set_public: true,
            set_state: mcpbench_db::SetState::Active,
            task_open: true,
            published: true,
            task_id: "t".into(),
            trial: 0,
            passed: false,
            reason: mcpbench_db::RunReason::AgentError,
            detail: Some(junk.clone()),
            counts: mcpbench_scoring::RunCounts {
                tool_calls: 1_000,
                errors_observed: 1_000,
                ..Default::default()
            },
            duration_ms: 10,
            trace_key: None,
            created_at: time::OffsetDateTime::UNIX_EPOCH,
            analysis: None,
            attempts: 1,
        };
        let logs = junk.as_bytes().repeat(10);
        let lines: Vec<Line> = (trace.into_iter())
            .map(|l| serde_json::from_value(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1_002, "every line reads as the trace format's");
        let trace = PageTrace::Lines {
            lines,
            _share: crate::held::Share::unbudgeted(),
        };
        let page = body("Run", &run, &trace, Some(&logs)).into_string();
        assert!(page.len() < 100_000, "{} bytes", page.len());
        assert!(page.contains(" of 1000 calls are listed"));
        assert!(page.contains("Some arguments and results are left out"));
        assert!(
            !page.contains("<&"),
            "everything the agent wrote is escaped"
        );
    }
}
