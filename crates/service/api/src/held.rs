//! The traces the API holds in memory, in all: one budget of [`MEMORY`] bytes shared by every
//! reader of a whole trace (a set's archive, a run's JSON, a run's page). A trace may be as
//! large as the store keeps ([`MAX_TRACE_BYTES`]) and a sealed one opens only whole, while
//! readers can be many and slow: without one budget, what they held together had no bound (20
//! stalled archive downloads once held 1.4 GiB).
//!
//! A reader asks for its share before it reads: the trace's stored size (taken from the store
//! first) times what its reading costs. The share goes when what it made of the trace is
//! dropped; a response made of it is a [`held_body`], which keeps the share until it has been
//! sent or cut, and goes out in copied chunks, so nothing of the trace outlives it.

use crate::AppState;
use axum::body::{Body, Bytes};
use mcpbench_storage::MAX_TRACE_BYTES;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The bytes all readers of traces may hold at once: four of the largest the store keeps.
pub(crate) const MEMORY: u64 = 4 * MAX_TRACE_BYTES;
// A share is one semaphore request, a u32.
const _: () = assert!(
    MEMORY <= u32::MAX as u64,
    "a share of MEMORY counts in a u32"
);

/// The most bytes of a body sent as one chunk.
const CHUNK: usize = 64 * 1024;

/// The budget (one permit a byte).
pub(crate) struct TraceMemory(Arc<Semaphore>);

impl Default for TraceMemory {
    fn default() -> Self {
        Self(Arc::new(Semaphore::new(MEMORY as usize)))
    }
}

/// A reader's part of [`MEMORY`], given back when dropped.
pub(crate) struct Share {
    _permit: OwnedSemaphorePermit,
}

#[cfg(test)]
impl Share {
    /// A share of nothing, for a page drawn in a test.
    pub(crate) fn unbudgeted() -> Self {
        let none = Arc::new(Semaphore::new(0));
        let permit = none.try_acquire_many_owned(0);
        Share {
            _permit: permit.expect("nothing is always there"),
        }
    }
}

impl TraceMemory {
    /// A share of `bytes` (the whole budget at most), waited for.
    async fn share(&self, bytes: u64) -> Share {
        let permits = bytes.min(MEMORY) as u32;
        let permit = self.0.clone().acquire_many_owned(permits).await;
        Share {
            _permit: permit.expect("the budget is never closed"),
        }
    }

    /// The bytes free now (for tests).
    #[cfg(test)]
    fn free(&self) -> usize {
        self.0.available_permits()
    }
}

/// Why a stored trace could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    #[error(transparent)]
    Store(#[from] mcpbench_storage::StorageError),
    #[error(transparent)]
    Vault(#[from] mcpbench_vault::VaultError),
}

/// The file under `key` (opened when it was stored sealed) with a share of `cost` times its
/// stored size, waited for before it is read; `None` when the store has none.
pub(crate) async fn read(
    state: &AppState,
    key: &str,
    cost: u64,
) -> Result<Option<(Vec<u8>, Share)>, ReadError> {
    let store = state.store();
    let Some(size) = store.size(key).await? else {
        return Ok(None);
    };
    // The store reads no more than its largest trace, whatever the size said.
    let share = state
        .limits()
        .traces
        .share(size.min(MAX_TRACE_BYTES).saturating_mul(cost))
        .await;
    let Some(stored) = store.get(key).await? else {
        return Ok(None);
    };
    let keyring = state.config().custody.keyring.as_ref();
    let bytes = mcpbench_vault::open_file(keyring, key, stored)?;
    Ok(Some((bytes, share)))
}

/// `bytes` as a response body that keeps `share` until it has been sent, or dropped unsent.
pub(crate) fn held_body(bytes: Vec<u8>, share: Share) -> Body {
    Body::from_stream(futures_util::stream::unfold(
        (bytes, 0, share),
        |(bytes, at, share)| async move {
            if at >= bytes.len() {
                return None;
            }
            let end = (at + CHUNK).min(bytes.len());
            let chunk = Bytes::copy_from_slice(&bytes[at..end]);
            Some((Ok::<_, std::io::Error>(chunk), (bytes, end, share)))
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn a_share_waits_for_room_and_a_body_keeps_its_share_until_it_is_sent() {
        let memory = TraceMemory::default();
        let most = memory.share(MEMORY + 1).await;
        assert_eq!(memory.free(), 0, "a share is the whole budget at most");
        let wait = std::time::Duration::from_millis(50);
        assert!(
            tokio::time::timeout(wait, memory.share(10)).await.is_err(),
            "no room: the reader waits"
        );
        drop(most);
        let share = memory.share(10).await;
        assert_eq!(memory.free(), MEMORY as usize - 10);

        let bytes: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let body = held_body(bytes.clone(), share);
        assert_eq!(memory.free(), MEMORY as usize - 10, "held while unsent");
        let sent = body.collect().await.unwrap().to_bytes();
        assert_eq!(sent, bytes, "the bytes, whole and in order");
        assert_eq!(memory.free(), MEMORY as usize, "given back once sent");

        let unsent = held_body(vec![1; 10], memory.share(10).await);
        drop(unsent);
        assert_eq!(memory.free(), MEMORY as usize, "given back when cut");
    }
}
