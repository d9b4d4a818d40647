//! The problem answers a route declares in its OpenAPI entry, one type per status, written
//! once here: `responses((status = 200, body = SetDetail), NotFound)`. Each is
//! `application/problem+json` with the [`Problem`] schema. The refusals every route of a kind
//! can give (400, 401, 403, 413, 415) are added to the document by [`crate::openapi`]; a
//! route names one of these only where it answers so for its own reasons.
//!
//! The types only describe; handlers answer with [`crate::ApiError`].

use crate::error::Problem;

macro_rules! problem_answers {
    ($($name:ident = $status:literal: $description:literal),* $(,)?) => {$(
        #[derive(utoipa::IntoResponses)]
        #[response(status = $status, description = $description,
            content_type = "application/problem+json")]
        #[allow(dead_code)] // read by the OpenAPI derive only
        pub(crate) struct $name(Problem);
    )*};
}

problem_answers!(
    BadRequest = 400: "Malformed: the problem's detail says what",
    Unauthorized = 401: "No bearer token, or one that is malformed, expired or revoked",
    Forbidden = 403: "The token may not do this",
    NotFound = 404: "There is no such thing, or the caller may not know of it",
    Conflict = 409: "It exists, but not in a state that allows this",
    TooLarge = 413: "The body is larger than the limit",
    UnsupportedType = 415: "The body is not of a type this route takes",
    Unprocessable = 422: "Well-formed but not acceptable: the problem's detail says why",
    Unavailable = 503: "Not now: too busy, or a part it needs is not running",
);

/// Too many requests or submissions: every such answer says when to ask again.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 429,
    description = "Too many: the `Retry-After` header says when to ask again",
    content_type = "application/problem+json",
    headers(("Retry-After" = u64, description = "Seconds to wait before asking again"))
)]
#[allow(dead_code)] // read by the OpenAPI derive only
pub(crate) struct TooMany(Problem);
