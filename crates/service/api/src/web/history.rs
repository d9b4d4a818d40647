//! The leaderboard's history: each vendor's model across the monthly sets, as a line chart
//! and a table of rates with their intervals.

use super::charts::{self, Series};
use crate::AppState;
use crate::error::ApiError;
use maud::{Markup, html};
use std::collections::HashMap;

/// The most months the history shows, and the most agents its table and chart list.
const HISTORY_MONTHS: usize = 12;
const HISTORY_AGENTS: usize = 30;
const CHART_AGENTS: usize = 6;

/// A success rate, its 95% interval, and the rank it had on its month's board.
type Point = (f64, f64, f64, usize);

/// Each vendor's model across the monthly sets that went live (oldest first), its best
/// finished submission per month, narrowed like the board above it.
pub(crate) async fn history(
    state: &AppState,
    sets: &[mcpbench_db::sets::SetInfo],
    server: Option<&str>,
    category: Option<&str>,
) -> Result<Markup, ApiError> {
    let mut months: Vec<String> = sets
        .iter()
        .filter(|s| mcpbench_attest::bundle::is_month(&s.id) && s.activated_at.is_some())
        .map(|s| s.id.clone())
        .collect();
    months.sort();
    let months: Vec<String> = months.split_off(months.len().saturating_sub(HISTORY_MONTHS));
    // (vendor, model) -> (rate, interval) per month, in order of first appearance.
    let mut agents: Vec<(String, String)> = Vec::new();
    let mut cells: HashMap<(String, String), Vec<Option<Point>>> = HashMap::new();
    for (i, month) in months.iter().enumerate() {
        let board =
            super::leaderboard::ranked(state, month, server, category, &Default::default()).await?;
        for e in board.entries.iter().filter(|e| !e.reference) {
            let key = (e.vendor.clone(), e.model.clone());
            let row = cells.entry(key.clone()).or_insert_with(|| {
                agents.push(key.clone());
                vec![None; months.len()]
            });
            // Entries come best first: the first of a model in a month is its best.
            if row[i].is_none() {
                row[i] = Some((e.success_rate, e.success_ci95[0], e.success_ci95[1], e.rank));
            }
        }
    }
    // The latest month's best first; models absent from it after those present.
    let latest = |k: &(String, String)| {
        cells[k]
            .iter()
            .rev()
            .find_map(|c| c.map(|c| c.0))
            .unwrap_or(-1.0)
    };
    agents.sort_by(|a, b| latest(b).total_cmp(&latest(a)));
    agents.truncate(HISTORY_AGENTS);
    let label = |(vendor, model): &(String, String)| format!("{model} · {vendor}");
    let series: Vec<Series> = agents
        .iter()
        .take(CHART_AGENTS)
        .map(|k| Series {
            label: label(k),
            rates: cells[k].iter().map(|c| c.map(|c| c.0)).collect(),
        })
        .collect();
    Ok(html! {
        section aria-labelledby="history" {
            h2 #history { "History across months" }
            @if months.is_empty() || agents.is_empty() {
                p { "No monthly set has a finished vendor submission yet." }
            } @else {
                (charts::history("Success rate per month (best submission of each model)", &months, &series))
                div.scroll {
                    table {
                        caption { "Success rate per month with its 95% interval and the rank it had on that month's board (the reference agents included); across months, the mean rate and mean rank of the months ranked. A dash where a model has no finished submission." }
                        thead { tr {
                            th scope="col" { "Model" }
                            @for m in &months { th scope="col" { a href=(format!("/?set={m}")) { (m) } } }
                            th scope="col" { "Across months" }
                        } }
                        tbody {
                            @for k in &agents {
                                tr {
                                    th scope="row" { (label(k)) }
                                    @for c in &cells[k] {
                                        td.num { @match c {
                                            Some((r, lo, hi, rank)) => { (format!("{r:.2}")) " " span.ref { "#" (rank) } br; span.ref { (format!("{lo:.2}–{hi:.2}")) } }
                                            None => { "–" }
                                        } }
                                    }
                                    td.num { (across(&cells[k])) }
                                }
                            }
                        }
                    }
                }
            }
        }
    })
}

/// A model's months together: the mean success rate and mean rank of the months it was ranked
/// in, and how many.
fn across(cells: &[Option<Point>]) -> Markup {
    let ranked: Vec<&Point> = cells.iter().flatten().collect();
    let n = ranked.len() as f64;
    let rate = ranked.iter().map(|p| p.0).sum::<f64>() / n;
    let rank = ranked.iter().map(|p| p.3 as f64).sum::<f64>() / n;
    html! {
        (format!("{rate:.2}")) br;
        span.ref { (format!("mean rank {rank:.1} over {}", ranked.len())) }
    }
}
