//! Bringing a cluster up: preparing the directory, initdb, attaching to a running server or
//! starting one with retries.

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{
    Cluster, DEFAULT_DATABASE, LISTEN_ADDRESS, Options, PASSWORD_FILE, PG_CTL_TIMEOUT, SUPERUSER,
};
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
        // A cluster without a password file was made by an older version, with trust auth.
        let legacy = match std::fs::read_to_string(self.data_dir.join(PASSWORD_FILE)) {
            Ok(password) => {
                self.password = password.trim().to_string();
                false
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(e) => {
                return Err(Error::Io {
                    context: format!("could not read {PASSWORD_FILE}"),
                    source: e,
                });
            }
        };
        pidfile::clear_stale(&self.data_dir)?;
        match pidfile::read(&self.data_dir) {
            Some(running)
                if pidfile::process_state(running.pid) == pidfile::ProcessState::Postgres =>
            {
                self.attach(running, options)?;
            }
            _ => self.boot(options)?,
        }
        if legacy {
            self.require_password()?;
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
        // initdb reads the password from a file the server's user can read: a private
        // directory of its own, gone when initdb is done.
        let password = new_password()?;
        let secret = tempfile::Builder::new()
            .prefix("mcpbench-initdb-")
            .tempdir()
            .map_err(Error::io("could not create a temporary directory"))?;
        let pwfile = secret.path().join("password");
        write_private(&pwfile, &password)?;
        self.run_as.hand_over(secret.path())?;
        self.run_as.hand_over(&pwfile)?;
        let mut initdb = self.run_as.command(&self.binaries.tool("initdb"));
        initdb
            .arg("-D")
            .arg(&self.data_dir)
            .args([
                "-U",
                SUPERUSER,
                "--auth=scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C",
            ])
            .arg(format!("--pwfile={}", pwfile.display()));
        if !durable {
            initdb.arg("--no-sync");
        }
        exec::run(&mut initdb)?;
        write_private(&self.data_dir.join(PASSWORD_FILE), &password)
    }

    /// Gives a trust-auth cluster (made by an older version) a password and password auth:
    /// the role gets one over the still-trusted connection, `pg_hba.conf` asks for it from
    /// then on, and the server reloads.
    fn require_password(&mut self) -> Result<(), Error> {
        tracing::info!("the cluster trusts local users; giving it a password");
        self.password = new_password()?;
        let mut psql = self.psql(&format!(
            "ALTER ROLE \"{SUPERUSER}\" PASSWORD '{}'",
            self.password
        ));
        exec::run(&mut psql)?;
        let hba = self.data_dir.join("pg_hba.conf");
        let text =
            std::fs::read_to_string(&hba).map_err(Error::io("could not read pg_hba.conf"))?;
        let secured: String = text
            .lines()
            .map(|line| {
                let mut fields: Vec<&str> = line.split_whitespace().collect();
                if !line.trim_start().starts_with('#') && fields.last() == Some(&"trust") {
                    fields.pop();
                    fields.push("scram-sha-256");
                    fields.join(" ")
                } else {
                    line.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&hba, secured + "\n").map_err(Error::io("could not write pg_hba.conf"))?;
        write_private(&self.data_dir.join(PASSWORD_FILE), &self.password)?;
        let mut reload = self.run_as.command(&self.binaries.tool("pg_ctl"));
        reload.args(["reload", "-D"]).arg(&self.data_dir);
        exec::run(&mut reload)?;
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

/// 24 random bytes from the kernel, as 48 hex digits (safe in a URL and in SQL quotes).
fn new_password() -> Result<String, Error> {
    use std::io::Read;
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(Error::io("could not read /dev/urandom"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes `text` to a new file only its owner can read (0600).
fn write_private(path: &Path, text: &str) -> Result<(), Error> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| {
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            f.write_all(text.as_bytes())
        })
        .map_err(Error::io(format!("could not write {}", path.display())))
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
