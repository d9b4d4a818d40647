//! The model relay: a Docker image that names a model reaches it through its pod's model port
//! (`mcpbench_sandbox::ModelRoute`), which lands here, on a loopback port served for one run.
//!
//! It takes `POST /v1/chat/completions` and nothing else, drops whatever `Authorization` the
//! image sent, adds the model's key (sealed at rest, opened for the run: the image never holds
//! it) and posts the body to the vendor's base URL through the worker's egress client, whose
//! policy was checked against the URL before the run and checks every address it connects to.
//! The model's answer goes back as it came (status, `content-type`, `retry-after`, body), so an
//! OpenAI SDK in the image sees its model. Bounded: the request's size, the answer's size (an
//! answer over 1 MiB is streamed on, not held, and cut past 16 MiB), the time of one call, and
//! the calls at once; a failure is answered with a short JSON error that names its kind, never
//! the key.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The largest request an image may send its model (a long conversation with every tool).
pub(crate) const MAX_REQUEST: usize = 4 << 20;
/// The largest answer relayed back.
pub(crate) const MAX_ANSWER: usize = 16 << 20;
/// The most of an answer held before it is streamed on (a completion is a few KiB).
const BUFFERED: usize = 1 << 20;
/// How long one call may take, from the request to the answer's last byte.
const CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// Calls to the model at once from one run; more wait their turn.
const IN_FLIGHT: usize = 8;

/// Where the relay sends, and with which key.
pub(crate) struct Relay {
    pub completions_url: String,
    pub api_key: Option<String>,
}

struct Shared {
    relay: Relay,
    http: reqwest::Client,
    in_flight: Semaphore,
}

/// Serves the relay on a loopback port for one run: its address, and the guard that stops it.
pub(crate) async fn start(
    relay: Relay,
    http: reqwest::Client,
) -> std::io::Result<(SocketAddr, crate::model::AbortOnDrop)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let app = router(relay, http);
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::warn!(error = %e, "a model relay stopped");
        }
    });
    Ok((addr, crate::model::AbortOnDrop(server)))
}

fn router(relay: Relay, http: reqwest::Client) -> Router {
    let shared = Arc::new(Shared {
        relay,
        http,
        in_flight: Semaphore::new(IN_FLIGHT),
    });
    Router::new()
        .route("/v1/chat/completions", post(complete))
        .fallback(|| async {
            refusal(
                StatusCode::NOT_FOUND,
                "the model relay takes POST /v1/chat/completions only",
            )
        })
        .layer(DefaultBodyLimit::max(MAX_REQUEST))
        .with_state(shared)
}

/// An error in the shape OpenAI's API gives them, so SDKs show its message.
fn refusal(status: StatusCode, message: &str) -> Response {
    let body = json!({"error": {"message": message, "type": "mcpbench_relay"}});
    (status, axum::Json(body)).into_response()
}

async fn complete(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let Ok(_turn) = shared.in_flight.acquire().await else {
        return refusal(StatusCode::SERVICE_UNAVAILABLE, "the relay is closing");
    };
    let mut request = shared
        .http
        .post(&shared.relay.completions_url)
        .header(header::CONTENT_TYPE, "application/json")
        .timeout(CALL_TIMEOUT)
        .body(body);
    if let Some(key) = &shared.relay.api_key {
        request = request.bearer_auth(key);
    }
    let mut answer = match request.send().await {
        Ok(answer) => answer,
        Err(e) => return unreachable(&e),
    };
    let status = StatusCode::from_u16(answer.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut headers = HeaderMap::new();
    for name in [header::CONTENT_TYPE, header::RETRY_AFTER] {
        if let Some(value) = answer.headers().get(name.as_str())
            && let Ok(value) = HeaderValue::from_bytes(value.as_bytes())
        {
            headers.insert(name, value);
        }
    }
    // An answer that ends within BUFFERED is relayed whole; a longer one is streamed on as it
    // comes (and cut past MAX_ANSWER), so a run's calls in flight hold a bounded few MiB
    // rather than whole answers.
    let mut bytes = Vec::new();
    loop {
        match answer.chunk().await {
            Ok(Some(chunk)) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > BUFFERED {
                    break;
                }
            }
            Ok(None) => return (status, headers, bytes).into_response(),
            Err(e) => return unreachable(&e),
        }
    }
    let first = Bytes::from(bytes);
    let rest = futures_util::stream::unfold(
        (Some(first), answer, 0usize),
        |(first, mut answer, sent)| async move {
            if sent > MAX_ANSWER {
                // Cut already: nothing more.
                return None;
            }
            let chunk = match first {
                Some(first) => first,
                None => match answer.chunk().await {
                    Ok(Some(chunk)) => chunk,
                    Ok(None) => return None,
                    Err(e) => return Some((Err(std::io::Error::other(e)), (None, answer, sent))),
                },
            };
            let sent = sent + chunk.len();
            if sent > MAX_ANSWER {
                tracing::debug!("a model's answer went over the relay's limit; cut");
                let over = std::io::Error::other("the model's answer is over the relay's limit");
                return Some((Err(over), (None, answer, sent)));
            }
            Some((Ok(chunk), (None, answer, sent)))
        },
    );
    (status, headers, axum::body::Body::from_stream(rest)).into_response()
}

/// The model could not be reached, or its answer broke off: said by kind only (the error's
/// text could hold the URL, and the URL a key).
fn unreachable(e: &reqwest::Error) -> Response {
    let (status, what) = if e.is_timeout() {
        (
            StatusCode::GATEWAY_TIMEOUT,
            format!(
                "the model did not answer within {} s",
                CALL_TIMEOUT.as_secs()
            ),
        )
    } else if e.is_connect() {
        (
            StatusCode::BAD_GATEWAY,
            "the model could not be reached (refused by the egress policy, or not answering)"
                .to_string(),
        )
    } else {
        (
            StatusCode::BAD_GATEWAY,
            "the model's answer broke off".to_string(),
        )
    };
    tracing::debug!(status = status.as_u16(), "a relayed model call failed");
    refusal(status, &what)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderMap;
    use serde_json::Value;

    /// A model on loopback that answers with `status`, echoing the body and the
    /// `Authorization` it got, or `size` bytes of padding when `size` is given.
    async fn model(status: u16, size: Option<usize>) -> String {
        let app = Router::new().route(
            "/v1/chat/completions",
            post(move |headers: HeaderMap, body: String| async move {
                let auth = headers
                    .get("authorization")
                    .map(|v| v.to_str().unwrap().to_string());
                let status = StatusCode::from_u16(status).unwrap();
                let body = match size {
                    Some(n) => "x".repeat(n),
                    None => json!({"auth": auth, "body": body}).to_string(),
                };
                (
                    status,
                    [("content-type", "application/json"), ("retry-after", "7")],
                    body,
                )
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }

    /// Starts a relay to `base_url` with a key; its base URL as the image sees it.
    async fn relay(base_url: &str) -> (String, crate::model::AbortOnDrop) {
        let relay = Relay {
            completions_url: mcpbench_openai::completions_url(base_url),
            api_key: Some("sk-sealed-key".into()),
        };
        let (addr, guard) = start(relay, reqwest::Client::new()).await.unwrap();
        (format!("http://{addr}/v1"), guard)
    }

    async fn ask(url: &str, body: impl Into<reqwest::Body>) -> (u16, HeaderMap, Value) {
        let answer = reqwest::Client::new()
            .post(url)
            .bearer_auth("sandbox")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = answer.status().as_u16();
        let headers = answer.headers().clone();
        let text = answer.text().await.unwrap();
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, headers, value)
    }

    #[tokio::test]
    async fn the_key_replaces_the_images_and_the_answer_comes_back_as_it_came() {
        let (url, _guard) = relay(&model(200, None).await).await;
        let (status, _, body) = ask(&format!("{url}/chat/completions"), r#"{"model":"m"}"#).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["auth"], "Bearer sk-sealed-key");
        assert_eq!(body["body"], r#"{"model":"m"}"#);

        // A rate limit reaches the image with its Retry-After, for its SDK to honour.
        let (url, _guard) = relay(&model(429, None).await).await;
        let (status, headers, _) = ask(&format!("{url}/chat/completions"), "{}").await;
        assert_eq!(status, 429);
        assert_eq!(headers["retry-after"], "7");
    }

    #[tokio::test]
    async fn anything_else_is_refused_with_a_reason_that_names_no_key() {
        let (url, _guard) = relay(&model(200, None).await).await;
        // Another path: the relay is for completions only.
        let (status, _, body) = ask(&format!("{url}/embeddings"), "{}").await;
        assert_eq!(status, 404);
        assert!(body["error"]["message"].as_str().unwrap().contains("only"));
        // A request over the cap.
        let big = vec![b'x'; MAX_REQUEST + 1];
        let (status, _, _) = ask(&format!("{url}/chat/completions"), big).await;
        assert_eq!(status, 413);
        // A long answer is streamed on whole; one over the cap is cut, so the image never
        // reads it to its end.
        let (url, _guard) = relay(&model(200, Some(3 * BUFFERED)).await).await;
        let (status, _, body) = ask(&format!("{url}/chat/completions"), "{}").await;
        assert_eq!(status, 200);
        assert_eq!(body.as_str().map(str::len), Some(3 * BUFFERED));
        let (url, _guard) = relay(&model(200, Some(MAX_ANSWER + 1)).await).await;
        let answer = reqwest::Client::new()
            .post(format!("{url}/chat/completions"))
            .body("{}")
            .send()
            .await
            .unwrap();
        let read = answer.bytes().await;
        assert!(
            read.as_ref().is_err() || read.as_ref().is_ok_and(|b| b.len() <= MAX_ANSWER),
            "an answer over the cap came through whole"
        );
        // A model that is not there.
        let (url, _guard) = relay("http://127.0.0.1:9/v1?key=sk-in-the-query").await;
        let (status, _, body) = ask(&format!("{url}/chat/completions"), "{}").await;
        assert_eq!(status, 502);
        let text = body.to_string();
        assert!(text.contains("could not be reached"), "{text}");
        assert!(!text.contains("sk-"), "{text}");
    }
}
