//! A retired set's published traces as one tar archive (`GET /sets/{id}/traces`), streamed:
//! entries are written as the runs are read, one trace in memory at a time and sent on in
//! chunks of [`CHUNK`] bytes, at most [`AHEAD`] of them waiting on the reader, so an archive of
//! any size costs the server the same. At most [`MAX_STREAMS`] archives stream at once, and
//! [`MAX_STREAMS_PER_ADDRESS`] to one client address; a reader that stops reading is dropped
//! by the server (`stall.rs`), which ends its stream and frees its place.
//!
//! A trace is read whole (a sealed one opens only whole), within the budget every reader of
//! traces shares (`held.rs`): its share is held until its last chunk is queued (chunks are
//! copies, so nothing of it outlives that). Archives in all hold at most that budget and
//! [`MAX_STREAMS`] × [`AHEAD`] chunks, whatever the traces' sizes and however the readers
//! read. Layout (docs/data.md):
//!
//! ```text
//! <set>/<submission>/submission.json    who, what, its scores
//! <set>/<submission>/<task>.<trial>.jsonl   each run's trace (docs/trace-format.md)
//! <set>/<submission>/runs.json           each run: id, task, trial, verdict, its file
//! <set>/<submission>/SHA256SUMS          `sha256sum -c` checks the traces
//! ```
//!
//! Only completed submissions their owners published are in it, and only runs whose task is
//! in clear (a task a live set still holds stays out, as its trace does everywhere). Entries
//! carry the run's time, so the same data gives the same bytes. A failure halfway (a trace the
//! store cannot give) ends the stream without the tar's end blocks: a client sees a cut
//! archive, never a short one that looks whole.

use crate::held::{self, Share};
use crate::limits::{ClientAddr, address_key};
use crate::tally::{Held, Tally};
use crate::{ApiError, AppState};
use axum::body::{Body, Bytes};
use mcpbench_core::disclosure::task_named;
use mcpbench_db::exports::{self, ArchivedRun, PublishedSubmission};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;
use time::OffsetDateTime;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// Chunks buffered ahead of a slow reader.
const AHEAD: usize = 4;
/// The most bytes sent as one chunk.
const CHUNK: usize = 64 * 1024;
/// Archives streaming at once, in all.
pub(crate) const MAX_STREAMS: usize = 8;
/// Archives streaming at once to one client address.
pub(crate) const MAX_STREAMS_PER_ADDRESS: usize = 2;
/// The archives streaming now, in all and by client address.
pub(crate) struct Streams {
    all: Arc<Semaphore>,
    by_address: Tally<String>,
}

impl Default for Streams {
    fn default() -> Self {
        Self {
            all: Arc::new(Semaphore::new(MAX_STREAMS)),
            by_address: Tally::default(),
        }
    }
}

/// One archive's place among [`Streams`], held as long as its body; freed when dropped.
pub(crate) struct Place {
    _held: Held<String>,
    _permit: OwnedSemaphorePermit,
}

impl Streams {
    /// A place for one more archive to `addr`: 429 when the address has its share streaming,
    /// 503 when the service has all it streams at once.
    pub(crate) fn take(&self, addr: ClientAddr) -> Result<Place, ApiError> {
        // A request without a known peer (a router served in process) counts as one address.
        let address = addr.0.map_or_else(|| "unknown".to_string(), address_key);
        let full = || {
            ApiError::rate_limited(
                format!(
                    "{MAX_STREAMS_PER_ADDRESS} trace archives are streaming to your address, the \
                     most at once; try again when one has finished"
                ),
                Duration::from_secs(30),
            )
        };
        let all = || {
            self.all.clone().try_acquire_owned().map_err(|_| {
                ApiError::unavailable(format!(
                    "{MAX_STREAMS} trace archives are streaming, the most at once; try again shortly"
                ))
            })
        };
        let (held, permit) =
            self.by_address
                .hold_with(address, MAX_STREAMS_PER_ADDRESS, full, all)?;
        Ok(Place {
            _held: held,
            _permit: permit,
        })
    }
}

type Chunk = Result<Bytes, std::io::Error>;

/// The archive of `set`'s published traces, produced while it is read; `place` is held until
/// the body is dropped (read to its end, or its connection closed).
pub(crate) fn stream(state: AppState, set: String, place: Place) -> Body {
    let (tx, rx) = mpsc::channel::<Chunk>(AHEAD);
    tokio::spawn(async move {
        let out = Out { tx };
        match write(&state, &set, &out).await {
            Ok(()) => {}
            // The reader went away: nothing to tell anyone.
            Err(Failure::Gone) => {}
            Err(Failure::Broken(why)) => {
                tracing::warn!(set = %set, error = %why, "a trace archive stopped halfway");
                let _ = out.tx.send(Err(std::io::Error::other(why))).await;
            }
        }
    });
    Body::from_stream(futures_util::stream::unfold(
        (rx, place),
        |(mut rx, place)| async move { rx.recv().await.map(|chunk| (chunk, (rx, place))) },
    ))
}

enum Failure {
    Gone,
    Broken(String),
}

impl From<mcpbench_db::DbError> for Failure {
    fn from(e: mcpbench_db::DbError) -> Self {
        Failure::Broken(format!("database: {e}"))
    }
}

struct Out {
    tx: mpsc::Sender<Chunk>,
}

impl Out {
    /// `bytes` in chunks of at most [`CHUNK`], each a copy: once this returns, the queue holds
    /// nothing of `bytes`, and the caller's share of the budget may go.
    async fn send(&self, bytes: &[u8]) -> Result<(), Failure> {
        for piece in bytes.chunks(CHUNK) {
            let piece = Bytes::copy_from_slice(piece);
            self.tx.send(Ok(piece)).await.map_err(|_| Failure::Gone)?;
        }
        Ok(())
    }

    /// One regular file: its header, its bytes, and the padding to a whole block.
    async fn file(&self, path: &str, mtime: OffsetDateTime, bytes: &[u8]) -> Result<(), Failure> {
        let mut header = tar::Header::new_ustar();
        header
            .set_path(path)
            .map_err(|e| Failure::Broken(format!("tar path {path}: {e}")))?;
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(mtime.unix_timestamp().max(0) as u64);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        self.send(header.as_bytes()).await?;
        self.send(bytes).await?;
        let padding = (512 - bytes.len() % 512) % 512;
        self.send(&[0; 512][..padding]).await
    }
}

async fn write(state: &AppState, set: &str, out: &Out) -> Result<(), Failure> {
    for sub in exports::published(state.pool(), set).await? {
        submission(state, set, &sub, out).await?;
    }
    // The end of the archive: two zero blocks.
    out.send(&[0; 1024]).await
}

async fn submission(
    state: &AppState,
    set: &str,
    sub: &PublishedSubmission,
    out: &Out,
) -> Result<(), Failure> {
    let dir = format!("{set}/{}", sub.id);
    let finished = sub.finished_at.unwrap_or(OffsetDateTime::UNIX_EPOCH);
    let about = json!({
        "id": sub.id, "set": set, "vendor": sub.vendor, "name": sub.name, "model": sub.model,
        "distractors": sub.distractors, "scores": sub.scores,
        "finished_at": finished.format(&time::format_description::well_known::Rfc3339).ok(),
    });
    out.file(&format!("{dir}/submission.json"), finished, &pretty(&about))
        .await?;
    let mut sums = String::new();
    let mut listed = Vec::new();
    for run in exports::archived_runs(state.pool(), sub.id).await? {
        if !task_named(run.task_open, false) {
            continue;
        }
        // The trace and its share of the budget, held until it is queued.
        let file = trace(state, &run).await?.map(|(bytes, share)| {
            let name = format!("{}.{}.jsonl", run.task_id, run.trial);
            let _ = writeln!(sums, "{}  {name}", hex::encode(Sha256::digest(&bytes)));
            (name, bytes, share)
        });
        listed.push(json!({
            "id": run.id, "task_id": run.task_id, "trial": run.trial, "passed": run.passed,
            "reason": run.reason, "trace": file.as_ref().map(|(name, ..)| name),
        }));
        if let Some((name, bytes, _share)) = file {
            out.file(&format!("{dir}/{name}"), run.created_at, &bytes)
                .await?;
        }
    }
    out.file(&format!("{dir}/runs.json"), finished, &pretty(&listed))
        .await?;
    out.file(&format!("{dir}/SHA256SUMS"), finished, sums.as_bytes())
        .await
}

/// The run's trace as stored (opened when it was stored sealed), with its share of the
/// budget, waited for before it is read; `None` when it has none.
async fn trace(state: &AppState, run: &ArchivedRun) -> Result<Option<(Vec<u8>, Share)>, Failure> {
    let Some(key) = &run.trace_key else {
        return Ok(None);
    };
    // The archive holds the trace alone.
    held::read(state, key, 1)
        .await
        .map_err(|e| Failure::Broken(format!("run {}: {e}", run.id)))
}

fn pretty(value: &impl serde::Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("JSON values serialize");
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn from(last: u8) -> ClientAddr {
        ClientAddr(Some(IpAddr::V4(Ipv4Addr::new(192, 0, 2, last))))
    }

    #[test]
    fn two_archives_stream_to_an_address_and_eight_in_all() {
        let streams = Streams::default();
        let first = streams.take(from(1)).unwrap();
        let _second = streams.take(from(1)).unwrap();
        let third = streams.take(from(1)).map(|_| ()).unwrap_err();
        assert_eq!(third.status().as_u16(), 429, "{third:?}");
        drop(first);
        let _again = streams
            .take(from(1))
            .expect("a finished archive gives its place back");
        let mut others: Vec<Place> = (2..8).map(|n| streams.take(from(n)).unwrap()).collect();
        let full = streams.take(from(9)).map(|_| ()).unwrap_err();
        assert_eq!(full.status().as_u16(), 503, "{full:?}");
        others.pop();
        streams.take(from(9)).expect("a place in all is free again");
        assert!(
            streams.by_address.keys() <= MAX_STREAMS,
            "addresses without a stream are forgotten"
        );
    }
}
