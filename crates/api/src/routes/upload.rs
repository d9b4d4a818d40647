//! Image uploads: `POST /submissions` as `multipart/form-data` with a `submission` part (the
//! same JSON as a plain submission) and an `image` part (a `docker save` archive).
//!
//! The archive streams to a temporary file while its SHA-256 is taken and its size counted
//! against the deployment's cap (413 past it, nothing kept); it is then checked (one image,
//! its config matching its digest, linux/amd64) and copied to trace storage under
//! `images/<sha256>.tar`, where workers load it from.

use crate::AppState;
use crate::body::parse_json;
use crate::error::ApiError;
use crate::routes::submissions::NewSubmission;
use axum::extract::{FromRequest, Multipart, Request};
use http::header;
use mcpbench_images::{ArchiveImage, inspect_archive};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

/// An accepted upload: the submission's JSON part and where its image now is.
pub(crate) struct Upload {
    pub submission: NewSubmission,
    pub image: ArchiveImage,
    pub key: String,
    pub sha256: String,
}

pub(crate) fn is_multipart(request: &Request) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("multipart/form-data"))
}

/// Room for the multipart framing and the submission part beside the archive.
const FRAMING_BYTES: u64 = 1 << 20;

pub(crate) async fn receive(state: &AppState, request: Request) -> Result<Upload, ApiError> {
    let cap = state.config().image_upload_max_bytes;
    let too_large = || {
        ApiError::too_large(format!(
            "the image archive is larger than this deployment's cap of {cap} bytes"
        ))
    };
    // A declared length past the cap is refused before a byte of the body is read.
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > cap.saturating_add(FRAMING_BYTES)) {
        return Err(too_large());
    }
    let mut multipart = Multipart::from_request(request, state)
        .await
        .map_err(|e| ApiError::bad_request(format!("the multipart body could not be read: {e}")))?;
    let unreadable = |e: axum::extract::multipart::MultipartError| {
        ApiError::bad_request(format!("the multipart body could not be read: {e}"))
    };
    let dir = tempfile::tempdir().map_err(ApiError::internal)?;
    let path = dir.path().join("image.tar");
    let mut submission = None;
    let mut archive: Option<(u64, String)> = None;
    while let Some(mut field) = multipart.next_field().await.map_err(unreadable)? {
        match field.name() {
            Some("submission") if submission.is_none() => {
                let mut bytes = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(unreadable)? {
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
                while let Some(chunk) = field.chunk().await.map_err(unreadable)? {
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
            other => {
                return Err(ApiError::bad_request(format!(
                    "unknown part {:?}: send the parts \"submission\" (JSON) and \"image\" (a docker save archive)",
                    other.unwrap_or("")
                )));
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
    let checked = path.clone();
    let image = tokio::task::spawn_blocking(move || {
        std::fs::File::open(&checked).map(|f| inspect_archive(std::io::BufReader::new(f)))
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(ApiError::internal)?
    .map_err(|e| ApiError::unprocessable("invalid-image", e.to_string()))?;
    let key = format!("images/{sha256}.tar");
    state
        .store()
        .put_file(&key, &path)
        .await
        .map_err(ApiError::internal)?;
    Ok(Upload {
        submission,
        image,
        key,
        sha256,
    })
}
