//! Image uploads: `POST /submissions` as `multipart/form-data` with a `submission` part (the
//! same JSON as a plain submission) and an `image` part (a `docker save` archive).
//!
//! [`receive`] streams the archive to a temporary file while its SHA-256 is taken and its size
//! counted against the deployment's cap (413 past it; a declared `Content-Length` past it is
//! refused before the body is read; the whole body is bounded too, framing included). Once the
//! submission's other fields are valid, [`accept`] copies the archive without anything that
//! would tag images on our engine, checks it (one image, its config matching its digest,
//! linux/amd64, a sane WORKDIR) and stores it under `images/<sha256>.tar`, where workers load
//! it from. At most [`MAX_UPLOADS`] uploads are received at once, one per vendor, and every
//! part of the body must keep arriving: a piece at least every `upload_stall` (30 s), or the
//! upload is dropped and its slot freed.

use crate::AppState;
use crate::body::parse_json;
use crate::error::ApiError;
use crate::routes::submissions::NewSubmission;
use crate::tally::{Held, Tally};
use axum::extract::{FromRequest, Multipart, Request};
use http::header;
use mcpbench_images::{ArchiveImage, inspect_archive, untagged_copy};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tokio::io::AsyncWriteExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Uploads received at once (each may hold a temporary file of up to the cap).
pub const MAX_UPLOADS: usize = 4;

/// The upload slots of one API process: [`MAX_UPLOADS`] in all, one per vendor.
pub(crate) struct Slots {
    all: Arc<Semaphore>,
    vendors: Tally<i64>,
}

impl Default for Slots {
    fn default() -> Self {
        Self {
            all: Arc::new(Semaphore::new(MAX_UPLOADS)),
            vendors: Tally::default(),
        }
    }
}

/// A slot held while an upload is received and checked; freed when dropped.
pub(crate) struct Slot {
    _held: Held<i64>,
    _permit: OwnedSemaphorePermit,
}

impl Slots {
    fn take(&self, vendor: i64) -> Result<Slot, ApiError> {
        let busy = || {
            ApiError::rate_limited(
                "you have an image upload in progress; one at a time",
                std::time::Duration::from_secs(10),
            )
        };
        let all = || {
            self.all.clone().try_acquire_owned().map_err(|_| {
                ApiError::unavailable(format!(
                    "{MAX_UPLOADS} image uploads are in progress, the most at once; try again shortly"
                ))
            })
        };
        let (held, permit) = self.vendors.hold_with(vendor, 1, busy, all)?;
        Ok(Slot {
            _held: held,
            _permit: permit,
        })
    }
}

/// Room for the multipart framing and the submission part beside the archive.
const FRAMING_BYTES: u64 = 1 << 20;

/// An archive received, not yet checked or stored.
pub(crate) struct Received {
    dir: tempfile::TempDir,
    sha256: String,
    _slot: Slot,
}

/// An archive accepted: the image it holds and where it is stored.
pub(crate) struct Accepted {
    pub image: ArchiveImage,
    pub key: String,
    /// The SHA-256 of the bytes the vendor sent.
    pub sha256: String,
}

/// What a refused upload's client has already sent, read and dropped (at most
/// [`LINGER_BYTES`], for at most [`LINGER`]) before the answer goes and the connection closes:
/// closing on unread bytes resets the connection, and a client still sending then sees the
/// reset rather than the reason. Nothing read is kept.
pub(crate) async fn linger(request: Request) {
    use http_body_util::BodyExt;
    let mut body = request.into_body();
    let mut read = 0usize;
    let drain = async {
        while read < LINGER_BYTES {
            match body.frame().await {
                Some(Ok(frame)) => read += frame.data_ref().map_or(0, |d| d.len()),
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, drain).await;
}

/// How much of a refused upload [`linger`] reads and drops, and for how long at most.
const LINGER_BYTES: usize = 4 << 20;
const LINGER: std::time::Duration = std::time::Duration::from_secs(1);

pub(crate) fn is_multipart(request: &Request) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("multipart/form-data"))
}

pub(crate) async fn receive(
    state: &AppState,
    vendor: i64,
    request: Request,
) -> Result<(NewSubmission, Received), ApiError> {
    let cap = state.config().image_upload_max_bytes;
    let too_large = || {
        ApiError::too_large(format!(
            "the image archive is larger than this deployment's cap of {cap} bytes"
        ))
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let limit = cap.saturating_add(FRAMING_BYTES);
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let slot = state.limits().uploads.take(vendor)?;
    // The whole body is bounded, so neither the framing nor a part's headers can grow
    // without end.
    let request = request.map(|body| {
        axum::body::Body::new(http_body_util::Limited::new(
            body,
            usize::try_from(limit).unwrap_or(usize::MAX),
        ))
    });
    let mut multipart = Multipart::from_request(request, state)
        .await
        .map_err(|e| ApiError::bad_request(format!("the multipart body could not be read: {e}")))?;
    let unreadable = |e: axum::extract::multipart::MultipartError| {
        ApiError::bad_request(format!("the multipart body could not be read: {e}"))
    };
    // A client that stops sending holds a slot: each piece of every part, and each part's
    // header, must come within the stall limit.
    let stall = state.config().admission.upload_stall;
    let stalled = || {
        ApiError::bad_request(format!(
            "the upload stalled: nothing arrived for {} s",
            stall.as_secs()
        ))
    };
    let dir = tempfile::tempdir().map_err(ApiError::internal)?;
    let path = dir.path().join("upload.tar");
    let mut submission = None;
    let mut archive: Option<(u64, String)> = None;
    while let Some(mut field) = tokio::time::timeout(stall, multipart.next_field())
        .await
        .map_err(|_| stalled())?
        .map_err(unreadable)?
    {
        match field.name() {
            Some("submission") if submission.is_none() => {
                let mut bytes = Vec::new();
                while let Some(chunk) = tokio::time::timeout(stall, field.chunk())
                    .await
                    .map_err(|_| stalled())?
                    .map_err(unreadable)?
                {
                    if bytes.len() + chunk.len() > crate::MAX_BODY_BYTES {
                        return Err(ApiError::too_large(format!(
                            "the submission part is larger than {} bytes",
                            crate::MAX_BODY_BYTES
                        )));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                submission = Some(parse_json::<NewSubmission>(&bytes)?);
            }
            Some("image") if archive.is_none() => {
                let mut file = tokio::fs::File::create(&path)
                    .await
                    .map_err(ApiError::internal)?;
                let mut hasher = Sha256::new();
                let mut size = 0u64;
                while let Some(chunk) = tokio::time::timeout(stall, field.chunk())
                    .await
                    .map_err(|_| stalled())?
                    .map_err(unreadable)?
                {
                    size += chunk.len() as u64;
                    if size > cap {
                        return Err(too_large());
                    }
                    hasher.update(&chunk);
                    file.write_all(&chunk).await.map_err(ApiError::internal)?;
                }
                file.flush().await.map_err(ApiError::internal)?;
                archive = Some((size, hex::encode(hasher.finalize())));
            }
            Some(name @ ("submission" | "image")) => {
                return Err(ApiError::bad_request(format!(
                    "the part {name:?} appears twice"
                )));
            }
            _ => {
                // The part's name is the client's: not repeated.
                return Err(ApiError::bad_request(
                    "an unknown part: send only the parts \"submission\" (JSON) and \"image\" \
                     (a docker save archive)",
                ));
            }
        }
    }
    let submission = submission.ok_or_else(|| {
        ApiError::bad_request("the part \"submission\" (the submission's JSON) is missing")
    })?;
    let (size, sha256) = archive.ok_or_else(|| {
        ApiError::bad_request("the part \"image\" (a docker save archive) is missing")
    })?;
    if size == 0 {
        return Err(ApiError::unprocessable(
            "invalid-image",
            "the image archive is empty",
        ));
    }
    Ok((
        submission,
        Received {
            dir,
            sha256,
            _slot: slot,
        },
    ))
}

/// Checks a received archive and stores an untagged copy of it.
pub(crate) async fn accept(state: &AppState, received: Received) -> Result<Accepted, ApiError> {
    let dir = received.dir.path().to_owned();
    let image = tokio::task::spawn_blocking(move || {
        let input = std::io::BufReader::new(std::fs::File::open(dir.join("upload.tar"))?);
        let output = std::io::BufWriter::new(std::fs::File::create(dir.join("image.tar"))?);
        Ok::<_, std::io::Error>(untagged_copy(input, output).and_then(|()| {
            let copy = std::fs::File::open(dir.join("image.tar"))
                .map_err(|e| mcpbench_images::ArchiveError::Tar(e.to_string()))?;
            inspect_archive(std::io::BufReader::new(copy))
        }))
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(ApiError::internal)?
    .map_err(|e| ApiError::unprocessable("invalid-image", e.to_string()))?;
    let key = format!("images/{}.tar", received.sha256);
    state
        .store()
        .put_file(&key, &received.dir.path().join("image.tar"))
        .await
        .map_err(ApiError::internal)?;
    Ok(Accepted {
        image,
        key,
        sha256: received.sha256,
    })
}
