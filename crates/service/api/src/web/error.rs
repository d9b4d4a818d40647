//! The website's one error type: the API's error drawn as a page, with the same status and the
//! same sentence (internal causes are logged by [`ApiError::internal`] and never shown).

use super::{Frame, Viewer, page};
use crate::error::ApiError;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use maud::html;

#[derive(Debug)]
pub(crate) struct PageError(pub ApiError);

impl<E: Into<ApiError>> From<E> for PageError {
    fn from(e: E) -> Self {
        Self(e.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let e = self.0;
        let status = e.status();
        let body = html! {
            h1 { (e.title()) }
            p.alert role="alert" { (e.detail()) }
            @if status == StatusCode::NOT_FOUND {
                p { "Pages of a vendor's own submissions need "
                    a href="/web/login" { "signing in" } "; traces of a live private set stay closed until it retires." }
            }
            p { a href="/" { "Back to the leaderboard" } }
        };
        let viewer = Viewer::anonymous();
        let frame = Frame {
            title: e.title(),
            viewer: &viewer,
            refresh: None,
        };
        let mut response = page(frame, body);
        *response.status_mut() = status;
        response
    }
}
