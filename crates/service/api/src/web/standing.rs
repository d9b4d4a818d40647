//! What a board page counts for, said at its top: tabs between the official board (the live
//! private month) and the practice board (the public set), and a line on the board shown.

use maud::{Markup, html};
use mcpbench_core::board::{Standing, live_month};
use mcpbench_db::sets::SetInfo;

/// The tabs over a board of `set` and what it counts for; `public` is the current public set.
pub(super) fn header(set: &str, standing: Standing, sets: &[SetInfo], public: &str) -> Markup {
    let live = live_month(sets);
    let official_shown = standing == Standing::Official && Some(set) == live;
    let practice_shown = set == public;
    html! {
        nav.tabs aria-label="Boards" {
            a href="/" aria-current=[official_shown.then_some("page")] {
                "Official board" @if let Some(m) = live { " (" (m) ")" }
            }
            a href="/?set=dev" aria-current=[practice_shown.then_some("page")] {
                "Practice (" (public) ")"
            }
        }
        p.standing { (said(set, standing, live)) }
    }
}

fn said(set: &str, standing: Standing, live: Option<&str>) -> Markup {
    match standing {
        Standing::Official => html! {
            strong { "The official board." }
            " The live private month " (set) ": its tasks are sealed until it retires, then \
              revealed and verifiable against the commitment published when it went live. \
              Earlier months are in the history below."
        },
        Standing::Retired => html! {
            strong { "A retired month." }
            " The final ranking of " (set) ", official while it was live; its tasks are "
            a href=(format!("/web/sets/{set}")) { "revealed" } " since."
        },
        Standing::Practice => html! {
            strong { "Practice board." }
            " The public set " (set) ": its tasks and reference solutions are published, so an \
              agent may have learnt them. It ranks for practice only; "
            @match live {
                Some(m) => { "the official board is " a href="/" { "the live month " (m) } "." }
                None => { "no private month is live on this deployment yet." }
            }
        },
        Standing::Upcoming => html! {
            strong { "Not live yet." }
            " " (set) " is a draft: no one has run on it."
        },
    }
}
