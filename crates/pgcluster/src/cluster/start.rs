//! Bringing a cluster up: preparing the directory, initdb, attaching to a running server or
//! starting one with retries.

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{Cluster, DEFAULT_DATABASE, LISTEN_ADDRESS, Options, PG_CTL_TIMEOUT, SUPERUSER};
use crate::privilege::RunAs;
use crate::settings::{self, Settings};
use crate::{Error, exec, pidfile};

/// The server log `pg_ctl -l` appends to, inside the data directory.
const LOG_FILE: &str = "mcpbench-server.log";
/// Starts tried when the port was taken meanwhile or the old server is still going away.
const START_ATTEMPTS: u32 = 8;

impl Cluster {
    /// Everything after the directory is ready. On error, `self` is dropped, which stops a
    /// server we already started.
    pub(super) fn launch(mut self, options: &Options) -> Result<Cluster, Error> {
        let started = Instant::now();
        self.initdb_if_needed(options.durable)?;
        pidfile::clear_stale(&self.data_dir)?;
        match pidfile::read(&self.data_dir) {
            Some(running)
                if pidfile::process_state(running.pid) == pidfile::ProcessState::Postgres =>
            {
                self.attach(running, options)?;
            }
            _ => self.boot(options)?,
        }
        self.create_database_if_missing(DEFAULT_DATABASE)?;
        tracing::info!(
            data_dir = %self.data_dir.display(),
            port = self.port,
            owned = self.owned,
            elapsed_ms = started.elapsed().as_millis(),
            "PostgreSQL cluster ready"
        );
        Ok(self)
    }

    fn initdb_if_needed(&self, durable: bool) -> Result<(), Error> {
        if self.data_dir.join("PG_VERSION").is_file() {
            return Ok(());
        }
        let mut initdb = self.run_as.command(&self.binaries.tool("initdb"));
        initdb.arg("-D").arg(&self.data_dir).args([
            "-U",
            SUPERUSER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
        ]);
        if !durable {
            initdb.arg("--no-sync");
        }
        exec::run(&mut initdb)?;
        Ok(())
    }

    /// Uses a server that is already running in the data directory; we will not stop it.
    fn attach(&mut self, running: pidfile::PidFile, options: &Options) -> Result<(), Error> {
        let port = running.port.ok_or_else(|| Error::Io {
            context: format!(
                "a server (pid {}) runs in {} but its postmaster.pid has no port",
                running.pid,
                self.data_dir.display()
            ),
            source: std::io::ErrorKind::InvalidData.into(),
        })?;
        if options.port.is_some_and(|wanted| wanted != port) {
            tracing::warn!(port, wanted = ?options.port, "attached to a server on another port");
        }
        tracing::info!(pid = running.pid, port, "attaching to a running server");
        self.port = port;
        self.socket_dir = running.socket_dir;
        self.running = true;
        Ok(())
    }

    /// Starts the server, choosing a new port while the chosen one turns out to be taken.
    fn boot(&mut self, options: &Options) -> Result<(), Error> {
        settings::ensure_included(&self.data_dir)?;
        let socket_dir = settings::socket_dir_for(&self.data_dir);
        let mut attempt = 1;
        loop {
            let port = match options.port {
                Some(port) => port,
                None => free_port()?,
            };
            let settings = Settings {
                port,
                listen_address: LISTEN_ADDRESS,
                socket_dir: socket_dir.as_deref(),
                durable: options.durable,
            };
            settings.write(&self.data_dir, &self.run_as)?;
            let Err((error, obstacle)) = self.pg_ctl_start() else {
                self.port = port;
                self.socket_dir = socket_dir;
                self.owned = true;
                self.running = true;
                return Ok(());
            };
            let retry = match obstacle {
                Some(Obstacle::PortInUse) => options.port.is_none(),
                Some(Obstacle::OldServer) => true,
                None => false,
            };
            if !retry || attempt >= START_ATTEMPTS {
                return Err(error);
            }
            tracing::info!(
                port,
                attempt,
                ?obstacle,
                "PostgreSQL did not start; retrying"
            );
            std::thread::sleep(Duration::from_millis(250) * attempt);
            pidfile::clear_stale(&self.data_dir)?;
            attempt += 1;
        }
    }

    /// `pg_ctl start -w`; on failure the error (with the new part of the server log) and
    /// whether it is worth another try.
    fn pg_ctl_start(&self) -> Result<(), (Error, Option<Obstacle>)> {
        let log = self.data_dir.join(LOG_FILE);
        let log_start = std::fs::metadata(&log).map_or(0, |meta| meta.len());
        let mut pg_ctl = self.run_as.command(&self.binaries.tool("pg_ctl"));
        pg_ctl
            .args(["start", "-w", "-t", PG_CTL_TIMEOUT, "-D"])
            .arg(&self.data_dir)
            .arg("-l")
            .arg(&log);
        let output = exec::output(&mut pg_ctl).map_err(|error| (error, None))?;
        if output.status.success() {
            return Ok(());
        }
        let log_text = read_from(&log, log_start);
        let obstacle = Obstacle::find(&log_text);
        Err((exec::failure(&pg_ctl, &output, Some(&log_text)), obstacle))
    }
}

/// A failed start that another try may get past.
#[derive(Debug, Clone, Copy)]
enum Obstacle {
    /// Someone bound the port between our check and the server's bind.
    PortInUse,
    /// A killed server's processes or shared memory were still around.
    OldServer,
}

impl Obstacle {
    fn find(log: &str) -> Option<Obstacle> {
        if log.contains("Address already in use") || log.contains("could not create any TCP/IP") {
            Some(Obstacle::PortInUse)
        } else if log.contains("pre-existing shared memory block")
            || log.contains("lock file \"postmaster.pid\" already exists")
        {
            Some(Obstacle::OldServer)
        } else {
            None
        }
    }
}

/// Creates a missing data directory (mode 0700) and readies it for whoever runs the server.
pub(super) fn prepare_data_dir(data_dir: &Path, run_as: &RunAs) -> Result<PathBuf, Error> {
    if !data_dir.exists() {
        std::fs::create_dir_all(data_dir).map_err(Error::io(format!(
            "could not create {}",
            data_dir.display()
        )))?;
        std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o700))
            .map_err(Error::io(format!("could not chmod {}", data_dir.display())))?;
    }
    let data_dir = data_dir.canonicalize().map_err(Error::io(format!(
        "could not resolve {}",
        data_dir.display()
    )))?;
    if let Some(parent) = data_dir.parent() {
        run_as.check_reachable(parent)?;
    }
    if !data_dir.join("PG_VERSION").is_file() {
        let has_files = std::fs::read_dir(&data_dir)
            .map_err(Error::io(format!("could not list {}", data_dir.display())))?
            .next()
            .is_some();
        if has_files {
            return Err(Error::NotADataDir { path: data_dir });
        }
        run_as.hand_over(&data_dir)?;
    }
    Ok(data_dir)
}

/// A port nobody listens on right now (the kernel's choice for port 0).
fn free_port() -> Result<u16, Error> {
    TcpListener::bind((LISTEN_ADDRESS, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(Error::io("could not find a free TCP port on 127.0.0.1"))
}

/// The part of `path` after byte `start` (what this start appended to the log).
fn read_from(path: &Path, start: u64) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    let start = usize::try_from(start).unwrap_or(0).min(bytes.len());
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_retryable_start_failures() {
        let bind = "FATAL:  could not bind IPv4 address \"127.0.0.1\": Address already in use";
        assert!(matches!(Obstacle::find(bind), Some(Obstacle::PortInUse)));
        let shm = "FATAL:  pre-existing shared memory block (key 1, ID 2) is still in use";
        assert!(matches!(Obstacle::find(shm), Some(Obstacle::OldServer)));
        assert!(Obstacle::find("FATAL:  data directory has wrong ownership").is_none());
    }
}
