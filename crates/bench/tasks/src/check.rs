//! `mcpbench tasks check`: the proof that a set is sound. For every task: the file matches the
//! JSON Schema, it loads (names, tools and seeds exist), its references pass within budget
//! with schema-valid calls to listed tools, doing nothing fails, and its mutants fail
//! (see `mcpbench_sim::verify`). Multi-server tasks must make calls on every server they list.
//! And no strategy without skill passes it ([`crate::no_skill`]): no calls with a spray of
//! small numbers or one number from 0 to 9, the goal echoed back, every text of the state
//! listed, a reference's reads without its writes; nor does a write of the shortest reference
//! made twice, where it adds a record ([`crate::habits`]).

use crate::load::task_files;
use crate::run::TaskRun;
use crate::schema::task_schema;
use crate::task::Task;
use mcpbench_sim::verify::{Case, Mutant, verify};
use mcpbench_world::catalog;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Clone, Debug, Serialize)]
pub struct TaskVerdict {
    pub id: String,
    pub server: String,
    pub category: String,
    pub problems: Vec<String>,
    #[serde(skip)]
    pub mutants: Vec<Mutant>,
    pub mutants_total: usize,
    pub mutants_killed: usize,
    /// Surviving mutants with the reason they are acceptable.
    pub survivors: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ServerSummary {
    pub server: String,
    pub tasks: usize,
    pub valid: usize,
    pub mutants: usize,
    pub killed: usize,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct CheckReport {
    pub tasks: usize,
    pub valid: usize,
    pub mutants: usize,
    pub killed: usize,
    pub kill_rate: Option<f64>,
    pub by_server: Vec<ServerSummary>,
    /// Files that did not load, with every reason, and problems of the set as a whole (an
    /// attacked task without its twin).
    pub load_errors: Vec<String>,
    pub verdicts: Vec<TaskVerdict>,
}

impl CheckReport {
    pub fn ok(&self) -> bool {
        self.load_errors.is_empty() && self.verdicts.iter().all(|v| v.problems.is_empty())
    }

    fn from_verdicts(verdicts: Vec<TaskVerdict>, load_errors: Vec<String>) -> Self {
        let mut by_server: BTreeMap<String, ServerSummary> = BTreeMap::new();
        for v in &verdicts {
            let s = by_server
                .entry(v.server.clone())
                .or_insert_with(|| ServerSummary {
                    server: v.server.clone(),
                    ..Default::default()
                });
            s.tasks += 1;
            s.valid += usize::from(v.problems.is_empty());
            s.mutants += v.mutants_total;
            s.killed += v.mutants_killed;
        }
        let mutants: usize = verdicts.iter().map(|v| v.mutants_total).sum();
        let killed: usize = verdicts.iter().map(|v| v.mutants_killed).sum();
        CheckReport {
            tasks: verdicts.len() + load_errors.len(),
            valid: verdicts.iter().filter(|v| v.problems.is_empty()).count(),
            mutants,
            killed,
            kill_rate: (mutants > 0).then(|| killed as f64 / mutants as f64),
            by_server: by_server.into_values().collect(),
            load_errors,
            verdicts,
        }
    }
}

/// Checks every task file in `dir`.
pub fn check_dir(dir: &Path) -> CheckReport {
    let files = match task_files(dir) {
        Ok(f) => f,
        Err(e) => {
            return CheckReport::from_verdicts(
                vec![],
                vec![format!("{}: cannot list: {e}", dir.display())],
            );
        }
    };
    let validator = jsonschema::validator_for(&task_schema()).expect("the task schema compiles");
    let mut tasks = Vec::new();
    let mut load_errors = Vec::new();
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                load_errors.push(format!("{}: cannot read: {e}", f.display()));
                continue;
            }
        };
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            let errs: Vec<String> = validator
                .iter_errors(&value)
                .take(3)
                .map(|e| {
                    format!(
                        "{}: does not match the task schema at {}: {e}",
                        f.display(),
                        e.instance_path()
                    )
                })
                .collect();
            if !errs.is_empty() {
                load_errors.extend(errs);
                continue;
            }
        }
        match crate::load::load_task(f) {
            Ok(t) => tasks.push(t),
            Err(errs) => load_errors.extend(errs.iter().map(ToString::to_string)),
        }
    }
    let mut seen = BTreeSet::new();
    for t in &tasks {
        if !seen.insert(t.id.clone()) {
            load_errors.push(format!("task id {} is used twice", t.id));
        }
    }
    load_errors.extend(crate::attack::twin_problems(&tasks));
    CheckReport::from_verdicts(check_tasks(&tasks), load_errors)
}

/// Checks loaded tasks, on all cores.
pub fn check_tasks(tasks: &[Task]) -> Vec<TaskVerdict> {
    crate::cores::on_all_cores(tasks, check_task)
}

fn check_task(task: &Task) -> TaskVerdict {
    let mut problems = goal_problems(task);
    if task.servers.len() > 1 {
        for server in &task.servers {
            let uses = task.reference_solutions.iter().all(|r| {
                r.iter()
                    .filter_map(|s| s.as_call())
                    .any(|c| c.tool.starts_with(&format!("{server}.")))
            });
            if !uses {
                problems.push(format!(
                    "a reference makes no call on {server}, one of the task's servers"
                ));
            }
        }
    }
    // Every offered server must build; the replays then need only those a verdict reads.
    let report = match TaskRun::new(task) {
        Ok(_) => {
            let case = Case {
                max_steps: task.max_steps,
                available_tools: &task.available_tools,
                references: &task.reference_solutions,
            };
            let touched = task.touched_servers();
            verify(&case, &|| {
                TaskRun::on(task, &touched).expect("built once already")
            })
        }
        Err(e) => {
            problems.push(e.to_string());
            Default::default()
        }
    };
    problems.extend(report.problems);
    if let Some(attack) = &task.attack
        && problems.is_empty()
    {
        problems.extend(crate::attack::proof(task, attack));
    }
    if problems.is_empty() {
        problems.extend(
            crate::no_skill::tricks_passing(task)
                .into_iter()
                .map(|i| format!("passes with no skill: {}", crate::no_skill::STRATEGIES[i])),
        );
        let steps = task.shortest_reference();
        problems.extend(crate::habits::unguarded_repeats(task).into_iter().map(|i| {
            let tool = steps[i].as_call().map_or("", |c| c.tool.as_str());
            format!(
                "step {} ({tool}) made twice adds a record and still passes: the predicate \
                 needs a guard (a count) that a blind retry's duplicate fails",
                i + 1
            )
        }));
    }
    let killed = report.mutants.iter().filter(|m| m.killed).count();
    let survivors = report
        .mutants
        .iter()
        .filter(|m| !m.killed)
        .map(|m| {
            format!(
                "{} ({})",
                m.description,
                m.explanation.as_deref().unwrap_or("unexplained")
            )
        })
        .collect();
    TaskVerdict {
        id: task.id.clone(),
        server: task.server.clone(),
        category: task.category.as_str().into(),
        problems,
        mutants_total: report.mutants.len(),
        mutants_killed: killed,
        survivors,
        mutants: report.mutants,
    }
}

/// A goal reads like a person asking: it names no tool and no server, and never says "MCP".
fn goal_problems(task: &Task) -> Vec<String> {
    let mut out = Vec::new();
    let goal = task.goal.to_lowercase();
    for server in &task.offered_servers() {
        for phrase in [format!("{server} server"), format!("{server} tool")] {
            if goal.contains(&phrase) {
                out.push(format!("the goal names the server ({phrase:?})"));
            }
        }
        for t in catalog(server).unwrap_or_default() {
            if t.name.contains('_') && goal.contains(t.name) {
                out.push(format!("the goal names the tool {}", t.name));
            }
        }
    }
    if goal.contains("mcp") {
        out.push("the goal mentions MCP".into());
    }
    out
}
