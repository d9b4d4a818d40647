//! Signing in to the website with an API key: the key is exchanged for the same short-lived
//! token `POST /auth/token` gives, kept in an HttpOnly cookie only the pages read. Forms post
//! only to this site (`form-action 'self'`), and a post from another origin is refused.

use super::{Frame, PageError, PageQuery, page};
use crate::AppState;
use crate::auth::{Caller, Verifier};
use crate::error::ApiError;
use crate::limits::ClientAddr;
use crate::routes::auth::issue;
use axum::extract::rejection::FormRejection;
use axum::extract::{FromRef, FromRequestParts, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Form, http::request::Parts};
use http::{HeaderMap, HeaderValue, StatusCode, header};
use maud::html;
use serde::Deserialize;

const COOKIE: &str = "mcpbench_session";

/// Who is looking at a page: a signed-in vendor, or anyone.
pub(crate) struct Viewer(Option<Caller>);

impl Viewer {
    pub(crate) fn anonymous() -> Self {
        Self(None)
    }

    pub(crate) fn caller(&self) -> Option<&Caller> {
        self.0.as_ref()
    }

    /// Whether the signed-in vendor is `vendor_id`.
    pub(crate) fn is(&self, vendor_id: i64) -> bool {
        self.0.as_ref().is_some_and(|c| c.vendor_id == vendor_id)
    }
}

/// The value of our cookie among the request's cookies.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value)
}

impl<S: Send + Sync> FromRequestParts<S> for Viewer
where
    Verifier: FromRef<S>,
{
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, PageError> {
        let Some(token) = session_cookie(&parts.headers) else {
            return Ok(Self(None));
        };
        // An expired or revoked session is simply signed out; only a failing database is
        // an error.
        match Verifier::from_ref(state).caller(token, parts).await {
            Ok(caller) => Ok(Self(Some(caller))),
            Err(e) if e.status() == StatusCode::UNAUTHORIZED => Ok(Self(None)),
            Err(e) => Err(PageError(e)),
        }
    }
}

/// Hosts a browser treats as secure without TLS, where a `Secure` cookie would not be needed.
pub(crate) fn is_loopback(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let ip = name.trim_start_matches('[').trim_end_matches(']');
    name == "localhost"
        || ip
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A post made by a page of another origin is refused (the cookie is `SameSite=Lax` too; this
/// also covers browsers that send it anyway). The origin is the configured public URL, else
/// the request's `Host` (local use; a proxy that rewrites `Host` needs the public URL).
fn same_origin(headers: &HeaderMap, public_url: Option<&str>) -> Result<(), PageError> {
    let refused = || {
        PageError(ApiError::forbidden(
            "forms of this site post from this site",
        ))
    };
    if headers
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes() == b"cross-site")
    {
        return Err(refused());
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let same = match public_url {
        Some(url) => origin.as_bytes() == url.as_bytes(),
        None => {
            let host = headers.get(header::HOST).map(HeaderValue::as_bytes);
            let origin_host = origin
                .to_str()
                .ok()
                .and_then(|o| o.split_once("://"))
                .map(|(_, h)| h.as_bytes());
            origin_host.is_some() && origin_host == host
        }
    };
    if !same {
        return Err(refused());
    }
    Ok(())
}

/// Whether the session cookie must be `Secure`: the public URL is https, or, without one, the
/// site is not on loopback (where browsers allow such cookies over plain HTTP anyway).
fn secure_cookie(headers: &HeaderMap, public_url: Option<&str>) -> bool {
    match public_url {
        Some(url) => url.starts_with("https://"),
        None => {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("");
            !is_loopback(host)
        }
    }
}

/// A redirect that no cache keeps (it may carry a session cookie).
fn see_other(to: &str, cookie: HeaderValue) -> Response {
    let mut response = Redirect::to(to).into_response();
    let h = response.headers_mut();
    h.insert(header::SET_COOKIE, cookie);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Only a path of this site, never `//elsewhere` or a URL: the page to return to after signing in.
fn local_path(next: Option<&str>) -> &str {
    match next {
        Some(n)
            if n.starts_with('/')
                && !n.starts_with("//")
                && !n.contains('\\')
                && n.len() <= 300
                && n.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            n
        }
        _ => "/web/submissions",
    }
}

#[derive(Deserialize)]
pub(crate) struct Next {
    next: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct SignIn {
    api_key: String,
    next: Option<String>,
}

fn form_page(viewer: &Viewer, next: &str, problem: Option<&str>) -> Response {
    let body = html! {
        h1 { "Sign in" }
        p { "Sign in with your vendor API key to see your submissions, their runs and their traces. "
            "The key is exchanged for a token that lasts an hour; the key itself is not kept." }
        @if let Some(problem) = problem { p.alert role="alert" { (problem) } }
        form.stack method="post" action="/web/login" {
            label { "API key"
                input type="password" name="api_key" required autocomplete="current-password"
                    spellcheck="false" maxlength="200" autofocus;
            }
            input type="hidden" name="next" value=(next);
            div { button type="submit" { "Sign in" } }
        }
        p.ref { "A key comes from the operators (" code { "mcpbench admin create-vendor" }
            "); " code { "mcpbench up" } " prints a demo vendor's key." }
    };
    page(
        Frame {
            title: "Sign in",
            viewer,
            refresh: None,
        },
        body,
    )
}

pub(crate) async fn form(viewer: Viewer, PageQuery(q): PageQuery<Next>) -> Response {
    form_page(&viewer, local_path(q.next.as_deref()), None)
}

pub(crate) async fn login(
    State(state): State<AppState>,
    addr: ClientAddr,
    headers: HeaderMap,
    form: Result<Form<SignIn>, FormRejection>,
) -> Result<Response, PageError> {
    let public_url = state.config().public_url.as_deref();
    same_origin(&headers, public_url)?;
    let Form(req) = form.map_err(|e| {
        PageError(if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large("the sign-in form is too large")
        } else {
            ApiError::bad_request(format!("the sign-in form was malformed: {}", e.body_text()))
        })
    })?;
    let next = local_path(req.next.as_deref());
    let token = match issue(&state, addr, req.api_key.trim()).await {
        Ok(token) => token,
        Err(e) if e.status() == StatusCode::UNAUTHORIZED => {
            let mut r = form_page(
                &Viewer::anonymous(),
                next,
                Some("That API key is unknown or revoked."),
            );
            *r.status_mut() = StatusCode::UNAUTHORIZED;
            return Ok(r);
        }
        Err(e) => return Err(PageError(e)),
    };
    let secure = if secure_cookie(&headers, public_url) {
        "; Secure"
    } else {
        ""
    };
    let cookie = format!(
        "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        state.tokens().ttl().as_secs()
    );
    let cookie = HeaderValue::from_str(&cookie).map_err(ApiError::internal)?;
    Ok(see_other(next, cookie))
}

pub(crate) async fn logout(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    same_origin(&headers, state.config().public_url.as_deref())?;
    let cleared =
        HeaderValue::from_static("mcpbench_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    Ok(see_other("/", cleared))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_of_this_site_are_returned_to() {
        assert_eq!(local_path(Some("/web/runs/1")), "/web/runs/1");
        for bad in [
            "//evil.example",
            "https://evil.example/",
            "/\\evil",
            "x",
            "/a b",
        ] {
            assert_eq!(local_path(Some(bad)), "/web/submissions", "{bad}");
        }
        assert_eq!(local_path(None), "/web/submissions");
    }

    #[test]
    fn loopback_hosts_and_cookies_are_recognised() {
        for h in ["127.0.0.1:8080", "localhost", "[::1]:80", "127.1.2.3"] {
            assert!(is_loopback(h), "{h}");
        }
        for h in ["bench.example.org", "127.0.0.1.evil.org", "10.0.0.1:80"] {
            assert!(!is_loopback(h), "{h}");
        }
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; mcpbench_session=tok; b=2"),
        );
        assert_eq!(session_cookie(&h), Some("tok"));
    }

    #[test]
    fn posts_from_other_origins_are_refused() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert!(
            same_origin(&h, None).is_ok(),
            "no Origin: a form of an old browser"
        );
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:8080"),
        );
        assert!(same_origin(&h, None).is_ok());
        assert!(!secure_cookie(&h, None), "loopback over plain HTTP");
        // Behind a proxy the configured public URL decides, whatever Host says.
        let public = Some("https://bench.example.org");
        assert!(same_origin(&h, public).is_err());
        assert!(secure_cookie(&h, public));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://bench.example.org"),
        );
        assert!(same_origin(&h, public).is_ok());
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example"),
        );
        assert!(same_origin(&h, None).is_err());
        h.insert(header::ORIGIN, HeaderValue::from_static("null"));
        assert!(same_origin(&h, None).is_err());
        h.remove(header::ORIGIN);
        h.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
        assert!(same_origin(&h, None).is_err(), "a browser that says so");
    }
}
