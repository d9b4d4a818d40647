//! `GET /`: the leaderboard of a set, filtered by server or category, sorted by any metric,
//! each success rate drawn with its 95% interval as an inline SVG bar, anomaly flags as badges.

use super::charts::interval_bar;
use super::frontier::{dollars, plot};
use super::history::history;
use super::{Frame, PageError, PageQuery, Viewer, page as frame_page, rate};
use crate::AppState;
use crate::board;
use crate::error::ApiError;
use crate::kept::{Kept, Shelf};
use crate::params::one_of;
use axum::extract::State;
use axum::response::Response;
use maud::{Markup, PreEscaped, html};
use mcpbench_core::about::{Scaffold, Track, Weights, is_label};
use mcpbench_core::board::{
    Board, BoardEntry, Filter, Hosting, Query as BoardQuery, Standing, worth_keeping,
};
use mcpbench_db::SetState;
use mcpbench_tasks::{Category, SERVERS};
use serde::Deserialize;
use std::sync::Arc;
use uuid::Uuid;

/// Rows per page of a board: a page stays small however many submissions a set has.
const PER_PAGE: usize = 50;

#[derive(Deserialize, Default)]
pub struct Params {
    set: Option<String>,
    server: Option<String>,
    category: Option<String>,
    sort: Option<String>,
    weights: Option<String>,
    scaffold: Option<String>,
    organisation: Option<String>,
    track: Option<String>,
    /// 1-based.
    page: Option<usize>,
}

/// A column a board sorts by: its query value, its label, its figure, and whether higher is
/// better.
type Sort = (
    &'static str,
    &'static str,
    fn(&BoardEntry) -> Option<f64>,
    bool,
);

/// The columns a board sorts by.
const SORTS: [Sort; 11] = [
    ("success", "Success rate", |e| Some(e.success_rate), true),
    ("coverage", "Claims coverage", |e| e.process.coverage, true),
    (
        "resolved",
        "Resolved against a reference",
        |e| e.process.resolved_rate,
        true,
    ),
    (
        "schema",
        "Schema compliance",
        |e| e.process.schema_compliance,
        true,
    ),
    (
        "efficiency",
        "Tool-call efficiency",
        |e| e.efficiency,
        false,
    ),
    (
        "hallucinated",
        "Hallucinated-tool rate",
        |e| e.hallucinated_tool_rate,
        false,
    ),
    ("recovery", "Recovery rate", |e| e.recovery_rate, true),
    ("cost", "Cost per task", |e| e.spend.cost_per_task, false),
    ("time", "Median run time", |e| e.spend.median_seconds, false),
    (
        "under-attack",
        "Utility under attack",
        |e| e.security.as_ref()?.overall.utility_under_attack,
        true,
    ),
    (
        "attack-success",
        "Attack success rate",
        |e| e.security.as_ref()?.overall.attack_success_rate,
        false,
    ),
];

pub(crate) async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    PageQuery(p): PageQuery<Params>,
) -> Result<Response, PageError> {
    let set = crate::board::board_set(&state, p.set.as_deref()).await?;
    // Only the values the form offers: each is a board (and a history) to compute.
    let server = one_of("server", p.server, SERVERS)?;
    let categories: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
    let category = one_of("category", p.category, &categories)?;
    let (server, category) = match (server, category) {
        (Some(s), Some(_)) => (Some(s), None), // one filter at a time; the server wins
        other => other,
    };
    let filter = Filter {
        weights: one_of("weights", p.weights, &["open", "closed"])?
            .as_deref()
            .and_then(Weights::parse),
        scaffold: one_of("scaffold", p.scaffold, &["standard", "own"])?
            .as_deref()
            .and_then(Scaffold::parse),
        organisation: match p.organisation.filter(|o| !o.is_empty()) {
            Some(o) if is_label(&o) => Some(o),
            Some(_) => {
                return Err(ApiError::bad_request(
                    "organisation must be 1 to 80 characters: a letter or digit, then letters, \
                     digits, spaces or ._+/()-",
                )
                .into());
            }
            None => None,
        },
        track: one_of("track", p.track, &["standard", "open"])?
            .as_deref()
            .and_then(Track::parse),
    };
    let sort = SORTS
        .iter()
        .find(|s| Some(s.0) == p.sort.as_deref())
        .unwrap_or(&SORTS[0]);
    let narrowed = server.as_deref().or(category.as_deref());
    let title = match narrowed {
        Some(n) => format!("Leaderboard of {set}, {n} tasks"),
        None => format!("Leaderboard of {set}"),
    };
    // Past the last page is the last page; bounded so that page numbers cannot fill the cache.
    let page = p
        .page
        .unwrap_or(1)
        .clamp(1, mcpbench_db::leaderboard::MAX_ENTRIES as usize / PER_PAGE);
    // The content is the same for every reader; cached like the board it shows.
    let key = format!(
        "{set}\n{server:?}\n{category:?}\n{filter:?}\n{}\n{page}",
        sort.0
    );
    // Readers who miss at once wait for one of them to make the content (held to the end).
    let (kept, _making) = match state.board().kept(Shelf::Board, Some(&key)).await {
        Kept::Found(content) => (Some(content), None),
        Kept::Make(making) => (None, making),
    };
    let body = match kept {
        Some(content) => PreEscaped(content.to_string()),
        None => {
            let filters = Filters {
                set: &set,
                server: server.as_deref(),
                category: category.as_deref(),
                filter: &filter,
                sort,
                page,
            };
            let (body, empty) = content(&state, &filters, &title).await?;
            // An empty board is not kept: made-up sets and filters cannot push real pages out.
            if !empty {
                state
                    .board()
                    .put_page(Shelf::Board, key, Arc::from(body.0.as_str()));
            }
            body
        }
    };
    let frame = Frame {
        title: &title,
        viewer: &viewer,
        refresh: None,
    };
    Ok(frame_page(frame, body))
}

/// The page's filters, as checked.
struct Filters<'a> {
    set: &'a str,
    server: Option<&'a str>,
    category: Option<&'a str>,
    filter: &'a Filter,
    sort: &'a Sort,
    page: usize,
}

/// The page's content (the form, one page of the board, the history); whether the board is empty.
async fn content(
    state: &AppState,
    f: &Filters<'_>,
    title: &str,
) -> Result<(Markup, bool), ApiError> {
    let (set, sort) = (f.set, f.sort);
    let sets: Vec<_> = mcpbench_db::sets::list(state.pool(), 100)
        .await?
        .into_iter()
        .filter(|s| s.state != SetState::Draft)
        .collect();
    let board = ranked(state, f.set, f.server, f.category, f.filter).await?;
    let mut entries: Vec<&BoardEntry> = board.entries.iter().collect();
    if sort.0 != "success" {
        // Missing values last, whichever way the column sorts.
        entries.sort_by(|a, b| {
            let (x, y) = ((sort.2)(a), (sort.2)(b));
            match (x, y) {
                (Some(x), Some(y)) if sort.3 => y.total_cmp(&x),
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        });
    }
    let body = html! {
        h1 { (title) }
        (super::standing::header(set, board.standing, &sets, &state.config().default_set))
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
                    @for s in SERVERS { option value=(s) selected[f.server == Some(*s)] { (s) } }
                }
            }
            label { "Category"
                select name="category" {
                    option value="" { "all" }
                    @for c in Category::ALL { option value=(c.as_str()) selected[f.category == Some(c.as_str())] { (c.as_str()) } }
                }
            }
            label { "Weights"
                select name="weights" {
                    option value="" { "any" }
                    @for w in ["open", "closed"] { option value=(w) selected[f.filter.weights.map(Weights::as_str) == Some(w)] { (w) } }
                }
            }
            label { "Scaffold"
                select name="scaffold" {
                    option value="" { "any" }
                    @for w in ["standard", "own"] { option value=(w) selected[f.filter.scaffold.map(Scaffold::as_str) == Some(w)] { (w) } }
                }
            }
            label { "Track"
                select name="track" {
                    option value="" { "any" }
                    @for t in ["standard", "open"] { option value=(t) selected[f.filter.track.map(Track::as_str) == Some(t)] { (t) } }
                }
            }
            @if let Some(o) = &f.filter.organisation {
                input type="hidden" name="organisation" value=(o);
            }
            label { "Sort by"
                select name="sort" {
                    @for s in SORTS { option value=(s.0) selected[s.0 == sort.0] { (s.1) } }
                }
            }
            button type="submit" { "Show" }
        }
        @if let Some(o) = &f.filter.organisation {
            p { "Only " strong { (o) } "'s models (and the reference agents). "
                a href=(View { set, server: f.server, category: f.category, filter: &Filter { organisation: None, ..f.filter.clone() }, sort: sort.0 }.href(sort.0, 1)) { "Every organisation" } }
        }
        (table(&entries, &View { set, server: f.server, category: f.category, filter: f.filter, sort: sort.0 }, f.page))
        (super::conditions::usual(board.conditions.as_ref()))
        (plot(&entries))
        p.ref { "This board as "
            a href=(export_href(set, f, "csv")) { "CSV" } " or "
            a href=(export_href(set, f, "json")) { "JSON" }
            // Each task's result is sealed with its task while the month is live.
            @if matches!(board.standing, Standing::Practice | Standing::Retired) {
                "; every task's result per submission in "
                a href=(format!("/sets/{set}/results?format=csv")) { "the result matrix" }
            } @else {
                "; each task's result opens with the month, when it retires"
            }
            "." }
        (history(state, &sets, f.server, f.category).await?)
    };
    // Kept by the board cache's rule: a filtered page showing only the reference agents (a
    // made-up organisation) is not.
    let keep = worth_keeping(f.filter, entries.iter().map(|e| e.reference));
    Ok((body, !keep))
}

/// What a board page shows, for the links that keep it while changing one thing.
struct View<'a> {
    set: &'a str,
    server: Option<&'a str>,
    category: Option<&'a str>,
    filter: &'a Filter,
    sort: &'a str,
}

impl View<'_> {
    fn href(&self, sort: &str, page: usize) -> String {
        let mut href = format!("/?set={}", self.set);
        if let Some(s) = self.server {
            href.push_str(&format!("&server={s}"));
        }
        if let Some(c) = self.category {
            href.push_str(&format!("&category={c}"));
        }
        href.push_str(&filter_query(self.filter));
        href.push_str(&format!("&sort={sort}"));
        if page > 1 {
            href.push_str(&format!("&page={page}"));
        }
        href
    }
}

/// The filter as query parameters, each with its leading `&`.
fn filter_query(f: &Filter) -> String {
    let mut q = String::new();
    if let Some(w) = f.weights {
        q.push_str(&format!("&weights={}", w.as_str()));
    }
    if let Some(s) = f.scaffold {
        q.push_str(&format!("&scaffold={}", s.as_str()));
    }
    if let Some(o) = &f.organisation {
        q.push_str(&format!("&organisation={}", percent(o)));
    }
    if let Some(t) = f.track {
        q.push_str(&format!("&track={}", t.as_str()));
    }
    q
}

/// A label in a query: its only characters a URL does not take as they are are spaces, `+`,
/// `/`, `(` and `)` (labels hold nothing else).
fn percent(label: &str) -> String {
    label
        .chars()
        .map(|c| match c {
            ' ' => "%20".to_string(),
            '+' => "%2B".to_string(),
            '/' => "%2F".to_string(),
            '(' => "%28".to_string(),
            ')' => "%29".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// The API's board (`/leaderboard`) of this page's view, in a format.
fn export_href(set: &str, f: &Filters<'_>, format: &str) -> String {
    let mut href = format!("/leaderboard?set={set}&format={format}");
    if let Some(s) = f.server {
        href.push_str(&format!("&server={s}"));
    }
    if let Some(c) = f.category {
        href.push_str(&format!("&category={c}"));
    }
    href.push_str(&filter_query(f.filter));
    href
}

/// One page of the ranked entries; column headers that sort are links.
fn table(entries: &[&BoardEntry], view: &View<'_>, page: usize) -> Markup {
    if entries.is_empty() {
        return html! { p { "No finished submission on this set yet." } };
    }
    let pages = entries.len().div_ceil(PER_PAGE);
    let page = page.clamp(1, pages);
    let shown = &entries[(page - 1) * PER_PAGE..(page * PER_PAGE).min(entries.len())];
    let first = (page - 1) * PER_PAGE + 1;
    let sortable = |key: &str, label: &str| {
        let active = key == view.sort;
        let higher_first = SORTS.iter().any(|s| s.0 == key && s.3);
        let order = if higher_first {
            "descending"
        } else {
            "ascending"
        };
        html! {
            th scope="col" aria-sort=[active.then_some(order)] {
                a href=(view.href(key, 1)) title=(format!("Sort by {label}")) { (label) }
                @if active { " " span.ref { @if higher_first { "(highest first)" } @else { "(lowest first)" } } }
            }
        }
    };
    // Every other entry links to a head-to-head with the first-ranked one.
    let leader = entries
        .iter()
        .find(|e| e.rank == 1)
        .map(|e| e.submission_id);
    // The security figures have columns on a board whose set holds tasks under attack.
    let attacked = entries.iter().any(|e| e.security.is_some());
    html! {
        div.scroll {
            table {
                caption { "Entries " (first) " to " (first + shown.len() - 1) " of " (entries.len())
                    ", ranked by success rate (ties share a rank; below a rank, the ranks the intervals allow); bars show the 95% Wilson interval." }
                thead { tr {
                    th scope="col" { "Rank" }
                    th scope="col" { "Agent" }
                    th scope="col" { "Organisation" }
                    th scope="col" { "Weights" }
                    th scope="col" { "Scaffold" }
                    (sortable("success", "Success rate"))
                    th scope="col" { "Passed" }
                    (sortable("coverage", "Coverage"))
                    (sortable("resolved", "Resolved"))
                    (sortable("schema", "Schema"))
                    (sortable("efficiency", "Efficiency"))
                    (sortable("hallucinated", "Hallucinated"))
                    (sortable("recovery", "Recovery"))
                    (sortable("cost", "Cost / task"))
                    (sortable("time", "Median time"))
                    @if attacked {
                        th scope="col" title="Tasks done with no attack present, on the twins of the attacked tasks" { "Utility" }
                        (sortable("under-attack", "Under attack"))
                        (sortable("attack-success", "Attack success"))
                    }
                } }
                tbody {
                    @for e in shown { (row(e, leader, view, attacked)) }
                }
            }
        }
        @if pages > 1 {
            nav aria-label="Pages of the board" {
                @if page > 1 { a href=(view.href(view.sort, page - 1)) { "Previous" } " " }
                "Page " (page) " of " (pages)
                @if page < pages { " " a href=(view.href(view.sort, page + 1)) { "Next" } }
            }
        }
    }
}

/// The board of one set as the API serializes it (from the same cache).
pub(crate) async fn ranked(
    state: &AppState,
    set: &str,
    server: Option<&str>,
    category: Option<&str>,
    filter: &Filter,
) -> Result<Board, ApiError> {
    let query = BoardQuery {
        set: set.to_string(),
        server: server.map(String::from),
        category: category.map(String::from),
        filter: filter.clone(),
    };
    let bytes = board::board(state, query, board::Form::Json).await?;
    serde_json::from_slice(&bytes).map_err(ApiError::internal)
}

fn row(e: &BoardEntry, leader: Option<Uuid>, view: &View<'_>, attacked: bool) -> Markup {
    let security = e.security.as_ref().map(|s| &s.overall);
    let about = &e.about;
    let by_organisation = |o: &str| {
        let filter = Filter {
            organisation: Some(o.to_string()),
            ..view.filter.clone()
        };
        View {
            filter: &filter,
            ..*view
        }
        .href(view.sort, 1)
    };
    let id = e.submission_id;
    let [lo, hi] = e.rank_range;
    html! {
        tr {
            td.num { (e.rank)
                @if lo != hi { br; span.ref title="The ranks the intervals allow" { (lo) "–" (hi) } } }
            td.agent {
                a href=(format!("/web/submissions/{id}")) {
                    strong { (e.name) }
                }
                " " span.ref { (e.model)
                    @if let Some(v) = &about.model_version { " " (v) }
                    " · " (e.vendor)
                    @if let Some(f) = &about.framework { " · " (f) }
                    @if e.track == Track::Standard { " · " span title="The standard track: the vendor's model, driven by our own agent" { "standard track" } }
                    @match e.hosting {
                        Hosting::Sandboxed => { " · " span title="A Docker image run in our sandbox: it saw each task with no way out" { "sandboxed image" } },
                        Hosting::SandboxedModel => { " · " span title="A Docker image run in our sandbox whose one way out was the vendor's model: that model could receive every goal" { "sandboxed image, hosted model" } },
                        Hosting::Hosted => { " · " span title="The vendor's own endpoint: it received every goal it ran" { "hosted endpoint" } },
                        Hosting::InService => { " · " span title="A baseline of ours, run inside the service: nothing outside it saw the tasks" { "baseline" } },
                    } }
                @if e.reference { " " span.ref { "(reference agent)" } }
                @for f in &e.flags { span.badge title="An anomaly flag: a reason to look closer, not a verdict" { (f) } }
                (super::conditions::marks(e))
                @if let Some(first) = leader.filter(|l| *l != id) {
                    " " a.ref href=(format!("/web/compare?a={first}&b={id}")) { "vs #1" }
                }
            }
            td { @match &about.organisation {
                Some(o) => a href=(by_organisation(o)) title=(format!("Only {o}'s models")) { (o) },
                None => span.ref title="Not stated" { "–" },
            } }
            td { (about.weights.map_or("–", Weights::as_str)) }
            td { (about.scaffold.map_or("–", Scaffold::as_str)) }
            td { (interval_bar(e.success_rate, e.success_ci95[0], e.success_ci95[1])) }
            td.num { (e.passed) "/" (e.tasks) }
            td.num { (rate(e.process.coverage)) }
            td.num { (rate(e.process.resolved_rate)) }
            td.num { (rate(e.process.schema_compliance)) }
            td.num { (rate(e.efficiency)) }
            td.num { (rate(e.hallucinated_tool_rate)) }
            td.num { (rate(e.recovery_rate)) }
            td.num { (cost(e)) }
            td.num { @match e.spend.median_seconds {
                Some(s) => (format!("{s} s")),
                None => span.ref title="Scored before run times were kept" { "unknown" },
            } }
            @if attacked {
                td.num { (rate(security.and_then(|s| s.utility))) }
                td.num { (rate(security.and_then(|s| s.utility_under_attack))) }
                td.num { (rate(security.and_then(|s| s.attack_success_rate))) }
            }
        }
    }
}

/// Cost per task, with how many runs it rests on when not all; "unknown" when none said.
fn cost(e: &BoardEntry) -> Markup {
    let (runs, tasks) = (
        i64::try_from(e.spend.cost_runs).unwrap_or(i64::MAX),
        e.tasks,
    );
    html! {
        @match e.spend.cost_per_task {
            Some(c) => {
                (dollars(c))
                (super::conditions::basis(e.spend.cost_basis))
                @if runs < tasks { br; span.ref title="The mean of the runs whose agent reported a cost" { "from " (runs) " of " (tasks) " runs" } }
            },
            None => span.ref title="No run's agent reported a cost: unknown, not free" { "unknown" },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpbench_db::AnomalyKind;

    fn entries(n: usize) -> Vec<BoardEntry> {
        (0..n)
            .map(|i| {
                let r = 1.0 - i as f64 / n as f64;
                BoardEntry {
                    rank: i + 1,
                    vendor: "a-vendor-with-a-long-name".into(),
                    model: "a-model-with-a-long-name".into(),
                    name: format!("submission \"{i}\" <of many>"),
                    tasks: 200,
                    passed: 100,
                    efficiency: Some(0.5),
                    hallucinated_tool_rate: Some(0.01),
                    recovery_rate: Some(0.5),
                    flags: vec![AnomalyKind::ScoreJump, AnomalyKind::KeptFreshGap],
                    ..mcpbench_core::board::line(r, [r * 0.9, r.min(0.95) + 0.05], None)
                }
            })
            .collect()
    }

    #[test]
    fn a_board_of_two_thousand_pages_in_small_pieces() {
        let all = entries(2000);
        let refs: Vec<&BoardEntry> = all.iter().collect();
        let view = View {
            set: "2026-11",
            server: Some("github"),
            category: None,
            filter: &Filter::default(),
            sort: "recovery",
        };
        let first = table(&refs, &view, 1).into_string();
        assert!(first.len() < 70_000, "{} bytes", first.len());
        assert!(first.contains("Entries 1 to 50 of 2000"));
        assert!(
            first.contains("href=\"/?set=2026-11&amp;server=github&amp;sort=recovery&amp;page=2\"")
        );
        assert!(
            first.contains("aria-sort=\"descending\""),
            "the active column says so"
        );
        assert!(first.contains("&lt;of many&gt;"), "names are escaped");
        assert_eq!(
            first.matches("class=\"badge\"").count(),
            2 * 50,
            "anomaly flags as badges"
        );
        let last = table(&refs, &view, 999).into_string();
        assert!(last.contains("Entries 1951 to 2000 of 2000") && last.contains("Page 40 of 40"));
        assert!(!last.contains(">Next<"));
    }
}
