//! `/web/compare?a=…&b=…`: two submissions head to head, from the same comparison as
//! `GET /compare`.

use super::{Frame, PageError, PageQuery, Viewer, page as frame_page, rate};
use crate::AppState;
use crate::kept::{Kept, Shelf};
use axum::extract::State;
use axum::response::Response;
use maud::{Markup, html};
use mcpbench_core::compare::{Comparison, Side, Tally, compare};
use serde::Deserialize;
use std::collections::BTreeMap;
use uuid::Uuid;

#[derive(Deserialize)]
pub(crate) struct Pair {
    a: Uuid,
    b: Uuid,
}

pub(crate) async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    PageQuery(q): PageQuery<Pair>,
) -> Result<Response, PageError> {
    let shared = super::shared_key(&viewer, format_args!("compare\n{}\n{}", q.a, q.b));
    let _making = match state.board().kept(Shelf::Shared, shared.as_deref()).await {
        Kept::Found(html) => return Ok(super::kept_page(&html)),
        Kept::Make(making) => making,
    };
    // Only completed submissions compare: what exists and is final.
    let c = compare(state.pool(), q.a, q.b, viewer.caller().map(|c| c.vendor_id)).await?;
    let title = format!("{} vs {}", c.a.name, c.b.name);
    let frame = Frame {
        title: &title,
        viewer: &viewer,
        refresh: None,
    };
    match shared {
        Some(key) => Ok(super::keep_page(&state, key, frame, body(&c))),
        None => Ok(frame_page(frame, body(&c))),
    }
}

fn verdict(c: &Comparison) -> String {
    let p = &c.paired;
    if p.a_only + p.b_only == 0 {
        return "No shared task tells them apart.".into();
    }
    let (lead, wins, losses) = if p.a_only >= p.b_only {
        (&c.a.name, p.a_only, p.b_only)
    } else {
        (&c.b.name, p.b_only, p.a_only)
    };
    let strength = if p.p_value < 0.05 {
        "a difference chance alone would rarely give"
    } else {
        "not enough to tell them apart"
    };
    format!(
        "{lead} solves {wins} shared tasks the other does not, and misses {losses} the other \
         solves: exact McNemar p = {:.3}, {strength}.",
        p.p_value
    )
}

fn body(c: &Comparison) -> Markup {
    let side = |s: &Side| {
        html! {
            a href=(format!("/web/submissions/{}", s.id)) { strong { (s.name) } }
            " " span.ref { (s.model) " · " (s.vendor) " · success " (rate(s.success_rate)) }
        }
    };
    html! {
        h1 { "Head to head" }
        p { (side(&c.a)) " against " (side(&c.b)) " on the set "
            a href=(format!("/web/sets/{}", c.set)) { (c.set) } "." }
        p #verdict { (verdict(c)) }
        dl.facts {
            dt { "Tasks both ran" } dd { (c.paired.shared) }
            dt { "Solved by " (c.a.name) " only" } dd { (c.paired.a_only) }
            dt { "Solved by " (c.b.name) " only" } dd { (c.paired.b_only) }
            dt { "Solved by both" } dd { (c.paired.both) }
        }
        (tally_table("By server", "server", &c.a.name, &c.b.name, &c.by_server))
        (tally_table("By category", "category", &c.a.name, &c.b.name, &c.by_category))
        section aria-labelledby="differences" {
            h2 #differences { "Where they differ" }
            @match &c.differences {
                None => p { "The tasks are listed once both submissions' runs are public (published, on a public or retired set), or to their owner." },
                Some(d) if d.is_empty() => p { "Nowhere: every shared task went the same way for both." },
                Some(d) => div.scroll { table {
                    caption { "Shared tasks one solved and the other did not, with the traces you may read." }
                    thead { tr { th scope="col" { "Task" } th scope="col" { "Server" } th scope="col" { "Solved by" } th scope="col" { "Traces" } } }
                    tbody { @for t in d { tr {
                        td { code { (t.task_id) } }
                        td { (t.server) }
                        td { @if t.a_solved { (c.a.name) } @else { (c.b.name) } }
                        td {
                            @if let Some(r) = t.a_run { a href=(format!("/web/runs/{r}")) { (c.a.name) } }
                            @if t.a_run.is_some() && t.b_run.is_some() { " · " }
                            @if let Some(r) = t.b_run { a href=(format!("/web/runs/{r}")) { (c.b.name) } }
                        }
                    } } }
                } },
            }
        }
    }
}

fn tally_table(
    caption: &str,
    key: &str,
    a: &str,
    b: &str,
    rows: &BTreeMap<String, Tally>,
) -> Markup {
    html! {
        div.scroll { table {
            caption { (caption) ": shared tasks solved by one only, by both, by neither." }
            thead { tr {
                th scope="col" { (key) }
                th scope="col" { (a) " only" }
                th scope="col" { (b) " only" }
                th scope="col" { "Both" }
                th scope="col" { "Neither" }
            } }
            tbody { @for (name, t) in rows { tr {
                td { (name) }
                td.num { (t.a_only) } td.num { (t.b_only) } td.num { (t.both) } td.num { (t.neither) }
            } } }
        } }
    }
}
