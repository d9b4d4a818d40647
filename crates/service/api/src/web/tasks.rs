//! `GET /web/tasks` and `GET /web/tasks/{id}`: the task browser, for public sets (the dev set)
//! and retired ones. A private task is "not found", exactly as in the API.

use super::PagePath as Path;
use super::{Frame, PageError, PageQuery, Viewer, page as frame_page};
use crate::AppState;
use crate::error::ApiError;
use crate::params::{TaskFilters, name, requested_set};
use axum::extract::State;
use axum::response::Response;
use maud::{Markup, html};
use mcpbench_db::sets;
use mcpbench_tasks::{Category, Difficulty, SERVERS};
use serde::Deserialize;
use serde_json::Value;

const PER_PAGE: i64 = 100;
/// Characters of a goal shown in the list.
const GOAL_CHARS: usize = 140;

#[derive(Deserialize)]
pub(crate) struct ListParams {
    set: Option<String>,
    after: Option<String>,
    server: Option<String>,
    category: Option<String>,
    difficulty: Option<String>,
}

/// The public set named, or the deployment's default; 404 for a private or unknown one.
async fn public_set(state: &AppState, set: Option<&str>) -> Result<String, ApiError> {
    let set = requested_set("set", set, &state.config().default_set)?;
    match sets::get(state.pool(), &set).await? {
        Some(info) if info.public => Ok(set),
        _ => Err(ApiError::not_found(format!(
            "there is no public set {set:?}; a private set's tasks open when it retires"
        ))),
    }
}

pub(crate) async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
    PageQuery(p): PageQuery<ListParams>,
) -> Result<Response, PageError> {
    let set = public_set(&state, p.set.as_deref()).await?;
    let after = p.after.as_deref().map(|a| name("after", a)).transpose()?;
    let filters = TaskFilters::parse(p.server, p.category, p.difficulty)?;
    let tasks = sets::public_tasks(
        state.pool(),
        &set,
        filters.as_db(),
        after.as_deref(),
        PER_PAGE,
    )
    .await?;
    let tasks: Vec<Shown> = tasks.into_iter().map(Shown::read).collect();
    let open: Vec<_> = sets::list(state.pool(), 500)
        .await?
        .into_iter()
        .filter(|s| s.public)
        .collect();
    let next = (tasks.len() as i64 == PER_PAGE)
        .then(|| tasks.last().map(|t| t.id.as_str()))
        .flatten();
    let narrowed: Vec<&str> = [&filters.server, &filters.category, &filters.difficulty]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let title = if narrowed.is_empty() {
        format!("Tasks of {set}")
    } else {
        format!("Tasks of {set}: {}", narrowed.join(", "))
    };
    let categories: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
    let difficulties: Vec<&str> = Difficulty::ALL.iter().map(|d| d.as_str()).collect();
    let body = html! {
        h1 { (title) }
        form.filters method="get" action="/web/tasks" {
            label { "Set"
                select name="set" { @for s in &open { option value=(s.id) selected[s.id == set] { (s.id) } } }
            }
            (choice("Server", "server", SERVERS, filters.server.as_deref()))
            (choice("Category", "category", &categories, filters.category.as_deref()))
            (choice("Difficulty", "difficulty", &difficulties, filters.difficulty.as_deref()))
            button type="submit" { "Show" }
        }
        @if tasks.is_empty() { p { "No task here." } } @else {
            div.scroll { table {
                caption { "Tasks in set order" @if after.is_some() { " (continued)" } "." }
                thead { tr {
                    th scope="col" { "Task" } th scope="col" { "Server" } th scope="col" { "Category" }
                    th scope="col" { "Difficulty" } th scope="col" { "Steps" } th scope="col" { "Goal" }
                } }
                tbody { @for t in &tasks { (row(&set, t)) } }
            } }
            @if let Some(n) = next { p { a href=(next_href(&set, &filters, n)) { "Next tasks" } } }
        }
    };
    let frame = Frame {
        title: &title,
        viewer: &viewer,
        refresh: None,
    };
    Ok(frame_page(frame, body))
}

/// A labelled select of `values` with an "any" first.
fn choice(label: &str, field: &str, values: &[&str], chosen: Option<&str>) -> Markup {
    html! {
        label { (label)
            select name=(field) {
                option value="" selected[chosen.is_none()] { "any" }
                @for v in values { option value=(v) selected[chosen == Some(*v)] { (v) } }
            }
        }
    }
}

/// The next page's address, keeping the filters (every value was checked to be a plain name).
fn next_href(set: &str, filters: &TaskFilters, after: &str) -> String {
    let mut href = format!("/web/tasks?set={set}&after={after}");
    for (field, value) in [
        ("server", &filters.server),
        ("category", &filters.category),
        ("difficulty", &filters.difficulty),
    ] {
        if let Some(v) = value {
            href.push_str(&format!("&{field}={v}"));
        }
    }
    href
}

/// What the task pages show of a stored task: its facts, typed, and the parts that are JSON by
/// nature (the predicate, the references, the faults, the initial state) as stored. Read
/// leniently, so that every task a set holds has its page: a field a later format adds is
/// passed over, and one that is missing or does not read shows empty.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Shown {
    id: String,
    goal: String,
    server: String,
    servers: Vec<String>,
    category: String,
    difficulty: String,
    max_steps: u32,
    available_tools: Vec<String>,
    success_predicate: Value,
    reference_solutions: Value,
    faults: Value,
    initial_state: Value,
}

impl Shown {
    fn read(task: Value) -> Self {
        serde_json::from_value(task).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "a stored task does not read as a task; shown empty");
            Self::default()
        })
    }
}

fn row(set: &str, t: &Shown) -> Markup {
    let short: String = t.goal.chars().take(GOAL_CHARS).collect();
    html! {
        tr {
            td { a href=(format!("/web/tasks/{}?set={set}", t.id)) { (t.id) } }
            td { (t.server) }
            td { (t.category) }
            td { (t.difficulty) }
            td.num { (t.max_steps) }
            td { (short) @if short.len() < t.goal.len() { "…" } }
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct TaskParams {
    set: Option<String>,
}

pub(crate) async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    PageQuery(p): PageQuery<TaskParams>,
) -> Result<Response, PageError> {
    let set = public_set(&state, p.set.as_deref()).await?;
    let id = name("id", &id)?;
    let task = sets::public_task(state.pool(), &set, &id)
        .await?
        .map(Shown::read)
        .ok_or_else(|| ApiError::not_found(format!("there is no public task {id:?} in {set:?}")))?;
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    let title = format!("Task {id}");
    let body = html! {
        h1 { (title) }
        p { (task.goal) }
        dl.facts {
            dt { "Set" } dd { a href=(format!("/web/sets/{set}")) { (set) } }
            dt { "Servers" } dd { (task.servers.join(", ")) }
            dt { "Category" } dd { (task.category) }
            dt { "Difficulty" } dd { (task.difficulty) }
            dt { "Step budget" } dd { (task.max_steps) }
            dt { "Tools offered" } dd { @for (i, t) in task.available_tools.iter().enumerate() {
                @if i > 0 { ", " } code { (t) } } }
            dt { "Leaderboard" } dd { a href=(format!("/?set={set}&server={}", task.server)) { "this set, " (task.server) " tasks" } }
        }
        h2 { "What counts as success" }
        pre { (pretty(&task.success_predicate)) }
        @for (part, heading) in [(&task.reference_solutions, "Reference solutions (proven to pass)"), (&task.faults, "Injected faults"), (&task.initial_state, "Initial state")] {
            details {
                summary { (heading) }
                pre { (pretty(part)) }
            }
        }
        p.ref { "As JSON: " code { "GET /tasks/" (id) "?set=" (set) } }
    };
    let frame = Frame {
        title: &title,
        viewer: &viewer,
        refresh: None,
    };
    Ok(frame_page(frame, body))
}
