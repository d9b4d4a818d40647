//! `GET /`: the leaderboard of a set, filtered by server or category, sorted by any metric,
//! each success rate drawn with its 95% interval as an inline SVG bar, anomaly flags as badges.

use super::layout;
use crate::AppState;
use crate::board::{self, Query as BoardQuery};
use crate::error::ApiError;
use crate::routes::public::{name, set_name};
use axum::extract::{Query, State};
use axum::response::Html;
use maud::{Markup, html};
use mcpbench_tasks::{Category, SERVERS};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
pub struct Params {
    set: Option<String>,
    server: Option<String>,
    category: Option<String>,
    sort: Option<String>,
}

/// The columns a board sorts by: (query value, label, JSON field, higher is better).
const SORTS: [(&str, &str, &str, bool); 4] = [
    ("success", "Success rate", "success_rate", true),
    ("efficiency", "Tool-call efficiency", "efficiency", false),
    (
        "hallucinated",
        "Hallucinated-tool rate",
        "hallucinated_tool_rate",
        false,
    ),
    ("recovery", "Recovery rate", "recovery_rate", true),
];

fn blank_to_none(v: Option<String>) -> Option<String> {
    v.filter(|s| !s.is_empty())
}

pub(crate) async fn page(
    State(state): State<AppState>,
    Query(p): Query<Params>,
) -> Result<Html<String>, ApiError> {
    let set = match blank_to_none(p.set) {
        Some(s) => set_name("set", &s)?,
        None => state.config().default_set.clone(),
    };
    let server = blank_to_none(p.server)
        .map(|s| name("server", &s))
        .transpose()?;
    let category = blank_to_none(p.category)
        .map(|s| name("category", &s))
        .transpose()?;
    let (server, category) = match (server, category) {
        (Some(s), Some(_)) => (Some(s), None), // one filter at a time; the server wins
        other => other,
    };
    let sort = SORTS
        .iter()
        .find(|s| Some(s.0) == p.sort.as_deref())
        .unwrap_or(&SORTS[0]);
    let sets = mcpbench_db::sets::list(state.pool(), 100).await?;
    let bytes = board::board(
        &state,
        BoardQuery {
            set: set.clone(),
            server: server.clone(),
            category: category.clone(),
        },
    )
    .await?;
    let board: Value = serde_json::from_slice(&bytes).map_err(ApiError::internal)?;
    let mut entries: Vec<&Value> = board["entries"]
        .as_array()
        .map(|e| e.iter().collect())
        .unwrap_or_default();
    if sort.0 != "success" {
        // Missing values last, whichever way the column sorts.
        entries.sort_by(|a, b| {
            let (x, y) = (a[sort.2].as_f64(), b[sort.2].as_f64());
            match (x, y) {
                (Some(x), Some(y)) if sort.3 => y.total_cmp(&x),
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        });
    }
    let narrowed = server.as_deref().or(category.as_deref());
    let title = match narrowed {
        Some(n) => format!("Leaderboard of {set}, {n} tasks"),
        None => format!("Leaderboard of {set}"),
    };
    let body = html! {
        h1 { (title) }
        form.filters method="get" action="/" {
            label { "Set"
                select name="set" {
                    @for s in &sets {
                        option value=(s.id) selected[s.id == set] {
                            (s.id) " (" (s.state) ")"
                        }
                    }
                }
            }
            label { "Server"
                select name="server" {
                    option value="" { "all" }
                    @for s in SERVERS { option value=(s) selected[server.as_deref() == Some(*s)] { (s) } }
                }
            }
            label { "Category"
                select name="category" {
                    option value="" { "all" }
                    @for c in Category::ALL { option value=(c.as_str()) selected[category.as_deref() == Some(c.as_str())] { (c.as_str()) } }
                }
            }
            label { "Sort by"
                select name="sort" {
                    @for s in SORTS { option value=(s.0) selected[s.0 == sort.0] { (s.1) } }
                }
            }
            button type="submit" { "Show" }
        }
        @if entries.is_empty() {
            p { "No finished submission on this set yet." }
        } @else {
            div.scroll {
                table {
                    caption { "Ranked by success rate (ties share a rank); bars show the 95% Wilson interval." }
                    thead { tr {
                        th scope="col" { "Rank" }
                        th scope="col" { "Agent" }
                        th scope="col" { "Success rate" }
                        th scope="col" { "Passed" }
                        th scope="col" { "Efficiency" }
                        th scope="col" { "Hallucinated" }
                        th scope="col" { "Recovery" }
                    } }
                    tbody {
                        @for e in &entries { (row(e)) }
                    }
                }
            }
        }
    };
    Ok(Html(layout(&title, body).into_string()))
}

fn rate(v: &Value) -> String {
    v.as_f64().map_or("–".into(), |r| format!("{r:.2}"))
}

fn row(e: &Value) -> Markup {
    let flags: Vec<&str> = e["flags"]
        .as_array()
        .map(|f| f.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    html! {
        tr {
            td.num { (e["rank"]) }
            td {
                strong { (e["name"].as_str().unwrap_or_default()) }
                " " span.ref { (e["model"].as_str().unwrap_or_default()) " · " (e["vendor"].as_str().unwrap_or_default()) }
                @if e["reference"] == Value::Bool(true) { " " span.ref { "(reference agent)" } }
                @for f in &flags { span.badge title="An anomaly flag: a reason to look closer, not a verdict" { (f) } }
            }
            td { (interval_bar(e)) }
            td.num { (e["passed"]) "/" (e["tasks"]) }
            td.num { (rate(&e["efficiency"])) }
            td.num { (rate(&e["hallucinated_tool_rate"])) }
            td.num { (rate(&e["recovery_rate"])) }
        }
    }
}

/// The rate as a number and a 120-pixel bar: the interval shaded, the rate a dark mark.
fn interval_bar(e: &Value) -> Markup {
    let r = e["success_rate"].as_f64().unwrap_or(0.0);
    let lo = e["success_ci95"][0].as_f64().unwrap_or(0.0);
    let hi = e["success_ci95"][1].as_f64().unwrap_or(0.0);
    let x = |v: f64| (v.clamp(0.0, 1.0) * 120.0).round();
    let label = format!("{r:.2}, 95% interval {lo:.2} to {hi:.2}");
    html! {
        span { (format!("{r:.2}")) " " }
        svg width="124" height="14" viewBox="0 0 124 14" role="img" aria-label=(label) {
            rect x="2" y="5" width="120" height="4" fill="#e5e7eb" {}
            rect x=(x(lo) + 2.0) y="2" width=(x(hi) - x(lo)) height="10" fill="#93c5fd" {}
            rect x=(x(r) + 1.0) y="0" width="2" height="14" fill="#1e3a8a" {}
        }
    }
}
