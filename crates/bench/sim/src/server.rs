//! The two faces of a simulated server: [`Simulated`], the typed one each server implements,
//! and [`Server`], the object-safe one a run holds in a list.

use crate::capacity::Capacity;
use crate::error::{SeedError, ToolError};
use crate::rng::Rng;
use crate::template::Template;
use crate::tool::{ToolBox, ToolSpec};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt::Debug;

/// A simulated MCP server.
pub trait Simulated: Sized + Send + 'static {
    /// The server's name, the namespace of its tools and predicates (`filesystem`).
    const NAME: &'static str;
    /// The initial state a task gives the server (`initial_state.<NAME>`).
    type Seed: Serialize
        + DeserializeOwned
        + JsonSchema
        + Clone
        + Debug
        + PartialEq
        + Default
        + Send
        + Sync;
    /// The server's predicate atoms, an externally tagged enum whose variants are renamed to
    /// `<NAME>.<predicate>`.
    type Atom: Serialize + DeserializeOwned + JsonSchema + Clone + Debug + PartialEq;

    /// Builds the server in the given state; refuses a seed it cannot honour.
    fn from_seed(seed: &Self::Seed) -> Result<Self, SeedError>;
    /// An exact copy of the state: a run copies each server of the world its task's seed built
    /// on its first call there, which is much cheaper than building it again. Fails only where
    /// copying needs memory a limit refuses (postgres's engine).
    fn copy(&self) -> Result<Self, SeedError>;
    /// The tools, in listing order.
    fn toolbox() -> &'static ToolBox<Self>;
    /// Whether the atom is true of the current state.
    fn holds(&self, atom: &Self::Atom) -> bool;
    /// The whole state as canonical JSON: the same state gives the same value, always.
    fn snapshot(&self) -> Value;
    /// The template grammars of tasks that use this server alone.
    fn templates() -> Vec<Template<Self>>;
    /// The bounds on what one run's state may hold, each stated in the descriptions of the
    /// tools that fill it. None for a server whose state cannot grow past its seed.
    fn capacities() -> &'static [Capacity] {
        &[]
    }
    /// Whether each store's running total ([`Ledger`](crate::Ledger)) is what a fresh measure
    /// of the state says; an error naming the store that drifted. Debug builds check it after
    /// every call ([`Server::call`]); a server whose state cannot grow has nothing to check.
    fn audit(&self) -> Result<(), String> {
        Ok(())
    }
    /// Gives a task's seed the history a real account holds beside what the task is about (a
    /// mailbox's months of mail, a tracker's backlog, a shop's catalogue), drawn from `rng`.
    /// The seed keeps it compact (a seed and counts) and the server expands it when it is
    /// built, from names and topics no template uses. Nothing for a server whose templates
    /// already draw their worlds at scale.
    fn furnish(_seed: &mut Self::Seed, _rng: &mut Rng) {}
}

/// A server behind a pointer: what a run holds for each server of its task.
pub trait Server: Send {
    fn name(&self) -> &'static str;
    fn tools(&self) -> Vec<ToolSpec<'static>>;
    fn call(&mut self, tool: &str, args: &Value) -> Result<Value, ToolError>;
    fn snapshot(&self) -> Value;
}

impl<S: Simulated> Server for S {
    fn name(&self) -> &'static str {
        S::NAME
    }
    fn tools(&self) -> Vec<ToolSpec<'static>> {
        S::toolbox().specs().collect()
    }
    fn call(&mut self, tool: &str, args: &Value) -> Result<Value, ToolError> {
        let answer = S::toolbox().call(self, tool, args);
        // A write moves its store's total by what it changed, refused or not; any drift is a
        // server's bug, caught here by every test that calls a server (a read takes `&S`).
        #[cfg(debug_assertions)]
        if S::toolbox()
            .get(tool)
            .is_some_and(|t| t.effect == crate::tool::Effect::Write)
            && let Err(drift) = self.audit()
        {
            panic!("{}.{tool}: {drift}", S::NAME);
        }
        answer
    }
    fn snapshot(&self) -> Value {
        Simulated::snapshot(self)
    }
}
