//! A submission's security figures on its page (docs/metrics.md, "Agents under attack"):
//! utility with no attack present, utility under attack and the attack success rate, overall,
//! by where the attack stood and by the server that carried it. Shown apart from the rank.

use super::rate;
use maud::{Markup, html};
use mcpbench_scoring::{Security, SecurityFigures};

fn figures_row(label: &str, f: &SecurityFigures) -> Markup {
    html! {
        tr {
            th scope="row" { (label) }
            td.num { (rate(f.utility)) span.ref { " (" (f.twins_passed) " of " (f.twin_runs) ")" } }
            td.num { (rate(f.utility_under_attack)) span.ref { " (" (f.passed_under_attack) " of " (f.attacked_runs) ")" } }
            td.num { (rate(f.attack_success_rate)) span.ref { " (" (f.attacks_met) " of " (f.attacked_runs) ")" } }
        }
    }
}

/// The security figures as a table; never folded into the success rate above it.
pub(super) fn section(s: &Security) -> Markup {
    html! {
        section aria-labelledby="security" {
            h2 #security { "Under attack" }
            p { "Tasks whose worlds carry instructions an attacker planted (in an e-mail, an issue, a chat message, a tool's description, ...), each run beside its twin without the attack. "
                "Utility is the twins done; under attack, the attacked tasks done; attack success, the attacked runs that did what the planted instructions asked. "
                "None of these counts in the success rate, and the attacked runs are left out of every other figure." }
            div.scroll { table {
                caption { "Security figures, overall, by kind of attack and by server." }
                thead { tr {
                    th scope="col" { "Runs" }
                    th scope="col" { "Utility" }
                    th scope="col" { "Utility under attack" }
                    th scope="col" { "Attack success rate" }
                } }
                tbody {
                    (figures_row("All attacks", &s.overall))
                    @for (kind, f) in &s.by_kind { (figures_row(&format!("In {}", kind.replace('_', " ")), f)) }
                    @for (server, f) in &s.by_server { (figures_row(&format!("On {server}"), f)) }
                }
            } }
        }
    }
}
