//! `GET /web/sets` and `GET /web/sets/{id}`: which set is live and what it is committed to,
//! which are retired with their reveal, and how anyone checks a reveal offline.

use super::PagePath as Path;
use super::{Frame, PageError, Viewer, origin, page as frame_page, when};
use crate::AppState;
use crate::routes::sets::{KEY_PATH, find};
use axum::extract::State;
use axum::response::Response;
use http::HeaderMap;
use maud::{Markup, html};
use mcpbench_attest::note::NoteVerifier;
use mcpbench_core::disclosure::set_open;
use mcpbench_db::SetState;
use mcpbench_db::sets::{self, SetInfo};

pub(crate) async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
) -> Result<Response, PageError> {
    let all = sets::list(state.pool(), 500).await?;
    let of = |f: &dyn Fn(&SetInfo) -> bool| all.iter().filter(|s| f(s)).collect::<Vec<_>>();
    let live = of(&|s| s.state == SetState::Active && !s.public);
    let retired = of(&|s| s.state == SetState::Retired);
    let public = of(&|s| s.public && s.state != SetState::Retired);
    let body = html! {
        h1 { "Task sets" }
        p { "A private set is named by its month. When it goes live we publish a signed commitment to every task; "
            "when it retires we publish the tasks with their salts, and anyone can check them against that commitment." }
        section aria-labelledby="live" {
            h2 #live { "Live" }
            @if live.is_empty() { p { "No private set is live." } } @else { (table(&live, "Live private sets: tasks hidden, commitment published.")) }
        }
        section aria-labelledby="retired" {
            h2 #retired { "Retired" }
            @if retired.is_empty() { p { "No set has retired yet." } } @else { (table(&retired, "Retired sets: tasks revealed, verifiable against their commitment.")) }
        }
        section aria-labelledby="public" {
            h2 #public { "Public" }
            @if public.is_empty() { p { "No public set." } } @else { (table(&public, "Public sets: every task open for development.")) }
        }
    };
    let frame = Frame {
        title: "Sets",
        viewer: &viewer,
        refresh: None,
    };
    Ok(frame_page(frame, body))
}

fn table(rows: &[&SetInfo], caption: &str) -> Markup {
    html! {
        div.scroll { table {
            caption { (caption) }
            thead { tr {
                th scope="col" { "Set" } th scope="col" { "Tasks" } th scope="col" { "Live since" }
                th scope="col" { "Retired" } th scope="col" { "Browse" }
            } }
            tbody { @for s in rows { tr {
                td { a href=(format!("/web/sets/{}", s.id)) { (s.id) } @if let Some(t) = &s.tag { " " span.ref { (t) } } }
                td.num { (s.tasks) }
                td { (s.activated_at.map(when).unwrap_or_else(|| "–".into())) }
                td { (s.retired_at.map(when).unwrap_or_else(|| "–".into())) }
                td {
                    a href=(format!("/?set={}", s.id)) { "leaderboard" }
                    @if set_open(s.public, s.state) { " · " a href=(format!("/web/tasks?set={}", s.id)) { "tasks" } }
                }
            } } }
        } }
    }
}

pub(crate) async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, PageError> {
    let set = find(&state, &id).await?;
    let commitments = if set.checkpoint.is_some() {
        sets::commitments(state.pool(), &set.id).await?
    } else {
        Vec::new()
    };
    let fingerprint = set
        .signing_key
        .as_deref()
        .and_then(|k| NoteVerifier::parse(k).ok())
        .map(|v| v.fingerprint());
    let revealed = set.checkpoint.is_some() && set.tag.is_some();
    let base = origin(&state, &headers);
    let body = html! {
        h1 { "Set " (set.id) }
        dl.facts {
            dt { "State" } dd { strong { (set.state) } @if set.public { " (public)" } }
            dt { "Tasks" } dd { (set.tasks)
                @if revealed && set.sealed > 0 { " (" (set.sealed) " withheld: a live set still holds them; each is revealed when the last set holding it retires)" } }
            dt { "Created" } dd { (when(set.created_at)) }
            @if let Some(t) = set.activated_at { dt { "Live since" } dd { (when(t)) } }
            @if let Some(t) = set.retired_at { dt { "Retired" } dd { (when(t)) } }
            @if let Some(t) = &set.tag { dt { "Tag" } dd { (t) } }
            @if let Some(from) = &set.rotated_from {
                dt { "Rotated from" } dd { a href=(format!("/web/sets/{from}")) { (from) }
                    @if let Some(r) = set.rotation_replace { ", " (format!("{:.0}%", r * 100.0)) " of its tasks replaced" }
                    @if let Some(seed) = &set.rotation_seed_revealed { ", seed " code { (hex::encode(seed)) } }
                    @if let Some(exposed) = &set.rotation_exposed_revealed {
                        @if !exposed.is_empty() { "; exposed tasks replaced first: " (exposed.len()) " (" (exposed.join(", ")) ")" } } }
            }
            dt { "See" } dd {
                a href=(format!("/?set={}", set.id)) { "its leaderboard" }
                @if set_open(set.public, set.state) {
                    " · " a href=(format!("/web/tasks?set={}", set.id)) { "its tasks" }
                    " · " a href=(format!("/sets/{}/results?format=csv", set.id)) { "its results per task (CSV)" }
                }
                @if set.state == SetState::Retired {
                    " · " a href=(format!("/sets/{}/traces", set.id)) { "its published traces (tar)" }
                }
            }
        }
        @if let Some(checkpoint) = &set.checkpoint {
            section aria-labelledby="commitment" {
                h2 #commitment { "Commitment" }
                p { "Signed when the set went live, before any agent saw a task: the checkpoint names the set, "
                    "the number of tasks and the root of a Merkle tree (RFC 6962) over one salted SHA-256 commitment per task." }
                pre { (checkpoint) }
                dl.facts {
                    @if let Some(k) = &set.signing_key { dt { "Verifier key" } dd { code { (k) } } }
                    @if let Some(f) = &fingerprint { dt { "Key fingerprint" } dd { code { (f) } } }
                    dt { "Downloads" } dd {
                        a href=(format!("/sets/{}/checkpoint", set.id)) { "checkpoint" } " · "
                        a href=(KEY_PATH) { "verifier key" }
                        @if revealed { " · " a href=(format!("/sets/{}/bundle", set.id)) { "reveal bundle" } }
                    }
                }
                details {
                    summary { "The " (commitments.len()) " commitments, in set order" }
                    ol { @for c in &commitments { li { code { (hex::encode(c)) } } } }
                }
            }
        }
        @if revealed {
            (how_to_verify(&set.id, &base, fingerprint.as_deref()))
        } @else if set.checkpoint.is_some() {
            p { "Its tasks stay private until it retires; then they are published with their salts and this page says how to check them. "
                "Keep the checkpoint now: a reveal is only as good as the commitment you kept." }
        }
    };
    let title = format!("Set {}", set.id);
    let frame = Frame {
        title: &title,
        viewer: &viewer,
        refresh: None,
    };
    Ok(frame_page(frame, body))
}

fn how_to_verify(id: &str, base: &str, fingerprint: Option<&str>) -> Markup {
    let commands = format!(
        "curl -s {base}{KEY_PATH} > key\n\
         curl -s -o {id}.checkpoint {base}/sets/{id}/checkpoint   # better: the copy you kept at go-live\n\
         mcpbench verify {base}/sets/{id}/bundle --checkpoint {id}.checkpoint --key key\n\
         python3 examples/verify/mcpbench_verify.py {base}/sets/{id}/bundle --checkpoint {id}.checkpoint --key key"
    );
    html! {
        section aria-labelledby="verify" {
            h2 #verify { "How to verify the reveal" }
            p { "The bundle holds every task with its salt and its inclusion proof, except those a live set still "
                "holds, which it shows by their commitment alone until they are revealed. Two independent verifiers "
                "(our command line, and a standard-library Python script) recompute each commitment, the tree and "
                "the signature, offline:" }
            pre { (commands) }
            p { "Both exit 0 with " code { "ok: … signed by key <fingerprint>" } ", or 1 naming the first mismatch."
                @if let Some(f) = fingerprint { " The fingerprint must be " code { (f) } ", the one published when the set went live." } }
        }
    }
}
