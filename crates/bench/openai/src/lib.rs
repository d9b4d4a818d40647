//! One request to an OpenAI-compatible chat-completions endpoint, as both model clients of
//! MCPBench make it: the `llm` agent (`mcpbench-agents`) and the rubric judge
//! (`mcpbench-judge`). [`post`] sends one body and sorts what comes back:
//!
//! - `200` with a JSON body: [`Reply::Body`];
//! - rate limited ([`Reply::RateLimited`]): `429`, with the server's `Retry-After` in seconds
//!   when it gave one;
//! - worth another try ([`Reply::Again`]): `408`, any `5xx`, a connection that failed or broke
//!   off, a timeout, a body over the cap, a `200` body that is not JSON;
//! - final ([`Reply::Refused`]): any other status (a bad key, a bad request).
//!
//! How often to try again and how long to wait is each caller's: the agent within its run's
//! deadline, the judge within its attempts. The key goes only into the `Authorization` header;
//! no error text carries it or the URL (which may hold a key in its query), and the body of a
//! refusal is cut to its first 200 characters.

use serde_json::Value;
use std::time::Duration;

/// How one request ended.
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// `200` and a JSON body.
    Body(Value),
    /// `429`; `after`: how long the server asked to wait (`Retry-After`), if it said.
    RateLimited { after: Option<Duration> },
    /// Worth another try.
    Again { why: String },
    /// Another status; asking again will not help.
    Refused { status: u16, body: String },
}

/// The completions URL of a base URL (`https://host/v1` gives `https://host/v1/chat/completions`).
pub fn completions_url(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

/// Posts `body` to `url` (with `key` as a bearer token when given), waits at most `timeout`
/// for the whole exchange and reads at most `max_bytes` of the reply.
pub async fn post(
    http: &reqwest::Client,
    url: &str,
    key: Option<&str>,
    body: &Value,
    timeout: Duration,
    max_bytes: usize,
) -> Reply {
    let again = |why: String| Reply::Again { why };
    let mut request = http.post(url).json(body).timeout(timeout);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let mut response = match request.send().await {
        Ok(r) => r,
        Err(e) if e.is_timeout() => return again("timed out".into()),
        Err(e) => return again(format!("unreachable: {}", without_url(&e))),
    };
    let status = response.status().as_u16();
    let after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    let mut bytes = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) if bytes.len() + chunk.len() <= max_bytes => {
                bytes.extend_from_slice(&chunk)
            }
            Ok(Some(_)) => return again(format!("the reply is over {max_bytes} bytes")),
            Ok(None) => break,
            Err(e) if e.is_timeout() => return again("timed out".into()),
            Err(e) => return again(format!("the reply broke off: {}", without_url(&e))),
        }
    }
    let snippet = || {
        String::from_utf8_lossy(&bytes)
            .chars()
            .take(200)
            .collect::<String>()
    };
    match status {
        200 => match serde_json::from_slice(&bytes) {
            Ok(value) => Reply::Body(value),
            Err(_) => again(format!("not JSON: {}", snippet())),
        },
        429 => Reply::RateLimited { after },
        408 | 500..=599 => again(format!("HTTP {status}: {}", snippet())),
        _ => Reply::Refused {
            status,
            body: snippet(),
        },
    }
}

/// A transport error in words, without the URL (which may carry a key in its query).
pub fn without_url(e: &reqwest::Error) -> String {
    use std::error::Error;
    let mut text = e.to_string();
    if let Some(url) = e.url() {
        text = text.replace(url.as_str(), "the endpoint");
    }
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::IntoResponse;
    use axum::routing::post as route;
    use serde_json::json;

    /// Serves `answer` at `/v1/chat/completions`; the base URL.
    async fn serve(answer: axum::response::Response) -> String {
        let answer = std::sync::Arc::new(std::sync::Mutex::new(Some(answer)));
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            route(move |headers: HeaderMap| {
                let answer = answer.clone();
                async move {
                    // The key arrives as a bearer token.
                    assert_eq!(headers["authorization"], "Bearer sk-test-key");
                    answer.lock().unwrap().take().unwrap()
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }

    async fn ask(answer: axum::response::Response) -> Reply {
        let url = completions_url(&serve(answer).await);
        let http = reqwest::Client::new();
        post(
            &http,
            &url,
            Some("sk-test-key"),
            &json!({"model": "m"}),
            Duration::from_secs(5),
            1024,
        )
        .await
    }

    #[tokio::test]
    async fn each_answer_is_sorted_into_body_again_or_refused() {
        assert_eq!(
            ask(axum::Json(json!({"choices": []})).into_response()).await,
            Reply::Body(json!({"choices": []}))
        );
        let limited = (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "7")],
            "slow down",
        );
        assert_eq!(
            ask(limited.into_response()).await,
            Reply::RateLimited {
                after: Some(Duration::from_secs(7))
            }
        );
        for status in [StatusCode::REQUEST_TIMEOUT, StatusCode::BAD_GATEWAY] {
            let r = ask((status, "upstream").into_response()).await;
            assert!(
                matches!(&r, Reply::Again { why } if why.contains("upstream")),
                "{r:?}"
            );
        }
        let r = ask("{\"choices\": [".into_response()).await;
        assert!(
            matches!(&r, Reply::Again { why } if why.starts_with("not JSON")),
            "{r:?}"
        );
        let r = ask("x".repeat(2000).into_response()).await;
        assert!(
            matches!(&r, Reply::Again { why } if why.contains("over 1024 bytes")),
            "{r:?}"
        );
        let refused = (StatusCode::UNAUTHORIZED, "y".repeat(500)).into_response();
        assert_eq!(
            ask(refused).await,
            Reply::Refused {
                status: 401,
                body: "y".repeat(200)
            }
        );
    }

    #[tokio::test]
    async fn an_unreachable_endpoint_is_worth_another_try_and_its_url_is_not_quoted() {
        let http = reqwest::Client::new();
        let url = "http://127.0.0.1:9/v1/chat/completions?key=sk-in-the-query";
        let r = post(&http, url, None, &json!({}), Duration::from_secs(5), 1024).await;
        match r {
            Reply::Again { why } => {
                assert!(why.starts_with("unreachable"), "{why}");
                assert!(!why.contains("sk-in-the-query"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }
}
