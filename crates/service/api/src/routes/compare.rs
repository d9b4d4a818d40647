//! `GET /compare`: two completed submissions on one set, head to head.

use crate::AppState;
use crate::answers::{BadRequest, Conflict, NotFound};
use crate::auth::MaybeCaller;
use crate::body::AppJson;
use crate::error::ApiError;
use crate::extract::Query;
use crate::kept::{Kept, Shelf};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::header;
use mcpbench_core::compare::{Comparison, compare as compared};
use serde::Deserialize;
use std::sync::Arc;
use utoipa::IntoParams;
use uuid::Uuid;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CompareParams {
    /// A completed submission.
    pub a: Uuid,
    /// Another completed submission on the same set.
    pub b: Uuid,
}

/// Two completed submissions on one set compared on the tasks both ran: the paired (exact
/// McNemar) test, wins, losses and ties by server and category, and the tasks where they
/// differ, linked to the traces the caller may read. The task list is given when the caller
/// may see both submissions' runs (their owner, or anyone once published on a public or
/// retired set). A submission compared with itself ties on every task; two sets are a
/// conflict (409).
#[utoipa::path(get, path = "/compare", tag = "public", params(CompareParams),
    responses((status = 200, body = Comparison), BadRequest, NotFound, Conflict))]
pub async fn compare(
    State(state): State<AppState>,
    MaybeCaller(caller): MaybeCaller,
    Query(p): Query<CompareParams>,
) -> Result<Response, ApiError> {
    let caller = caller.map(|c| c.vendor_id);
    // Without a caller, two completed submissions compare alike for everyone: kept with the
    // board's cache (dropped when what the public sees changes, and after a few seconds).
    let key = caller
        .is_none()
        .then(|| format!("compare\n{}\n{}", p.a, p.b));
    let _making = match state.board().kept(Shelf::Shared, key.as_deref()).await {
        Kept::Found(json) => return Ok(json_response(json.to_string())),
        Kept::Make(making) => making,
    };
    let comparison = compared(state.pool(), p.a, p.b, caller).await?;
    Ok(match key {
        Some(key) => {
            let json = serde_json::to_string(&comparison).expect("a comparison serializes");
            state
                .board()
                .put_page(Shelf::Shared, key, Arc::from(json.as_str()));
            json_response(json)
        }
        None => AppJson(comparison).into_response(),
    })
}

fn json_response(json: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], json).into_response()
}
