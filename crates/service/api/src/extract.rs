//! Path and query extractors whose rejections are problems like every other error: a 400
//! `application/problem+json` naming the parameter that is wrong, never echoing what was sent
//! (a rejection that repeats its input turns the API into a mirror for whatever a link holds).

use crate::error::ApiError;
use axum::extract::FromRequestParts;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::{PathRejection, QueryRejection};
use http::request::Parts;
use serde::de::DeserializeOwned;

/// A typed path; a malformed one is a 400 problem.
pub struct Path<T>(pub T);

/// A typed query string; a malformed one is a 400 problem.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Self(p.0))
            .map_err(path_rejection)
    }
}

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Self(q.0))
            .map_err(query_rejection)
    }
}

/// What kind of value a path parameter's Rust type stands for, in words.
fn kind_of(expected_type: &str) -> &'static str {
    if expected_type.ends_with("Uuid") {
        "UUID"
    } else if expected_type.starts_with('i') || expected_type.starts_with('u') {
        "whole number"
    } else {
        "value"
    }
}

fn path_rejection(rejection: PathRejection) -> ApiError {
    let PathRejection::FailedToDeserializePathParams(failed) = rejection else {
        return ApiError::internal(rejection);
    };
    ApiError::bad_request(match failed.into_kind() {
        ErrorKind::ParseErrorAtKey {
            key, expected_type, ..
        } => format!(
            "the path parameter {key} is not a valid {}",
            kind_of(expected_type)
        ),
        ErrorKind::InvalidUtf8InPathParam { key } => {
            format!("the path parameter {key} is not valid UTF-8")
        }
        // The type's own message (a UUID's, say) quotes what was sent: only the key is named.
        ErrorKind::DeserializeError { key, .. } => format!("the path parameter {key} is malformed"),
        ErrorKind::ParseError { expected_type, .. }
        | ErrorKind::ParseErrorAtIndex { expected_type, .. } => {
            format!("a path parameter is not a valid {}", kind_of(expected_type))
        }
        _ => "the path is malformed".to_string(),
    })
}

fn query_rejection(rejection: QueryRejection) -> ApiError {
    let QueryRejection::FailedToDeserializeQueryString(failed) = rejection else {
        return ApiError::internal(rejection);
    };
    // serde's "missing field `x`" names one of our fields; every other message may quote
    // what the client sent, so it is not repeated.
    let text = failed.body_text();
    let missing = text
        .split_once("missing field `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(field, _)| field);
    ApiError::bad_request(match missing {
        Some(field) => format!("the query parameter {field} is required"),
        None => "a query parameter is unknown or malformed; the parameters of every route are \
                 in /openapi.json"
            .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::routing::get;
    use tower::ServiceExt;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Params {
        limit: Option<u32>,
        set: String,
    }

    async fn answer(uri: &str) -> (u16, String, String) {
        let app = Router::new()
            .route(
                "/runs/{id}",
                get(|Path(id): Path<uuid::Uuid>| async move { id.to_string() }),
            )
            .route(
                "/tasks",
                get(|Query(p): Query<Params>| async move { p.set }),
            );
        let r = app
            .oneshot(
                http::Request::get(uri)
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        let status = r.status().as_u16();
        let kind = r.headers()[http::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_string();
        let body = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
        (status, kind, String::from_utf8(body.to_vec()).unwrap())
    }

    #[test]
    fn malformed_paths_and_queries_are_problems_that_never_echo_the_input() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let (status, kind, body) = answer("/runs/not-a-uuid%3Cscript%3E").await;
            assert_eq!((status, kind.as_str()), (400, crate::PROBLEM_JSON));
            assert!(
                body.contains("the path parameter id is malformed"),
                "{body}"
            );
            assert!(
                !body.contains("script") && !body.contains("not-a-uuid"),
                "{body}"
            );
            let (status, kind, body) = answer("/tasks?set=dev&limit=%3Cb%3Enope").await;
            assert_eq!((status, kind.as_str()), (400, crate::PROBLEM_JSON));
            assert!(!body.contains("nope") && !body.contains("<b>"), "{body}");
            let (_, _, body) = answer("/tasks?limit=3").await;
            assert!(
                body.contains("the query parameter set is required"),
                "{body}"
            );
            let (status, _, body) = answer("/tasks?set=dev").await;
            assert_eq!((status, body.as_str()), (200, "dev"));
        });
    }
}
