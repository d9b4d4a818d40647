//! The one error type of the crate.

use std::io;
use std::path::PathBuf;

/// Why a cluster could not be started, used or stopped.
///
/// Command failures carry the command line, its exit status and the tail of what it (or the
/// server log) printed, so the cause is visible without digging through the data directory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No directory holding both `initdb` and `pg_ctl` was found.
    #[error(
        "PostgreSQL server binaries (initdb, pg_ctl) not found; looked at: {searched}. \
         Install Debian's `postgresql` package (apt-get install postgresql)"
    )]
    BinariesNotFound { searched: String },

    /// We run as root, PostgreSQL refuses to, and there is no `postgres` user to switch to.
    #[error(
        "running as root, but PostgreSQL refuses to run as root and there is no `postgres` \
         system user to run it as; install Debian's `postgresql` package (it creates that user) \
         or run as a normal user"
    )]
    NoPostgresUser,

    /// A parent of the data directory cannot be entered by the `postgres` user.
    #[error(
        "the `postgres` user cannot enter {path} (it needs o+x, or to own it); \
         choose a data directory elsewhere or run `chmod o+x {path}`",
        path = path.display()
    )]
    NotTraversable { path: PathBuf },

    /// The directory has files in it but is not a PostgreSQL data directory.
    #[error(
        "{path} is not empty and is not a PostgreSQL data directory (no PG_VERSION); \
         refusing to initdb over it",
        path = path.display()
    )]
    NotADataDir { path: PathBuf },

    /// A database name outside `[a-z0-9_]{1,63}`.
    #[error("invalid database name {name:?}: use 1 to 63 characters of [a-z0-9_]")]
    InvalidDatabaseName { name: String },

    /// `create_database` was asked for a database that is already there.
    #[error("database {name:?} already exists")]
    DatabaseExists { name: String },

    /// An external command (initdb, pg_ctl, psql) ran and failed.
    #[error("`{command}` failed ({status}):\n{output}")]
    Command {
        command: String,
        status: String,
        /// The last lines of its stderr (or stdout), and of the server log where relevant.
        output: String,
    },

    /// A file system operation or a process spawn failed.
    #[error("{context}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
}

impl Error {
    /// A closure for `map_err` that wraps an `io::Error` with what we were doing.
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}
