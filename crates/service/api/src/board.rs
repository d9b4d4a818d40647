//! The leaderboard as the API serves it: [`mcpbench_core::board`] ranks, this keeps each
//! board serialized per query and drops the kept ones whenever what the public sees changes.

use crate::AppState;
use axum::body::Bytes;
use mcpbench_core::board::{Query, ranked};
use std::time::Duration;

/// The board for `q`, serialized, from the cache or built from the aggregate.
pub async fn board(state: &AppState, q: Query) -> Result<Bytes, mcpbench_core::CoreError> {
    if let Some(body) = state.board().get(&q) {
        return Ok(body);
    }
    let _making = state.board().making(&format!("board\n{q:?}")).await;
    if let Some(body) = state.board().get(&q) {
        return Ok(body);
    }
    let board = ranked(state.pool(), &q).await?;
    let body = Bytes::from(serde_json::to_vec(&board).expect("boards serialize"));
    // A board with nothing of its own is not kept: made-up sets and filters (which still
    // show the reference agents) cannot push real boards out.
    if board.worth_keeping() {
        state.board().put(q, body.clone());
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
