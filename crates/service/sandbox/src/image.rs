//! Images on the engine: the proxy's (made here), a vendor's uploaded archive (loaded), a
//! vendor's registry reference (pulled, pinned by digest).

use crate::{Sandbox, SandboxError};
use bollard::Docker;
use bollard::query_parameters::{CreateImageOptionsBuilder, ImportImageOptionsBuilder};
use futures_util::StreamExt;
use mcpbench_images::{build_archive, is_pinned_reference};

/// The first runc with the fix for CVE-2024-21626.
const RUNC_FIXED: (u32, u32, u32) = (1, 1, 12);
use std::path::Path;

/// The proxy, built statically by `build.rs`.
static PROXY_BINARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/mcpbench-sandbox-proxy"));
pub(crate) const PROXY_PATH: &str = "/mcpbench-sandbox-proxy";

/// Warns when the engine's runc predates the fix for CVE-2024-21626 (images with a WORKDIR in
/// /proc are refused anyway; the warning asks the operator to upgrade).
pub(crate) async fn check_runtime(docker: &Docker) {
    let Ok(version) = docker.version().await else {
        return;
    };
    for component in version.components.unwrap_or_default() {
        if component.name != "runc" {
            continue;
        }
        let numbers: Vec<u32> = component
            .version
            .split(|c: char| !c.is_ascii_digit())
            .take(3)
            .filter_map(|n| n.parse().ok())
            .collect();
        if let [a, b, c] = numbers[..]
            && (a, b, c) < RUNC_FIXED
        {
            tracing::warn!(
                runc = %component.version,
                "this runc predates the fix for CVE-2024-21626; images whose WORKDIR points into \
                 /proc are refused, but upgrade runc to 1.1.12 or later"
            );
        }
    }
}

/// Refuses a runtime the engine does not have: every pod would fail to start on it, so the
/// worker says so once, at start, naming the runtimes it has.
pub(crate) async fn require_runtime(docker: &Docker, runtime: &str) -> Result<(), SandboxError> {
    let info = docker.info().await?;
    let mut known: Vec<String> = info.runtimes.unwrap_or_default().into_keys().collect();
    if known.iter().any(|k| k == runtime) {
        return Ok(());
    }
    known.sort();
    Err(SandboxError::Runtime(format!(
        "the Docker engine has no runtime named {runtime:?} (it has {}); register it in the \
         engine's daemon.json (gVisor: `runsc install`, then restart dockerd) or unset \
         MCPBENCH_AGENT_RUNTIME",
        known.join(", ")
    )))
}

/// Loads the proxy image unless the engine has it already; returns its id.
pub(crate) async fn ensure_proxy(docker: &Docker) -> Result<String, SandboxError> {
    let (id, tar) = build_archive(
        &[(PROXY_PATH.trim_start_matches('/'), 0o755, PROXY_BINARY)],
        &[PROXY_PATH],
        "mcpbench-sandbox-proxy:latest",
    )?;
    if docker.inspect_image(&id).await.is_err() {
        load(docker, bytes::Bytes::from(tar)).await?;
        docker
            .inspect_image(&id)
            .await
            .map_err(|e| SandboxError::Image(format!("the proxy image did not load: {e}")))?;
    }
    Ok(id)
}

async fn load(docker: &Docker, tar: bytes::Bytes) -> Result<(), SandboxError> {
    let options = ImportImageOptionsBuilder::default().quiet(true).build();
    let mut progress = docker.import_image(options, bollard::body_full(tar), None);
    while let Some(item) = progress.next().await {
        item?;
    }
    Ok(())
}

impl Sandbox {
    /// Makes `image` (an id from an uploaded archive) present, loading `archive` (a local
    /// copy of the upload) when the engine does not have it.
    pub async fn ensure_loaded(&self, image: &str, archive: &Path) -> Result<(), SandboxError> {
        if self.docker.inspect_image(image).await.is_ok() {
            return Ok(());
        }
        let file = tokio::fs::File::open(archive).await?;
        let stream = tokio_util_stream(file);
        let options = ImportImageOptionsBuilder::default().quiet(true).build();
        let mut progress = self.docker.import_image_stream(options, stream, None);
        while let Some(item) = progress.next().await {
            item.map_err(|e| SandboxError::Image(format!("the image archive did not load: {e}")))?;
        }
        self.docker.inspect_image(image).await.map_err(|_| {
            SandboxError::Image("the archive loaded but did not hold the recorded image".into())
        })?;
        Ok(())
    }

    /// Whether the engine has `image` already.
    pub async fn has_image(&self, image: &str) -> bool {
        self.docker.inspect_image(image).await.is_ok()
    }

    /// Pulls a digest-pinned reference unless the engine has it already.
    pub async fn ensure_pulled(&self, reference: &str) -> Result<(), SandboxError> {
        if !is_pinned_reference(reference) {
            return Err(SandboxError::Image(
                "the image reference is not pinned by digest".into(),
            ));
        }
        if self.docker.inspect_image(reference).await.is_ok() {
            return Ok(());
        }
        let options = CreateImageOptionsBuilder::default()
            .from_image(reference)
            .build();
        let mut progress = self.docker.create_image(Some(options), None, None);
        while let Some(item) = progress.next().await {
            item.map_err(|e| SandboxError::Image(format!("pulling {reference} failed: {e}")))?;
        }
        Ok(())
    }

    /// Removes an image (a finished submission's), leaving it when a container still uses it.
    pub async fn remove_image(&self, image: &str) -> Result<(), SandboxError> {
        self.docker
            .remove_image(
                image,
                None::<bollard::query_parameters::RemoveImageOptions>,
                None,
            )
            .await?;
        Ok(())
    }

    /// The volumes an image declares; each gets a size-capped tmpfs so it cannot become
    /// unbounded writable storage beside the read-only root. Refuses an image whose working
    /// directory points into /proc (CVE-2024-21626), whichever way it came.
    pub(crate) async fn declared_volumes(&self, image: &str) -> Result<Vec<String>, SandboxError> {
        let inspect = self
            .docker
            .inspect_image(image)
            .await
            .map_err(|e| match e {
                bollard::errors::Error::DockerResponseServerError {
                    status_code: 404, ..
                } => SandboxError::Pod("the image is not on this engine".into()),
                e => e.into(),
            })?;
        let config = inspect.config.unwrap_or_default();
        let workdir = config.working_dir.unwrap_or_default();
        if mcpbench_images::unsafe_workdir(&workdir) {
            return Err(SandboxError::Image(format!(
                "the image's WORKDIR {workdir:?} points into /proc (CVE-2024-21626); refused"
            )));
        }
        let volumes = config.volumes.unwrap_or_default();
        if volumes.len() > MAX_VOLUMES {
            return Err(SandboxError::Image(format!(
                "the image declares {} volumes; at most {MAX_VOLUMES} are allowed",
                volumes.len()
            )));
        }
        if let Some(bad) = volumes.iter().find(|v| !is_plain_volume(v)) {
            return Err(SandboxError::Image(format!(
                "the image declares the volume {bad:?}; volumes must be absolute paths outside \
                 /proc, /sys and /dev"
            )));
        }
        Ok(volumes)
    }
}

/// Volumes an image may declare (each becomes a size-capped tmpfs).
const MAX_VOLUMES: usize = 16;

/// An absolute path, not `/` and not under the kernel's file systems.
fn is_plain_volume(path: &str) -> bool {
    let clean: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    path.starts_with('/')
        && !clean.is_empty()
        && !clean.contains(&"..")
        && !matches!(clean[0], "proc" | "sys" | "dev")
}

/// A file as a stream of chunks, for a request body.
fn tokio_util_stream(
    file: tokio::fs::File,
) -> impl futures_util::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + 'static {
    futures_util::stream::unfold(file, |mut file| async move {
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 256 << 10];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(bytes::Bytes::from(buf)), file))
            }
            Err(e) => Some((Err(e), file)),
        }
    })
}
