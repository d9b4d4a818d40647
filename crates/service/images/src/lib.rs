//! Container images as vendors hand them in: a `docker save` archive (uploaded), checked and
//! identified here before it is accepted, or a registry reference pinned by digest.

mod archive;

pub use archive::{ArchiveError, ArchiveImage, build_archive, inspect_archive, untagged_copy};

/// Whether an image's working directory reaches into `/proc`: the container escape of runc
/// before 1.1.12 (CVE-2024-21626, "Leaky Vessels": `WORKDIR /proc/self/fd/N` leaves the process
/// with a working directory on the host). Such images are refused whatever the runtime.
pub fn unsafe_workdir(workdir: &str) -> bool {
    let mut parts: Vec<&str> = Vec::new();
    for part in workdir.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.first() == Some(&"proc")
}

/// Whether `image` is a registry reference pinned by digest: `name@sha256:<64 hex>`.
pub fn is_pinned_reference(image: &str) -> bool {
    let Some((name, digest)) = image.rsplit_once('@') else {
        return false;
    };
    let Some(hex) = digest.strip_prefix("sha256:") else {
        return false;
    };
    !name.is_empty()
        && name.len() <= 255
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-/:".contains(c))
        && hex.len() == 64
        && hex
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::is_pinned_reference;

    #[test]
    fn workdirs_into_proc_are_unsafe() {
        for bad in [
            "/proc/self/fd/7",
            "/proc",
            "proc/1/cwd",
            "/../proc/self/fd/8",
            "/app/../proc/self/cwd",
            "//proc/x",
        ] {
            assert!(super::unsafe_workdir(bad), "{bad}");
        }
        for good in ["", "/", "/app", "/srv/proc", "/process", "/app/proc/.."] {
            assert!(!super::unsafe_workdir(good), "{good}");
        }
    }

    #[test]
    fn only_digest_pinned_references_pass() {
        let digest = "a".repeat(64);
        assert!(is_pinned_reference(&format!(
            "ghcr.io/acme/agent@sha256:{digest}"
        )));
        assert!(is_pinned_reference(&format!(
            "localhost:5000/agent@sha256:{digest}"
        )));
        for bad in [
            "acme/agent".to_string(),
            "acme/agent:latest".to_string(),
            format!("acme/agent@sha256:{}", "a".repeat(63)),
            format!("acme/agent@sha256:{}", "A".repeat(64)),
            format!("acme/agent@sha512:{digest}"),
            format!("@sha256:{digest}"),
            format!("Acme/agent@sha256:{digest}"),
            format!("acme agent@sha256:{digest}"),
        ] {
            assert!(!is_pinned_reference(&bad), "{bad}");
        }
    }
}
