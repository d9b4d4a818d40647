//! The problem answers a route declares in its OpenAPI entry, one type per status, written
//! once here: `responses((status = 200, body = SetDetail), NotFound)`. Each is
//! `application/problem+json` with the [`Problem`] schema. The refusals every route of a kind
//! can give (400, 401, 403, 413, 415) are added to the document by [`crate::openapi`]; a
//! route names one of these only where it answers so for its own reasons.
//!
//! The types only describe; handlers answer with [`crate::ApiError`].

use crate::error::Problem;

macro_rules! problem_answers {
    ($($name:ident = $status:literal),* $(,)?) => {$(
        #[derive(utoipa::IntoResponses)]
        #[response(status = $status, content_type = "application/problem+json")]
        #[allow(dead_code)] // read by the OpenAPI derive only
        pub(crate) struct $name(Problem);
    )*};
}

problem_answers!(
    BadRequest = 400,
    Unauthorized = 401,
    Forbidden = 403,
    NotFound = 404,
    Conflict = 409,
    TooLarge = 413,
    UnsupportedType = 415,
    Unprocessable = 422,
    Unavailable = 503,
);

/// Too many requests or submissions: every such answer says when to ask again.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 429,
    content_type = "application/problem+json",
    headers(("Retry-After" = u64, description = "Seconds to wait before asking again"))
)]
#[allow(dead_code)] // read by the OpenAPI derive only
pub(crate) struct TooMany(Problem);
