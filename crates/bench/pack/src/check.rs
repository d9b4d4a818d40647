//! `mcpbench tasks check --pack DIR`: every family proven over many draws, each drawn task
//! dressed as the generator dresses it (distractor servers, backgrounds) and put through the
//! validity proof of `tasks check`: its references pass, doing nothing fails, its mutants
//! fail, and no strategy without skill passes it. A family with an attack gives each draw's
//! attacked twin too, proven as such and against its task.

use crate::pack::{LoadedFamily, Pack};
use mcpbench_sim::Rng;
use mcpbench_tasks::{TWIN_SUFFIX, Task, check_tasks, dress, plant_twin, twin_problems};
use mcpbench_world::AnyTemplate;
use serde::Serialize;
use std::collections::BTreeSet;

/// The most problems a family's report quotes (the count covers them all).
const QUOTED: usize = 5;

/// What proving one family found.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyReport {
    pub family: String,
    pub servers: Vec<String>,
    pub category: String,
    pub draws: usize,
    /// Draws that gave a task (the others failed, see `problems`).
    pub drawn: usize,
    /// Drawn tasks that passed the proof.
    pub valid: usize,
    pub mutants: usize,
    pub killed: usize,
    /// Distinct goals among the drawn tasks.
    pub distinct_goals: usize,
    /// Problems, each with the draw it came from (the first few).
    pub problems: Vec<String>,
    /// How many problems there were.
    pub problem_count: usize,
}

impl FamilyReport {
    pub fn ok(&self) -> bool {
        self.problem_count == 0
    }
}

/// What proving a pack found.
#[derive(Clone, Debug, Serialize)]
pub struct PackReport {
    pub pack: String,
    pub sha256: String,
    pub families: Vec<FamilyReport>,
}

impl PackReport {
    pub fn ok(&self) -> bool {
        self.families.iter().all(FamilyReport::ok)
    }
}

/// Proves every family of `pack` over `draws` draws from `seed` (draw `i` from the stream
/// `Rng::new(seed, i)`, dressed from a stream of its own).
pub fn check_pack(pack: &Pack, draws: usize, seed: u64) -> PackReport {
    check_families(pack, draws, seed, |_| true)
}

/// [`check_pack`] over the families `wanted` keeps.
pub fn check_families(
    pack: &Pack,
    draws: usize,
    seed: u64,
    wanted: impl Fn(&str) -> bool,
) -> PackReport {
    let distractors = crate::public_templates();
    PackReport {
        pack: pack.name.clone(),
        sha256: pack.sha256.clone(),
        families: pack
            .families
            .iter()
            .filter(|f| wanted(&f.family.id))
            .map(|f| check_family(f, draws, seed, distractors))
            .collect(),
    }
}

/// The tasks `draws` draws of `family` give, dressed (each followed by its attacked twin when
/// the family has an attack), with the failures of those that failed.
pub fn draw_tasks(
    family: &LoadedFamily,
    draws: usize,
    seed: u64,
    distractors: &[AnyTemplate],
) -> (Vec<Task>, Vec<String>) {
    let f = &family.family;
    let mut tasks = Vec::new();
    let mut failures = Vec::new();
    let name = f.id.replace(['.', '_'], "-");
    for i in 0..draws {
        match f.draw(&mut Rng::new(seed, i as u64)) {
            Ok(body) => {
                let id = format!("{name}-{i:04}");
                let mut task = Task::from_body(id, f.servers[0], &f.id, body);
                dress(
                    &mut task,
                    distractors,
                    &mut Rng::new(seed, i as u64 | (1 << 56)),
                );
                let twin = task.unplanted.take().map(|a| plant_twin(&task, &a));
                tasks.push(task);
                match twin {
                    Some(Ok(twin)) => tasks.push(twin),
                    Some(Err(e)) => failures.push(format!("draw {i}: its attack: {e}")),
                    None => {}
                }
            }
            Err(e) => failures.push(format!("draw {i}: {e}")),
        }
    }
    (tasks, failures)
}

fn check_family(
    family: &LoadedFamily,
    draws: usize,
    seed: u64,
    distractors: &[AnyTemplate],
) -> FamilyReport {
    let f = &family.family;
    let (tasks, mut problems) = draw_tasks(family, draws, seed, distractors);
    problems.extend(
        twin_problems(&tasks)
            .into_iter()
            .map(|p| format!("draw {p}")),
    );
    let mut valid = 0;
    let (mut mutants, mut killed) = (0, 0);
    for (task, verdict) in tasks.iter().zip(check_tasks(&tasks)) {
        mutants += verdict.mutants_total;
        killed += verdict.mutants_killed;
        if verdict.problems.is_empty() {
            valid += 1;
        }
        problems
            .extend((verdict.problems.iter()).map(|p| format!("draw {}: {p}", draw_of(&task.id))));
    }
    let goals: BTreeSet<&str> = tasks.iter().map(|t| t.goal.as_str()).collect();
    FamilyReport {
        family: f.id.clone(),
        servers: f.servers.iter().map(|s| s.to_string()).collect(),
        category: f.category.as_str().into(),
        draws,
        drawn: tasks.iter().filter(|t| t.attack.is_none()).count(),
        valid,
        mutants,
        killed,
        distinct_goals: goals.len(),
        problem_count: problems.len(),
        problems: problems.into_iter().take(QUOTED).collect(),
    }
}

/// The draw a task's id names (`name-0003`, or its twin `name-0003-attacked`), with a note for
/// a twin.
fn draw_of(id: &str) -> String {
    let (id, twin) = match id.strip_suffix(TWIN_SUFFIX) {
        Some(task) => (task, " (its attacked twin)"),
        None => (id, ""),
    };
    format!("{}{twin}", id.rsplit('-').next().unwrap_or(id))
}
