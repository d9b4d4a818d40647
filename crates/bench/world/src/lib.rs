//! The ten simulated servers as one benchmark world.
//!
//! One macro invocation below lists every server once; from that list come the task format's
//! `initial_state` object, the union of all predicate atoms (dispatched on the server prefix of
//! their name, so `{"github.prMerged": ...}` is parsed by the github crate), the tool catalogue,
//! and [`World`], the set of live servers of one run. Adding a server is one line here.
//! `cache.rs` keeps each seed's built world, which later runs copy.

pub mod attack;
mod cache;
mod macros;
mod samples;
mod slot;
mod template;

pub use attack::{Attack, AttackKind, Plant};
pub use cache::{CAPACITY, cached_worlds};
pub use samples::{call_on_seed, sample_seed};
pub use template::{AnyTemplate, Build, Composed, TaskBody};

pub(crate) use slot::Slot;

use mcpbench_sim::{SeedError, ToolError, ToolSpec};
use serde_json::Value;

servers! {
    filesystem("fs"): mcpbench_server_filesystem::Filesystem,
    github("gh"): mcpbench_server_github::Github,
    postgres("pg"): mcpbench_server_postgres::Postgres,
    slack("chat"): mcpbench_server_slack::Slack,
    calendar("cal"): mcpbench_server_calendar::Calendar,
    email("mail"): mcpbench_server_email::Email,
    tracker("trk"): mcpbench_server_tracker::Tracker,
    shop("shop"): mcpbench_server_shop::Shop,
    memory("mem"): mcpbench_server_memory::Memory,
    weather("wx"): mcpbench_server_weather::Weather,
}

/// Splits `server.tool` into its two parts.
pub fn split_tool(qualified: &str) -> Option<(&str, &str)> {
    qualified.split_once('.')
}

/// The spec of a qualified tool (`filesystem.move_file`), if it exists.
pub fn tool_spec(qualified: &str) -> Option<ToolSpec<'static>> {
    let (server, tool) = split_tool(qualified)?;
    catalog(server)?.into_iter().find(|t| t.name == tool)
}

/// Every tool of `servers`, qualified (`server.tool`), server by server in catalogue order;
/// an unknown server has none.
pub fn qualified_tools<'a>(servers: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    servers
        .into_iter()
        .flat_map(|s| {
            catalog(s)
                .unwrap_or_default()
                .into_iter()
                .map(move |t| format!("{s}.{}", t.name))
        })
        .collect()
}

/// Checks a call's arguments against the tool's input schema.
pub fn check_arguments(qualified: &str, args: &Value) -> Result<(), ToolError> {
    let (server, tool) = split_tool(qualified).ok_or_else(|| {
        ToolError::not_found(format!(
            "{qualified} is not a qualified tool name (server.tool)"
        ))
    })?;
    validate(server, tool, args)
}

impl World {
    /// Calls a qualified tool on the matching server of this world.
    pub fn call(&mut self, qualified: &str, args: &Value) -> Result<Value, ToolError> {
        let (server, tool) = split_tool(qualified)
            .ok_or_else(|| ToolError::not_found(format!("no tool named {qualified}")))?;
        self.call_server(server, tool, args)
    }

    /// The state of every server, keyed by server name.
    pub fn snapshot(&self) -> Value {
        let mut map = serde_json::Map::new();
        for name in SERVERS {
            if let Some(state) = self.server_snapshot(name) {
                map.insert((*name).to_string(), state);
            }
        }
        Value::Object(map)
    }
}

/// Why a world could not be built.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    #[error("unknown server {0:?}; the servers are {SERVERS:?}")]
    UnknownServer(String),
    #[error(transparent)]
    Seed(#[from] SeedError),
}
