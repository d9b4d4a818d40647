//! The building blocks every simulated MCP server of MCPBench is made of.
//!
//! A simulated server is a plain Rust value holding its state (files, issues, rows, ...) that
//! implements [`Simulated`]: it is built from a task's seed state, answers tool calls through a
//! [`ToolBox`] (JSON Schema validation first, then a typed handler), evaluates its own
//! predicate atoms on its final state, and offers the template grammars the generator samples
//! tasks from. Everything here is deterministic: no clock, no ambient randomness, no I/O. The
//! same calls on the same seed produce the same bytes, which is what makes scores reproducible.

mod args;
mod capacity;
mod error;
mod page;
mod pred;
mod rng;
mod server;
mod step;
mod template;
mod tool;

pub use capacity::{Capacity, Ledger, Usage, footprint};
pub use error::{ErrorKind, SeedError, ToolError};
pub use page::{Page, page, token_for};
pub use pred::{AnswerCheck, Pred, contains_phrase, normalize_answer};
pub use rng::Rng;
pub use server::{Server, Simulated};
pub use step::{Call, Category, Difficulty, Fault, Step};
pub use template::{Draft, Ids, Kit, Template, atom, call, not, params, qualified};
pub use tool::{Effect, Tool, ToolBox, ToolSpec, schema_of};

pub mod background;
pub mod conformance;
pub mod dates;
pub mod verify;
