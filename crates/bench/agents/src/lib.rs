//! Reference agents, served over `mcpbench/1` like any vendor's agent so that they exercise
//! the whole path (signature, MCP endpoints, replies):
//!
//! - `oracle` replays the task's first reference solution through the MCP endpoints, as any
//!   MCP client would, and gives the reference's answer. It knows the tasks of its set and
//!   recognises a task by its goal. It should pass everything.
//! - `null` answers at once and calls nothing. It should pass nothing.
//! - `random` lists the tools and calls random ones with arguments drawn from their input
//!   schemas until the budget is spent. It is the floor a real agent must clear.
//! - `heuristic` lists the tools and plays [`mcpbench_heuristic::solve`]: tools picked by the
//!   words they share with the goal, arguments filled from the goal's values and from what it
//!   reads, no model. It stands for pattern matching without reasoning: it passes some easy
//!   single-tool tasks, and a set worth ranking on lets it pass at most 10%.
//! - `script` plays [`mcpbench_script::Script`]: a script written against the public families
//!   (their wordings as regular expressions, their references followed with what the goal and
//!   the answers show, blind retries). It shows what knowing the public generator buys: much
//!   of a public set, and almost nothing of a month drawn from families held out of it.
//!
//! Beside them, `llm` is the standard scaffold: a model behind any OpenAI-compatible
//! chat-completions endpoint, given every tool as a function.

mod chat;
mod client;
mod heuristic;
mod llm;
mod random;
mod server;

pub use chat::{LlmConfig, Prices, Usage};
pub use client::Revision;
pub use server::{AgentKind, llm_router, llm_router_with, router, serve, thinking_oracle};
