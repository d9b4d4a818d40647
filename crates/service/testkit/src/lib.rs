//! What the service's tests share, so that each test binary does not build its own:
//!
//! * [`database`]: one throwaway PostgreSQL per test binary (started on first use, stopped
//!   when the binary exits) and a fresh migrated database per test.
//! * [`seed`]: the dev set's tasks, a vendor and submissions put in such a database, and
//!   waiting for a submission to end.
//! * [`loopback`]: free ports, a router served on loopback, a worker in process with its
//!   gateway on loopback.
//!
//! It is a dev-dependency only; nothing in a build of the service links it.

pub mod database;
pub mod loopback;
pub mod seed;

pub use database::{Database, cluster, database_url, fresh, pg_dump};
