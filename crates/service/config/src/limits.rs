//! The open-file limit a process holding thousands of sockets needs.
//!
//! Every connection is a file descriptor: a worker with 1,000 runs in flight holds about seven
//! sockets per run (the agent's request, its MCP connections through the routing layer, the
//! database). Many hosts start processes with a soft limit of 1,024 and a hard limit far above
//! it; past the soft limit `accept` and `connect` fail with "too many open files", which shows
//! up as runs failing for no reason of their own. So the binaries raise the soft limit to the
//! hard one at start (as the Go runtime and most servers do) and say when even that is short.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// The open-file limit as [`raise_open_files`] found and left it; `u64::MAX` is unlimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenFiles {
    pub before: u64,
    pub now: u64,
}

impl OpenFiles {
    /// A sentence for the log when `needed` descriptors do not fit, `None` when they do.
    pub fn shortfall(&self, needed: u64, what: &str) -> Option<String> {
        (self.now < needed).then(|| {
            format!(
                "the open-file limit is {} but {what} may need about {needed}; raise the hard \
                 limit (ulimit -Hn, systemd's LimitNOFILE, the container's nofile ulimit)",
                self.now
            )
        })
    }
}

/// Raises the open-file limit ([`raise_open_files`]) for a process that may hold `needed`
/// descriptors for `what`; returns the warning to log when it could not be raised that far.
pub fn open_files_for(needed: u64, what: &str) -> Option<String> {
    match raise_open_files() {
        Ok(limit) => limit.shortfall(needed, what),
        Err(e) => Some(format!("raising the open-file limit failed: {e}")),
    }
}

/// Raises this process's soft limit on open files to its hard limit.
pub fn raise_open_files() -> std::io::Result<OpenFiles> {
    let limit = getrlimit(Resource::Nofile);
    let before = limit.current.unwrap_or(u64::MAX);
    if limit.current == limit.maximum {
        return Ok(OpenFiles {
            before,
            now: before,
        });
    }
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        },
    )?;
    let now = getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX);
    Ok(OpenFiles { before, now })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process started with a low soft limit ends with the hard one. (nextest runs each test
    /// in a process of its own, so lowering the limit here touches no other test.)
    #[test]
    fn the_soft_limit_rises_to_the_hard_one() {
        let hard = getrlimit(Resource::Nofile).maximum;
        let low = 256.min(hard.unwrap_or(u64::MAX));
        setrlimit(
            Resource::Nofile,
            Rlimit {
                current: Some(low),
                maximum: hard,
            },
        )
        .unwrap();
        let raised = raise_open_files().unwrap();
        assert_eq!(raised.before, low);
        assert_eq!(raised.now, hard.unwrap_or(u64::MAX));
        assert_eq!(getrlimit(Resource::Nofile).current, hard);
        // Raising again changes nothing.
        assert_eq!(
            raise_open_files().unwrap(),
            OpenFiles {
                before: raised.now,
                now: raised.now
            }
        );
        let fits = OpenFiles {
            before: 1024,
            now: 1024,
        };
        assert_eq!(fits.shortfall(1024, "x"), None);
        let short = fits.shortfall(8256, "1,000 slots").unwrap();
        assert!(short.contains("1024") && short.contains("8256"), "{short}");
    }
}
