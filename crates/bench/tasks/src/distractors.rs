//! The same task with a chosen number of tools it does not need: the distractor curve
//! (docs/metrics.md, "Accuracy against distractor count").
//!
//! A variant offers the tools the task's references call, then the first `n` tools of one
//! fixed order: near-duplicates of the needed tools first (the most alike first), then the rest
//! of the task's own servers, then whole unrelated servers (the task's distractor servers, then
//! the others in catalogue order). Unrelated servers the task never seeded get their sample
//! world and a background history, drawn from a stream keyed on the task's id, so a server's
//! tools always act on a world that looks like any other and every level of a task meets the
//! same worlds.

use crate::similarity::jaccard;
use crate::task::Task;
use mcpbench_sim::Rng;
use mcpbench_world::{InitialState, SERVERS, catalog, sample_seed, split_tool};
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// A candidate tool at least this alike to a needed one is a near-duplicate.
pub const NEAR_DUPLICATE: f64 = 0.25;

/// How many tools a variant adds beyond the needed ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// At most this many (fewer when the catalogue runs out).
    Count(usize),
    /// Every tool of every server.
    All,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Count(n) => write!(f, "{n}"),
            Level::All => f.write_str("all"),
        }
    }
}

impl FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "all" => Ok(Level::All),
            n => match n.parse::<usize>() {
                Ok(n) if n <= 1000 => Ok(Level::Count(n)),
                _ => Err(format!(
                    "{s:?} is not a distractor level (a count of tools from 0 to 1000, or \"all\")"
                )),
            },
        }
    }
}

/// A comma-separated list of levels (`0,5,10,20,all`), in order and without repeats.
pub fn parse_levels(s: &str) -> Result<Vec<Level>, String> {
    let mut levels = s
        .split(',')
        .map(str::parse)
        .collect::<Result<Vec<Level>, String>>()?;
    levels.sort();
    levels.dedup();
    if levels.is_empty() || levels.len() > 12 {
        return Err(format!("{s:?}: give 1 to 12 levels, such as 0,5,10,20,all"));
    }
    Ok(levels)
}

/// The task with its needed tools and `level` more, everything else the same (its id too, so
/// its runs at every level are the same task's).
pub fn with_distractors(task: &Task, level: Level) -> Task {
    let extra = extra_tools(task);
    let take = match level {
        Level::Count(n) => n.min(extra.len()),
        Level::All => extra.len(),
    };
    let offered: BTreeSet<&str> = task
        .reference_tools()
        .into_iter()
        .chain(extra[..take].iter().map(|(t, _)| t.as_str()))
        .collect();
    let mut out = task.clone();
    out.available_tools = every_tool()
        .filter(|t| offered.contains(t.as_str()))
        .collect();
    let unrelated: Vec<String> = SERVERS
        .iter()
        .filter(|s| !task.servers.iter().any(|x| x == *s))
        .filter(|s| {
            offered
                .iter()
                .any(|t| split_tool(t).is_some_and(|(x, _)| x == **s))
        })
        .map(|s| s.to_string())
        .collect();
    for server in &unrelated {
        if !task.is_distractor(server) {
            seed_unrelated(&mut out, server);
        }
    }
    out.distractor_servers = unrelated;
    out
}

/// Why a tool stands where it does in the order of extra tools.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Extra {
    /// At least [`NEAR_DUPLICATE`] alike to a needed tool (the likeness).
    NearDuplicate(f64),
    /// Another tool of one of the task's own servers.
    OwnServer,
    /// A tool of a server the task does not need.
    Unrelated,
}

/// Every tool a variant can add, in the order levels take them: near-duplicates (most alike
/// first, ties in catalogue order), the rest of the own servers, then unrelated servers whole
/// (the task's distractor servers first, then the others in catalogue order).
pub fn extra_tools(task: &Task) -> Vec<(String, Extra)> {
    let needed: Vec<BTreeSet<String>> = task.reference_tools().into_iter().map(words).collect();
    let likeness = |tool: &str| {
        let w = words(tool);
        needed
            .iter()
            .map(|n| jaccard(&w, n))
            .fold(0.0_f64, f64::max)
    };
    let used = task.reference_tools();
    let all: Vec<String> = every_tool()
        .filter(|t| !used.contains(t.as_str()))
        .collect();
    let mut order: Vec<(String, Extra)> = all
        .iter()
        .map(|t| (t.clone(), Extra::NearDuplicate(likeness(t))))
        .filter(|(_, e)| matches!(e, Extra::NearDuplicate(l) if *l >= NEAR_DUPLICATE))
        .collect();
    let alike = |e: &Extra| match e {
        Extra::NearDuplicate(l) => *l,
        _ => 0.0,
    };
    // Most alike first; ties keep catalogue order (the sort is stable).
    order.sort_by(|a, b| alike(&b.1).total_cmp(&alike(&a.1)));
    let server_of = |t: &str| split_tool(t).map_or("", |(s, _)| s).to_string();
    let rest: Vec<String> = all
        .into_iter()
        .filter(|t| !order.iter().any(|(o, _)| o == t))
        .collect();
    order.extend(
        rest.iter()
            .filter(|t| task.servers.contains(&server_of(t)))
            .map(|t| (t.clone(), Extra::OwnServer)),
    );
    let unrelated = task.distractor_servers.iter().map(String::as_str).chain(
        SERVERS
            .iter()
            .copied()
            .filter(|s| !task.servers.iter().any(|x| x == s) && !task.is_distractor(s)),
    );
    for server in unrelated {
        order.extend(
            rest.iter()
                .filter(|t| server_of(t) == server)
                .map(|t| (t.clone(), Extra::Unrelated)),
        );
    }
    order
}

/// Every tool of every server, qualified, in catalogue order.
fn every_tool() -> impl Iterator<Item = String> {
    mcpbench_world::qualified_tools(SERVERS.iter().copied()).into_iter()
}

const STOP: [&str; 16] = [
    "the", "and", "for", "with", "from", "that", "this", "are", "its", "one", "all", "any", "not",
    "but", "into", "was",
];

/// A tool's words: its server, its name's words and its description's words of 3 letters or
/// more, lower-cased, less the commonest.
fn words(qualified: &str) -> BTreeSet<String> {
    let Some((server, name)) = split_tool(qualified) else {
        return BTreeSet::new();
    };
    let description = catalog(server)
        .unwrap_or_default()
        .into_iter()
        .find(|t| t.name == name)
        .map_or("", |t| t.description);
    std::iter::once(server)
        .chain(name.split('_'))
        .chain(description.split(|c: char| !c.is_alphanumeric()))
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .collect()
}

/// Gives `server` its sample world and its background history (the world the families build
/// on, so it looks like any other server's), drawn from a stream keyed on the task's id and the
/// server.
fn seed_unrelated(task: &mut Task, server: &str) {
    let key = task
        .id
        .bytes()
        .chain(server.bytes())
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
    let mut rng = Rng::new(key, 7);
    let Ok(seed) = sample_seed(server, &mut rng) else {
        return;
    };
    let Ok(mut state) = serde_json::from_value::<InitialState>(serde_json::json!({ server: seed }))
    else {
        return;
    };
    state.furnish(&mut rng);
    task.initial_state.take_server(server, state);
}
