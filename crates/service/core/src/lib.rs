//! The service's domain rules, kept apart from HTTP and from how the worker runs: the API's
//! routes and pages, its exports and archives, and the worker all ask here, so that each rule
//! is written once.
//!
//! * [`about`]: what a submission says of its model and agent, checked.
//! * [`board`]: a set's leaderboard, ranked, with the ranks each interval allows.
//! * [`disclosure`]: what a reader may see of a run, its record, its trace and what quotes
//!   its task, while the task is sealed and after.
//! * [`compare`]: two completed submissions on one set, head to head, as a typed view that
//!   shows only what the disclosure policy lets its reader see.
//! * [`results`]: a set's result matrix (every task in clear by every submission the reader
//!   may see), likewise.
//!
//! Its answers fail with [`CoreError`], which each face turns into its own error.

pub mod about;
pub mod board;
pub mod compare;
pub mod disclosure;
mod error;
pub mod results;

pub use error::CoreError;
