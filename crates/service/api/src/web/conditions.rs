//! The conditions a board was measured under, drawn under its table, and the mark beside an
//! entry measured otherwise (docs/metrics.md, "Run conditions").

use maud::{Markup, html};
use mcpbench_core::board::BoardEntry;
use mcpbench_scoring::{CostBasis, RunConditions};

/// One line naming the conditions most entries were measured under; nothing when none is
/// known.
pub(crate) fn usual(conditions: Option<&RunConditions>) -> Markup {
    let Some(c) = conditions else {
        return html! {};
    };
    html! {
        p.ref.conditions {
            "Measured under: " (c.harness) "; " (c.time_budget_secs) " s a task; at most "
            (c.max_requests) " MCP requests a run; MCP " (c.mcp_offered.join(" and ")) " offered"
            @if let Some(s) = &c.sandbox { "; images in a sandbox of " (s.describe()) }
            ". Entries measured otherwise are marked "
            span.badge.cond { "≠ conditions" } "."
        }
    }
}

/// The mark of an entry measured otherwise than the board's usual conditions, saying how.
pub(crate) fn marks(e: &BoardEntry) -> Markup {
    if e.condition_marks.is_empty() {
        return html! {};
    }
    let how = e.condition_marks.join("; ");
    html! {
        " " span.badge.cond title=(how) { "≠ conditions" }
        br; span.ref.cond-how { (how) }
    }
}

/// Who counted the usage a cost rests on, under the cost.
pub(crate) fn basis(basis: Option<CostBasis>) -> Markup {
    html! {
        @match basis {
            Some(CostBasis::Measured) => { br; span.ref title="The service's own agent counted the model's tokens, priced by the deployment's table" { "measured" } },
            Some(CostBasis::Reported) => { br; span.ref title="The agent reported what it used; the service did not count it" { "reported" } },
            Some(CostBasis::Mixed) => { br; span.ref title="Some runs measured by the service, others reported by the agent" { "partly reported" } },
            None => {},
        }
    }
}
