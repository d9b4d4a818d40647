//! Reading `postmaster.pid` and clearing a stale one.
//!
//! PostgreSQL handles a stale `postmaster.pid` itself when its process is gone. Two cases it
//! does not handle: the process is a zombie (killed, but not yet reaped; containers whose
//! init reaps lazily or never keep one around, and `kill(pid, 0)` still succeeds on it), and
//! the pid was reused by an unrelated process after a reboot or container restart. We wait a
//! while for a zombie to be reaped, then remove the file; we remove it at once when the pid
//! belongs to something that is not `postgres`. A live `postgres` is left alone.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::Error;

pub(crate) const FILE_NAME: &str = "postmaster.pid";

/// How long a zombie postmaster may take to be reaped before we call its pid file stale.
/// Long enough for its children, which exit when they notice their parent died, to detach
/// from shared memory.
const ZOMBIE_GRACE: Duration = Duration::from_secs(10);

/// The fields of `postmaster.pid` we use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PidFile {
    pub(crate) pid: u32,
    pub(crate) port: Option<u16>,
    pub(crate) socket_dir: Option<PathBuf>,
}

/// What the pid in a pid file is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProcessState {
    Gone,
    Zombie,
    Postgres,
    Other,
}

/// Reads `postmaster.pid`: line 1 the pid, line 4 the port, line 5 the first socket directory.
pub(crate) fn read(data_dir: &Path) -> Option<PidFile> {
    let text = std::fs::read_to_string(data_dir.join(FILE_NAME)).ok()?;
    parse(&text)
}

fn parse(text: &str) -> Option<PidFile> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    Some(PidFile {
        pid: lines.first()?.parse().ok()?,
        port: lines.get(3).and_then(|port| port.parse().ok()),
        socket_dir: lines
            .get(4)
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from),
    })
}

/// What process `pid` is, from /proc.
pub(crate) fn process_state(pid: u32) -> ProcessState {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return ProcessState::Gone;
    };
    // "pid (comm) S ...": comm may contain anything, so read after the last ')'.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next());
    if matches!(state, Some('Z' | 'X')) {
        return ProcessState::Zombie;
    }
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    match comm.trim() {
        "postgres" | "postmaster" => ProcessState::Postgres,
        _ => ProcessState::Other,
    }
}

/// Removes `postmaster.pid` when it names a dead or foreign process PostgreSQL would trip over.
pub(crate) fn clear_stale(data_dir: &Path) -> Result<(), Error> {
    let deadline = Instant::now() + ZOMBIE_GRACE;
    loop {
        let Some(pid_file) = read(data_dir) else {
            return Ok(());
        };
        match process_state(pid_file.pid) {
            ProcessState::Gone | ProcessState::Postgres => return Ok(()),
            ProcessState::Zombie if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100));
            }
            state => {
                tracing::warn!(
                    pid = pid_file.pid,
                    ?state,
                    data_dir = %data_dir.display(),
                    "removing stale postmaster.pid"
                );
                let path = data_dir.join(FILE_NAME);
                return match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io {
                        context: format!("could not remove stale {}", path.display()),
                        source: e,
                    }),
                    _ => Ok(()),
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_postmaster_pid_layout() {
        let text = "32604\n/tmp/x/data\n1795317112\n54999\n/tmp/x/data\n127.0.0.1\n 10305572        10\nready   \n";
        assert_eq!(
            parse(text),
            Some(PidFile {
                pid: 32604,
                port: Some(54999),
                socket_dir: Some(PathBuf::from("/tmp/x/data")),
            })
        );
        let no_socket = "7\n/d\n1\n5432\n\n127.0.0.1\n";
        assert_eq!(parse(no_socket).and_then(|p| p.socket_dir), None);
    }

    #[test]
    fn knows_our_own_process_is_not_postgres() {
        assert_eq!(process_state(std::process::id()), ProcessState::Other);
        assert_eq!(process_state(u32::MAX), ProcessState::Gone);
    }
}
