//! Leftovers: containers of pods whose worker died, or that outlived their wall-clock limit,
//! and pod directories nobody owns any more.

use crate::{LABEL, LABEL_DEPLOYMENT, LABEL_EXPIRES, LABEL_OWNER, Sandbox, SandboxError};
use bollard::query_parameters::{ListContainersOptionsBuilder, RemoveContainerOptionsBuilder};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, SystemTime};

/// Grace past a pod's expiry before the reaper takes it (its own worker removes it sooner).
const GRACE: Duration = Duration::from_secs(10);

/// The workers a deployment's database knows: all it ever saw, and those alive now.
#[derive(Clone, Debug, Default)]
pub struct Owners {
    pub known: HashSet<String>,
    pub live: HashSet<String>,
}

impl Sandbox {
    /// Removes this deployment's sandbox containers whose owner the database knows and that
    /// expired or whose owner is gone (this worker always counts as known and live), and the
    /// pod directories of known owners that are gone. A container whose owner the database
    /// never saw is left alone: it belongs to another deployment that shares this engine (and,
    /// by mistake, its name). Returns how many containers were removed.
    pub async fn reap(&self, owners: &Owners) -> Result<usize, SandboxError> {
        let filters = HashMap::from([(
            "label".to_string(),
            vec![
                LABEL.to_string(),
                format!("{LABEL_DEPLOYMENT}={}", self.config.deployment),
            ],
        )]);
        let options = ListContainersOptionsBuilder::default()
            .all(true)
            .filters(&filters)
            .build();
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let ours = |owner: &str| owner == self.config.owner;
        let known = |owner: &str| ours(owner) || owners.known.contains(owner);
        let live = |owner: &str| ours(owner) || owners.live.contains(owner);
        let remove = RemoveContainerOptionsBuilder::default()
            .force(true)
            .v(true)
            .build();
        let mut removed = 0;
        for c in self.docker.list_containers(Some(options)).await? {
            let labels = c.labels.unwrap_or_default();
            let owner = labels.get(LABEL_OWNER).map(String::as_str).unwrap_or("");
            let expires: u64 = labels
                .get(LABEL_EXPIRES)
                .and_then(|e| e.parse().ok())
                .unwrap_or(0);
            if !known(owner) || (live(owner) && now < expires + GRACE.as_secs()) {
                continue;
            }
            let Some(id) = c.id else { continue };
            match self
                .docker
                .remove_container(&id, Some(remove.clone()))
                .await
            {
                Ok(()) => removed += 1,
                Err(bollard::errors::Error::DockerResponseServerError {
                    status_code: 404, ..
                }) => {}
                Err(e) => {
                    tracing::warn!(container = %id, error = %e, "reaping a sandbox container failed")
                }
            }
        }
        // Pod directories live under `<socket_dir>/<deployment>/<owner>/`; a gone owner's are
        // all stale.
        if let Ok(mut owners) = tokio::fs::read_dir(self.pods_dir()).await {
            while let Ok(Some(entry)) = owners.next_entry().await {
                let name = entry.file_name().to_string_lossy().to_string();
                if known(&name) && !live(&name) {
                    let _ = tokio::fs::remove_dir_all(entry.path()).await;
                }
            }
        }
        if removed > 0 {
            tracing::info!(removed, "reaped sandbox containers left behind");
        }
        Ok(removed)
    }
}
