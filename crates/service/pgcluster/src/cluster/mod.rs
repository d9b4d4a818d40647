//! [`Cluster`]: start (initdb-ing first), attach, create databases, stop.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

use crate::binaries::Binaries;
use crate::guard::Guard;
use crate::privilege::{self, RunAs};
use crate::{Error, exec, pidfile};

mod start;

/// The superuser initdb creates; its password is in [`PASSWORD_FILE`].
const SUPERUSER: &str = "mcpbench";
/// The superuser's password, in the data directory, mode 0600: any local user can reach the
/// server's port, and only who can read this file gets in.
const PASSWORD_FILE: &str = "mcpbench.password";
/// The database every cluster has.
const DEFAULT_DATABASE: &str = "mcpbench";
const LISTEN_ADDRESS: &str = "127.0.0.1";
/// Seconds `pg_ctl` waits for the server to start or stop.
const PG_CTL_TIMEOUT: &str = "60";

/// How to start a cluster.
#[derive(Debug, Clone)]
pub struct Options {
    /// `false` turns fsync, synchronous_commit and full_page_writes off: fast, but a crash
    /// of the machine can corrupt the cluster. For throwaway data only.
    pub durable: bool,
    /// The TCP port; `None` picks a free one (retrying if it is taken before the server binds).
    pub port: Option<u16>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            durable: true,
            port: None,
        }
    }
}

/// A running local PostgreSQL cluster, stopped when dropped if we started it.
#[derive(Debug)]
pub struct Cluster {
    data_dir: PathBuf,
    port: u16,
    binaries: Binaries,
    /// Where the unix socket is; `None` when the path would be too long (TCP only).
    socket_dir: Option<PathBuf>,
    /// We started the server (rather than finding it running), so dropping stops it.
    owned: bool,
    running: bool,
    run_as: RunAs,
    /// The superuser's password (hex), from [`PASSWORD_FILE`].
    password: String,
    /// Declared before `temp`: disarmed before the directory goes.
    guard: Option<Guard>,
    temp: Option<TempDir>,
}

impl Cluster {
    /// Starts a cluster in `data_dir`, creating and initdb-ing it first if it is missing or
    /// empty, on 127.0.0.1 with password (SCRAM) auth for the `mcpbench` superuser, and makes
    /// sure the `mcpbench` database exists. A cluster an older version made with trust auth
    /// is given a password and password auth at its first start.
    ///
    /// If a server is already running in `data_dir` (a previous `mcpbench up` still alive),
    /// this attaches to it on its port, with the settings it was started with, and does not
    /// stop it on drop.
    pub fn start(data_dir: &Path, options: &Options) -> Result<Cluster, Error> {
        let binaries = Binaries::locate()?;
        let run_as = RunAs::detect()?;
        let data_dir = start::prepare_data_dir(data_dir, &run_as)?;
        Cluster::new(binaries, run_as, data_dir, None, None).launch(options)
    }

    /// For tests: a non-durable cluster in a fresh temporary directory, removed when dropped
    /// or, failing that, when this process exits.
    pub fn start_temp() -> Result<Cluster, Error> {
        let binaries = Binaries::locate()?;
        let run_as = RunAs::detect()?;
        let temp = tempfile::Builder::new()
            .prefix("mcpbench-pg-")
            .tempdir()
            .map_err(Error::io("could not create a temporary directory"))?;
        run_as.hand_over(temp.path())?;
        run_as.check_reachable(temp.path())?;
        let data_dir = temp.path().join("data");
        let mut stop = run_as.argv(&binaries.tool("pg_ctl"));
        stop.extend(["stop", "-m", "immediate", "-w", "-D"].map(OsString::from));
        stop.push(data_dir.clone().into());
        let guard = Guard::arm(temp.path(), stop)?;
        let options = Options {
            durable: false,
            port: None,
        };
        Cluster::new(binaries, run_as, data_dir, Some(temp), Some(guard)).launch(&options)
    }

    /// `postgres://mcpbench:<password>@127.0.0.1:<port>/mcpbench`.
    pub fn url(&self) -> String {
        self.url_for(DEFAULT_DATABASE)
    }

    /// The URL of `database` on this cluster (whether or not it exists), password included:
    /// keep it out of logs ([`Cluster::display_url`] is the one to show).
    pub fn url_for(&self, database: &str) -> String {
        format!(
            "postgres://{SUPERUSER}:{}@{LISTEN_ADDRESS}:{}/{database}",
            self.password, self.port
        )
    }

    /// The URL of the default database with the password masked, for people to read.
    pub fn display_url(&self) -> String {
        format!(
            "postgres://{SUPERUSER}:***@{LISTEN_ADDRESS}:{}/{DEFAULT_DATABASE}",
            self.port
        )
    }

    /// Creates database `name` (1 to 63 of `[a-z0-9_]`) and returns its URL.
    /// Fails with [`Error::DatabaseExists`] if it is already there.
    pub fn create_database(&self, name: &str) -> Result<String, Error> {
        if !valid_database_name(name) {
            return Err(Error::InvalidDatabaseName { name: name.into() });
        }
        if !self.create_database_if_missing(name)? {
            return Err(Error::DatabaseExists { name: name.into() });
        }
        Ok(self.url_for(name))
    }

    /// A client tool of the cluster's version (`pg_dump`, `psql`), from its binaries'
    /// directory when it is there, else whatever `PATH` finds.
    pub fn client_tool(&self, name: &str) -> std::path::PathBuf {
        let path = self.binaries.tool(name);
        if path.is_file() { path } else { name.into() }
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The data directory (absolute).
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Stops the server (`pg_ctl stop -m fast`), also one we attached to.
    /// A server that already died counts as stopped.
    pub fn stop(mut self) -> Result<(), Error> {
        self.shutdown()
    }

    fn new(
        binaries: Binaries,
        run_as: RunAs,
        data_dir: PathBuf,
        temp: Option<TempDir>,
        guard: Option<Guard>,
    ) -> Cluster {
        Cluster {
            data_dir,
            port: 0,
            binaries,
            socket_dir: None,
            owned: false,
            running: false,
            run_as,
            password: String::new(),
            guard,
            temp,
        }
    }

    /// Stops the server unless it is already gone. Idempotent.
    fn shutdown(&mut self) -> Result<(), Error> {
        if !std::mem::replace(&mut self.running, false) {
            return Ok(());
        }
        let alive = pidfile::read(&self.data_dir).is_some_and(|pid_file| {
            let state = pidfile::process_state(pid_file.pid);
            !matches!(
                state,
                pidfile::ProcessState::Gone | pidfile::ProcessState::Zombie
            )
        });
        if !alive {
            tracing::warn!(data_dir = %self.data_dir.display(), "PostgreSQL had already exited");
            return Ok(());
        }
        let mut pg_ctl = self.run_as.command(&self.binaries.tool("pg_ctl"));
        pg_ctl
            .args(["stop", "-m", "fast", "-w", "-t", PG_CTL_TIMEOUT, "-D"])
            .arg(&self.data_dir);
        exec::run(&mut pg_ctl)?;
        Ok(())
    }

    /// `CREATE DATABASE`; `false` when it already existed (SQLSTATE 42P04).
    fn create_database_if_missing(&self, name: &str) -> Result<bool, Error> {
        let mut psql = self.psql(&format!("CREATE DATABASE \"{name}\""));
        let output = exec::output(&mut psql)?;
        if output.status.success() {
            return Ok(true);
        }
        if String::from_utf8_lossy(&output.stderr).contains("42P04") {
            return Ok(false);
        }
        Err(exec::failure(&psql, &output, None))
    }

    /// `psql` running one statement in the `postgres` database, as ourselves (psql, a
    /// client, may run as root).
    fn psql(&self, sql: &str) -> Command {
        let host = match &self.socket_dir {
            Some(dir) => dir.as_os_str().to_owned(),
            None => LISTEN_ADDRESS.into(),
        };
        let mut psql = Command::new(self.binaries.psql());
        privilege::scrub(&mut psql);
        psql.env("PGPASSWORD", &self.password);
        psql.args([
            "-X",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-v",
            "VERBOSITY=verbose",
        ])
        .arg("-h")
        .arg(host)
        .args([
            "-p",
            &self.port.to_string(),
            "-U",
            SUPERUSER,
            "-d",
            "postgres",
        ])
        .args(["-c", sql]);
        psql
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        if let Err(error) = self.shutdown() {
            tracing::warn!(%error, data_dir = %self.data_dir.display(), "could not stop PostgreSQL");
            // Leave a temporary cluster to the guard, which stops it and removes the
            // directory when this process exits.
            if let Some(guard) = self.guard.take() {
                std::mem::forget(guard);
            }
            if let Some(temp) = self.temp.take() {
                let _ = temp.keep();
            }
        }
    }
}

fn valid_database_name(name: &str) -> bool {
    (1..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_names_are_checked() {
        assert!(valid_database_name("test_42"));
        assert!(valid_database_name(&"a".repeat(63)));
        assert!(!valid_database_name(&"a".repeat(64)));
        assert!(!valid_database_name(""));
        assert!(!valid_database_name("Caps"));
        assert!(!valid_database_name("x\"; DROP"));
    }
}
