//! Long rounds across two servers, where every write depends on something read elsewhere:
//!
//! - `compose.rain_check` (calendar + weather, [`rain_check`]): each outdoor plan of the next
//!   days is checked against the forecast for its own city and day; the rainy ones are renamed
//!   or moved.
//! - `compose.team_directory` (filesystem + memory, [`team_directory`]): the profiles of one
//!   department's current members are read from a directory tree and noted in the knowledge
//!   graph the way another department's people already are.
//!
//! Each is also a recovery template (`*_after_fault`): the same work with a transient error in
//! its middle, which the reference gets past by repeating the failed call. This file holds
//! what the two share: the task's assembly, goal slots, the transient faults and retries.

mod rain_check;
mod team_directory;

use super::fill;
use mcpbench_sim::{Category, Difficulty, ErrorKind, Fault, Pred, Rng, Step};
use mcpbench_world::{AnyTemplate, Atom, Composed, InitialState};
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) fn templates() -> Vec<AnyTemplate> {
    use Category::{Composition, Recovery};
    let hard = |id, servers: [&'static str; 2], category, build| {
        AnyTemplate::new(id, servers.to_vec(), category, Difficulty::Hard, build)
    };
    let (rain, team) = (["calendar", "weather"], ["filesystem", "memory"]);
    vec![
        hard("compose.rain_check", rain, Composition, rain_check::plain),
        hard(
            "compose.rain_check_after_fault",
            rain,
            Recovery,
            rain_check::after_fault,
        ),
        hard(
            "compose.team_directory",
            team,
            Composition,
            team_directory::plain,
        ),
        hard(
            "compose.team_directory_after_fault",
            team,
            Recovery,
            team_directory::after_fault,
        ),
    ]
}

/// A task whose reference is `steps`, with room for six calls more.
fn composed(
    goal: String,
    initial_state: InitialState,
    tools: &[&str],
    checks: Vec<Pred<Atom>>,
    faults: Vec<Fault>,
    steps: Vec<Step>,
    params: BTreeMap<String, Value>,
) -> Composed {
    Composed {
        max_steps: steps.len() as u32 + 6,
        goal,
        initial_state,
        available_tools: tools.iter().map(|t| t.to_string()).collect(),
        success_predicate: Pred::All(checks),
        faults,
        reference_solutions: vec![steps],
        params,
    }
}

/// The transient errors a backend gives, with the cause it words.
#[rustfmt::skip]
const TRANSIENT: [(ErrorKind, &str); 3] = [
    (ErrorKind::RateLimited, "429 Too Many Requests: rate limit exceeded"),
    (ErrorKind::Unavailable, "503 Service Unavailable: the backend is restarting"),
    (ErrorKind::Timeout, "deadline exceeded after 30 s waiting for the backend"),
];

/// A transient error on the `on_call`-th call of `tool`; `what` says what did not happen.
fn transient(rng: &mut Rng, tool: &str, on_call: u32, what: &str) -> Fault {
    let (error, cause) = *rng.pick(&TRANSIENT);
    let message = format!("{cause}; {what}, retrying is safe");
    Fault {
        tool: tool.into(),
        on_call,
        times: 1,
        error,
        message,
        landed: false,
    }
}

/// Repeats the step at `at` right after it: the retry of a call that failed.
fn retry(steps: &mut Vec<Step>, at: usize) {
    steps.insert(at + 1, steps[at].clone());
}
