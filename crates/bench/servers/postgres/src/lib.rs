//! `postgres`: a relational database behind the tool surface of the reference Postgres MCP
//! servers (the official server's read-only `query`; Postgres MCP Pro's `list_schemas`,
//! `list_objects`, `get_object_details`, `execute_sql`, `explain_query`; and the usual
//! conveniences such as `describe_table`, `list_indexes`, `create_index`, `count_rows`).
//!
//! State lives in a real embedded SQL engine: one in-memory SQLite database per run, built from
//! the seed's tables, rows, indexes and views. The engine parses and executes every statement;
//! nothing here interprets SQL text. Its rules, as an agent meets them:
//! - one schema, `public`; table names are written bare (`public.` is accepted by the tools
//!   that take a table name);
//! - `query` compiles each statement and refuses any the engine marks as not read-only
//!   (`permission_denied`); `execute_sql` runs anything inside the fence described in
//!   [`engine`](crate::engine), all statements of one call as one transaction;
//! - errors are typed from the engine's result codes: constraint violations (unique, foreign
//!   key, check, not null) are `conflict`, a missing table or column is `not_found`, syntax and
//!   other errors are `invalid_arguments` with the engine's message;
//! - results are deterministic: rows are arrays of JSON values under their column names, at
//!   most 100 per result (the answer says when it was cut), and the clock and random numbers
//!   come from the seed.
//!
//! A seed may carry a `background`: an audit log and a support queue of a few hundred rows
//! beside the task's tables, added when the database is built (`background.rs`).
//!
//! The snapshot holds every table's definition and all of its rows ordered by every column,
//! plus the definitions of indexes, views and triggers.

mod background;
mod catalog;
mod engine;
mod functions;
pub mod naming;
mod predicates;
pub mod sample;
mod state;
mod templates;
mod tools;

pub use background::Background;
pub use predicates::Atom;
pub use state::{
    ColumnSeed, DEFAULT_NOW, IndexSeed, OnDelete, Postgres, Reference, Seed, SqlType, TableSeed,
    ViewSeed,
};

use mcpbench_sim::{Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Postgres {
    const NAME: &'static str = "postgres";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Postgres::from_seed(seed)
    }
    fn copy(&self) -> Result<Self, SeedError> {
        Postgres::copy(self)
    }
    fn toolbox() -> &'static ToolBox<Self> {
        &tools::TOOLS
    }
    fn holds(&self, atom: &Atom) -> bool {
        atom.holds(self)
    }
    fn snapshot(&self) -> Value {
        Postgres::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}
