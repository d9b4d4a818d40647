//! The website: pages rendered on the server (maud), no JavaScript, small, readable on a phone.
//! Every page is a view of the same data as the JSON API beside it: `/web/X` shows what `/X`
//! answers (the leaderboard is `/`). Vendors sign in with their API key for the pages of their
//! own submissions; the session is a short-lived token in an HttpOnly cookie that only these
//! pages read (the JSON API takes bearer tokens only).

mod charts;
mod compare;
mod conditions;
mod error;
mod frontier;
mod history;
mod leaderboard;
mod runs;
mod scores;
mod security;
mod session;
mod sets;
mod standing;
mod submissions;
mod tasks;

pub(crate) use error::PageError;
pub(crate) use session::Viewer;

use crate::AppState;
use axum::Router;
use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use http::{HeaderValue, header};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use sha2::{Digest, Sha256};
use std::sync::LazyLock;
use time::OffsetDateTime;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(leaderboard::page))
        .route("/web/login", get(session::form).post(session::login))
        .route("/web/logout", post(session::logout))
        .route("/web/submissions", get(submissions::list))
        .route("/web/submissions/{id}", get(submissions::page))
        .route("/web/runs/{id}", get(runs::page))
        .route("/web/compare", get(compare::page))
        .route("/web/sets", get(sets::list))
        .route("/web/sets/{id}", get(sets::page))
        .route("/web/tasks", get(tasks::list))
        .route("/web/tasks/{id}", get(tasks::page))
}

/// What a page's frame needs besides its body.
pub(crate) struct Frame<'a> {
    pub title: &'a str,
    pub viewer: &'a Viewer,
    /// Reload every this many seconds (a submission that is still running).
    pub refresh: Option<u32>,
}

/// A whole page: the frame around `body`, with the headers every page carries.
pub(crate) fn page(frame: Frame<'_>, body: Markup) -> Response {
    let signed_in = frame.viewer.caller().is_some();
    html_response(layout(frame, body).into_string(), signed_in)
}

/// A page every reader without a session sees alike, kept whole (with the board's cache:
/// dropped when what the public sees changes, and after a few seconds in any case). The key
/// when `viewer` has no session, else `None`: a signed-in vendor's page can hold their own.
pub(crate) fn shared_key(viewer: &Viewer, parts: std::fmt::Arguments<'_>) -> Option<String> {
    viewer.caller().is_none().then(|| format!("page\n{parts}"))
}

/// A kept page, as a reader without a session gets it.
pub(crate) fn kept_page(html: &str) -> Response {
    html_response(html.to_string(), false)
}

/// The page for a reader without a session, kept under `key` for the next (a page of anything
/// a made-up address cannot reach: callers keep only pages of what exists and is final).
pub(crate) fn keep_page(
    state: &crate::AppState,
    key: String,
    frame: Frame<'_>,
    body: Markup,
) -> Response {
    let html = layout(frame, body).into_string();
    state.board().put_page(
        crate::kept::Shelf::Shared,
        key,
        std::sync::Arc::from(html.as_str()),
    );
    html_response(html, false)
}

fn html_response(html: String, signed_in: bool) -> Response {
    let mut response = html.into_response();
    headers(&mut response, signed_in);
    response
}

/// Headers of every page: no script may run, no other site may frame it, and a page made for
/// one signed-in vendor is never stored by a cache.
pub(crate) fn headers(response: &mut Response, signed_in: bool) {
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    if let Ok(csp) = HeaderValue::from_str(&CSP) {
        h.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // The same address reads differently signed in and out.
    h.insert(header::VARY, HeaderValue::from_static("Cookie"));
    if signed_in {
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-store"),
        );
    }
}

/// The one stylesheet is inline and allowed by its hash; nothing else may load or run.
static CSP: LazyLock<String> = LazyLock::new(|| {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE));
    format!(
        "default-src 'none'; style-src 'sha256-{hash}'; img-src 'self'; form-action 'self'; \
         frame-ancestors 'none'; base-uri 'none'"
    )
});

/// The shared frame: language, viewport, the stylesheet, a skip link and the navigation.
fn layout(frame: Frame<'_>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                @if let Some(seconds) = frame.refresh {
                    meta http-equiv="refresh" content=(seconds);
                }
                title { (frame.title) " · MCPBench" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                a.skip href="#main" { "Skip to the content" }
                header {
                    nav aria-label="Site" {
                        a href="/" { "Leaderboard" }
                        a href="/web/sets" { "Sets" }
                        a href="/web/tasks" { "Tasks" }
                        a href="/openapi.json" { "API" }
                        @match frame.viewer.caller() {
                            Some(c) => {
                                a href="/web/submissions" { "My submissions" }
                                form.inline method="post" action="/web/logout" {
                                    button type="submit" { "Sign out " (c.name) }
                                }
                            }
                            None => { a href="/web/login" { "Sign in" } }
                        }
                    }
                }
                main #main { (body) }
                footer { "MCPBench · every page here is also JSON: see the API." }
            }
        }
    }
}

/// Dark text on light ground (every pair at least 4.5:1), visible focus, tables that scroll
/// sideways on a phone instead of squeezing.
const STYLE: &str = "\
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:0 1rem;color:#111;background:#fff}\
a{color:#0645ad}a:focus,button:focus,select:focus,input:focus,summary:focus{outline:3px solid #b45309;outline-offset:2px}\
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}\
header nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.75rem 0;border-bottom:1px solid #ccc}\
form.inline{display:inline;margin:0}footer{margin:2rem 0 1rem;color:#444;font-size:.85rem}\
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%}\
th,td{padding:.4rem .5rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\
td.num{text-align:right;font-variant-numeric:tabular-nums}td.agent{min-width:14rem}\
.badge{display:inline-block;background:#7c2d12;color:#fff;border-radius:.25rem;padding:0 .4rem;font-size:.8rem;margin-left:.25rem}\
.badge.cond{background:#1e3a8a}\
.pass{color:#065f46;font-weight:600}.fail{color:#991b1b;font-weight:600}\
.ref{color:#444;font-size:.85rem}form.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin:1rem 0}\
form.filters label,form.stack label{display:flex;flex-direction:column;font-size:.9rem}\
form.stack{display:flex;flex-direction:column;gap:.75rem;max-width:32rem}input{font:inherit;padding:.3rem}\
button,select{font:inherit}pre{background:#f3f4f6;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;font-size:.85rem}\
code{font-size:.9em;word-break:break-all}dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}\
dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}\
.alert{border-left:4px solid #991b1b;background:#fef2f2;padding:.5rem .75rem}\
figure{margin:1rem 0}figcaption{font-weight:600}figure svg{max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:#111}\
ol.events{padding-left:0;list-style:none}ol.events li{border-bottom:1px solid #ddd;padding:.3rem 0}\
ol.events .tag{font-size:.8rem;border:1px solid #666;border-radius:.25rem;padding:0 .3rem;margin-left:.25rem}\
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem}\
nav.tabs{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0 0;border-bottom:2px solid #ccc}\
nav.tabs a{padding:.3rem .75rem;text-decoration:none}\
nav.tabs a[aria-current]{border:2px solid #ccc;border-bottom-color:#fff;margin-bottom:-2px;font-weight:600;color:#111}\
.standing{border-left:4px solid #0645ad;background:#eff6ff;padding:.5rem .75rem}";

/// An instant as people read it: `2026-11-24 09:15 UTC`.
pub(crate) fn when(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute()
    )
}

/// A rate with two decimals, or a dash when there is none.
pub(crate) fn rate(v: Option<f64>) -> String {
    v.map_or("–".into(), |r| format!("{r:.2}"))
}

/// Milliseconds as people read them.
/// A duration recorded in whole milliseconds: 0 means under one.
pub(crate) fn whole_ms(ms: i64) -> String {
    if ms <= 0 {
        "< 1 ms".into()
    } else {
        duration(ms as f64)
    }
}

/// A run's duration as it may be shown: exact, or the bucket it falls in while its task is
/// sealed (`disclosure::shown_duration`).
pub(crate) fn run_duration(run: &mcpbench_db::runs::Run) -> String {
    use mcpbench_core::disclosure::{ShownDuration, shown_duration};
    match shown_duration(run.duration_ms, run.task_open) {
        ShownDuration::Exact(ms) => whole_ms(ms),
        ShownDuration::Within(lo, Some(hi)) => {
            format!("{}–{}", duration(lo as f64), duration(hi as f64))
        }
        ShownDuration::Within(lo, None) => format!("≥ {}", duration(lo as f64)),
    }
}

pub(crate) fn duration(ms: f64) -> String {
    if ms < 1.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// The query of a page; a malformed one is a page saying so (not a plain-text rejection, and
/// never what was sent).
pub(crate) struct PageQuery<T>(pub T);

impl<T: serde::de::DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for PageQuery<T> {
    type Rejection = PageError;

    async fn from_request_parts(
        parts: &mut http::request::Parts,
        state: &S,
    ) -> Result<Self, PageError> {
        let crate::extract::Query(q) =
            crate::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(Self(q))
    }
}

/// The path of a page; a malformed one is a page saying so.
pub(crate) struct PagePath<T>(pub T);

impl<T: serde::de::DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for PagePath<T> {
    type Rejection = PageError;

    async fn from_request_parts(
        parts: &mut http::request::Parts,
        state: &S,
    ) -> Result<Self, PageError> {
        let crate::extract::Path(p) =
            crate::extract::Path::<T>::from_request_parts(parts, state).await?;
        Ok(Self(p))
    }
}

/// Where people reach the service, for commands a reader copies (`curl <origin>/...`): the
/// configured public URL, else the scheme and host this request came to (local use).
pub(crate) fn origin(state: &AppState, headers: &http::HeaderMap) -> String {
    if let Some(url) = &state.config().public_url {
        return url.clone();
    }
    host_origin(headers)
}

fn host_origin(headers: &http::HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("localhost");
    let scheme = if session::is_loopback(host) {
        "http"
    } else {
        "https"
    };
    format!("{scheme}://{host}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_durations_and_origins_read_as_people_write_them() {
        let t = OffsetDateTime::from_unix_timestamp(1_795_000_000).unwrap();
        assert_eq!(when(t), "2026-11-18 11:06 UTC");
        assert_eq!(duration(0.5), "0.50 ms");
        assert_eq!(duration(12.4), "12 ms");
        assert_eq!(duration(1530.0), "1.5 s");
        assert_eq!(whole_ms(0), "< 1 ms");
        assert_eq!(whole_ms(7), "7 ms");
        let mut h = http::HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert_eq!(host_origin(&h), "http://127.0.0.1:8080");
        h.insert(header::HOST, HeaderValue::from_static("bench.example.org"));
        assert_eq!(host_origin(&h), "https://bench.example.org");
        h.insert(header::HOST, HeaderValue::from_static("evil\"<x>"));
        assert_eq!(host_origin(&h), "http://localhost");
    }

    #[test]
    fn the_policy_allows_exactly_the_stylesheet_served() {
        assert!(CSP.contains("default-src 'none'") && CSP.contains("style-src 'sha256-"));
        assert!(!CSP.contains("script-src"), "no script source at all");
        let viewer = Viewer::anonymous();
        let frame = Frame {
            title: "t",
            viewer: &viewer,
            refresh: None,
        };
        let html = layout(frame, html! { p { "x" } }).into_string();
        let style = html
            .split("<style>")
            .nth(1)
            .unwrap()
            .split("</style>")
            .next()
            .unwrap();
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(style));
        assert!(CSP.contains(&format!("'sha256-{hash}'")), "{}", *CSP);
    }
}
