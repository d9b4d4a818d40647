//! The leaderboard as the API serves it: [`mcpbench_core::board`] ranks, this keeps each
//! board serialized per query and drops the kept ones whenever what the public sees changes.

use crate::AppState;
use axum::body::Bytes;
use mcpbench_core::board::{Query, ranked};
use std::time::Duration;

/// The forms a board is served in, each kept apart.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Form {
    Json,
    /// One row per entry, the columns of docs/data.md.
    Csv,
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
