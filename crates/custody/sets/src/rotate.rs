//! Monthly rotation: next month's set from this month's, about a quarter of it fresh.
//!
//! Which tasks leave is drawn from the rotation's secret seed, the exposed ones first (tasks sent
//! to a vendor's own machine, docs/data.md "Exposed tasks"); each leaving task is replaced by
//! a fresh task generated from the same seed, of the same server, category and difficulty when
//! the generator has one (else the nearest), so the set keeps its shape. Fresh tasks carry the
//! new month in their id (`...-202612`), so a task id names one task across all months. Every
//! fresh task passes the validity proof of `mcpbench tasks check` before the draft is stored.

use crate::{Custody, SetError, create_with, info, open_all};
use mcpbench_db::{PgPool, SetState, sets};
use mcpbench_sim::Rng;
use mcpbench_tasks::{
    GoalIndex, MAX_GOAL_SIMILARITY, Task, check_tasks, closest_goal, generate, generate_avoiding,
};
use std::collections::HashSet;

/// The rotation's result, in set order.
#[derive(Debug)]
pub struct RotationPlan {
    pub tasks: Vec<Task>,
    /// Whether the task at each position was kept from the previous set.
    pub kept: Vec<bool>,
}

/// What a stored rotation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    pub kept: usize,
    pub replaced: usize,
    /// How many of the replaced tasks had been exposed.
    pub exposed_replaced: usize,
}

/// The next set from `previous`: `round(n * replace)` tasks replaced, drawn by `seed`, the
/// tasks whose ids are in `exposed` first (all of them when they are no more than the share;
/// else the seed draws which). No fresh task repeats or comes near (see
/// [`MAX_GOAL_SIMILARITY`]) a goal of `avoid`: the goals held in clear when the rotation is
/// made, so a private month never asks what a public set has shown. The plan is a pure function
/// of its arguments: with the revealed `previous`, seed and exposed list and the goals then
/// public, anyone can redo it.
pub fn plan_rotation(
    previous: &[Task],
    seed: u64,
    replace: f64,
    new_set: &str,
    avoid: &[String],
    exposed: &[String],
) -> Result<RotationPlan, SetError> {
    let n = previous.len();
    if n < 4 {
        return Err(SetError::Invalid(format!(
            "a set of {n} tasks is too small to rotate (4 or more)"
        )));
    }
    if !(0.05..=0.5).contains(&replace) {
        return Err(SetError::Invalid(format!(
            "a rotation replaces 5% to 50% of the tasks, not {:.0}%",
            replace * 100.0
        )));
    }
    let leaving_count = ((n as f64 * replace).round() as usize).clamp(1, n - 1);
    let mut order: Vec<usize> = (0..n).collect();
    Rng::new(seed, u64::MAX).shuffle(&mut order);
    // The exposed tasks first, in the seed's order among themselves; then the rest in it.
    let exposed: HashSet<&str> = exposed.iter().map(String::as_str).collect();
    order.sort_by_key(|&i| !exposed.contains(previous[i].id.as_str()));
    let leaving: HashSet<usize> = order[..leaving_count].iter().copied().collect();

    let suffix = new_set.replace('-', "");
    // No fresh task repeats a goal of the previous month: not a kept one (the set would hold
    // it twice), nor a leaving one, which the previous month reveals when it retires while
    // this one is still live.
    let previous_goals: HashSet<&str> = previous.iter().map(|t| t.goal.as_str()).collect();
    let public = GoalIndex::new(avoid);
    let mut candidates: Vec<Option<Task>> = generate(seed, 3 * n)
        .into_iter()
        .filter(|t| !public.near(&t.goal, MAX_GOAL_SIMILARITY))
        .map(Some)
        .collect();
    let mut tasks = Vec::with_capacity(n);
    let mut kept = Vec::with_capacity(n);
    for (i, old) in previous.iter().enumerate() {
        if !leaving.contains(&i) {
            tasks.push(old.clone());
            kept.push(true);
            continue;
        }
        // The closest fresh task: same server, category and difficulty; then loosen.
        let fits: [&dyn Fn(&Task) -> bool; 4] = [
            &|t| {
                t.server == old.server
                    && t.category == old.category
                    && t.difficulty == old.difficulty
            },
            &|t| t.server == old.server && t.category == old.category,
            &|t| t.server == old.server,
            &|_| true,
        ];
        let pick = fits.iter().find_map(|fit| {
            candidates.iter().position(|c| {
                c.as_ref()
                    .is_some_and(|t| fit(t) && !previous_goals.contains(t.goal.as_str()))
            })
        });
        let Some(at) = pick else {
            return Err(SetError::Invalid(
                "the generator ran out of fresh tasks for this rotation".into(),
            ));
        };
        let mut fresh = candidates[at].take().expect("a candidate not taken yet");
        fresh.id = format!("{}-{suffix}", fresh.id);
        tasks.push(fresh);
        kept.push(false);
    }
    let fresh: Vec<Task> = tasks
        .iter()
        .zip(&kept)
        .filter(|(_, k)| !**k)
        .map(|(t, _)| t.clone())
        .collect();
    prove(&fresh)?;
    Ok(RotationPlan { tasks, kept })
}

/// The positions of the tasks that fail the validity proof of `mcpbench tasks check`.
pub(crate) fn prove_each(tasks: &[Task]) -> Vec<usize> {
    check_tasks(tasks)
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.problems.is_empty())
        .map(|(i, _)| i)
        .collect()
}

/// The validity proof of `mcpbench tasks check`: references pass, doing nothing fails,
/// mutants fail.
fn prove(tasks: &[Task]) -> Result<(), SetError> {
    match check_tasks(tasks)
        .into_iter()
        .find(|v| !v.problems.is_empty())
    {
        // The problems describe the task; they stay out of the error (an admin re-runs
        // `mcpbench tasks check` on the generator's output to read them).
        Some(bad) => Err(SetError::Invalid(format!(
            "fresh task {:?} fails its validity proof ({} problems): the generator is at fault",
            bad.id,
            bad.problems.len()
        ))),
        None => Ok(()),
    }
}

/// A secret seed from the operating system's generator.
pub fn secret_seed() -> u64 {
    let mut seed = [0u8; 8];
    getrandom::fill(&mut seed).expect("the operating system's random generator");
    u64::from_le_bytes(seed)
}

/// `count` fresh tasks for set `set` from `seed`, each proven valid, none of whose goals
/// repeats or comes near (see [`MAX_GOAL_SIMILARITY`]) a goal of `avoid` (the goals held in
/// clear, and a month's pool's); their ids carry the month (`...-202611`), so that no two
/// months share an id.
pub fn fresh_tasks(
    seed: u64,
    count: usize,
    set: &str,
    avoid: &[String],
) -> Result<Vec<Task>, SetError> {
    let suffix = set.replace('-', "");
    let mut tasks = generate_avoiding(seed, count, avoid);
    let goals: Vec<String> = tasks.iter().map(|t| t.goal.clone()).collect();
    let closest = closest_goal(&goals, avoid);
    if closest > MAX_GOAL_SIMILARITY {
        // Names no goal: the message may be shown, and the goals are private.
        return Err(SetError::Invalid(format!(
            "a generated goal comes too near one held in clear, sealed in another month or in \
             the pool (similarity {closest:.2}); generate again"
        )));
    }
    for t in &mut tasks {
        t.id = format!("{}-{suffix}", t.id);
    }
    prove(&tasks)?;
    Ok(tasks)
}

/// Creates a private draft of `count` tasks generated from a new secret seed, apart from
/// every goal in clear and every goal sealed in another private set. The seed is not kept:
/// the sealed tasks are the set.
pub async fn generate_draft(
    pool: &PgPool,
    custody: &Custody,
    id: &str,
    count: usize,
) -> Result<(), SetError> {
    if count == 0 || count > crate::MAX_TASKS {
        return Err(SetError::Invalid(format!(
            "a set holds 1 to {} tasks, not {count}",
            crate::MAX_TASKS
        )));
    }
    let keyring = custody.keyring()?;
    let set = id.to_string();
    // Apart from every goal in clear and every goal sealed in another month.
    let avoid = crate::Stored::read(pool, keyring).await?.goals();
    let tasks =
        tokio::task::spawn_blocking(move || fresh_tasks(secret_seed(), count, &set, &avoid))
            .await
            .expect("task generation does not panic")?;
    create_with(pool, custody, id, &tasks, false, None, None).await
}

/// The associated data a set's sealed rotation seed is bound to.
pub(crate) fn seed_place(set: &str) -> String {
    format!("task_sets/{set}/rotation_seed")
}

/// Rotates the active private set `from` into a new draft `to`, replacing `replace` of it.
/// The seed is kept sealed with the draft and revealed when `to` retires: with the revealed
/// `from` and the goals public at the time, anyone can redo [`plan_rotation`] and get `to`
/// exactly.
pub async fn rotate(
    pool: &PgPool,
    custody: &Custody,
    from: &str,
    to: &str,
    replace: f64,
) -> Result<Rotation, SetError> {
    let source = info(pool, from).await?;
    if source.public || source.state != SetState::Active {
        return Err(SetError::Conflict(format!(
            "set {from:?} is not a live private set; rotation starts from the active month"
        )));
    }
    let keyring = custody.keyring()?;
    let opened = open_all(pool, keyring, from).await?;
    let previous: Vec<Task> = opened
        .iter()
        .map(|(_, task, _)| serde_json::from_value(task.clone()))
        .collect::<Result<_, _>>()
        .map_err(|_| SetError::Invalid(format!("a task of set {from:?} no longer loads")))?;
    let public = sets::clear_goals(pool).await?;
    let exposed = mcpbench_db::exposures::exposed_ids(pool, from).await?;
    let seed = secret_seed();
    let next = to.to_string();
    let given = exposed.clone();
    let plan = tokio::task::spawn_blocking(move || {
        plan_rotation(&previous, seed, replace, &next, &public, &given)
    })
    .await
    .expect("a rotation plan does not panic")?;
    let first_sets: Vec<String> = plan
        .kept
        .iter()
        .enumerate()
        .map(|(i, kept)| {
            // A kept task keeps its position's history; positions do not move in a rotation.
            if *kept {
                opened[i].2.clone()
            } else {
                to.to_string()
            }
        })
        .collect();
    let sealed_seed = keyring.seal(&seed_place(to), &seed.to_le_bytes());
    create_with(
        pool,
        custody,
        to,
        &plan.tasks,
        false,
        Some(&first_sets),
        Some((from, replace, &sealed_seed, &exposed)),
    )
    .await?;
    let kept = plan.kept.iter().filter(|k| **k).count();
    let exposed_replaced = opened
        .iter()
        .zip(&plan.kept)
        .filter(|((_, task, _), kept)| {
            !**kept
                && task["id"]
                    .as_str()
                    .is_some_and(|id| exposed.iter().any(|e| e == id))
        })
        .count();
    Ok(Rotation {
        kept,
        replaced: plan.tasks.len() - kept,
        exposed_replaced,
    })
}
