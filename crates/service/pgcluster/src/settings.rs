//! The server settings we own: a `mcpbench.conf` beside `postgresql.conf`, included from it
//! and rewritten at every start.
//!
//! Settings live in a file rather than on the `pg_ctl -o` command line because `pg_ctl`
//! hands `-o` to `/bin/sh`, so paths would need shell quoting, and because the data directory
//! then describes itself: a plain `pg_ctl start -D <dir>` brings it up the same way.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::Error;
use crate::privilege::RunAs;

pub(crate) const FILE_NAME: &str = "mcpbench.conf";
const INCLUDE_LINE: &str = "include_if_exists 'mcpbench.conf'";

/// The longest unix socket path PostgreSQL accepts (sizeof sun_path minus the NUL).
const MAX_SOCKET_PATH: usize = 107;
/// The longest socket file name a port can give.
const SOCKET_FILE: &str = "/.s.PGSQL.65535";

/// What one start of the server is configured with.
#[derive(Debug, Clone)]
pub(crate) struct Settings<'a> {
    pub(crate) port: u16,
    pub(crate) listen_address: &'a str,
    /// `None` turns unix sockets off.
    pub(crate) socket_dir: Option<&'a Path>,
    pub(crate) durable: bool,
}

impl Settings<'_> {
    fn render(&self) -> String {
        let socket_dir = self
            .socket_dir
            .map(|dir| dir.to_string_lossy())
            .unwrap_or_default();
        let durability = if self.durable { "on" } else { "off" };
        format!(
            "# Written by mcpbench-pgcluster at every start; edits here are overwritten.\n\
             port = {port}\n\
             listen_addresses = {listen}\n\
             unix_socket_directories = {socket_dir}\n\
             fsync = {durability}\n\
             synchronous_commit = {durability}\n\
             full_page_writes = {durability}\n",
            port = self.port,
            listen = quote(self.listen_address),
            socket_dir = quote(&socket_dir),
        )
    }

    /// Writes `mcpbench.conf` into `data_dir`, owned by whoever runs the server.
    pub(crate) fn write(&self, data_dir: &Path, run_as: &RunAs) -> Result<(), Error> {
        let path = data_dir.join(FILE_NAME);
        std::fs::write(&path, self.render())
            .map_err(Error::io(format!("could not write {}", path.display())))?;
        run_as.hand_over(&path)
    }
}

/// The data directory itself when a socket path inside it fits, else `None` (TCP only).
pub(crate) fn socket_dir_for(data_dir: &Path) -> Option<PathBuf> {
    let fits = data_dir.as_os_str().len() + SOCKET_FILE.len() <= MAX_SOCKET_PATH;
    if !fits {
        tracing::info!(
            data_dir = %data_dir.display(),
            "data directory path too long for a unix socket; using TCP only"
        );
    }
    fits.then(|| data_dir.to_path_buf())
}

/// Makes `postgresql.conf` include `mcpbench.conf` (last, so our settings win).
pub(crate) fn ensure_included(data_dir: &Path) -> Result<(), Error> {
    let path = data_dir.join("postgresql.conf");
    let text = std::fs::read_to_string(&path)
        .map_err(Error::io(format!("could not read {}", path.display())))?;
    if text.lines().any(|line| line.trim() == INCLUDE_LINE) {
        return Ok(());
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(Error::io(format!("could not open {}", path.display())))?;
    writeln!(
        file,
        "\n# Added by mcpbench-pgcluster: port, addresses and durability.\n{INCLUDE_LINE}"
    )
    .map_err(Error::io(format!("could not append to {}", path.display())))
}

/// A postgresql.conf string literal: single quotes doubled, backslashes escaped.
fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\\', "\\\\").replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_config_strings() {
        assert_eq!(quote("/tmp/it's"), "'/tmp/it''s'");
        assert_eq!(quote(r"a\b"), r"'a\\b'");
    }

    #[test]
    fn renders_durability_and_a_disabled_socket() {
        let settings = Settings {
            port: 5433,
            listen_address: "127.0.0.1",
            socket_dir: None,
            durable: false,
        };
        let text = settings.render();
        assert!(text.contains("port = 5433\n"));
        assert!(text.contains("unix_socket_directories = ''\n"));
        assert!(text.contains("fsync = off\n"));
        assert!(text.contains("full_page_writes = off\n"));
    }

    #[test]
    fn long_paths_get_no_socket() {
        assert!(socket_dir_for(Path::new("/tmp/mcpbench-pg-abc/data")).is_some());
        let long = PathBuf::from(format!("/{}", "x".repeat(100)));
        assert_eq!(socket_dir_for(&long), None);
    }
}
