//! The leaderboard as the API serves it: [`mcpbench_core::board`] ranks, this keeps each
//! board serialized per query and drops the kept ones whenever what the public sees changes.

use crate::AppState;
use crate::error::ApiError;
use crate::params::requested_set;
use axum::body::Bytes;
use mcpbench_core::board::{Query, official_set, ranked};
use std::time::Duration;

/// The forms a board is served in, each kept apart.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Form {
    Json,
    /// One row per entry, the columns of docs/data.md.
    Csv,
}

/// The set a board request names (`set=`): absent or blank is the official board, the live
/// private month (the current public set where none is live); anything else as
/// [`requested_set`] reads it (`dev` is the current public set, the practice board). Kept
/// like the boards, so that a board named by no set costs no query either.
pub async fn board_set(state: &AppState, value: Option<&str>) -> Result<String, ApiError> {
    let public = &state.config().default_set;
    if let Some(named) = value.filter(|v| !v.is_empty()) {
        return requested_set("set", Some(named), public);
    }
    if let Some(official) = state.board().official() {
        return Ok(official);
    }
    let official = official_set(state.pool(), public).await?;
    state.board().put_official(official.clone());
    Ok(official)
}

/// The board for `q` in `form`, serialized, from the cache or built from the aggregate: the
/// CSV is kept as the JSON is, so that neither costs a query per request.
pub async fn board(
    state: &AppState,
    q: Query,
    form: Form,
) -> Result<Bytes, mcpbench_core::CoreError> {
    if let Some(body) = state.board().get(&q, form) {
        return Ok(body);
    }
    let _making = state
        .board()
        .making(&format!("board {form:?}\n{q:?}"))
        .await;
    if let Some(body) = state.board().get(&q, form) {
        return Ok(body);
    }
    let board = ranked(state.pool(), &q).await?;
    let body = Bytes::from(match form {
        Form::Json => serde_json::to_vec(&board).expect("boards serialize"),
        Form::Csv => crate::csv::board(&board).into_bytes(),
    });
    // A board with nothing of its own is not kept: made-up filters (which still show the
    // reference agents) cannot push real boards out.
    if board.worth_keeping() {
        state.board().put(q, form, body.clone());
    }
    Ok(body)
}

/// Drops kept boards and pages whenever what the public sees changes (a submission reaches the
/// leaderboard, a set is activated or retired, traces are published); reconnects on error.
pub async fn invalidate_on_notify(state: AppState) {
    loop {
        let listen = async {
            let mut listener = sqlx::postgres::PgListener::connect_with(state.pool()).await?;
            listener.listen(mcpbench_db::LEADERBOARD_CHANNEL).await?;
            loop {
                listener.recv().await?;
                state.board().clear();
            }
            #[allow(unreachable_code)]
            Ok::<(), sqlx::Error>(())
        };
        if let Err(e) = listen.await {
            tracing::warn!(error = %e, "the leaderboard listener failed; boards expire by age until it is back");
        }
        state.board().clear();
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}
