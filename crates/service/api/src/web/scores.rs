//! A completed submission's scores on its page: the overall figures, the breakdowns as
//! charts, and its model's curve against distractors. Drawn from `mcpbench_scoring`'s types as
//! the database hands them back.

use super::charts::{self, Group};
use super::rate;
use maud::{Markup, html};
use mcpbench_scoring::{CostBasis, Metrics, Scores};
use std::collections::BTreeMap;

/// A figure as the JSON it is stored in writes it (`1200.0`, not `1200`).
fn figure(x: f64) -> String {
    serde_json::Number::from_f64(x).map_or_else(|| x.to_string(), |n| n.to_string())
}

/// Each group of a breakdown as a chart's bar.
fn groups(breakdown: &BTreeMap<String, Metrics>) -> Vec<Group> {
    breakdown
        .iter()
        .map(|(name, m)| Group {
            name: name.clone(),
            rate: m.success_rate,
            ci: m.success_ci95.unwrap_or([0.0, 0.0]),
            passed: i64::try_from(m.passed).unwrap_or(i64::MAX),
            runs: i64::try_from(m.tasks).unwrap_or(i64::MAX),
        })
        .collect()
}

/// Overall metrics and the breakdowns as charts.
pub(super) fn score_section(scores: &Scores) -> Markup {
    let o = &scores.overall;
    let (p, spend) = (&o.process, &o.spend);
    html! {
        section aria-labelledby="scores" {
            h2 #scores { "Scores" }
            dl.facts {
                dt { "Success rate" } dd {
                    @match o.success_rate {
                        Some(r) => {
                            @let [lo, hi] = o.success_ci95.unwrap_or([0.0, 0.0]);
                            (charts::interval_bar(r, lo, hi))
                        }
                        None => { "–" }
                    }
                    " " span.ref { (o.passed) " of " (o.tasks) " runs passed" }
                }
                dt { "With related runs" } dd {
                    @match o.success_ci95_clustered {
                        Some([lo, hi]) => { (rate(Some(lo))) " to " (rate(Some(hi)))
                            span.ref { " (95% interval with runs of one template counted as related; "
                                (o.clusters) " templates, design effect " (rate(o.design_effect)) ")" } }
                        None => { "–" span.ref { " (fewer than two templates)" } }
                    }
                }
                @if let Some(r) = &scores.repeated {
                    dt { "Repeated trials" } dd {
                        @for i in 0..r.k_max {
                            "pass^" (i + 1) " " (rate(r.pass_hat_k.get(i).copied()))
                            ", pass@" (i + 1) " " (rate(r.pass_at_k.get(i).copied()))
                            @if i + 1 < r.k_max { "; " }
                        }
                    }
                }
                dt { "Tool-call efficiency" } dd { (rate(o.efficiency)) span.ref { " (calls per step budget on passed tasks; lower is better)" } }
                dt { "Hallucinated-tool rate" } dd { (rate(o.hallucinated_tool_rate)) }
                dt { "Recovery rate" } dd { (rate(o.recovery_rate)) span.ref { " (tasks passed after an error was seen)" } }
                dt { "Cost per task" } dd { @match spend.cost_per_task {
                    Some(c) => { (super::frontier::dollars(c)) span.ref { " (the mean of the " (spend.cost_runs) " of " (o.tasks) " runs with a cost; "
                        (match spend.cost_basis {
                            Some(CostBasis::Measured) => "measured: our agent counted the model's tokens",
                            Some(CostBasis::Mixed) => "partly measured, partly reported by the agent",
                            _ => "reported by the agent",
                        }) ")" } },
                    None => { "unknown" span.ref { " (no run's agent reported a cost)" } },
                } }
                dt { "Tokens per task" } dd { @match spend.tokens_per_task {
                    Some(t) => { (figure(t)) span.ref { " (input and output, over the " (spend.token_runs) " runs that reported both)" } },
                    None => { "unknown" },
                } }
                dt { "Median run time" } dd { @match spend.median_seconds {
                    Some(s) => { (figure(s)) " s" },
                    None => { "unknown" },
                } }
                dt { "Claims coverage" } dd { (rate(p.coverage))
                    span.ref { " (share of each task's claims that held; mostly done, at least 0.75: " (rate(p.mostly_done_rate)) ")" } }
                dt { "Calls" } dd { "tool names " (rate(p.tool_name_validity))
                    ", schema " (rate(p.schema_compliance))
                    ", execution " (rate(p.execution_success)) }
                dt { "Against the closest reference" } dd { "selection " (rate(p.selection_accuracy))
                    ", parameters " (rate(p.parameter_accuracy))
                    ", calls " (rate(p.call_ratio)) "×, resolved " (rate(p.resolved_rate)) }
                dt { "Distractors" } dd { "accuracy " (p.distractor_accuracy.map_or("–".into(), |a| format!("{a:.1}")))
                    " of 100, calls to distractor servers " (rate(p.distractor_call_share)) }
                dt { "Run conditions" } dd.conditions { @match &scores.conditions {
                    Some(c) => {
                        (c.runs.harness) "; " (c.runs.time_budget_secs) " s a task; at most " (c.runs.max_requests)
                        " MCP requests a run; MCP " (c.runs.mcp_offered.join(" and ")) " offered"
                        @if !c.runs.mcp_spoken.is_empty() { ", " (c.runs.mcp_spoken.join(" and ")) " spoken" }
                        @if let Some(s) = &c.runs.sandbox { "; sandbox " (s.describe()) }
                        @if !c.varied.is_empty() { br; strong { "Changed between its runs: " (c.varied.join(", ")) } }
                    },
                    None => { "not recorded" span.ref { " (run before conditions were)" } },
                } }
            }
            div.charts {
                (charts::breakdown("Success rate by server", &groups(&scores.by_server)))
                (charts::breakdown("Success rate by category", &groups(&scores.by_category)))
                (charts::breakdown("Success rate by difficulty", &groups(&scores.by_difficulty)))
                @if !scores.by_shape.is_empty() {
                    (charts::breakdown("Success rate by task shape (serial: a call needs an earlier answer)", &groups(&scores.by_shape)))
                }
            }
        }
        @if let Some(security) = &scores.security { (super::security::section(security)) }
    }
}

/// Success against the distractor level, from the model's newest submission at each level.
pub(super) fn curve_section(model: &str, levels: &[(String, Scores)]) -> Markup {
    let names: Vec<String> = levels.iter().map(|(l, _)| l.clone()).collect();
    let at = |shape: Option<&str>| -> Vec<Option<f64>> {
        levels
            .iter()
            .map(|(_, s)| {
                shape
                    .map_or(Some(&s.overall), |k| s.by_shape.get(k))
                    .and_then(|m| m.success_rate)
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_as_the_stored_json_writes_them() {
        assert_eq!(figure(1200.0), "1200.0");
        assert_eq!(figure(0.25), "0.25");
        assert_eq!(figure(f64::NAN), "NaN");
    }
}
