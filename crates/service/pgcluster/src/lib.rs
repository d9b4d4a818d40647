//! A throwaway local PostgreSQL cluster, started with the system's `initdb` and `pg_ctl`.
//!
//! `mcpbench up` keeps one in a persistent data directory ([`Cluster::start`]); tests start one
//! per test binary in a temporary directory ([`Cluster::start_temp`]) and create a database
//! per test ([`Cluster::create_database`]). There is no Rust Postgres client here: databases
//! are created with `psql`.
//!
//! # The cluster
//!
//! * `initdb -U mcpbench --auth=scram-sha-256 --pwfile=... --locale=C -E UTF8`: one superuser,
//!   `mcpbench`, with a random password kept in `mcpbench.password` in the data directory
//!   (0600), which the URLs carry. Any local user can reach a port on 127.0.0.1, so nobody
//!   gets in without that file. A cluster made by an older version with trust auth (no
//!   password file) is given a password and password auth at its next start.
//! * Port, addresses and durability are written to `mcpbench.conf` in the data directory at
//!   every start (see `settings`). A free port is chosen by binding port 0; if another
//!   process takes it before the server binds, the start is retried on a new one.
//! * Temporary clusters run with fsync, synchronous_commit and full_page_writes off and
//!   initdb `--no-sync`: a crash may corrupt them, which does not matter for throwaway data.
//! * `pg_ctl start -w` waits until the server accepts connections; its log goes to
//!   `mcpbench-server.log` in the data directory, and a failed start reports the new part.
//! * A stale `postmaster.pid` left by a killed run is cleared (see `pidfile`): PostgreSQL
//!   copes with a dead pid, but not with a zombie one, and in containers whose init reaps
//!   orphans late the killed postmaster stays a zombie for a while.
//! * If a server already runs in a persistent data directory, [`Cluster::start`] attaches to
//!   it and leaves it running on drop; [`Cluster::stop`] stops it either way.
//!
//! # Root
//!
//! `initdb` and `postgres` refuse to run as root (a server running as root would hand
//! superuser SQL access to the whole machine). CI and our containers run as root, so when the
//! effective uid is 0 the server tools run as the `postgres` system user created by Debian's
//! `postgresql` package, via `setpriv --reuid=postgres --regid=postgres --init-groups` (no
//! PAM session, unlike `runuser`; see `privilege`). The data directory (or the temporary
//! directory above it) is `chown`ed to that user, and every parent must be enterable by it:
//! /tmp is; /root is not, so a persistent data directory under /root fails with a clear error.
//! `psql` is a client and runs as ourselves. Without root, everything runs as ourselves.
//!
//! # Cleanup
//!
//! Dropping a cluster we started stops it (`pg_ctl stop -m fast`; a failure is logged) and
//! removes a temporary directory. A temporary cluster kept in a `static`, which is never
//! dropped, or one whose process is killed, is stopped and removed by a small watcher
//! process when its owner exits (see `guard`).

mod binaries;
mod cluster;
mod error;
mod exec;
mod guard;
mod pidfile;
mod privilege;
mod settings;

pub use cluster::{Cluster, Options};
pub use error::Error;
