//! The website: pages rendered on the server (maud), no JavaScript, small, readable on a phone.
//! Every page is a view of the same data as the JSON API beside it.

mod leaderboard;

pub(crate) use leaderboard::page as leaderboard;

use maud::{DOCTYPE, Markup, PreEscaped, html};

/// The shared frame: language, viewport, one small stylesheet, a skip link and the navigation.
pub(crate) fn layout(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · MCPBench" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                a.skip href="#main" { "Skip to the content" }
                header {
                    nav aria-label="Site" {
                        a href="/" { "Leaderboard" } " "
                        a href="/sets" { "Sets" } " "
                        a href="/tasks" { "Tasks" } " "
                        a href="/openapi.json" { "API" }
                    }
                }
                main #main { (body) }
            }
        }
    }
}

/// Dark text on light ground (contrast well above 4.5:1), visible focus, tables that scroll
/// sideways on a phone instead of squeezing.
const STYLE: &str = "\
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:0 1rem;color:#111;background:#fff}\
a{color:#0645ad}a:focus,button:focus,select:focus{outline:3px solid #f59e0b;outline-offset:2px}\
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}\
header nav{padding:.75rem 0;border-bottom:1px solid #ccc}header nav a{margin-right:1rem}\
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%}\
th,td{padding:.4rem .5rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:middle}\
td.num{text-align:right;font-variant-numeric:tabular-nums}\
.badge{display:inline-block;background:#7c2d12;color:#fff;border-radius:.25rem;padding:0 .4rem;font-size:.8rem;margin-left:.25rem}\
.ref{color:#444;font-size:.85rem}form.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin:1rem 0}\
form.filters label{display:flex;flex-direction:column;font-size:.9rem}";
