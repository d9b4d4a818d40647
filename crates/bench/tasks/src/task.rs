//! The task format (schemas/task.schema.json): the spec's fields verbatim, then our extensions.

use mcpbench_sim::{Category, Difficulty, Fault, Pred, Step};
use mcpbench_world::{Atom, Attack, InitialState, SERVERS, TaskBody, World, tool_spec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// One benchmark task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Unique id, lower-case words and digits joined by `-`; the file is `<id>.json`.
    #[schemars(
        regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"),
        length(min = 3, max = 80)
    )]
    pub id: String,
    /// The server the task is filed under in breakdowns; one of `servers`.
    pub server: String,
    /// Every server the task uses (extension).
    #[schemars(length(min = 1, max = 3))]
    pub servers: Vec<String>,
    /// Servers offered to the agent that the task does not need, with their whole catalogues
    /// (extension, benchmark version 2). Calls to their tools are recorded as distractor calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 3))]
    pub distractor_servers: Vec<String>,
    pub category: Category,
    pub difficulty: Difficulty,
    /// Tool calls allowed; one more fails the task's budget.
    #[schemars(range(min = 1, max = 100))]
    pub max_steps: u32,
    /// What the agent is asked to do, as a person would ask it.
    #[schemars(length(min = 1, max = 4000))]
    pub goal: String,
    pub initial_state: InitialState,
    /// Qualified names (`server.tool`) of the tools the agent is offered.
    #[schemars(length(min = 1, max = 256))]
    pub available_tools: Vec<String>,
    pub success_predicate: Pred<Atom>,
    /// Errors injected into the run (extension).
    #[serde(default)]
    pub faults: Vec<Fault>,
    /// Solutions that pass; never shown to agents (extension).
    #[serde(default)]
    pub reference_solutions: Vec<Vec<Step>>,
    /// The template and parameters the task was sampled from (extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<TemplateRef>,
    /// The attack planted in this task's world (extension, benchmark version 3): the task is
    /// in the security category's count, and its `initial_state` holds the plant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack: Option<Attack>,
    /// An attack its family drew with the task, which the generator plants in a twin of the
    /// task once it is dressed ([`crate::generate`]); never written.
    #[serde(skip)]
    #[schemars(skip)]
    pub unplanted: Option<Box<Attack>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateRef {
    pub id: String,
    pub params: BTreeMap<String, Value>,
}

fn valid_id(id: &str) -> bool {
    (3..=80).contains(&id.len())
        && id.split('-').all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

impl Task {
    /// The reference solution with the fewest calls (empty when there is none).
    pub fn shortest_reference(&self) -> &[Step] {
        self.reference_solutions
            .iter()
            .min_by_key(|r| r.iter().filter(|s| s.as_call().is_some()).count())
            .map_or(&[], Vec::as_slice)
    }

    /// Every server the agent is offered: the task's own and its distractors, in catalogue
    /// order, so a server's place says nothing about whether the task needs it.
    pub fn offered_servers(&self) -> Vec<String> {
        SERVERS
            .iter()
            .filter(|s| {
                self.servers
                    .iter()
                    .chain(&self.distractor_servers)
                    .any(|x| x == *s)
            })
            .map(|s| s.to_string())
            .collect()
    }

    /// The offered servers a verdict can depend on: the task's own and any a reference calls.
    /// A distractor's world cannot change whether a reference passes, so judging replays
    /// need not build it (an SQLite database for postgres, a history for most).
    pub fn touched_servers(&self) -> Vec<String> {
        self.offered_servers()
            .into_iter()
            .filter(|s| {
                self.servers.contains(s)
                    || self.reference_solutions.iter().flatten().any(|step| {
                        step.as_call()
                            .is_some_and(|c| c.tool.split_once('.').is_some_and(|(x, _)| x == s))
                    })
            })
            .collect()
    }

    /// Whether `server` is offered to the agent without the task needing it.
    pub fn is_distractor(&self, server: &str) -> bool {
        self.distractor_servers.iter().any(|s| s == server)
    }

    /// The tools (qualified) some reference solution calls.
    pub fn reference_tools(&self) -> std::collections::BTreeSet<&str> {
        self.reference_solutions
            .iter()
            .flatten()
            .filter_map(Step::as_call)
            .map(|c| c.tool.as_str())
            .collect()
    }

    /// How many of the tools shown to the agent no reference calls.
    pub fn unused_tools(&self) -> usize {
        let used = self.reference_tools();
        self.available_tools
            .iter()
            .filter(|t| !used.contains(t.as_str()))
            .count()
    }

    /// A task from a template's body, filed under `server` (one of the body's servers).
    pub fn from_body(id: String, server: &str, template: &str, body: TaskBody) -> Task {
        Task {
            id,
            server: server.to_string(),
            servers: body.servers,
            distractor_servers: Vec::new(),
            category: body.category,
            difficulty: body.difficulty,
            max_steps: body.max_steps,
            goal: body.goal,
            initial_state: body.initial_state,
            available_tools: body.available_tools,
            success_predicate: body.success_predicate,
            faults: body.faults,
            reference_solutions: body.reference_solutions,
            template: Some(TemplateRef {
                id: template.to_string(),
                params: body.params,
            }),
            attack: None,
            unplanted: body.attack.map(Box::new),
        }
    }

    /// Checks what types cannot: names that must exist, lists that must agree, a seed each
    /// server accepts. Each problem is `(field, message)`.
    pub fn validate(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut bad = |field: &str, msg: String| out.push((field.to_string(), msg));
        if !valid_id(&self.id) {
            bad(
                "id",
                format!(
                    "{:?} is not lower-case words and digits joined by '-' (3 to 80 characters)",
                    self.id
                ),
            );
        }
        if self.goal.trim().is_empty() {
            bad("goal", "is empty".into());
        }
        if !(1..=100).contains(&self.max_steps) {
            bad(
                "max_steps",
                format!("{} is outside 1..=100", self.max_steps),
            );
        }
        for (i, s) in self.servers.iter().enumerate() {
            if !SERVERS.contains(&s.as_str()) {
                bad(
                    &format!("servers[{i}]"),
                    format!("unknown server {s:?}; the servers are {SERVERS:?}"),
                );
            }
            if self.servers[..i].contains(s) {
                bad(&format!("servers[{i}]"), format!("{s:?} is listed twice"));
            }
        }
        if self.servers.is_empty() {
            bad("servers", "lists no server".into());
        }
        if self.distractor_servers.len() > 3 {
            bad(
                "distractor_servers",
                format!("lists {}; at most 3", self.distractor_servers.len()),
            );
        }
        for (i, s) in self.distractor_servers.iter().enumerate() {
            let field = format!("distractor_servers[{i}]");
            if !SERVERS.contains(&s.as_str()) {
                bad(
                    &field,
                    format!("unknown server {s:?}; the servers are {SERVERS:?}"),
                );
            } else if self.servers.contains(s) {
                bad(&field, format!("{s:?} is one of the task's servers"));
            } else if self.distractor_servers[..i].contains(s) {
                bad(&field, format!("{s:?} is listed twice"));
            }
        }
        let offered = self.offered_servers();
        if !self.servers.contains(&self.server) {
            bad(
                "server",
                format!("{:?} is not one of servers {:?}", self.server, self.servers),
            );
        }
        for s in self.initial_state.servers() {
            if !offered.iter().any(|x| x == s) {
                bad(
                    &format!("initial_state.{s}"),
                    format!("seeds {s}, which is in neither servers nor distractor_servers"),
                );
            }
        }
        for problem in self
            .success_predicate
            .answer_checks()
            .into_iter()
            .filter_map(|c| c.problem())
        {
            bad(
                "success_predicate",
                format!("an answer check is unusable: {problem}"),
            );
        }
        if self.available_tools.is_empty() {
            bad("available_tools", "lists no tool".into());
        }
        for (i, t) in self.available_tools.iter().enumerate() {
            let field = format!("available_tools[{i}]");
            match t.split_once('.') {
                Some((server, _)) if !offered.iter().any(|s| s == server) => bad(
                    &field,
                    format!(
                        "{t} belongs to {server}, which is in neither servers nor distractor_servers"
                    ),
                ),
                _ if tool_spec(t).is_none() => bad(&field, format!("no such tool {t:?}")),
                _ if self.available_tools[..i].contains(t) => {
                    bad(&field, format!("{t} is listed twice"))
                }
                _ => {}
            }
        }
        for atom in self.success_predicate.atoms() {
            if !self.servers.iter().any(|s| s == atom.server()) {
                bad(
                    "success_predicate",
                    format!("reads {}, which is not in servers", atom.server()),
                );
            }
        }
        for (i, f) in self.faults.iter().enumerate() {
            if !self.available_tools.contains(&f.tool) {
                bad(
                    &format!("faults[{i}].tool"),
                    format!("{} is not in available_tools", f.tool),
                );
            }
        }
        // Built to check the seeds, not kept (`World::new` keeps what runs will copy).
        if let Err(e) = World::build(&self.initial_state, &offered) {
            bad("initial_state", e.to_string());
        }
        if let Some(attack) = &self.attack {
            out.extend(crate::attack::problems(self, attack));
        }
        out
    }

    /// Whether the task asks for information (its predicate reads the final answer).
    pub fn is_answer_task(&self) -> bool {
        self.success_predicate.uses_answer()
    }
}
