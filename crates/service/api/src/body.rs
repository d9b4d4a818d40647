//! `AppJson`: JSON request bodies with bounded size and problem+json rejections.
//!
//! The size bound is [`crate::MAX_BODY_BYTES`], whatever route it is on; a larger body is 413
//! before it is read in full. Malformed JSON is 400 naming the line, column and
//! field path; a wrong content type is 415.

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Response};
use http::header;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// A JSON body; responds as `axum::Json` does.
pub struct AppJson<T>(pub T);

impl<T, S> FromRequest<S> for AppJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return Err(ApiError::unsupported_media(
                "send the body as JSON with Content-Type: application/json",
            ));
        }
        let _ = state;
        let bytes = read_bounded(req.into_body(), crate::MAX_BODY_BYTES).await?;
        Ok(AppJson(parse_json(&bytes)?))
    }
}

/// The body, at most `limit` bytes (413 past it).
pub(crate) async fn read_bounded(body: axum::body::Body, limit: usize) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let too_large = std::error::Error::source(&e)
            .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
        if too_large {
            ApiError::too_large(format!("the body is larger than {limit} bytes"))
        } else {
            ApiError::bad_request("the body could not be read")
        }
    })
}

/// JSON into `T`: 400 naming where it went wrong. The body is one JSON value and nothing after
/// it but white space (`{...}xyz` is refused, not read as `{...}`).
pub(crate) fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." {
            String::new()
        } else {
            format!(" at {path}")
        };
        ApiError::bad_request(format!("malformed JSON{at}: {inner}"))
    })?;
    de.end()
        .map_err(|e| ApiError::bad_request(format!("malformed JSON: {e} after the value")))?;
    Ok(value)
}

impl<T: serde::Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// A count given as a JSON number. JSON Schema counts `9.0` as an integer and serde's integers
/// do not, so fields the document calls integers take both (a fraction is still refused).
pub(crate) fn whole<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<u64>,
{
    use serde::de::Error;
    let n = serde_json::Number::deserialize(d)?;
    // A float is taken only where every whole number is exact (up to 2^53).
    const EXACT: f64 = 9_007_199_254_740_992.0;
    let whole = n.as_u64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && (0.0..=EXACT).contains(f))
            .map(|f| f as u64)
    });
    let whole = whole.ok_or_else(|| D::Error::custom(format!("{n} is not a whole number")))?;
    T::try_from(whole).map_err(|_| D::Error::custom(format!("{n} is out of range")))
}

/// [`whole`] for an optional field (`#[serde(default, deserialize_with = ...)]`).
pub(crate) fn whole_opt<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<u64>,
{
    #[derive(Deserialize)]
    struct Whole<T: TryFrom<u64>>(#[serde(deserialize_with = "whole")] T);
    Ok(Option::<Whole<T>>::deserialize(d)?.map(|w| w.0))
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Counts {
        #[serde(deserialize_with = "super::whole")]
        generate: usize,
        #[serde(default, deserialize_with = "super::whole_opt")]
        trials: Option<u32>,
    }

    fn parse(json: &str) -> Result<Counts, String> {
        super::parse_json(json.as_bytes()).map_err(|e| format!("{e:?}"))
    }

    #[test]
    fn counts_are_whole_numbers_however_written() {
        let c = |generate, trials| Counts { generate, trials };
        assert_eq!(parse(r#"{"generate": 5}"#), Ok(c(5, None)));
        assert_eq!(
            parse(r#"{"generate": 5.0, "trials": 9.0}"#),
            Ok(c(5, Some(9)))
        );
        assert_eq!(parse(r#"{"generate": 5, "trials": null}"#), Ok(c(5, None)));
        for bad in [
            r#"{"generate": 5.5}"#,
            r#"{"generate": -1}"#,
            r#"{"generate": 1e300}"#,
            r#"{"generate": "5"}"#,
            r#"{"generate": 1, "trials": 5000000000}"#,
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("malformed JSON at"), "{bad}: {e}");
        }
    }
}
